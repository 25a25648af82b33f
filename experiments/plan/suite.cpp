// A suite (or an ad-hoc run's flags) expanded into a run's plan: make_plan, and the reading and
// checking of each experiment it takes. The suite files themselves are suite_file.cpp.
#include "experiments/plan/suite.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "experiments/plan/args.hpp"
#include "experiments/plan/suggest.hpp"
#include "experiments/io/text.hpp"
#include "core/error.hpp"
#include "core/file_kernel.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/io/read.hpp"
#include "experiments/machine/interpreters.hpp"

namespace parlab {
namespace {

using nlohmann::json;

std::vector<std::string> string_list(const json& j, const std::string& where) {
  if (j.is_string()) return {j.get<std::string>()};
  if (!j.is_array()) throw UsageError(where + ": expected a string or a list of strings");
  std::vector<std::string> out;
  for (const auto& x : j) {
    if (!x.is_string()) throw UsageError(where + ": expected a list of strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

// A count of a suite, as a JSON integer or in any form the command line takes ("2^20", "16M"):
// through the flags' own parser (plan/args.hpp) and at least `min`, as the flag it stands for
// (sizes as --size: from 1), so a suite accepts exactly what the command line accepts.
std::uint64_t size_value(const json& j, const std::string& where, std::uint64_t min = 0) {
  if (j.is_number_unsigned()) {
    const std::uint64_t v = j.get<std::uint64_t>();
    if (v < min) throw UsageError(where + ": expected an integer >= " + std::to_string(min) + ", got " + quoted_json(j));
    return v;
  }
  if (j.is_string()) return parse_count(j.get<std::string>(), where, min);
  throw UsageError(where + ": expected a non-negative integer or a string such as \"2^20\", got " + quoted_json(j));
}

int positive_int(const json& j, const std::string& where, std::uint64_t most = 1000000) {
  if (!j.is_number_integer() || j.get<long long>() < 1 || static_cast<std::uint64_t>(j.get<long long>()) > most) {
    throw UsageError(where + ": expected a positive integer of at most " + std::to_string(most) + ", got " +
                     quoted_json(j));
  }
  return static_cast<int>(j.get<long long>());
}

// A string-valued key, or `fallback` where it is absent. A value of another type is a UsageError
// naming the key: nlohmann's own type_error names neither the key nor the suite, and escaped as
// a failure (exit 1) instead of bad input (exit 2).
std::string string_value(const json& obj, const char* key, const std::string& fallback, const std::string& where) {
  if (!obj.contains(key)) return fallback;
  if (!obj.at(key).is_string()) throw UsageError(where + " " + key + ": expected a string, got " + quoted_json(obj.at(key)));
  return obj.at(key).get<std::string>();
}

// A GPU index (the "device" key): a non-negative integer.
int device_value(const json& j, const std::string& where) {
  if (!j.is_number_integer() || j.get<long long>() < 0 || j.get<long long>() > 1024) {
    throw UsageError(where + ": expected a GPU index (an integer from 0 to 1024), got " + quoted_json(j));
  }
  return static_cast<int>(j.get<long long>());
}

void check_keys(const json& obj, const std::set<std::string>& allowed, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (!allowed.count(key)) {
      std::string accepted;
      for (const auto& a : allowed) accepted += (accepted.empty() ? "" : ", ") + a;
      throw UsageError(where + ": unknown key '" + key + "' (accepted: " + accepted + ")");
    }
  }
}

// Bytes of host memory a CPU workload allocates: the catalogue's (kernel_host_bytes).
double host_bytes(const MeasurementSpec& s) { return kernel_host_bytes(s.problem.kernel, s.problem.precision, s.problem.size, s.problem.size_y); }

double physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

std::vector<const BackendEntry*> select_backends(const std::vector<std::string>& wanted, const std::string& kernel,
                                                 const Registry& registry, const std::string& where) {
  std::vector<const BackendEntry*> out;
  auto add = [&](const BackendEntry* e) {
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  };
  for (const std::string& w : wanted) {
    // A kind a word may name (peers and MPI backends are named one by one).
    const std::optional<BackendKind> wk = backend_kind_from_name(w);
    if (w == "all" || wk == BackendKind::cpu || wk == BackendKind::gpu || wk == BackendKind::python) {
      for (const auto& e : registry.entries()) {
        // An unavailable entry may still list its kernels (the GPU part does); one that lists
        // none is kept, so its record says why it did not run.
        const bool runs_kernel = std::find(e.kernels.begin(), e.kernels.end(), kernel) != e.kernels.end() ||
                                 (!e.available && e.kernels.empty());
        // A Python kernel file runs on every Python executor that takes one, the task models
        // included, which `all` leaves out for parlab's own kernels; an unavailable one is kept,
        // so its record says why.
        const bool file = is_file_kernel(kernel);
        if (file && !runs_file_kernels(e.name)) continue;
        if ((e.in_default_set || file) && (runs_kernel || file) && (w == "all" || e.kind == wk)) {
          // An unavailable entry has no kernel list: keep it only for kernels its kind runs.
          if (!e.available && e.kind == BackendKind::python && kernel != "pi" && !file) continue;
          add(&e);
        }
      }
    } else {
      const BackendEntry* e = registry.find(w);
      if (e == nullptr) {
        std::vector<std::string> accepted = {"all", "cpu", "gpu", "python"};
        for (const auto& n : registry.names()) accepted.push_back(n);
        throw UsageError(where + ": unknown backend '" + quoted_value(w, 60) + "'" + did_you_mean(w, accepted) +
                         " (`parlab list` names them)");
      }
      // Named but does not run this kernel: nothing to measure (make_plan names the pair). An
      // unavailable entry without a kernel list is kept, so its record says why it did not run.
      if ((e->available || !e->kernels.empty()) &&
          std::find(e->kernels.begin(), e->kernels.end(), kernel) == e->kernels.end()) {
        continue;
      }
      add(e);
    }
  }
  return out;
}

// Sizes of an ad-hoc run without --size: a fraction of a second per run on one core, by the
// catalogue's work model (what --size counts: points, elements, a grid's side, a cube's side).
std::uint64_t default_size(const std::string& kernel) {
  // A Python kernel file: items of pure Python, a microsecond or more each.
  if (is_file_kernel(kernel)) return std::uint64_t{1} << 16;
  const KernelSpec* k = find_kernel(kernel);
  if (k == nullptr) return std::uint64_t{1} << 22;
  if (k->work.shape == WorkShape::cube) return 256;
  if (k->work.shape == WorkShape::grid) return 2048;
  if (k->family == KernelFamily::pi) return std::uint64_t{1} << 24;
  return std::uint64_t{1} << 22;
}

void warn_once(Plan& plan, const std::string& why) {
  if (std::find(plan.warnings.begin(), plan.warnings.end(), why) == plan.warnings.end()) plan.warnings.push_back(why);
}

// What every experiment starts from: the suite's settings (or an ad-hoc run's), then the
// command line's overrides.
struct PlanSettings {
  int reps = 5, warmup = 1, rounds = 1;
  std::uint64_t seed = kDefaultSeed;
  double min_rep = 0.01;
  std::string where = "ad-hoc run";
  json experiments = json::array();
};

PlanSettings suite_settings(const json& suite, Plan& plan) {
  PlanSettings s;
  const std::string name = string_value(suite, "name", "unnamed", "suite");
  s.where = "suite '" + name + "'";
  check_keys(suite, {"name", "description", "reps", "warmup", "seed", "min_rep_seconds", "rounds", "experiments"},
             s.where);
  string_value(suite, "description", "", s.where);
  plan.suite = name;
  // reps and rounds: the limits of --reps and --rounds.
  if (suite.contains("reps")) s.reps = positive_int(suite.at("reps"), s.where + " reps", kMaxReps);
  if (suite.contains("warmup")) s.warmup = positive_int(suite.at("warmup"), s.where + " warmup");
  if (suite.contains("rounds")) s.rounds = positive_int(suite.at("rounds"), s.where + " rounds", kMaxRounds);
  if (suite.contains("seed")) s.seed = size_value(suite.at("seed"), s.where + " seed");
  if (suite.contains("min_rep_seconds")) {
    if (!suite.at("min_rep_seconds").is_number() || suite.at("min_rep_seconds").get<double>() < 0) {
      throw UsageError(s.where + " min_rep_seconds: expected a non-negative number");
    }
    s.min_rep = suite.at("min_rep_seconds").get<double>();
  }
  if (!suite.contains("experiments") || !suite.at("experiments").is_array() || suite.at("experiments").empty()) {
    throw UsageError(s.where + ": needs a non-empty list \"experiments\"");
  }
  s.experiments = suite.at("experiments");
  return s;
}

// An ad-hoc run is one experiment: the command line's kernels on its backends (default all).
PlanSettings adhoc_settings(const PlanOverrides& o, Plan& plan) {
  PlanSettings s;
  plan.suite = "ad-hoc";
  if (o.kernels.empty()) throw UsageError("an ad-hoc run needs --kernel (or give a suite)");
  json e = {{"kernel", o.kernels}, {"backends", o.backends.empty() ? std::vector<std::string>{"all"} : o.backends}};
  s.experiments.push_back(e);
  return s;
}

PlanSettings plan_settings(const json* suite, const PlanOverrides& o, Plan& plan) {
  PlanSettings s = suite != nullptr ? suite_settings(*suite, plan) : adhoc_settings(o, plan);
  if (o.reps) s.reps = *o.reps;
  if (o.rounds) s.rounds = *o.rounds;
  if (o.seed) s.seed = *o.seed;
  if (o.quick) {
    s.reps = std::min(s.reps, 3);
    s.min_rep = 0.0;
  }
  return s;
}

// Python backends in every interpreter mode found, or in this process's own only (nullptr).
std::vector<const InterpreterMode*> python_modes_of(const json& e, const std::string& ew, Plan& plan) {
  std::vector<const InterpreterMode*> python_modes = {nullptr};
  if (!e.contains("interpreters")) return python_modes;
  const std::string which = e.at("interpreters").is_string() ? e.at("interpreters").get<std::string>() : "";
  if (which != "all" && which != "this" && which != "others") {
    throw UsageError(ew + ": interpreters must be \"all\", \"others\" or \"this\"");
  }
  if (which == "this") return python_modes;
  python_modes.clear();
  for (const auto& m : interpreter_modes()) {
    if (m.available && (which == "all" || !m.parlab.empty())) python_modes.push_back(&m);
  }
  for (const auto& m : interpreter_modes()) {
    const std::string why = "interpreter not measured: " + m.describe() + ": " + m.reason;
    if (!m.available) warn_once(plan, why);
  }
  // "all" always has this process's own; "others" may find none, and measures nothing then.
  if (python_modes.empty() && which == "all") python_modes = {nullptr};
  return python_modes;
}

// One experiment's settings, read and checked in the order a user reads them in the suite.
struct Experiment {
  const json* source = nullptr;
  std::string where;
  std::vector<const InterpreterMode*> python_modes;
  std::vector<std::string> kernels;
  std::string scaling;
  std::vector<int> threads;
  std::vector<int> ranks;  // empty: the mpi backends run in this process's job
  int reps = 0;
  std::uint64_t size_y = 0;
  std::string study;
  int device = 0;
};

Experiment read_experiment(const json& e, const std::string& ew, const PlanSettings& s, const PlanOverrides& o,
                           int max_threads, Plan& plan) {
  if (!e.is_object()) throw UsageError(ew + ": expected an object");
  check_keys(e, {"kernel", "backends", "threads", "sizes", "size_y", "precision", "scaling", "reps", "study", "device", "interpreters", "ranks"}, ew);
  Experiment x;
  x.source = &e;
  x.where = ew;
  x.python_modes = python_modes_of(e, ew, plan);
  if (!e.contains("kernel")) throw UsageError(ew + ": needs \"kernel\"");
  x.kernels = string_list(e.at("kernel"), ew + " kernel");
  if (x.kernels.empty()) throw UsageError(ew + " kernel: the list is empty (name at least one kernel)");
  if (e.contains("backends") && e.at("backends").is_array() && e.at("backends").empty()) {
    throw UsageError(ew + " backends: the list is empty (name at least one backend, or \"all\")");
  }
  x.scaling = string_value(e, "scaling", "strong", ew);
  if (x.scaling != "strong" && x.scaling != "weak" && x.scaling != "none") {
    throw UsageError(ew + ": scaling must be strong, weak or none, got '" + x.scaling + "'");
  }
  x.threads = {1, max_threads};
  if (e.contains("threads")) {
    if (!e.at("threads").is_string()) throw UsageError(ew + " threads: expected a string such as \"1,2,4\" or \"pow2\"");
    x.threads = parse_thread_list(e.at("threads").get<std::string>(), ew + " threads", max_threads);
  }
  if (o.threads) x.threads = *o.threads;
  if (e.contains("ranks")) {
    if (!e.at("ranks").is_string()) throw UsageError(ew + " ranks: expected a string such as \"1,2,4\"");
    x.ranks = parse_thread_list(e.at("ranks").get<std::string>(), ew + " ranks", max_threads, "rank count");
  }
  if (o.ranks) x.ranks = *o.ranks;
  x.reps = e.contains("reps") && !o.reps && !o.quick ? positive_int(e.at("reps"), ew + " reps", kMaxReps) : s.reps;
  x.size_y = e.contains("size_y") ? size_value(e.at("size_y"), ew + " size_y") : 0;
  x.study = string_value(e, "study", plan.suite, ew);
  const int device = e.contains("device") ? device_value(e.at("device"), ew + " device") : 0;
  x.device = o.device ? *o.device : device;
  return x;
}

// Kernels of the GPU or Python parts (studies) are not in the core table; accept any name some
// registered backend runs, or, in a build without that part, any name an experiment gives to
// backends that are all listed as unavailable (their records then say why, instead of the suite
// failing to parse).
void check_kernel_known(const std::string& kernel, const Experiment& x, const Registry& registry,
                        const std::string& where) {
  const json& e = *x.source;
  bool known = false;
  for (const auto& be : registry.entries()) {
    if (std::find(be.kernels.begin(), be.kernels.end(), kernel) != be.kernels.end()) known = true;
  }
  if (!known && e.contains("backends")) {
    const auto named = string_list(e.at("backends"), x.where + " backends");
    known = !named.empty() && std::all_of(named.begin(), named.end(), [&](const std::string& n) {
      const BackendEntry* be = registry.find(n);
      return be != nullptr && !be->available;
    });
  }
  if (!known) {
    std::vector<std::string> accepted;
    for (const auto& k : kernel_specs()) accepted.emplace_back(k.name);
    throw UsageError(where + ": unknown kernel '" + quoted_value(kernel, 60) + "'" + did_you_mean(kernel, accepted) +
                     " (`parlab list` names them)");
  }
}

std::vector<Precision> kernel_precisions(const Experiment& x, const PlanOverrides& o, const std::string& kernel,
                                         const KernelSpec* spec) {
  std::vector<Precision> precisions;
  if (x.source->contains("precision")) {
    for (const auto& p : string_list(x.source->at("precision"), x.where + " precision")) {
      const auto pp = precision_from_name(p);
      if (!pp) {
        throw UsageError(x.where + ": unknown precision '" + quoted_value(p, 60) + "'" +
                         did_you_mean(p, {"float", "double", "int32"}) + " (accepted: float, double, int32)");
      }
      precisions.push_back(*pp);
    }
  }
  if (!o.precisions.empty()) precisions = o.precisions;
  if (precisions.empty()) precisions.push_back(spec ? spec->precisions.front() : Precision::f64);
  for (Precision p : precisions) {
    if (spec && std::find(spec->precisions.begin(), spec->precisions.end(), p) == spec->precisions.end()) {
      throw UsageError(x.where + ": kernel '" + kernel + "' does not support precision " + to_string(p));
    }
  }
  return precisions;
}

std::vector<std::uint64_t> kernel_sizes(const Experiment& x, const PlanOverrides& o, bool from_suite,
                                        const std::string& kernel) {
  const json& e = *x.source;
  std::vector<std::uint64_t> sizes;
  if (e.contains("sizes")) {
    if (!e.at("sizes").is_array()) throw UsageError(x.where + " sizes: expected a list");
    for (const auto& s : e.at("sizes")) sizes.push_back(size_value(s, x.where + " sizes", 1));
  }
  if (o.sizes) sizes = *o.sizes;
  if (sizes.empty() && !from_suite) sizes = {default_size(kernel)};
  if (sizes.empty()) throw UsageError(x.where + ": no sizes (give \"sizes\" in the suite or --size)");
  return sizes;
}

// The experiment's backends for a kernel; in a suite, --backend filters that selection.
std::vector<const BackendEntry*> kernel_backends(const Experiment& x, const PlanOverrides& o, bool from_suite,
                                                 const std::string& kernel, const Registry& registry) {
  const json& e = *x.source;
  std::vector<std::string> wanted = e.contains("backends") ? string_list(e.at("backends"), x.where + " backends")
                                                           : std::vector<std::string>{"all"};
  if (!o.backends.empty() && from_suite) {
    std::vector<std::string> filtered;
    for (const auto* be : select_backends(wanted, kernel, registry, x.where)) {
      if (std::find(o.backends.begin(), o.backends.end(), be->name) != o.backends.end()) filtered.push_back(be->name);
    }
    // Validate the filter's names even when they select nothing here.
    select_backends(o.backends, kernel, registry, "--backend");
    wanted = filtered;
  }
  // On the command line the names came from --backend: the message names the option.
  return select_backends(wanted, kernel, registry, from_suite ? x.where : "--backend");
}

// The plan being built, with what is learnt across experiments for the warnings at its end.
struct Planner {
  Plan& plan;
  const PlanOverrides& o;
  const Registry& registry;
  const bool from_suite;
  const PlanSettings& settings;
  const double memory = physical_memory();
  std::set<std::string> planned_kernels{};          // after the --kernel filter
  std::map<std::string, std::string> short_points{};  // backend -> why some of its points were left out

  void add_kernel(const Experiment& x, const std::string& kernel);
  void add_backend_points(const Experiment& x, const std::string& kernel, const BackendEntry& be,
                          const std::vector<Precision>& precisions, const std::vector<std::uint64_t>& sizes);
  MeasurementSpec point(const Experiment& x, const std::string& kernel, const BackendEntry& be,
                        const InterpreterMode* mode, int threads, std::uint64_t base) const;
  void add_point(const Experiment& x, const BackendEntry& be, const MeasurementSpec& m);
};

void Planner::add_kernel(const Experiment& x, const std::string& kernel) {
  if (!o.kernels.empty() && from_suite && std::find(o.kernels.begin(), o.kernels.end(), kernel) == o.kernels.end()) {
    return;  // filtered out by --kernel
  }
  planned_kernels.insert(kernel);
  const KernelSpec* spec = find_kernel(kernel);
  if (spec == nullptr) check_kernel_known(kernel, x, registry, from_suite ? x.where : "--kernel");
  const std::vector<Precision> precisions = kernel_precisions(x, o, kernel, spec);
  const std::vector<std::uint64_t> sizes = kernel_sizes(x, o, from_suite, kernel);
  for (const BackendEntry* be : kernel_backends(x, o, from_suite, kernel, registry)) {
    add_backend_points(x, kernel, *be, precisions, sizes);
  }
}

void Planner::add_backend_points(const Experiment& x, const std::string& kernel, const BackendEntry& be,
                                 const std::vector<Precision>& precisions, const std::vector<std::uint64_t>& sizes) {
  // Serial and GPU backends have no thread count to sweep: measure them once.
  std::vector<int> ts = x.threads;
  if (!be.sweeps_threads || be.kind == BackendKind::gpu) ts = {1};
  const auto modes = be.kind == BackendKind::python ? x.python_modes : std::vector<const InterpreterMode*>{nullptr};
  for (const InterpreterMode* mode : modes) {
    for (int t : ts) {
      for (std::uint64_t base : sizes) {
        MeasurementSpec m = point(x, kernel, be, mode, t, base);
        for (Precision p : precisions) {
          m.problem.precision = p;
          add_point(x, be, m);
        }
      }
    }
  }
}

MeasurementSpec Planner::point(const Experiment& x, const std::string& kernel, const BackendEntry& be,
                               const InterpreterMode* mode, int threads, std::uint64_t base) const {
  MeasurementSpec m;
  if (mode != nullptr && !mode->parlab.empty()) {  // this process's own stays unnamed
    m.interpreter = mode->interpreter;
    m.python_gil = mode->python_gil;
  }
  m.study = x.study;
  m.scaling = x.scaling;
  m.problem.kernel = kernel;
  m.backend = be.name;
  m.problem.threads = threads;
  m.problem.size = base;
  if (x.scaling == "weak" && be.kind != BackendKind::gpu) {
    if (base > UINT64_MAX / static_cast<std::uint64_t>(threads)) throw UsageError(x.where + ": weak-scaled size overflows");
    m.problem.size = base * static_cast<std::uint64_t>(threads);
  }
  m.problem.size_y = x.size_y;
  m.problem.seed = settings.seed;
  m.reps = x.reps;
  m.warmup = settings.warmup;
  m.min_rep_seconds = settings.min_rep;
  m.problem.device = x.device;
  return m;
}

// One point at one precision, if it fits this machine's memory: left out or warned about where
// some threads get no work, added once per MPI job size where the experiment sweeps ranks.
void Planner::add_point(const Experiment& x, const BackendEntry& be, const MeasurementSpec& m) {
  const int t = m.problem.threads;
  if (be.kind == BackendKind::cpu && memory > 0 && host_bytes(m) > 0.8 * memory) {
    throw UsageError(x.where + ": size " + format_size(m.problem.size) + " of kernel '" + m.problem.kernel + "' needs " +
                     format_bytes(host_bytes(m)) + ", more than 80% of this machine's memory (--size)");
  }
  if (be.kind != BackendKind::mpi || x.ranks.empty()) {
    if (be.work_unit > 0 && t > 1 && m.problem.size / static_cast<std::uint64_t>(t) < be.work_unit) {
      if (!o.sizes) {
        // A suite's point: left out, one warning per backend naming the smallest size at the
        // largest such thread count (a suite's "max" differs between machines).
        short_points[be.name] =
            "backend '" + be.name + "' takes " + format_size(be.work_unit) +
            " samples at a time: points where some threads would get no work are left out "
            "(from " + x.where + ": size " + format_size(m.problem.size) + " at " + std::to_string(t) +
            " threads needs a size >= " + format_size(be.work_unit * static_cast<std::uint64_t>(t)) + ")";
        return;
      }
      warn_once(plan, "backend '" + be.name + "' takes " + format_size(be.work_unit) +
                          " samples at a time, so at size " + format_size(m.problem.size) + " and " + std::to_string(t) +
                          " threads some threads get no work and the figure measures fewer threads than it "
                          "says (use a size >= " +
                          format_size(be.work_unit * static_cast<std::uint64_t>(t)) + ")");
    }
    plan.specs.push_back(m);
    return;
  }
  // One measurement per MPI job size; weak scaling grows with every rank's threads.
  for (int rk : x.ranks) {
    MeasurementSpec mr = m;
    mr.ranks = rk;
    if (x.scaling == "weak") {
      if (m.problem.size > UINT64_MAX / static_cast<std::uint64_t>(rk)) throw UsageError(x.where + ": weak-scaled size overflows");
      mr.problem.size = m.problem.size * static_cast<std::uint64_t>(rk);
    }
    plan.specs.push_back(mr);
  }
}

// A measurement two experiments both ask for (a serial backend in two thread sweeps, a suite
// that lists an experiment twice) is measured once, with one warning: measuring it twice would
// give two records of one measurement, which compare and the figures cannot tell apart.
// origin[k] is the experiment plan.specs[k] came from.
void drop_repeated_measurements(Plan& plan, const std::vector<std::size_t>& origin, const std::string& where) {
  std::map<std::string, std::size_t> first;  // the measurement -> the experiment that asked first
  std::vector<MeasurementSpec> kept;
  std::size_t dropped = 0;
  std::string example;
  for (std::size_t k = 0; k < plan.specs.size(); ++k) {
    const auto [it, fresh] = first.emplace(to_json(plan.specs[k]).dump(), origin[k]);
    if (fresh) {
      kept.push_back(std::move(plan.specs[k]));
      continue;
    }
    if (dropped++ == 0) {
      const MeasurementSpec& m = plan.specs[k];
      example = m.problem.kernel + " " + m.backend + " t=" + std::to_string(m.problem.threads) + " size " + format_size(m.problem.size) +
                " (experiments " + std::to_string(it->second + 1) + " and " + std::to_string(origin[k] + 1) + ")";
    }
  }
  if (dropped > 0) {
    warn_once(plan, where + ": " + std::to_string(dropped) + " measurement(s) asked for more than once are measured once, " +
                        "e.g. " + example);
  }
  plan.specs = std::move(kept);
}

// No silent filter: every name given on the command line selects something.
void check_filters_select(Plan& plan, const PlanOverrides& o, bool from_suite,
                          const std::set<std::string>& planned_kernels, const std::string& where) {
  for (const std::string& k : o.kernels) {
    if (from_suite && planned_kernels.count(k) == 0) {
      throw UsageError("--kernel: " + where + " has no experiment of kernel '" + k + "'");
    }
  }
  std::map<std::string, std::set<std::string>> measured;  // backend -> kernels it has specs for
  for (const auto& m : plan.specs) measured[m.backend].insert(m.problem.kernel);
  for (const std::string& b : o.backends) {
    if (b == "all" || b == "cpu" || b == "gpu" || b == "python") continue;  // groups: whatever runs
    std::string missing;
    for (const std::string& k : planned_kernels) {
      if (measured[b].count(k) == 0) missing += (missing.empty() ? "" : ", ") + k;
    }
    if (measured[b].empty()) {
      throw UsageError("--backend: '" + b + "' runs none of the planned kernels (" + missing + ") in " + where +
                       " (see `parlab list`)");
    }
    if (!missing.empty()) warn_once(plan, "--backend '" + b + "' is not measured for kernel(s) " + missing + " (it does not run them here)");
  }
}

// Round after round, each the whole plan in its order: a measurement's repetitions are spread
// over the run, not taken in one stretch of it.
void spread_over_rounds(Plan& plan, int rounds) {
  std::vector<MeasurementSpec> one = std::move(plan.specs);
  plan.specs.clear();
  plan.specs.reserve(one.size() * static_cast<std::size_t>(rounds));
  for (int r = 1; r <= rounds; ++r) {
    for (MeasurementSpec m : one) {
      m.round = r;
      plan.specs.push_back(std::move(m));
    }
  }
}

}  // namespace

Plan make_plan(const json* suite, const PlanOverrides& o, const Registry& registry, int max_threads) {
  Plan plan;
  const PlanSettings settings = plan_settings(suite, o, plan);
  const json& experiments = settings.experiments;
  Planner planner{plan, o, registry, suite != nullptr, settings};
  std::vector<std::size_t> origin;  // plan.specs[k] came from experiment origin[k]
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    origin.resize(plan.specs.size(), i - 1);
    const std::string ew = settings.where + " experiment " + std::to_string(i + 1);
    const Experiment x = read_experiment(experiments[i], ew, settings, o, max_threads, plan);
    for (const std::string& kernel : x.kernels) planner.add_kernel(x, kernel);
  }
  origin.resize(plan.specs.size(), experiments.size() - 1);
  drop_repeated_measurements(plan, origin, settings.where);
  for (const auto& [backend, why] : planner.short_points) warn_once(plan, why);
  check_filters_select(plan, o, suite != nullptr, planner.planned_kernels, settings.where);
  if (plan.specs.empty()) throw UsageError(settings.where + ": the filters select no measurement");
  if (settings.rounds > 1) spread_over_rounds(plan, settings.rounds);
  return plan;
}

}  // namespace parlab
