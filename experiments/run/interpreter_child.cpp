#include "experiments/run/interpreter_child.hpp"

#include "core/workload.hpp"
#include "experiments/run/child_record.hpp"

namespace parlab {

std::optional<Record> measure_in_child(const InterpreterMode& mode, ChildJob job) {
  job.argv = {mode.parlab, "measure-spec"};
  for (auto& e : gil_env(mode.python_gil)) job.set_env.push_back(std::move(e));
  job.what = "the child parlab (" + mode.describe() + ")";
  job.base.kind = to_string(BackendKind::python);
  job.base.spec.interpreter = mode.interpreter;
  job.base.spec.python_gil = mode.python_gil;
  job.base.python_build = mode.python_build;
  std::optional<Record> rec = measure_in_child_process(job);
  if (rec && rec->status != RecordStatus::error) {
    // The plan entry's own fields, as the parent planned them.
    if (rec->spec.interpreter.empty()) rec->spec.interpreter = mode.interpreter;
    if (!mode.python_gil.empty()) rec->spec.python_gil = mode.python_gil;
  }
  return rec;
}

}  // namespace parlab
