#include "experiments/run/child_record.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "experiments/io/child_process.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/read.hpp"

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
  if (std::string f = record_field_fault(rec); !f.empty()) return "printed a record whose " + f;
  return {};
}

// The checks of record_field_fault: each returns why `v` (the field `path`) is wrong, or empty.
std::string got(const std::string& path, const std::string& expected, const json& v) {
  return path + ": expected " + expected + ", got " + quoted_json(v, 80);
}

std::string number_fault(const json& v, const std::string& path, double lo, bool lo_open, double hi = INFINITY) {
  if (!v.is_number() || !std::isfinite(v.get<double>())) return got(path, "a number", v);
  const double x = v.get<double>();
  if (x < lo || (lo_open && x == lo) || x > hi) {
    std::ostringstream range;
    range << "a number " << (lo_open ? "> " : ">= ") << lo;
    if (std::isfinite(hi)) range << " and <= " << hi;
    return got(path, range.str(), v);
  }
  return {};
}

std::string unsigned_fault(const json& v, const std::string& path, std::uint64_t lo,
                           std::uint64_t hi = UINT64_MAX) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    return got(path, "an integer >= " + std::to_string(lo), v);
  }
  const std::uint64_t x = v.get<std::uint64_t>();
  if (x < lo || x > hi) {
    return got(path, "an integer from " + std::to_string(lo) + (hi == UINT64_MAX ? "" : " to " + std::to_string(hi)), v);
  }
  return {};
}

// An array of non-negative numbers; of `length` items unless that is 0 (any length up to 4096).
std::string array_fault(const json& v, const std::string& path, std::size_t length, bool integers = false) {
  if (!v.is_array()) return got(path, "an array", v);
  if (length > 0 && v.size() != length) {
    return path + ": holds " + std::to_string(v.size()) + " values for the " + std::to_string(length) +
           " workers the record counts (workers.count)";
  }
  if (length == 0 && v.size() > 4096) return path + ": holds " + std::to_string(v.size()) + " values, over 4096";
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    std::string f = integers ? unsigned_fault(v[i], at, 0) : number_fault(v[i], at, 0, false);
    if (!f.empty()) return f;
  }
  return {};
}

std::string object_of_numbers_fault(const json& v, const std::string& path, bool non_negative) {
  if (!v.is_object()) return got(path, "an object", v);
  for (const auto& [key, x] : v.items()) {
    std::string f = number_fault(x, path + "." + key, non_negative ? 0 : -INFINITY, false);
    if (!f.empty()) return f;
  }
  return {};
}

std::string spread_fault(const json& t) {
  if (!t.is_object()) return got("time_s", "an object", t);
  if (!t.contains("median")) return "time_s: has no median";
  for (const char* key : {"min", "q1", "median", "q3", "max", "mean", "stddev", "cv"}) {
    if (!t.contains(key)) continue;
    std::string f = number_fault(t[key], std::string("time_s.") + key, 0, std::string(key) == "median");
    if (!f.empty()) return f;
  }
  if (t.contains("n")) {
    if (std::string f = unsigned_fault(t["n"], "time_s.n", 1); !f.empty()) return f;
  }
  if (t.contains("ci_level")) {
    if (std::string f = number_fault(t["ci_level"], "time_s.ci_level", 0, false, 1); !f.empty()) return f;
  }
  if (t.contains("median_ci")) {
    const json& ci = t["median_ci"];
    if (!ci.is_array() || ci.size() != 2) return got("time_s.median_ci", "an array of two numbers", ci);
    for (std::size_t i = 0; i < 2; ++i) {
      if (!ci[i].is_number()) return got("time_s.median_ci[" + std::to_string(i) + "]", "a number", ci[i]);
    }
  }
  return {};
}

std::string workers_fault(const json& w) {
  if (!w.is_object()) return got("workers", "an object", w);
  if (!w.contains("count")) return "workers: has no count";
  if (std::string f = unsigned_fault(w["count"], "workers.count", 1, 4096); !f.empty()) return f;
  const std::size_t count = w["count"].get<std::size_t>();
  for (const char* key : {"busy_s", "cpu_s", "items", "chunks", "switches"}) {
    if (!w.contains(key)) continue;
    if (std::string f = array_fault(w[key], std::string("workers.") + key, count); !f.empty()) return f;
  }
  for (const char* key : {"ranks", "hosts"}) {
    if (!w.contains(key)) continue;
    if (std::string f = array_fault(w[key], std::string("workers.") + key, count, true); !f.empty()) return f;
  }
  if (w.contains("cpus")) {
    const json& cpus = w["cpus"];
    if (!cpus.is_array() || cpus.size() != count) return array_fault(cpus, "workers.cpus", count);
    for (std::size_t i = 0; i < count; ++i) {
      if (std::string f = array_fault(cpus[i], "workers.cpus[" + std::to_string(i) + "]", 0, true); !f.empty()) {
        return f;
      }
    }
  }
  for (const char* key : {"runtime_s", "overhead"}) {
    if (!w.contains(key)) continue;
    if (std::string f = number_fault(w[key], std::string("workers.") + key, 0, false); !f.empty()) return f;
  }
  for (const char* key : {"load_balance", "communication"}) {
    if (!w.contains(key)) continue;
    if (std::string f = array_fault(w[key], std::string("workers.") + key, 0); !f.empty()) return f;
  }
  if (w.contains("disturbance") && w["disturbance"].is_object() && w["disturbance"].contains("runnable_s")) {
    if (std::string f = array_fault(w["disturbance"]["runnable_s"], "workers.disturbance.runnable_s", count);
        !f.empty()) {
      return f;
    }
  }
  if (w.contains("counters") && w["counters"].is_object()) {
    for (const char* key : {"instructions", "cycles"}) {
      if (!w["counters"].contains(key)) continue;
      if (std::string f = array_fault(w["counters"][key], std::string("workers.counters.") + key, count); !f.empty()) {
        return f;
      }
    }
  }
  return {};
}

}  // namespace

std::string record_field_fault(const json& rec) {
  if (!rec.is_object()) return std::string("the record: expected an object, got ") + rec.type_name();
  if (rec.contains("time_s")) {
    if (std::string f = spread_fault(rec["time_s"]); !f.empty()) return f;
  }
  for (const char* key : {"kernel_s", "transfer_s", "elapsed_s", "min_rep_seconds"}) {
    if (!rec.contains(key)) continue;
    if (std::string f = number_fault(rec[key], key, 0, false); !f.empty()) return f;
  }
  const std::pair<const char*, std::uint64_t> integers[] = {
      {"hits", 0}, {"inner", 1}, {"reps", 1}, {"warmup", 0}, {"ranks_per_node", 1}, {"hosts", 1},
      {"device", 0}, {"seed", 0}, {"size_y", 0}, {"round", 1}};
  for (const auto& [key, lo] : integers) {
    if (!rec.contains(key)) continue;
    if (std::string f = unsigned_fault(rec[key], key, lo); !f.empty()) return f;
  }
  // π's hits count samples that fell inside the circle: never more than the samples drawn.
  if (rec.contains("hits") && rec.contains("kernel") && rec["kernel"] == "pi" && rec.contains("size") &&
      rec["size"].is_number_integer() && rec["size"].get<std::int64_t>() >= 0 &&
      rec["hits"].get<std::uint64_t>() > rec["size"].get<std::uint64_t>()) {
    return got("hits", "at most size (" + rec["size"].dump() + ")", rec["hits"]);
  }
  if (rec.contains("reps_s")) {
    if (std::string f = array_fault(rec["reps_s"], "reps_s", 0); !f.empty()) return f;
  }
  for (const char* key : {"rate", "work"}) {
    if (!rec.contains(key)) continue;
    if (std::string f = object_of_numbers_fault(rec[key], key, true); !f.empty()) return f;
  }
  if (rec.contains("metrics")) {
    if (std::string f = object_of_numbers_fault(rec["metrics"], "metrics", false); !f.empty()) return f;
  }
  if (rec.contains("checksum") && !rec["checksum"].is_number() && !rec["checksum"].is_null()) {
    return got("checksum", "a number or null", rec["checksum"]);
  }
  if (rec.contains("validation")) {
    const json& v = rec["validation"];
    if (!v.is_object()) return got("validation", "an object", v);
    if (v.contains("pass") && !v["pass"].is_boolean()) return got("validation.pass", "true or false", v["pass"]);
    if (v.contains("detail") && !v["detail"].is_string()) return got("validation.detail", "a string", v["detail"]);
  }
  for (const char* key : {"reason", "unstable", "binding", "interpreter"}) {
    if (rec.contains(key) && !rec[key].is_string()) return got(key, "a string", rec[key]);
  }
  if (rec.contains("host_names")) {
    const json& h = rec["host_names"];
    if (!h.is_array() || h.empty() || h.size() > 4096) return got("host_names", "an array of host names", h);
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (!h[i].is_string() || h[i].get<std::string>().empty()) {
        return got("host_names[" + std::to_string(i) + "]", "a host name", h[i]);
      }
    }
  }
  if (rec.contains("workers")) {
    if (std::string f = workers_fault(rec["workers"]); !f.empty()) return f;
  }
  return {};
}

namespace {

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
  options.max_stdout_bytes = kMaxChildStdoutBytes;
  options.own_process_group = job.own_process_group;
  // The group is killed once the child exits; a descendant that left it must not hold the run
  // until its timeout: what it writes after this grace is not read.
  if (job.own_process_group) options.after_exit_s = 2.0;
  const ChildOutput c = run_child(argv, options);

  // Interrupted comes only from this process's own signal, whatever the child did then.
  if (c.interrupted || g_interrupted.load()) return json();

  std::string fault;
  json rec;
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
