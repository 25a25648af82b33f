// `parlab ceilings`, the ceilings cache and the measurement that fills it (docs/ceilings.md).
#include "experiments/machine/ceilings.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include "experiments/machine/context.hpp"
#include "experiments/machine/cpu_stat.hpp"
#include "experiments/machine/worker_causes.hpp"
#include "experiments/machine/incore.hpp"
#include "core/ceilings_cpu.hpp"
#include "core/incore_probe.hpp"
#include "core/pi_simd.hpp"
#include "core/roof.hpp"
#include "core/error.hpp"
#include "core/spread.hpp"
#include "experiments/io/spread_json.hpp"
#include "parlab/build_commit.hpp"
#include "parlab/build_info.hpp"
#include "experiments/wiring/make_registry.hpp"
#include "experiments/io/files.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/text.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

bool quick_mode() {
  const char* q = std::getenv("PARLAB_CEILINGS_QUICK");
  return q != nullptr && *q != '\0' && std::string(q) != "0";
}

}  // namespace

BandwidthProbePlan bandwidth_probe_plan(std::optional<std::uint64_t> llc, bool quick) {
  // Working sets (all of a kernel's arrays together) where memory, not the cache, is measured:
  // kMemoryResidentFactor and twice that times max(LLC, 64 MiB) (core/roof.hpp, residency: the rule
  // record_limit applies to records too). A set the size of the LLC was once among them and won on
  // a 300 MiB-LLC node, so that roof held cache hits that the rule for "no roof" calls cache. The
  // 64 MiB floor keeps a sweep long against the clock where the cache is small or unknown.
  if (quick) {
    return {{std::uint64_t{1} << 20, std::uint64_t{4} << 20}, 2, " (PARLAB_CEILINGS_QUICK: test sizes, not a roof)"};
  }
  const std::uint64_t base = std::max<std::uint64_t>(llc.value_or(0), std::uint64_t{64} << 20);
  const auto k = static_cast<std::uint64_t>(kMemoryResidentFactor);
  return {{k * base, 2 * k * base}, 5, ""};
}

std::optional<BandwidthKernel> bandwidth_kernel(CpuRoof base) noexcept {
  switch (base) {
    case CpuRoof::bw_read: return BandwidthKernel::read;
    case CpuRoof::bw_copy_nt: return BandwidthKernel::copy_nt;
    case CpuRoof::bw_triad: return BandwidthKernel::triad_nt;
    case CpuRoof::fma_f64:
    case CpuRoof::imul: return std::nullopt;
  }
  return std::nullopt;
}

namespace {

std::string utc_now() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream os;
  os << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return os.str();
}

// FNV-1a, 64 bits, as 12 hex digits: a short, stable name part (not a security property).
std::string short_hash(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, 12);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 1);
    }
  }
  return "unknown cpu";
}

json to_json(const Roof& r, const std::string& when) {
  json j = {{"value", r.value},   {"unit", r.unit},         {"method", r.method}, {"how", r.how},
            {"threads", r.threads}, {"device", r.device}, {"measured_utc", when}};
  if (r.method == "theoretical") {
    json inputs = json::object();
    for (const auto& [k, v] : r.inputs) inputs[k] = v;
    j["inputs"] = inputs;
  }
  // The roof's value is the largest of its measurements (a roof is what the machine can do; a
  // slower repetition was disturbed); their spread says how far they disagreed.
  if (const auto s = spread_of(r.samples)) j["spread"] = spread_json(*s);
  return j;
}

// A human figure in the one number format (io/numbers.hpp): 12.3 GB/s, 45.6 Gflop/s, 32.0 MiB,
// 1.22 Gsamples/s, from a roof's or a block's JSON unit.
std::string human(double v, const std::string& unit) {
  if (unit == "bytes/s") return format_rate(v, "B/s");
  if (unit == "flops/s") return format_rate(v, "flop/s");
  if (unit == "muls/s") return format_rate(v, "mul/s");
  if (unit == "samples/s") return format_rate(v, "samples/s");
  if (unit == "hz") return format_rate(v, "Hz");
  if (unit == "bytes") return format_bytes(v);
  return format_rate(v, unit);
}

// A roof's range over its median (a share: 0.16 for 16%), from its JSON spread; the listing and the
// warning both say it.
double range_share(const json& spread) {
  return (spread["max"].get<double>() - spread["min"].get<double>()) / spread["median"].get<double>();
}

// "cpu_bw_copy_nt_all: its 5 measurements spread 16% (251.5 to 293.3 GB/s)" when a roof's
// measurements differ by more than kUnstableCv of their median; empty otherwise.
std::string roof_spread_warning(const std::string& name, const json& roof) {
  if (!roof.contains("spread")) return {};
  const json& s = roof["spread"];
  const double lo = s["min"].get<double>(), hi = s["max"].get<double>(), median = s["median"].get<double>();
  if (!(median > 0) || range_share(s) <= kUnstableCv) return {};
  const std::string unit = roof.value("unit", "");
  std::ostringstream os;
  os << name << ": its " << s["n"].get<std::size_t>() << " measurements spread " << std::fixed << std::setprecision(0)
     << 100 * range_share(s) << "% (" << human(lo, unit) << " to " << human(hi, unit)
     << "); the roof is the largest. Remeasure on a quiet machine (parlab ceilings --remeasure)";
  return os.str();
}

RoofSet measure_cpu(const Registry& registry, std::ostream& log) {
  RoofSet set;
  const bool quick = quick_mode();
  const std::string note = bandwidth_probe_plan(std::nullopt, quick).note;
  const std::optional<std::uint64_t> llc = last_level_cache_sysfs();
  if (llc) {
    set.roofs.push_back({RoofKey::cpu_llc_bytes, static_cast<double>(*llc), "bytes", "measured",
                         "largest cache level in /sys/devices/system/cpu/cpu0/cache (as the kernel reports it)", 1, "cpu", {},
                         {}});
  } else {
    set.unavailable.emplace_back(RoofKey::cpu_llc_bytes, "sysfs reports no cache sizes here");
  }
  // The compute probes run on parlab's pool (its threads hand out chunks dynamically); the
  // bandwidth probes on pinned threads of their own. Both need the pool built in, as before.
  const BackendEntry* pool = registry.find("pool");
  if (pool == nullptr || !pool->available || !pool->make_executor) {
    for (const CpuRoof r : kCpuRoofs) {
      for (const ThreadScope scope : kThreadScopes) {
        set.unavailable.emplace_back(roof_key(r, scope), "the pool backend is not available in this build");
      }
    }
    return set;
  }
  const int all = hardware_threads();
  const BandwidthProbePlan bw_plan = bandwidth_probe_plan(llc, quick);
  const std::vector<std::uint64_t>& working_sets = bw_plan.working_sets;
  const int reps = bw_plan.reps;
  // Compute: several short repetitions rather than a few long ones, so that on a shared machine
  // the best of them is more likely to have had its cores to itself.
  const double compute_s = quick ? 2e-3 : 0.05;
  const int compute_reps = quick ? 1 : 6;
  struct Bw {
    CpuRoof base;
    BandwidthKernel kernel;
  };
  for (const int threads : {all, 1}) {
    if (threads == 1 && all == 1) continue;  // measured once below
    const ThreadScope scope = threads == all ? ThreadScope::all : ThreadScope::one;
    const auto push = [&](CpuRoof base, const ProbeResult& p, const char* unit) {
      set.roofs.push_back(
          {roof_key(base, scope), p.value, unit, "measured", p.how + note, threads, "cpu", {}, p.samples});
      log << "parlab: ceilings: " << to_string(roof_key(base, scope)) << " = " << human(p.value, unit) << "\n";
      if (all == 1) {  // one hardware thread: the one-core roof is the all-cores roof
        Roof one = set.roofs.back();
        one.key = roof_key(base, ThreadScope::one);
        set.roofs.push_back(one);
      }
    };
    const Bw bws[] = {{CpuRoof::bw_read, *bandwidth_kernel(CpuRoof::bw_read)},
                      {CpuRoof::bw_copy_nt, *bandwidth_kernel(CpuRoof::bw_copy_nt)},
                      {CpuRoof::bw_triad, *bandwidth_kernel(CpuRoof::bw_triad)}};
    try {
      // The bandwidth probes on pinned threads of their own (core/ceilings_cpu.hpp): their arrays
      // are freed before the compute probes run on the pool.
      BandwidthProbe probe(threads, working_sets.back());
      for (const Bw& b : bws) push(b.base, probe.measure(b.kernel, working_sets, reps), "bytes/s");
    } catch (const UnavailableError& e) {
      // Pinning refused (a container without sched_setaffinity): no roof rather than one from
      // floating threads, which is not what the roof says it is.
      for (const Bw& b : bws) {
        for (const ThreadScope s : all == 1 ? std::vector<ThreadScope>(kThreadScopes.begin(), kThreadScopes.end())
                                            : std::vector<ThreadScope>{scope}) {
          set.unavailable.emplace_back(roof_key(b.base, s), e.what());
        }
      }
    }
    // Made after the bandwidth probe is gone, so the pool's threads never compete with its pinned ones.
    std::unique_ptr<Executor> ex = pool->make_executor(threads);
    push(CpuRoof::fma_f64, measure_fma_f64(*ex, compute_s, compute_reps), "flops/s");
    push(CpuRoof::imul, measure_imul(*ex, compute_s, compute_reps), "muls/s");
  }
  return set;
}

// A cache file is a few kilobytes.
constexpr std::size_t kMaxCacheBytes = std::size_t{1} << 20;
// No real machine has a roof below 1 of its unit per second (or a cache below a byte).
constexpr double kMinRoof = 1.0;

}  // namespace

namespace {

// What makes the cache's `incore` blocks untrustworthy, or empty: read by record_limit, where a
// bound divides a record's rate.
std::string incore_problem(const json& incore) {
  if (!incore.is_object()) return "'incore' is not an object";
  for (const auto& [kernel, b] : incore.items()) {
    const std::string where = "incore '" + quoted_value(kernel, 60) + "'";
    if (!b.is_object()) return where + " is not an object";
    if (b.contains("unavailable") && !b["unavailable"].is_string()) return where + ": 'unavailable' is not text";
    const auto positive = [](const json& o, const char* key) {
      return o.contains(key) && o[key].is_number() && std::isfinite(o[key].get<double>()) && o[key].get<double>() > 0;
    };
    if (b.contains("imul_probe_bounds")) {
      if (!b["imul_probe_bounds"].is_boolean()) return where + ": 'imul_probe_bounds' is not true or false";
      if (!b.contains("imul_probe") || !b["imul_probe"].is_object() ||
          !positive(b["imul_probe"], "instructions_per_multiply") || !positive(b["imul_probe"], "pi_instructions_per_multiply"))
        return where + ": 'imul_probe' has no positive instructions per multiply";
    }
    if (b.contains("loop")) {
      const json& l = b["loop"];
      if (!l.is_object()) return where + ": 'loop' is not an object";
      // pi's loop counts samples, matmul's flops (incore.hpp).
      const bool flops = b.value("unit", "") == "flops/s";
      for (const char* key : flops ? std::vector<const char*>{"multiply_instructions", "lanes", "flops_per_iteration"}
                                   : std::vector<const char*>{"imuls_per_sample", "multiply_instructions", "lanes",
                                                              "samples_per_iteration"}) {
        if (!positive(l, key)) return where + ": 'loop' has no positive '" + key + "'";
      }
    }
    if (!b.contains("value")) continue;
    if (!b["value"].is_number() || !std::isfinite(b["value"].get<double>()) || b["value"].get<double>() < kMinRoof)
      return where + ": value is not a rate above 0";
    if (!b.contains("cores") || !b["cores"].is_number_integer() || b["cores"].get<long long>() < 1 ||
        b["cores"].get<long long>() > 0x7fffffffLL)
      return where + ": 'cores' is not a core count";
    for (const char* key : {"model", "binds", "unit"}) {
      if (!b.contains(key) || !b[key].is_string()) return where + ": no string '" + key + "'";
    }
    if (b["unit"] != "samples/s" && b["unit"] != "flops/s") return where + ": 'unit' is not samples/s or flops/s";
    if (b.contains("tile") && (!b["tile"].is_object() || !positive(b["tile"], "share")))
      return where + ": 'tile' has no positive share";
    if (b.contains("chains") && (!b["chains"].is_object() || !positive(b["chains"], "share")))
      return where + ": 'chains' has no positive share";
    if (b.contains("all_cpus")) {
      const json& a = b["all_cpus"];
      if (!a.is_object()) return where + ": 'all_cpus' is not an object";
      if (a.contains("value") && (!positive(a, "value") || !a.contains("cpus") || !a["cpus"].is_number_integer() ||
                                  a["cpus"].get<long long>() < 1 || a["cpus"].get<long long>() > 0x7fffffffLL))
        return where + ": 'all_cpus' has no positive value and CPU count";
    }
    if (b.contains("clocks_hz")) {
      if (!b["clocks_hz"].is_array() || b["clocks_hz"].empty()) return where + ": 'clocks_hz' is not a list of clocks";
      for (const auto& hz : b["clocks_hz"]) {
        if (!hz.is_number() || !std::isfinite(hz.get<double>()) || hz.get<double>() <= 0)
          return where + ": 'clocks_hz' holds something other than a positive clock";
      }
    }
    // Each CPU's probe rate (limit.cpp's slow_cpus divides by them).
    for (const char* key : {"rates_instructions_per_s", "rates_flops_per_s"}) {
      const json pc = b.value("probe_cpu", json::object());
      if (!pc.contains(key)) continue;
      if (!pc[key].is_array() || pc[key].empty()) return where + ": 'probe_cpu." + key + "' is not a list of rates";
      for (const auto& r : pc[key]) {
        if (!r.is_number() || !std::isfinite(r.get<double>()) || r.get<double>() <= 0)
          return where + ": 'probe_cpu." + key + "' holds something other than a positive rate";
      }
    }
  }
  return {};
}

}  // namespace

// What makes an in-core block's bound less trustworthy, said as the roofs' spreads are (ceilings.hpp): its probe's
// windows spread over kUnstableCv of their median (the bound takes the best), and CPUs so unequal
// at the block's probe (pinned in turn) that a record whose threads float reads far below the
// bound for where it ran, not for what its loop does (limit.cpp names that cause per record).
// CPUs whose slowest runs a block's probe below this share of the fastest are unequal enough that
// a floating record's bound depends on where it ran (warned about; limit.cpp names it per record).
constexpr double kEqualCpus = 0.90;

std::vector<std::string> incore_warnings(const json& incore) {
  std::vector<std::string> out;
  if (!incore.is_object()) return out;
  for (const auto& [kernel, b] : incore.items()) {
    if (!b.is_object() || !b.contains("value")) continue;
    const json s = b.value("probe", json::object()).value("spread", json::object());
    if (s.contains("min") && s.contains("max") && s.contains("median") && s["median"].get<double>() > 0 &&
        range_share(s) > kUnstableCv) {
      out.push_back("incore." + kernel + ": its probe's " + std::to_string(s.value("n", 0)) + " windows spread " +
                    fixed(100 * range_share(s), 0) +
                    "% of their median; the bound takes the best. Remeasure on a quiet machine "
                    "(parlab ceilings --remeasure)");
    }
    const json pc = b.value("probe_cpu", json::object());
    for (const char* unit : {"instructions_per_s", "flops_per_s"}) {
      const double fast = pc.value(std::string("fastest_") + unit, 0.0), slow = pc.value(std::string("slowest_") + unit, 0.0);
      if (fast > 0 && slow > 0 && slow / fast < kEqualCpus) {
        out.push_back("incore." + kernel + ": pinned in turn, the slowest of " + std::to_string(pc.value("cpus", 0)) +
                      " CPUs ran its probe at " + fixed(slow / fast, 2) +
                      " of the fastest (a busy SMT sibling or a lower clock): records whose threads float may "
                      "read far below their bound, and say so (limit.incore.below)");
      }
    }
  }
  return out;
}

// What makes a parsed cache untrustworthy (experiments/schema/ceilings.schema.json says the same),
// or empty when nothing does. A roof must be finite and above 0: it divides every record's rate.
std::string cache_problem(const json& c) {
  if (!c.is_object()) return "not a JSON object";
  if (!c.contains("roofs") || !c["roofs"].is_object()) return "no object 'roofs'";
  if (!c.contains("measured_utc") || !c["measured_utc"].is_string()) return "no string 'measured_utc'";
  for (const auto& [name, r] : c["roofs"].items()) {
    const std::string where = "roof '" + quoted_value(name, 60) + "'";
    if (!r.is_object()) return where + " is not an object";
    for (const char* key : {"unit", "method", "how", "measured_utc"}) {
      if (!r.contains(key) || !r[key].is_string()) return where + ": no string '" + key + "'";
    }
    if (!r.contains("value") || !r["value"].is_number()) return where + ": no number 'value'";
    const double v = r["value"].get<double>();
    if (!std::isfinite(v) || v < kMinRoof) return where + ": value " + quoted_json(r["value"]) + " is not a rate above 0";
    // GPU roofs count the GPU threads launched: 2^27 for gpu_bw's sweeps of a 2 GiB array (an
    // earlier bound of 2^20 refused every cache a GPU machine wrote, and measured again each run).
    if (!r.contains("threads") || !r["threads"].is_number_integer() || r["threads"].get<long long>() < 0 ||
        r["threads"].get<long long>() > 0x7fffffffLL) {
      return where + ": 'threads' is not a thread count";
    }
    if (r.contains("spread")) {  // read by the listing and the warnings: each field a finite number
      const json& s = r["spread"];
      if (!s.is_object()) return where + ": 'spread' is not an object";
      for (const char* key : {"min", "median", "max"}) {
        if (!s.contains(key) || !s[key].is_number() || !std::isfinite(s[key].get<double>()) || s[key].get<double>() <= 0)
          return where + ": spread has no positive number '" + key + "'";
      }
      if (!s.contains("n") || !s["n"].is_number_unsigned() || s["n"].get<unsigned long long>() == 0)
        return where + ": spread has no count 'n'";
    }
  }
  if (c.contains("unavailable")) {
    if (!c["unavailable"].is_object()) return "'unavailable' is not an object";
    for (const auto& [name, why] : c["unavailable"].items()) {
      if (!why.is_string()) return "unavailable '" + quoted_value(name, 60) + "' has no reason";
    }
  }
  if (c.contains("warnings")) {
    if (!c["warnings"].is_array()) return "'warnings' is not a list";
    for (const auto& w : c["warnings"]) {
      if (!w.is_string()) return "a warning is not text";
    }
  }
  if (c.contains("incore")) {
    if (std::string p = incore_problem(c["incore"]); !p.empty()) return p;
  }
  if (c.contains("seconds") && !c["seconds"].is_number()) return "'seconds' is not a number";
  if (c.contains("quick") && !c["quick"].is_boolean()) return "'quick' is not true or false";
  return "";
}

std::optional<std::filesystem::path> ceilings_cache_file() {
  std::filesystem::path dir;
  if (const char* d = std::getenv("PARLAB_CEILINGS_CACHE"); d != nullptr && *d != '\0') {
    dir = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') {
    dir = std::filesystem::path(x) / "parlab" / "ceilings";
  } else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    dir = std::filesystem::path(h) / ".cache" / "parlab" / "ceilings";
  } else {
    return std::nullopt;
  }
  // The pi path too (PARLAB_PI_ISA) and its loop's shape: the in-core block reads the loop of the
  // path that runs, and a build of uncommitted changes keeps the commit of the one before it.
  const PiIsa isa = pi_active_isa();
  std::string pi = "|pi:" + std::string(to_string(isa));
  if (const auto loop = pi_loop(isa)) {
    pi.append(":").append(std::to_string(loop->pairs_per_iteration)).append(":").append(std::to_string(loop->chains));
  }
  const std::string build = std::string(build_info::kBuildCommit) + "|" + build_info::kCompiler + "|" +
                            build_info::kCxxFlags + "|" + build_info::kBuildType + "|" + build_info::kSanitizers + pi;
  return dir / (host_name() + "-" + short_hash(cpu_model()) + "-" + short_hash(build) + (quick_mode() ? "-quick" : "") +
                ".json");
}

json roof_json(const Roof& r, const std::string& when) { return to_json(r, when); }
std::string human_figure(double v, const std::string& unit) { return human(v, unit); }
std::string utc_now_text() { return utc_now(); }

json measure_ceilings(const Registry& registry, std::ostream& log) {
  const auto t0 = Clock::now();
  const std::string when = utc_now();
  // What else ran while the probes did: a roof measured beside other work is no roof.
  const CpuTicks ticks_before = CpuTicks::read();
  const double ours_before = process_cpu_s();
  RoofSet set = measure_cpu(registry, log);
  RoofSet gpu = measure_gpu_roofs(quick_mode());
  set.roofs.insert(set.roofs.end(), gpu.roofs.begin(), gpu.roofs.end());
  set.unavailable.insert(set.unavailable.end(), gpu.unavailable.begin(), gpu.unavailable.end());
  json roofs = json::object(), unavailable = json::object();
  for (const auto& r : set.roofs) roofs[std::string(to_string(r.key))] = to_json(r, when);
  for (const auto& [key, why] : set.unavailable) unavailable[std::string(to_string(key))] = why;
  json c = {{"measured_utc", when}, {"cache", nullptr}, {"roofs", roofs}, {"unavailable", unavailable}};
  // The in-core bound of CPU pi's compiled loop (incore.hpp): a tool that fails says so in the
  // block; nothing it lacks stops the roofs above.
  try {
    c["incore"] = measure_incore(log, quick_mode() ? kQuickProbeWindowSeconds : kProbeWindowSeconds);
  } catch (const Error& e) {
    c["incore"] = {{"pi", {{"unavailable", e.what()}}}};
  }
  if (roofs.contains("gpu_sm_count")) {  // a GPU answered: its pi kernel's loop, read from SASS
    try {
      if (const auto code = gpu_pi_code()) {
        c["incore"]["pi_gpu"] = measure_gpu_incore(code->pi_function, code->pairs_per_trip, code->imul_probe_function, roofs);
      }
    } catch (const Error& e) {
      c["incore"]["pi_gpu"] = {{"unavailable", e.what()}};
    }
  }
  // What makes these roofs less trustworthy, said beside them: a busy machine, and an all-cores
  // compute roof below the one-core roof (on an idle machine it is at least as large).
  json warnings = json::array();
  if (double load[1] = {0}; getloadavg(load, 1) == 1 && load[0] > 0.5 * hardware_threads()) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << "machine busy while measuring: 1-minute load average " << load[0]
       << " on " << hardware_threads() << " hardware threads";
    warnings.push_back(os.str());
  }
  for (const CpuRoof base : {CpuRoof::fma_f64, CpuRoof::imul}) {
    const std::string all(to_string(roof_key(base, ThreadScope::all))), one(to_string(roof_key(base, ThreadScope::one)));
    if (roofs.contains(all) && roofs.contains(one) && roofs[all]["threads"].get<int>() > 1 &&
        roofs[all]["value"].get<double>() < roofs[one]["value"].get<double>()) {
      warnings.push_back(all + " is below " + one + ": the cores were not all free (remeasure on a quiet machine)");
    }
  }
  for (const auto& [name, roof] : roofs.items()) {
    if (std::string w = roof_spread_warning(name, roof); !w.empty()) warnings.push_back(w);
  }
  for (std::string& w : incore_warnings(c.value("incore", json::object()))) warnings.push_back(std::move(w));
  c["warnings"] = warnings;
  c["seconds"] = std::chrono::duration<double>(Clock::now() - t0).count();
  if (const std::optional<double> others = others_cpus_between(ticks_before, CpuTicks::read(),
                                                                process_cpu_s() - ours_before, c["seconds"].get<double>())) {
    c["others"] = *others;
  }
  if (std::string why = busy_roofs(c); !why.empty()) c["busy"] = std::move(why);
  if (quick_mode()) c["quick"] = true;
  return c;
}

std::string busy_roofs(const json& c) {
  std::vector<std::string> why;
  if (const double others = c.value("others", 0.0); others >= kOthersDisturb) {
    why.push_back("other processes used " + fixed(others, 2) + " CPUs' worth of time while the probes ran");
  }
  const json roofs = c.value("roofs", json::object());
  for (const auto& [name, roof] : roofs.items()) {
    if (roof.contains("spread") && range_share(roof["spread"]) > kBusySpread) {
      why.push_back(name + "'s measurements spread " + fixed(100 * range_share(roof["spread"]), 0) + "%");
    }
  }
  // Bandwidth is left out: on a VM, one CPU can draw what all of them do.
  for (const CpuRoof base : {CpuRoof::fma_f64, CpuRoof::imul}) {
    const std::string all(to_string(roof_key(base, ThreadScope::all))), one(to_string(roof_key(base, ThreadScope::one)));
    if (roofs.contains(all) && roofs.contains(one) && roofs[all].value("threads", 1) > 1 &&
        roofs[all].value("value", 0.0) <= roofs[one].value("value", 0.0)) {
      why.push_back(all + " (" + human(roofs[all].value("value", 0.0), roofs[all].value("unit", "")) +
                    ") no higher than " + one + " (" + human(roofs[one].value("value", 0.0), roofs[one].value("unit", "")) +
                    "): the other CPUs computed nothing for it");
    }
  }
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
  return out;
}

json load_or_measure_ceilings(const Registry& registry, bool remeasure, std::ostream& log) {
  const auto file = ceilings_cache_file();
  std::error_code no_throw;  // a cache path that cannot be looked at is read below, and refused there
  if (file && !remeasure && (std::filesystem::exists(*file, no_throw) || std::filesystem::is_symlink(*file, no_throw))) {
    // A cache that fails any check is measured again, never trusted: one wrong value would
    // otherwise stop every later run on this machine.
    try {
      json c = read_json_file(*file, "ceilings cache", {kMaxCacheBytes, ReadLimits{}.max_depth});
      if (const std::string why = cache_problem(c); why.empty()) {
        c["cache"] = file->string();
        return c;
      } else {
        log << "parlab: ceilings cache " << file->string() << ": " << why << "; measuring again\n";
      }
    } catch (const UsageError& e) {
      log << "parlab: " << e.what() << "; measuring again\n";
    }
  }
  log << hanging("parlab: ",
                 std::string(remeasure ? "measuring" : "no ceilings cached for this machine and build: measuring") +
                     " this machine's roofs (parlab ceilings" + (remeasure ? "" : "; parlab run --no-ceilings skips") +
                     ")",
                 terminal_width())
      << "\n";
  json c = measure_ceilings(registry, log);
  // The test probes (PARLAB_CEILINGS_QUICK) are milliseconds long and no machine's roofs: their
  // set keeps its `busy` reason and is cached, so the suites beside each other do not measure anew.
  if (c.contains("busy") && !quick_mode()) {
    // Used for this run, and said; never kept for the next, which would take them unsaid.
    c["cache"] = nullptr;
    log << hanging("parlab: warning: ", "these roofs were measured on a busy machine (" + c["busy"].get<std::string>() +
                                            "): not cached, so the next run measures again; on a quiet machine, "
                                            "`parlab ceilings --remeasure` keeps a set",
                   terminal_width())
        << "\n";
    return c;
  }
  if (file) {
    // Written atomically: two parlab processes measuring at once leave one whole file.
    std::error_code ec;
    std::filesystem::create_directories(file->parent_path(), ec);
    try {
      c["cache"] = file->string();
      write_atomically(*file, c.dump(1) + "\n");
    } catch (const std::exception& e) {
      c["cache"] = nullptr;
      log << "parlab: warning: ceilings not cached (" << e.what() << ")\n";
    }
  }
  return c;
}

int cmd_ceilings(const Registry& registry, bool remeasure, bool as_json, std::ostream& out, std::ostream& err) {
  const json c = load_or_measure_ceilings(registry, remeasure, err);
  if (as_json) {
    out << c.dump(1) << "\n";
    return 0;
  }
  print_ceilings(c, out);
  return 0;
}

namespace {

// "spread 3.1% of 5; ": a measured roof's range over its median, and how many measurements it
// has, put before its `how`; empty for a roof without measurements.
std::string spread_note(const json& roof) {
  if (!roof.contains("spread")) return {};
  const json& s = roof["spread"];
  std::ostringstream os;
  os << "spread " << std::fixed << std::setprecision(1)
     << 100 * range_share(s) << "% of "
     << s["n"].get<std::size_t>() << "; ";
  return os.str();
}

}  // namespace

// Within the terminal's width: each roof on one line, how it was measured wrapped below it.
void print_ceilings(const json& c, std::ostream& out) {
  const std::size_t width = terminal_width();
  std::ostringstream head;
  head << "Roofs of " << host_name() << ", measured " << c.value("measured_utc", "?");
  if (c.contains("seconds")) head << " in " << std::fixed << std::setprecision(1) << c["seconds"].get<double>() << " s";
  head << (c["cache"].is_string() ? "; cached in " + c["cache"].get<std::string>() : std::string("; not cached"));
  out << hanging("", head.str(), width) << "\n";
  if (c.value("quick", false)) out << "PARLAB_CEILINGS_QUICK: test sizes, these are not roofs\n";
  for (const auto& [name, r] : c["roofs"].items()) {
    out << "  " << std::left << std::setw(20) << name << std::right << std::setw(16)
        << human(r.value("value", 0.0), r.value("unit", "")) << "  " << std::setw(11) << r.value("method", "")
        << "  t=" << std::left << r.value("threads", 0) << "\n"
        << hanging("      ", spread_note(r) + r.value("how", ""), width) << "\n";
  }
  const json incore = c.value("incore", json::object());  // named: items() of a temporary would dangle
  for (const auto& [kernel, b] : incore.items()) {
    if (b.contains("value")) {
      const std::string unit = b.value("unit", "samples/s");
      out << "  " << std::left << std::setw(20) << ("incore_" + kernel) << std::right << std::setw(16)
          << human(b["value"].get<double>(), unit)
          << "  " << std::setw(11) << b.value("model", "") << (kernel == "pi_gpu" ? "  whole GPU\n" : "  per core\n")
          << hanging("      ", b.value("binds", "") + "; " + b.value("model_why", ""), width) << "\n";
      if (const json pc = b.value("probe_cpu", json::object()); pc.contains("how") && b.contains("cpu")) {
        out << hanging("      ", "probed on CPU " + std::to_string(b["cpu"].get<int>()) + ": " + pc["how"].get<std::string>(),
                       width)
            << "\n";
      }
      // Where the bound's rate came from: the probe's best window, or the scan's (probe_vs_scan).
      if (const json pv = b.value("probe_vs_scan", json::object()); pv.contains("taken") && pv.value("scan", 0.0) > 0) {
        out << hanging("      ", "the probe read " + fixed(pv.value("probe", 0.0) / pv["scan"].get<double>(), 3) +
                                     " of its rate in the scan after " + std::to_string(pv.value("attempts", 1)) +
                                     " attempt(s); the bound takes the " + pv["taken"].get<std::string>() + "'s",
                       width)
            << "\n";
      }
      if (const json all = b.value("all_cpus", json::object()); all.contains("value")) {
        std::ostringstream a;
        a << "all " << all.value("cpus", 0) << " CPUs busy at once: ";
        a << human(all["value"].get<double>(), unit);
        a << " in all, each CPU " << std::fixed << std::setprecision(2) << all.value("share", 0.0) << " of the fastest alone";
        out << hanging("      ", a.str(), width) << "\n";
      } else if (all.contains("unavailable")) {
        out << hanging("      all CPUs at once unavailable: ", all["unavailable"].get<std::string>(), width) << "\n";
      }
      if (const json t = b.value("tile", json::object()); t.contains("share")) {
        std::ostringstream a;
        a << "one output tile, B's k-block slab from L2: " << std::fixed << std::setprecision(2)
          << t["share"].get<double>() << " of the bound";
        out << hanging("      ", a.str(), width) << "\n";
      }
      if (const json ch = b.value("chains", json::object()); ch.contains("share")) {
        std::ostringstream a;
        a << "latency: the loop's " << ch.value("chains", 0) << " dependency chains; the mix with that many reached "
          << std::fixed << std::setprecision(2) << ch["share"].get<double>() << " of the ports' rate";
        out << hanging("      ", a.str(), width) << "\n";
      }
    } else {
      out << hanging("  incore_" + kernel + " unavailable: ", b.value("unavailable", std::string("?")), width) << "\n";
    }
  }
  const json unavailable = c.value("unavailable", json::object());
  for (const auto& [name, why] : unavailable.items()) {
    out << hanging("  " + name + " unavailable: ", why.get<std::string>(), width) << "\n";
  }
  for (const auto& w : c.value("warnings", json::array())) out << hanging("warning: ", w.get<std::string>(), width) << "\n";
}

}  // namespace parlab
