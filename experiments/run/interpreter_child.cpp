#include "experiments/run/interpreter_child.hpp"

#include "core/workload.hpp"
#include "experiments/run/child_record.hpp"

namespace parlab {

using nlohmann::json;

json measure_in_child(const InterpreterMode& mode, const json& spec, std::size_t index, double timeout_s) {
  ChildJob job;
  job.argv = {mode.parlab, "measure-spec"};
  job.set_env = gil_env(mode.python_gil);
  job.what = "the child parlab (" + mode.describe() + ")";
  job.fields = {{"kind", to_string(BackendKind::python)}, {"interpreter", mode.interpreter}, {"python_build", mode.python_build}};
  if (!mode.python_gil.empty()) job.fields["python_gil"] = mode.python_gil;
  job.timeout_s = timeout_s;
  json rec = measure_in_child_process(job, spec, index);
  if (rec.is_object() && rec.value("status", "") != "error") {
    // The plan entry's own fields, as the parent planned them.
    rec["interpreter"] = rec.value("interpreter", mode.interpreter);
    if (!mode.python_gil.empty()) rec["python_gil"] = mode.python_gil;
  }
  return rec;
}

}  // namespace parlab
