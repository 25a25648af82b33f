#include "experiments/record/record.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/spread_json.hpp"

namespace parlab {
namespace {

using nlohmann::json;

constexpr std::pair<RecordStatus, const char*> kStatusNames[] = {{RecordStatus::ok, "ok"},
                                                                 {RecordStatus::failed_validation, "failed-validation"},
                                                                 {RecordStatus::error, "error"},
                                                                 {RecordStatus::unavailable, "unavailable"}};

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



void add_times(json& j, const RecordTimes& t) {
  j["inner"] = t.inner;
  j["reps_s"] = t.reps_s;
  j["time_s"] = spread_json(t.time_s);
  if (!t.unstable.empty()) j["unstable"] = t.unstable;
  if (t.kernel_s) j["kernel_s"] = *t.kernel_s;
  if (t.transfer_s) j["transfer_s"] = *t.transfer_s;
}

void add_layout(json& j, const ProcessLayout& l) {
  j["ranks_per_node"] = l.ranks_per_node;
  j["hosts"] = l.hosts;
  if (!l.host_names.empty()) {
    j["host_names"] = l.host_names;
    j["ranks_per_host"] = l.ranks_per_host;
  }
  if (!l.binding.empty()) j["binding"] = l.binding;
  if (l.link_latency_s > 0) j["link_latency_s"] = l.link_latency_s;
}

// The reader's plain reads: each throws UsageError naming the field where its type is wrong
// (record_field_fault has checked the ranges of those it covers).
[[noreturn]] void wrong(const std::string& key, const std::string& expected, const json& v) {
  throw UsageError(got(key, expected, v));
}

std::string field_text(const json& rec, const char* key) {
  if (!rec.contains(key)) return {};
  if (!rec[key].is_string()) wrong(key, "a string", rec[key]);
  return rec[key].get<std::string>();
}

std::optional<double> field_number(const json& j, const char* key) {
  if (!j.contains(key)) return std::nullopt;
  return j[key].get<double>();  // record_field_fault: a finite number
}

Spread spread_of_json(const json& t) {
  // Whole, as the runner writes it: a figure made up for a field it lacks would be read as measured.
  for (const char* key : {"n", "min", "q1", "median", "q3", "max", "mean", "stddev", "cv", "median_ci", "ci_level"}) {
    if (!t.contains(key)) throw UsageError(std::string("time_s: has no ") + key + " (a spread is written whole)");
  }
  Spread s;
  const auto at = [&t](const char* key) { return t.value(key, 0.0); };
  s.n = t.value("n", std::size_t{0});
  s.min = at("min");
  s.q1 = at("q1");
  s.median = at("median");
  s.q3 = at("q3");
  s.max = at("max");
  s.mean = at("mean");
  s.stddev = at("stddev");
  s.cv = at("cv");
  if (t.contains("median_ci")) s.median_ci = {t["median_ci"][0].get<double>(), t["median_ci"][1].get<double>()};
  s.ci_level = at("ci_level");
  return s;
}

std::optional<RecordTimes> record_times_of(const json& rec) {
  if (!rec.contains("time_s")) return std::nullopt;
  RecordTimes t;
  if (rec.contains("inner")) t.inner = static_cast<long>(rec["inner"].get<std::uint64_t>());
  if (rec.contains("reps_s")) t.reps_s = rec["reps_s"].get<std::vector<double>>();
  t.time_s = spread_of_json(rec["time_s"]);
  t.unstable = field_text(rec, "unstable");
  t.kernel_s = field_number(rec, "kernel_s");
  t.transfer_s = field_number(rec, "transfer_s");
  return t;
}

std::optional<ProcessLayout> layout_of(const json& rec) {
  if (!rec.contains("ranks_per_node")) return std::nullopt;
  ProcessLayout l;
  const auto count = [&rec](const char* key) {
    const std::uint64_t v = rec.value(key, std::uint64_t{1});
    if (v > 4096) wrong(key, "an integer from 1 to 4096", rec[key]);
    return static_cast<int>(v);
  };
  l.ranks = count("ranks");
  l.ranks_per_node = count("ranks_per_node");
  l.hosts = count("hosts");
  if (rec.contains("host_names")) {
    l.host_names = rec["host_names"].get<std::vector<std::string>>();
    const json& per = rec.value("ranks_per_host", json());
    if (!per.is_array() || per.size() != l.host_names.size()) {
      wrong("ranks_per_host", "an array of one count per host name", per);
    }
    for (const json& n : per) {
      if (!n.is_number_integer() || n.get<std::int64_t>() < 1 || n.get<std::int64_t>() > 4096) {
        wrong("ranks_per_host", "counts from 1 to 4096", per);
      }
      l.ranks_per_host.push_back(n.get<int>());
    }
  }
  l.binding = field_text(rec, "binding");
  if (rec.contains("link_latency_s")) {
    const json& v = rec["link_latency_s"];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) wrong("link_latency_s", "a positive number", v);
    l.link_latency_s = v.get<double>();
  }
  return l;
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

const char* to_string(RecordStatus s) {
  for (const auto& [status, name] : kStatusNames) {
    if (status == s) return name;
  }
  return "error";
}

std::optional<RecordStatus> record_status_from_name(std::string_view name) {
  for (const auto& [status, n] : kStatusNames) {
    if (name == n) return status;
  }
  return std::nullopt;
}

RecordRates rates_of(const WorkCount& work, double median_s) {
  RecordRates rate;
  if (!(median_s > 0)) return rate;
  const auto per_s = [median_s](double count) {
    return std::isfinite(count) && count > 0 ? std::optional<double>(count / median_s) : std::nullopt;
  };
  rate.samples_per_s = per_s(work.samples);
  rate.bytes_per_s = per_s(work.bytes);
  rate.flops_per_s = per_s(work.flops);
  return rate;
}

json to_json(const RecordRates& r) {
  json j = json::object();
  if (r.samples_per_s) j["samples_per_s"] = *r.samples_per_s;
  if (r.bytes_per_s) j["bytes_per_s"] = *r.bytes_per_s;
  if (r.flops_per_s) j["flops_per_s"] = *r.flops_per_s;
  return j;
}

json to_json(const Record& r) {
  json j = to_json(r.spec);
  // An MPI record's ranks: as planned, else as its job had them.
  if (r.spec.ranks <= 0 && r.layout) j["ranks"] = r.layout->ranks;
  j["id"] = r.id;
  j["kind"] = r.kind;
  if (!r.family.empty()) j["family"] = r.family;
  if (!r.processor.empty()) j["processor"] = r.processor;
  if (r.own_kernels) j["own_kernels"] = true;
  j["status"] = to_string(r.status);
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (r.times) add_times(j, *r.times);
  if (r.rate) j["rate"] = to_json(*r.rate);
  if (r.work) {
    j["work"] = {{"samples", r.work->samples}, {"bytes", r.work->bytes}, {"flops", r.work->flops}};
    if (r.footprint_bytes) j["work"]["footprint_bytes"] = *r.footprint_bytes;
  }
  if (r.validation) j["validation"] = {{"pass", r.validation->pass}, {"detail", r.validation->detail}};
  if (r.checksum) j["checksum"] = std::isnan(*r.checksum) ? json(nullptr) : json(*r.checksum);
  if (r.hits) j["hits"] = *r.hits;
  if (!r.metrics.empty()) j["metrics"] = r.metrics;
  if (!r.energy.empty()) j["energy"] = r.energy;
  if (r.layout) add_layout(j, *r.layout);
  if (!r.python_build.empty()) j["python_build"] = r.python_build;
  if (r.gil_enabled) j["gil_enabled"] = *r.gil_enabled;
  if (!r.kernel_file.empty()) {
    j["kernel_file"] = r.kernel_file;
    j["kernel_sha256"] = r.kernel_sha256;
  }
  if (r.elapsed_s) j["elapsed_s"] = *r.elapsed_s;
  if (!r.limit.is_null()) j["limit"] = r.limit;
  if (!r.machine.is_null()) j["machine"] = r.machine;
  if (r.workers) j["workers"] = to_json(*r.workers);
  return j;
}

Record read_record(const json& rec) {
  if (std::string f = record_field_fault(rec); !f.empty()) throw UsageError(f);
  Record r;
  const std::optional<RecordStatus> status =
      rec.contains("status") && rec["status"].is_string() ? record_status_from_name(rec["status"].get<std::string>())
                                                          : std::nullopt;
  if (!status) wrong("status", "ok, failed-validation, error or unavailable", rec.value("status", json()));
  r.status = *status;
  if (!rec.contains("id") || !unsigned_fault(rec["id"], "id", 0).empty()) {
    wrong("id", "a plan index", rec.value("id", json()));
  }
  r.id = rec["id"].get<std::size_t>();
  r.spec = spec_from_json(rec);  // throws UsageError for a plan entry's field missing or malformed
  if (r.status == RecordStatus::ok && !(rec.contains("time_s") && rec.contains("validation"))) {
    throw UsageError("status: an \"ok\" record without time_s and validation");
  }
  r.kind = field_text(rec, "kind");
  r.family = field_text(rec, "family");
  r.processor = field_text(rec, "processor");
  if (rec.contains("own_kernels") && rec["own_kernels"] != true) wrong("own_kernels", "true", rec["own_kernels"]);
  r.own_kernels = rec.contains("own_kernels");
  r.reason = field_text(rec, "reason");
  r.times = record_times_of(rec);
  if (rec.contains("rate")) {
    const json& rate = rec["rate"];
    r.rate = RecordRates{field_number(rate, "samples_per_s"), field_number(rate, "bytes_per_s"), field_number(rate, "flops_per_s")};
  }
  if (rec.contains("work")) {
    const json& w = rec["work"];
    r.work = WorkCount{w.value("samples", 0.0), w.value("bytes", 0.0), w.value("flops", 0.0)};
    r.footprint_bytes = field_number(w, "footprint_bytes");
  }
  if (rec.contains("validation")) {
    const json& v = rec["validation"];
    r.validation = RecordVerdict{v.value("pass", false), v.value("detail", std::string())};
  }
  if (rec.contains("checksum")) {
    r.checksum = rec["checksum"].is_null() ? std::numeric_limits<double>::quiet_NaN() : rec["checksum"].get<double>();
  }
  if (rec.contains("hits")) r.hits = rec["hits"].get<std::uint64_t>();
  if (rec.contains("metrics")) r.metrics = rec["metrics"].get<std::map<std::string, double>>();
  r.energy = field_text(rec, "energy");
  r.layout = layout_of(rec);
  r.python_build = field_text(rec, "python_build");
  if (rec.contains("gil_enabled")) {
    if (!rec["gil_enabled"].is_boolean()) wrong("gil_enabled", "true or false", rec["gil_enabled"]);
    r.gil_enabled = rec["gil_enabled"].get<bool>();
  }
  r.kernel_file = field_text(rec, "kernel_file");
  r.kernel_sha256 = field_text(rec, "kernel_sha256");
  if (r.kernel_file.empty() != r.kernel_sha256.empty()) {
    throw UsageError("kernel_file: a kernel file's record names the file and its sha256, both or neither");
  }
  r.elapsed_s = field_number(rec, "elapsed_s");
  for (const char* key : {"limit", "machine"}) {
    if (rec.contains(key) && !rec[key].is_object()) wrong(key, "an object", rec[key]);
  }
  r.limit = rec.value("limit", json());
  r.machine = rec.value("machine", json());
  r.workers = workers_of(rec);
  return r;
}

Record failed_record(Record base, const std::string& why) {
  base.status = RecordStatus::error;
  base.reason = why;
  base.validation = RecordVerdict{false, "error: " + why};
  return base;
}

}  // namespace parlab
