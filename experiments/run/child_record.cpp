#include "experiments/run/child_record.hpp"

#include <sstream>
#include <string>

#include "experiments/io/child_process.hpp"
#include "experiments/io/interrupt.hpp"

namespace parlab {
namespace {

using nlohmann::json;

// Why `rec` is not a record of `spec`, or empty when it is one.
std::string shape_fault(const json& rec, const json& spec) {
  if (!rec.is_object()) return std::string("printed JSON that is not a record (") + rec.type_name() + ")";
  static const char* const kStatuses[] = {"ok", "failed-validation", "error", "unavailable"};
  const json status = rec.value("status", json());
  bool known = false;
  for (const char* s : kStatuses) known = known || status == s;
  if (!known) return "printed a record without a known status (" + status.dump() + ")";
  for (const char* key : {"kernel", "backend", "threads", "size"}) {
    if (!rec.contains(key) || rec[key] != spec[key]) {
      return std::string("printed a record for another measurement (") + key + " " +
             (rec.contains(key) ? rec[key].dump() : std::string("missing")) + ", planned " + spec[key].dump() + ")";
    }
  }
  if (status == "ok" && !(rec.contains("time_s") && rec["time_s"].is_object() && rec.contains("validation") &&
                          rec["validation"].is_object())) {
    return "printed an \"ok\" record without time_s and validation";
  }
  return {};
}

std::string with_stderr_tail(std::string why, const std::string& tail) {
  // The last lines, trimmed: enough to name the cause without burying the summary.
  std::string t = tail;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  if (t.empty()) return why + "; it wrote nothing to stderr";
  std::size_t start = t.size(), lines = 0;
  while (start > 0 && lines < 5) {
    start = t.rfind('\n', start - 1);
    if (start == std::string::npos) {
      start = 0;
      break;
    }
    ++lines;
  }
  std::string excerpt = t.substr(start == 0 ? 0 : start + 1);
  if (excerpt.size() > 1200) excerpt = "..." + excerpt.substr(excerpt.size() - 1200);
  return why + "; its stderr ended with: " + excerpt;
}

}  // namespace

json measure_in_child_process(const ChildJob& job, const json& spec, std::size_t index) {
  json s = spec;
  s["id"] = index;
  std::vector<std::string> argv = job.argv;
  argv.push_back(s.dump());
  SpawnOptions options;
  options.set_env = job.set_env;
  options.timeout_s = job.timeout_s;
  options.interrupted = &g_interrupted;
  const ChildOutput c = run_child(argv, options);

  // Interrupted comes only from this process's own signal, whatever the child did then.
  if (c.interrupted || g_interrupted.load()) return json();

  std::string fault;
  json rec;
  if (c.exit_code == -1) {
    fault = c.describe_end();
  } else if (c.timed_out) {
    std::ostringstream os;
    os << "did not finish within its time limit of " << job.timeout_s << " s (--timeout) and was stopped";
    fault = os.str();
  } else if (c.exit_code != 0) {
    fault = c.describe_end();
  } else {
    // The last line: an MPI job's rank 0 prints the record last (a launcher may print before it).
    const std::string line = last_line(c.out);
    if (line.empty()) {
      fault = "exited with 0 but printed no record";
    } else {
      try {
        rec = json::parse(line);
      } catch (const json::exception&) {
        fault = "printed output that is not a JSON record: '" + (line.size() > 200 ? line.substr(0, 200) + "..." : line) + "'";
      }
      if (fault.empty() && rec.is_null()) {
        fault = "reported an interruption that this run did not receive (a signal sent to the child alone?)";
      } else if (fault.empty()) {
        fault = shape_fault(rec, spec);
      }
    }
  }
  if (fault.empty()) {
    rec["id"] = index;
    return rec;
  }
  if (job.explain) fault += job.explain(c.err_tail);
  return failed_record(spec, index, job.fields, with_stderr_tail(job.what + " " + fault, c.err_tail));
}

json failed_record(const json& spec, std::size_t index, const json& fields, const std::string& why) {
  json e = spec;
  e["id"] = index;
  for (const auto& [key, value] : fields.items()) e[key] = value;
  e["status"] = "error";
  e["reason"] = why;
  e["validation"] = {{"pass", false}, {"detail", "error: " + why}};
  return e;
}

}  // namespace parlab
