#include "experiments/run/child_record.hpp"

#include <sstream>
#include <string>

#include "core/error.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/read.hpp"

namespace parlab {
namespace {

using nlohmann::json;

// The record `rec` reads as, or why it is not a record of `spec`.
std::optional<Record> record_of_spec(const json& rec, const MeasurementSpec& spec, std::string& fault) {
  if (!rec.is_object()) {
    fault = std::string("printed JSON that is not a record (") + rec.type_name() + ")";
    return std::nullopt;
  }
  const json planned = to_json(spec);
  for (const char* key : {"kernel", "backend", "threads", "size"}) {
    if (!rec.contains(key) || rec[key] != planned[key]) {
      fault = std::string("printed a record for another measurement (") + key + " " +
              (rec.contains(key) ? quoted_json(rec[key], 80) : std::string("missing")) + ", planned " +
              planned[key].dump() + ")";
      return std::nullopt;
    }
  }
  try {
    return read_record(rec);
  } catch (const UsageError& e) {
    fault = std::string("printed a record whose ") + e.what();
    return std::nullopt;
  }
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

std::optional<Record> measure_in_child_process(const ChildJob& job) {
  json s = to_json(job.base.spec);
  s["id"] = job.base.id;
  std::vector<std::string> argv = job.argv;
  argv.push_back(s.dump());
  SpawnOptions options;
  options.set_env = job.set_env;
  options.timeout_s = job.timeout_s;
  options.interrupted = &g_interrupted;
  options.max_stdout_bytes = kMaxChildStdoutBytes;
  options.own_process_group = job.own_process_group;
  // The group is killed once the child exits; a descendant that left it must not hold the run
  // until its timeout: what it writes after this grace is not read.
  if (job.own_process_group) options.after_exit_s = 2.0;
  const ChildOutput c = run_child(argv, options);

  // Interrupted comes only from this process's own signal, whatever the child did then.
  if (c.interrupted || g_interrupted.load()) return std::nullopt;

  std::string fault;
  if (c.exit_code == -1) {
    fault = c.describe_end();
  } else if (c.stdout_overflow) {
    fault = "printed more than " + std::to_string(kMaxChildStdoutBytes >> 20) +
            " MiB on stdout (a record is a few KiB) and was stopped";
  } else if (c.timed_out) {
    std::ostringstream os;
    os << "did not finish within its time limit of " << job.timeout_s << " s (--timeout) and was stopped";
    fault = os.str();
  } else if (c.exit_code != 0) {
    fault = c.describe_end();
  } else {
    // The last line: an MPI job's rank 0 prints the record last (a launcher may print before it).
    const std::string line = last_line(c.out);
    json rec;
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
        if (std::optional<Record> r = record_of_spec(rec, job.base.spec, fault)) {
          r->id = job.base.id;
          return r;
        }
      }
    }
  }
  if (job.explain) fault += job.explain(c.err_tail);
  return failed_record(job.base, with_stderr_tail(job.what + " " + fault, c.err_tail));
}

}  // namespace parlab
