#include "experiments/plan/suite.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "experiments/plan/args.hpp"
#include "core/error.hpp"
#include "experiments/machine/interpreters.hpp"
#include "experiments/io/data_dir.hpp"

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

std::uint64_t size_value(const json& j, const std::string& where) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_string()) return parse_count(j.get<std::string>(), where, 0);
  throw UsageError(where + ": expected a non-negative integer or a string such as \"2^20\"");
}

int positive_int(const json& j, const std::string& where) {
  if (!j.is_number_integer() || j.get<long long>() < 1 || j.get<long long>() > 1000000) {
    throw UsageError(where + ": expected a positive integer");
  }
  return static_cast<int>(j.get<long long>());
}

// A string-valued key, or `fallback` where it is absent. A value of another type is a UsageError
// naming the key: nlohmann's own type_error names neither the key nor the suite, and escaped as
// a failure (exit 1) instead of bad input (exit 2).
std::string string_value(const json& obj, const char* key, const std::string& fallback, const std::string& where) {
  if (!obj.contains(key)) return fallback;
  if (!obj.at(key).is_string()) throw UsageError(where + " " + key + ": expected a string, got " + obj.at(key).dump());
  return obj.at(key).get<std::string>();
}

// A GPU index (the "device" key): a non-negative integer.
int device_value(const json& j, const std::string& where) {
  if (!j.is_number_integer() || j.get<long long>() < 0 || j.get<long long>() > 1024) {
    throw UsageError(where + ": expected a GPU index (an integer from 0 to 1024), got " + j.dump());
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
double host_bytes(const MeasurementSpec& s) { return kernel_host_bytes(s.kernel, s.precision, s.size, s.size_y); }

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
        if (e.in_default_set && runs_kernel && (w == "all" || e.kind == wk)) {
          // An unavailable entry has no kernel list: keep it only for kernels its kind runs.
          if (!e.available && e.kind == BackendKind::python && kernel != "pi") continue;
          add(&e);
        }
      }
    } else {
      const BackendEntry* e = registry.find(w);
      if (e == nullptr) {
        std::string accepted = "all, cpu, gpu, python";
        for (const auto& n : registry.names()) accepted += ", " + n;
        throw UsageError(where + ": unknown backend '" + w + "' (accepted: " + accepted + ")");
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
  const KernelSpec* k = find_kernel(kernel);
  if (k == nullptr) return std::uint64_t{1} << 22;
  if (k->work.shape == WorkShape::cube) return 256;
  if (k->work.shape == WorkShape::grid) return 2048;
  if (k->family == KernelFamily::pi) return std::uint64_t{1} << 24;
  return std::uint64_t{1} << 22;
}

}  // namespace

std::string format_size(std::uint64_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::uint64_t{1} << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

json to_json(const MeasurementSpec& s) {
  json j = {{"study", s.study}, {"scaling", s.scaling},     {"kernel", s.kernel},
          {"backend", s.backend}, {"threads", s.threads}, {"size", s.size},
          {"size_y", s.size_y}, {"precision", to_string(s.precision)}, {"seed", s.seed},
          {"reps", s.reps}, {"warmup", s.warmup}, {"min_rep_seconds", s.min_rep_seconds},
          {"device", s.device}};
  if (!s.interpreter.empty()) j["interpreter"] = s.interpreter;
  if (!s.python_gil.empty()) j["python_gil"] = s.python_gil;
  if (s.ranks > 0) j["ranks"] = s.ranks;
  if (s.round > 0) j["round"] = s.round;
  return j;
}

MeasurementSpec spec_from_json(const json& j) {
  try {
    MeasurementSpec s;
    s.study = j.at("study").get<std::string>();
    s.scaling = j.at("scaling").get<std::string>();
    s.kernel = j.at("kernel").get<std::string>();
    s.backend = j.at("backend").get<std::string>();
    s.threads = j.at("threads").get<int>();
    s.size = j.at("size").get<std::uint64_t>();
    s.size_y = j.at("size_y").get<std::uint64_t>();
    const auto p = precision_from_name(j.at("precision").get<std::string>());
    if (!p) throw UsageError("bad precision");
    s.precision = *p;
    s.seed = j.at("seed").get<std::uint64_t>();
    s.reps = j.at("reps").get<int>();
    s.warmup = j.at("warmup").get<int>();
    s.min_rep_seconds = j.at("min_rep_seconds").get<double>();
    s.device = j.at("device").get<int>();
    s.interpreter = j.value("interpreter", std::string());
    s.python_gil = j.value("python_gil", std::string());
    s.ranks = j.value("ranks", 0);
    s.round = j.value("round", 0);
    return s;
  } catch (const json::exception& e) {
    throw UsageError(std::string("malformed plan entry: ") + e.what());
  }
}

std::filesystem::path suites_dir() {
  if (const char* env = std::getenv("PARLAB_SUITES_DIR"); env != nullptr && *env != '\0') return env;
  return data_dir() / "suites";
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(suites_dir(), ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Suites renamed, old name -> new: the old name still runs the suite, with a one-line note, so
// scripts and habits that name it keep working. `peers` became `libraries` when "peer" came to
// mean only an external program measured beside parlab (docs/design.md, "Glossary").
const std::pair<const char*, const char*> kRenamedSuites[] = {{"peers", "libraries"}};

json load_suite(const std::string& name_or_path) {
  std::filesystem::path path = name_or_path;
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               (path.extension() == ".json" && std::filesystem::exists(path));
  if (!looks_like_path) {
    path = suites_dir() / (name_or_path + ".json");
    for (const auto& [old_name, new_name] : kRenamedSuites) {
      if (name_or_path == old_name && !std::filesystem::exists(path)) {
        std::cerr << "parlab: the suite '" << old_name << "' is now called '" << new_name << "'; running '"
                  << new_name << "'\n";
        path = suites_dir() / (std::string(new_name) + ".json");
      }
    }
  }
  if (std::filesystem::is_directory(path)) {
    throw UsageError("suite '" + name_or_path + "' is a directory; expected a suite name or a .json file");
  }
  std::ifstream in(path);
  if (!in) {
    if (looks_like_path) throw UsageError("suite file '" + path.string() + "' cannot be read");
    std::string accepted;
    for (const auto& n : suite_names()) accepted += (accepted.empty() ? "" : ", ") + n;
    throw UsageError("unknown suite '" + name_or_path + "' (accepted: " + accepted + ", or a path to a .json file)");
  }
  try {
    json j = json::parse(in);
    if (!j.is_object()) throw UsageError("suite file '" + path.string() + "': expected a JSON object");
    return j;
  } catch (const json::exception& e) {  // parse_error, and reading errors of an odd file
    throw UsageError("suite file '" + path.string() + "' is not valid JSON: " + e.what());
  }
}

Plan make_plan(const json* suite, const PlanOverrides& o, const Registry& registry, int max_threads) {
  Plan plan;
  json experiments = json::array();
  int reps = 5, warmup = 1, rounds = 1;
  std::uint64_t seed = kDefaultSeed;
  double min_rep = 0.01;
  std::string where = "ad-hoc run";

  if (suite != nullptr) {
    const std::string name = string_value(*suite, "name", "unnamed", "suite");
    where = "suite '" + name + "'";
    check_keys(*suite, {"name", "description", "reps", "warmup", "seed", "min_rep_seconds", "rounds", "experiments"},
               where);
    string_value(*suite, "description", "", where);
    plan.suite = name;
    if (suite->contains("reps")) reps = positive_int(suite->at("reps"), where + " reps");
    if (suite->contains("warmup")) warmup = positive_int(suite->at("warmup"), where + " warmup");
    if (suite->contains("rounds")) rounds = positive_int(suite->at("rounds"), where + " rounds");
    if (suite->contains("seed")) seed = size_value(suite->at("seed"), where + " seed");
    if (suite->contains("min_rep_seconds")) {
      if (!suite->at("min_rep_seconds").is_number() || suite->at("min_rep_seconds").get<double>() < 0) {
        throw UsageError(where + " min_rep_seconds: expected a non-negative number");
      }
      min_rep = suite->at("min_rep_seconds").get<double>();
    }
    if (!suite->contains("experiments") || !suite->at("experiments").is_array() || suite->at("experiments").empty()) {
      throw UsageError(where + ": needs a non-empty list \"experiments\"");
    }
    experiments = suite->at("experiments");
  } else {
    plan.suite = "ad-hoc";
    if (o.kernels.empty()) throw UsageError("an ad-hoc run needs --kernel (or give a suite)");
    json e = {{"kernel", o.kernels}, {"backends", o.backends.empty() ? std::vector<std::string>{"all"} : o.backends}};
    experiments.push_back(e);
  }
  if (o.reps) reps = *o.reps;
  if (o.rounds) rounds = *o.rounds;
  if (o.seed) seed = *o.seed;
  if (o.quick) {
    reps = std::min(reps, 3);
    min_rep = 0.0;
  }

  const double memory = physical_memory();
  std::set<std::string> planned_kernels;            // after the --kernel filter
  std::map<std::string, std::string> short_points;  // backend -> why some of its points were left out
  const auto warn_once = [&](const std::string& why) {
    if (std::find(plan.warnings.begin(), plan.warnings.end(), why) == plan.warnings.end()) plan.warnings.push_back(why);
  };
  std::vector<std::size_t> origin;  // plan.specs[k] came from experiment origin[k]
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    origin.resize(plan.specs.size(), i - 1);
    const json& e = experiments[i];
    const std::string ew = where + " experiment " + std::to_string(i + 1);
    if (!e.is_object()) throw UsageError(ew + ": expected an object");
    check_keys(e, {"kernel", "backends", "threads", "sizes", "size_y", "precision", "scaling", "reps", "study", "device", "interpreters", "ranks"}, ew);
    // Python backends in every interpreter mode found, or in this process's own only.
    std::vector<const InterpreterMode*> python_modes = {nullptr};
    if (e.contains("interpreters")) {
      const std::string which = e.at("interpreters").is_string() ? e.at("interpreters").get<std::string>() : "";
      if (which != "all" && which != "this" && which != "others") {
        throw UsageError(ew + ": interpreters must be \"all\", \"others\" or \"this\"");
      }
      if (which != "this") {
        python_modes.clear();
        for (const auto& m : interpreter_modes()) {
          if (m.available && (which == "all" || !m.parlab.empty())) python_modes.push_back(&m);
        }
        for (const auto& m : interpreter_modes()) {
          const std::string why = "interpreter not measured: " + m.describe() + ": " + m.reason;
          if (!m.available) warn_once(why);
        }
        // "all" always has this process's own; "others" may find none, and measures nothing then.
        if (python_modes.empty() && which == "all") python_modes = {nullptr};
      }
    }
    if (!e.contains("kernel")) throw UsageError(ew + ": needs \"kernel\"");
    const std::vector<std::string> kernels = string_list(e.at("kernel"), ew + " kernel");
    if (kernels.empty()) throw UsageError(ew + " kernel: the list is empty (name at least one kernel)");
    if (e.contains("backends") && e.at("backends").is_array() && e.at("backends").empty()) {
      throw UsageError(ew + " backends: the list is empty (name at least one backend, or \"all\")");
    }
    const std::string scaling = string_value(e, "scaling", "strong", ew);
    if (scaling != "strong" && scaling != "weak" && scaling != "none") {
      throw UsageError(ew + ": scaling must be strong, weak or none, got '" + scaling + "'");
    }
    std::vector<int> threads = {1, max_threads};
    if (e.contains("threads")) {
      if (!e.at("threads").is_string()) throw UsageError(ew + " threads: expected a string such as \"1,2,4\" or \"pow2\"");
      threads = parse_thread_list(e.at("threads").get<std::string>(), ew + " threads", max_threads);
    }
    if (o.threads) threads = *o.threads;
    std::vector<int> ranks;  // empty: the mpi backends run in this process's job
    if (e.contains("ranks")) {
      if (!e.at("ranks").is_string()) throw UsageError(ew + " ranks: expected a string such as \"1,2,4\"");
      ranks = parse_thread_list(e.at("ranks").get<std::string>(), ew + " ranks", max_threads, "rank count");
    }
    if (o.ranks) ranks = *o.ranks;
    const int e_reps = e.contains("reps") && !o.reps && !o.quick ? positive_int(e.at("reps"), ew + " reps") : reps;
    const std::uint64_t size_y = e.contains("size_y") ? size_value(e.at("size_y"), ew + " size_y") : 0;
    const std::string study = string_value(e, "study", plan.suite, ew);
    const int device = e.contains("device") ? device_value(e.at("device"), ew + " device") : 0;
    const int e_device = o.device ? *o.device : device;

    for (const std::string& kernel : kernels) {
      if (!o.kernels.empty() && suite != nullptr &&
          std::find(o.kernels.begin(), o.kernels.end(), kernel) == o.kernels.end()) {
        continue;  // filtered out by --kernel
      }
      planned_kernels.insert(kernel);
      const KernelSpec* spec = find_kernel(kernel);
      if (spec == nullptr) {
        // Kernels of the GPU or Python parts (studies) are not in the core table; accept any
        // name some registered backend runs, or, in a build without that part, any name an
        // experiment gives to backends that are all listed as unavailable (their records then
        // say why, instead of the suite failing to parse).
        bool known = false;
        for (const auto& be : registry.entries()) {
          if (std::find(be.kernels.begin(), be.kernels.end(), kernel) != be.kernels.end()) known = true;
        }
        if (!known && e.contains("backends")) {
          const auto named = string_list(e.at("backends"), ew + " backends");
          known = !named.empty() && std::all_of(named.begin(), named.end(), [&](const std::string& n) {
            const BackendEntry* be = registry.find(n);
            return be != nullptr && !be->available;
          });
        }
        if (!known) {
          std::string accepted;
          for (const auto& k : kernel_specs()) accepted += (accepted.empty() ? "" : ", ") + std::string(k.name);
          throw UsageError(ew + ": unknown kernel '" + kernel + "' (accepted: " + accepted + ")");
        }
      }
      std::vector<Precision> precisions;
      if (e.contains("precision")) {
        for (const auto& p : string_list(e.at("precision"), ew + " precision")) {
          const auto pp = precision_from_name(p);
          if (!pp) throw UsageError(ew + ": unknown precision '" + p + "' (accepted: float, double, int32)");
          precisions.push_back(*pp);
        }
      }
      if (!o.precisions.empty()) precisions = o.precisions;
      if (precisions.empty()) precisions.push_back(spec ? spec->precisions.front() : Precision::f64);
      for (Precision p : precisions) {
        if (spec && std::find(spec->precisions.begin(), spec->precisions.end(), p) == spec->precisions.end()) {
          throw UsageError(ew + ": kernel '" + kernel + "' does not support precision " + to_string(p));
        }
      }
      std::vector<std::uint64_t> sizes;
      if (e.contains("sizes")) {
        if (!e.at("sizes").is_array()) throw UsageError(ew + " sizes: expected a list");
        for (const auto& s : e.at("sizes")) sizes.push_back(size_value(s, ew + " sizes"));
      }
      if (o.sizes) sizes = *o.sizes;
      if (sizes.empty() && suite == nullptr) sizes = {default_size(kernel)};
      if (sizes.empty()) throw UsageError(ew + ": no sizes (give \"sizes\" in the suite or --size)");

      std::vector<std::string> wanted = e.contains("backends") ? string_list(e.at("backends"), ew + " backends")
                                                               : std::vector<std::string>{"all"};
      if (!o.backends.empty() && suite != nullptr) {
        // --backend filters the suite's selection.
        std::vector<std::string> filtered;
        for (const auto* be : select_backends(wanted, kernel, registry, ew)) {
          if (std::find(o.backends.begin(), o.backends.end(), be->name) != o.backends.end()) filtered.push_back(be->name);
        }
        // Validate the filter's names even when they select nothing here.
        select_backends(o.backends, kernel, registry, "--backend");
        wanted = filtered;
      }
      for (const BackendEntry* be : select_backends(wanted, kernel, registry, ew)) {
        // Serial and GPU backends have no thread count to sweep: measure them once.
        std::vector<int> ts = threads;
        if (!be->sweeps_threads || be->kind == BackendKind::gpu) ts = {1};
        const auto modes = be->kind == BackendKind::python ? python_modes : std::vector<const InterpreterMode*>{nullptr};
        for (const InterpreterMode* mode : modes)
        for (int t : ts) {
          for (std::uint64_t base : sizes) {
            MeasurementSpec m;
            if (mode != nullptr && !mode->parlab.empty()) {  // this process's own stays unnamed
              m.interpreter = mode->interpreter;
              m.python_gil = mode->python_gil;
            }
            m.study = study;
            m.scaling = scaling;
            m.kernel = kernel;
            m.backend = be->name;
            m.threads = t;
            m.size = base;
            if (scaling == "weak" && be->kind != BackendKind::gpu) {
              if (base > UINT64_MAX / static_cast<std::uint64_t>(t)) throw UsageError(ew + ": weak-scaled size overflows");
              m.size = base * static_cast<std::uint64_t>(t);
            }
            m.size_y = size_y;
            m.seed = seed;
            m.reps = e_reps;
            m.warmup = warmup;
            m.min_rep_seconds = min_rep;
            m.device = e_device;
            for (Precision p : precisions) {
              m.precision = p;
              if (be->kind == BackendKind::cpu && memory > 0 && host_bytes(m) > 0.8 * memory) {
                throw UsageError(ew + ": size " + std::to_string(m.size) + " of kernel '" + kernel + "' needs " +
                                 std::to_string(static_cast<std::uint64_t>(host_bytes(m) / (1 << 20))) +
                                 " MiB, more than 80% of this machine's memory (--size)");
              }
              if (be->kind != BackendKind::mpi || ranks.empty()) {
                if (be->work_unit > 0 && t > 1 && m.size / static_cast<std::uint64_t>(t) < be->work_unit) {
                  if (!o.sizes) {
                    // A suite's point: left out, one warning per backend naming the smallest size
                    // at the largest such thread count (a suite's "max" differs between machines).
                    short_points[be->name] =
                        "backend '" + be->name + "' takes " + format_size(be->work_unit) +
                        " samples at a time: points where some threads would get no work are left out "
                        "(from " + ew + ": size " + format_size(m.size) + " at " + std::to_string(t) +
                        " threads needs a size >= " + format_size(be->work_unit * static_cast<std::uint64_t>(t)) + ")";
                    continue;
                  }
                  warn_once("backend '" + be->name + "' takes " + format_size(be->work_unit) +
                            " samples at a time, so at size " + format_size(m.size) + " and " + std::to_string(t) +
                            " threads some threads get no work and the figure measures fewer threads than it "
                            "says (use a size >= " +
                            format_size(be->work_unit * static_cast<std::uint64_t>(t)) + ")");
                }
              plan.specs.push_back(m);
                continue;
              }
              // One measurement per MPI job size; weak scaling grows with every rank's threads.
              for (int rk : ranks) {
                MeasurementSpec mr = m;
                mr.ranks = rk;
                if (scaling == "weak") {
                  if (m.size > UINT64_MAX / static_cast<std::uint64_t>(rk)) throw UsageError(ew + ": weak-scaled size overflows");
                  mr.size = m.size * static_cast<std::uint64_t>(rk);
                }
                plan.specs.push_back(mr);
              }
            }
          }
        }
      }
    }
  }
  origin.resize(plan.specs.size(), experiments.size() - 1);
  // A measurement two experiments both ask for (a serial backend in two thread sweeps, a suite
  // that lists an experiment twice) is measured once, with one warning: measuring it twice
  // would give two records of one measurement, which compare and the figures cannot tell apart.
  {
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
        example = m.kernel + " " + m.backend + " t=" + std::to_string(m.threads) + " size " + format_size(m.size) +
                  " (experiments " + std::to_string(it->second + 1) + " and " + std::to_string(origin[k] + 1) + ")";
      }
    }
    if (dropped > 0) {
      warn_once(where + ": " + std::to_string(dropped) + " measurement(s) asked for more than once are measured once, " +
                "e.g. " + example);
    }
    plan.specs = std::move(kept);
  }
  for (const auto& [backend, why] : short_points) warn_once(why);
  // No silent filter: every name given on the command line selects something.
  for (const std::string& k : o.kernels) {
    if (suite != nullptr && planned_kernels.count(k) == 0) {
      throw UsageError("--kernel: " + where + " has no experiment of kernel '" + k + "'");
    }
  }
  std::map<std::string, std::set<std::string>> measured;  // backend -> kernels it has specs for
  for (const auto& m : plan.specs) measured[m.backend].insert(m.kernel);
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
    if (!missing.empty()) warn_once("--backend '" + b + "' is not measured for kernel(s) " + missing + " (it does not run them here)");
  }
  if (plan.specs.empty()) throw UsageError(where + ": the filters select no measurement");
  if (rounds > 1) {
    // Round after round, each the whole plan in its order: a measurement's repetitions are spread
    // over the run, not taken in one stretch of it.
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
  return plan;
}

}  // namespace parlab
