// record_limit: the one place a record is held against a roof.
#include "experiments/machine/limit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/roof.hpp"
#include "core/workload.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/machine/worker_causes.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

json no_roof(const std::string& why) { return {{"roof", nullptr}, {"reason", "no roof: " + why}}; }

// A number or text of a record's or the ceilings' JSON, where it is one: the notes below read runs
// `parlab migrate` is given (any file), where a key of another type is the file's fault, not a crash.
std::optional<double> number_in(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}
std::string text_in(const json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
const json* object_in(const json* j, const char* key) {
  if (j == nullptr || !j->is_object()) return nullptr;
  const auto it = j->find(key);
  return it != j->end() && it->is_object() ? &*it : nullptr;
}

// The in-core block record `r` ran against, when there is one: a record of such a kernel whose
// backend runs parlab's own code. Null otherwise.
const json* kernel_incore(const Record& r, const json& ceilings) {
  return r.own_kernels ? incore_block(r, ceilings) : nullptr;
}

}  // namespace

// A record's machine side: its `processor` field, which the backend's wing set (py-cupy and
// py-torch are of kind "python" and run on the GPU; mpi+cuda and babelstream-cuda are "mpi" /
// "peer"). The fallback is for OLDER records only, written before the field existed: kind "gpu"
// or a backend name containing "cuda", the rule of those days (it put py-cupy on the CPU).
bool record_on_gpu(const Record& r) {
  if (!r.processor.empty()) return processor_from_name(r.processor) == Processor::gpu;
  return backend_kind_from_name(r.kind) == BackendKind::gpu || r.spec.backend.find("cuda") != std::string::npos;
}

const json* incore_block(const Record& r, const json& ceilings) {
  const std::string& kernel = r.spec.problem.kernel;
  const bool gpu = record_on_gpu(r);
  const char* key = kernel == "pi" ? (gpu ? "pi_gpu" : "pi") : kernel == "matmul" && !gpu ? "matmul" : nullptr;
  return key == nullptr ? nullptr : object_in(object_in(&ceilings, "incore"), key);
}

std::string above_roof_note(const json& limit, const json& ceilings) {
  const std::optional<double> fraction = number_in(limit, "fraction");
  if (!fraction || !(*fraction > 1)) return {};
  const double percent = 100 * (*fraction - 1);
  const std::string how =
      "above its roof by " + (percent < 1e9 ? std::to_string(std::lround(percent)) : fixed(percent, 0)) + "%";
  // A scaled roof (threads x one core's, below the all-cores one) was never measured as such, so
  // no spread is its own: the note names the basis instead.
  if (const std::string basis = text_in(limit, "basis"); !basis.empty()) return how + "; the roof's basis: " + basis;
  if (!ceilings.is_object()) {
    return how + "; this run keeps no ceilings, so whether that is within the roof's noise is not known";
  }
  // The roof is the largest of its measurements, and an excess no larger than their range (max -
  // min) is within the noise the machine showed while the roof was measured.
  const std::string roof = text_in(limit, "roof");
  const json* spread = object_in(object_in(object_in(&ceilings, "roofs"), roof.c_str()), "spread");
  const double hi = spread != nullptr ? number_in(*spread, "max").value_or(0.0) : 0.0;
  const double lo = spread != nullptr ? number_in(*spread, "min").value_or(0.0) : 0.0;
  const std::optional<double> attained = number_in(limit, "attained");
  if (hi > 0 && attained) {
    return how + (*attained <= hi * (1 + (hi - lo) / hi) ? ", within the roof's own spread (its measurements "
                                                          "differ by as much)"
                                                        : ", beyond the roof's own spread");
  }
  return how + "; this run's ceilings keep no spread for " + (roof.empty() ? std::string("its roof") : roof) +
         ", so whether that is within the roof's noise is not known";
}

std::string incore_above_note(const json& incore_limit, const json* block) {
  const std::optional<double> fraction = number_in(incore_limit, "fraction");
  if (!fraction || !(*fraction > 1)) return {};
  // Never silent (a bound a record passes is no bound): by how much, and whether the probe's own
  // spread covers it (its best window over its median).
  const std::string how = "above its in-core bound by " + fixed(100 * (*fraction - 1), 1) + "%";
  const std::string why = ": the probe's CPU ran vector code slower than this record's did; remeasure on a quiet "
                          "machine (parlab ceilings --remeasure)";
  const json* spread = object_in(object_in(block, "probe"), "spread");
  const double median = spread != nullptr ? number_in(*spread, "median").value_or(0.0) : 0.0;
  const double best = spread != nullptr ? number_in(*spread, "max").value_or(0.0) : 0.0;
  if (median > 0) {
    const double reach = best > median ? best / median : 1.0;
    return how + ", " + (*fraction <= reach ? "within" : "beyond") + " its probe's spread (the best window " +
           fixed(100 * (reach - 1), 1) + "% over its median)" + why;
  }
  return how + (block != nullptr ? "; this run's ceilings keep no spread of its probe"
                                 : "; this run's ceilings keep no in-core block for its loop") +
         ", so whether that is within the probe's noise is not known" + why;
}

namespace {

// One roof a record's work is held against.
struct Candidate {
  std::string roof;     // the roof's name in the ceilings
  double value = 0;     // the roof at the record's thread count
  std::string unit;
  std::string basis;    // how `value` came from the roofs, when it was scaled
  double work = 0;      // the record's work in the roof's unit (bytes, flops, multiplies)
  double attained = 0;  // the record's rate in the roof's unit
};

// A measured roof by key, or a reason it cannot be used.
const json* measured_roof(const json& ceilings, RoofKey key, std::string& why) {
  const std::string name(to_string(key));
  // Pointers into `ceilings`, never copies: the roof returned must outlive this call.
  if (ceilings.contains("roofs") && ceilings["roofs"].contains(name)) {
    const json& r = ceilings["roofs"][name];
    if (r.value("method", "") == "measured" && r.contains("value") && r["value"].is_number() &&
        r["value"].get<double>() > 0) {
      return &r;
    }
    why = name + " is " + r.value("method", std::string("unknown")) + ", not measured";
    return nullptr;
  }
  const bool said = ceilings.contains("unavailable") && ceilings["unavailable"].contains(name);
  why = name + (said ? " unavailable: " + ceilings["unavailable"][name].get<std::string>() : " not among the ceilings");
  return nullptr;
}

// The CPU roof `base` (e.g. CpuRoof::bw_triad) at `threads` threads: the all-cores roof at or above
// the thread count it was measured at, the one-core roof at one thread, and in between
// min(all-cores, threads x one-core): bandwidth saturates before the cores run out, compute does not.
bool cpu_roof_at(const json& ceilings, CpuRoof base, int threads, Candidate& c, std::string& why) {
  const std::string all_name(to_string(roof_key(base, ThreadScope::all)));
  const std::string one_name(to_string(roof_key(base, ThreadScope::one)));
  const json* all = measured_roof(ceilings, roof_key(base, ThreadScope::all), why);
  const json* one = measured_roof(ceilings, roof_key(base, ThreadScope::one), why);
  if (threads == 1 && one != nullptr) {
    c.roof = one_name;
    c.value = (*one)["value"].get<double>();
    c.unit = (*one).value("unit", "");
    return true;
  }
  if (all == nullptr) return false;
  const int all_threads = (*all).value("threads", 0);
  c.roof = all_name;
  c.value = (*all)["value"].get<double>();
  c.unit = (*all).value("unit", "");
  if (threads >= all_threads || threads < 1) return true;
  if (one == nullptr) {
    why = one_name + " is needed below " + std::to_string(all_threads) + " threads: " + why;
    return false;
  }
  const double scaled = threads * (*one)["value"].get<double>();
  if (scaled < c.value) {
    c.roof = one_name;
    c.value = scaled;
    c.basis = std::to_string(threads) + " x " + one_name + " (below " + all_name + ")";
  } else {
    c.basis = all_name + " (below " + std::to_string(threads) + " x " + one_name + ")";
  }
  return true;
}

// Beside a GPU record's measured roof, its share of the hardware's theoretical peak for the same
// resource (gpu_bw -> gpu_bw_peak), where the ceilings have one; and for a record above its roof,
// by how much, and whether that lies within the roof's own spread: the roof is the largest of its
// measurements, and an excess no larger than their range (max - min) is within the noise the
// machine showed while the roof was measured.
void add_peak_and_excess(json& limit, const json& ceilings, const Candidate& bind) {
  const json roofs = ceilings.value("roofs", json::object());
  if (const auto key = roof_key_from_name(bind.roof)) {
    if (const auto peak = gpu_peak_of(*key); peak && roofs.contains(std::string(to_string(*peak)))) {
      const json& p = roofs[std::string(to_string(*peak))];
      if (p.contains("value") && p["value"].is_number() && p["value"].get<double>() > 0) {
        limit["peak"] = {{"roof", to_string(*peak)},
                         {"value", p["value"]},
                         {"fraction", bind.attained / p["value"].get<double>()}};
      }
    }
  }
  if (std::string note = above_roof_note(limit, ceilings); !note.empty()) limit["above_roof"] = std::move(note);
}

// Where a CPU bandwidth record's arrays stream from (residency, core/roof.hpp). The bandwidth
// roofs are memory's: arrays that fit the last-level cache stream from the cache, whose bandwidth
// no probe measures, so such a record has no measured roof (held against memory's it would read as
// several times its roof): that limit is returned. Arrays between the LLC and kMemoryResidentFactor
// times it set `partly_cached`. Without a known LLC or footprint, nothing is said.
std::optional<json> cache_residency(double footprint, const json& ceilings, bool& partly_cached) {
  std::string why;
  const json* llc = measured_roof(ceilings, RoofKey::cpu_llc_bytes, why);
  if (llc != nullptr && footprint > 0) {
    const double llc_bytes = (*llc)["value"].get<double>();
    switch (residency(footprint, llc_bytes)) {
      case Residency::cache:
        return no_roof("its arrays (" + std::to_string(static_cast<long long>(footprint)) +
                       " bytes) fit the last-level cache (cpu_llc_bytes " +
                       std::to_string(static_cast<long long>(llc_bytes)) + "), whose bandwidth is not measured");
      case Residency::partly_cache: partly_cached = true; break;
      case Residency::memory: break;
    }
  }
  return std::nullopt;
}

// Multiplies per sample as the compiled loop issues them, where parlab read that loop (docs/ceilings.md,
// "Work counted as issued"), with `counted` saying so; else the algorithm's count. The compiler
// drops multiplies by a known zero, so the algorithm's count would overstate the work a roof is
// held against.
double issued_per_sample(const RoofModel& model, const json* incore, bool gpu, std::string& counted) {
  if (incore == nullptr || !incore->contains("loop")) return model.imuls_per_sample;
  const json& loop = (*incore)["loop"];
  const double k = loop["imuls_per_sample"].get<double>();
  counted = "issued: " + fixed(k, 2) + " multiplies per sample, the compiled loop's (" +
            fixed(loop["multiply_instructions"].get<double>(), 0) + (gpu ? " IMAD.WIDE" : " vpmuludq") + " of " +
            fixed(loop["lanes"].get<double>(), 0) + " lane(s) per " + fixed(loop["samples_per_iteration"].get<double>(), 0) +
            " samples), beside the algorithm's " + fixed(model.imuls_per_sample, 0);
  return k;
}

// On the GPU, gpu_imul's probe bounds pi's multiplies only if it issues no more instructions per
// multiply than pi does; the SASS says whether (`imul_probe_bounds`; absent: assumed to).
bool probe_bounds_pi(const json& incore) {
  return !(incore.contains("imul_probe_bounds") && incore["imul_probe_bounds"].is_boolean() &&
           !incore["imul_probe_bounds"].get<bool>());
}

// Where the probe does not bound pi, the theoretical multiply rate does (docs/ceilings.md, "Which
// roof"): gpu_imul_peak as the candidate, its basis saying why; nullopt without that peak.
std::optional<Candidate> gpu_pi_peak(const json& ceilings, const json& incore, double work, double attained) {
  const json roofs = ceilings.value("roofs", json::object());
  const std::string peak(to_string(RoofKey::gpu_imul_peak));
  if (!roofs.contains(peak) || !roofs[peak].contains("value") || !roofs[peak]["value"].is_number() ||
      !(roofs[peak]["value"].get<double>() > 0)) {
    return std::nullopt;
  }
  Candidate c;
  c.roof = peak;
  c.value = roofs[peak]["value"].get<double>();
  c.unit = roofs[peak].value("unit", "muls/s");
  c.work = work;
  c.attained = attained;
  const json& p = incore["imul_probe"];
  c.basis = "gpu_imul_peak, not gpu_imul: its probe issues " + fixed(p.value("instructions_per_multiply", 0.0), 2) +
            " instructions per multiply, pi " + fixed(p.value("pi_instructions_per_multiply", 0.0), 2) +
            ", so issue slots cap the probe below pi";
  return c;
}

// The record's share of the in-core bound of the loop it ran (incore.hpp): one core's bound times
// the cores its threads can use (threads of one core share its ports). A record below
// kIncoreExplained of it names the cause its own figures show, or says that none was measured.
constexpr double kIncoreExplained = 0.8;
// The chains probe fills the ports when it reaches this share of the ports probe's rate.
constexpr double kChainsFill = 0.95;
// The `cores` slowest CPUs' share of the `cores` fastest ones' (1 where unknown): from the block's
// own probe run pinned on each CPU in turn (`probe_cpu.rates_*`), which shows a busy SMT sibling
// (another tenant's vCPU) as well as a lower clock, else from the clocks alone. On the H200 node
// the clocks differed by 7% where the slowest CPU ran matmul's probe at 0.38 of the fastest.
struct SlowCpus {
  double share = 1;
  bool probed = false;  // from the probe's rates, not the clocks
  std::string where;    // the CPUs the record's workers ran on, where it was measured (below)
};
// Where the record says which CPUs its workers ran on (workers.cpus) and the probe kept each CPU's
// rate (`probe_cpu.by_cpu`): those CPUs' rates against the `cores` fastest, measured, not the
// `cores` slowest supposed. nullopt where either is missing.
std::optional<SlowCpus> ran_on_cpus(const Record& r, const json& incore, int cores) {
  const std::vector<int> used = r.workers ? worker_cpus(*r.workers) : std::vector<int>();
  const json by = incore.value("probe_cpu", json::object()).value("by_cpu", json::object());
  if (used.empty() || !by.is_object()) return std::nullopt;
  const json ids = by.value("cpus", json::array()), rates = by.value("rates", json::array());
  if (!ids.is_array() || !rates.is_array() || ids.size() != rates.size()) return std::nullopt;
  std::vector<double> all, mine;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (!rates[i].is_number() || !(rates[i].get<double>() > 0) || !ids[i].is_number_integer()) return std::nullopt;
    all.push_back(rates[i].get<double>());
    if (std::binary_search(used.begin(), used.end(), ids[i].get<int>())) mine.push_back(rates[i].get<double>());
  }
  if (mine.size() != used.size() || static_cast<int>(all.size()) < cores) return std::nullopt;
  std::sort(all.begin(), all.end(), std::greater<>());
  const double fast = std::accumulate(all.begin(), all.begin() + cores, 0.0) / cores;
  const double ran = std::accumulate(mine.begin(), mine.end(), 0.0) / static_cast<double>(mine.size());
  std::string where;
  for (int c : used) {
    if (!where.empty()) where += ',';
    where += std::to_string(c);
  }
  return SlowCpus{std::min(1.0, ran / fast), true, where};
}
SlowCpus slow_cpus(const json& incore, int cores) {
  const auto ratio = [cores](const json& v) {
    if (!v.is_array() || static_cast<int>(v.size()) < cores) return 1.0;
    std::vector<double> x;
    for (const json& e : v) {
      if (!e.is_number() || !(e.get<double>() > 0)) return 1.0;
      x.push_back(e.get<double>());
    }
    std::sort(x.begin(), x.end(), std::greater<>());
    const auto n = static_cast<std::ptrdiff_t>(cores);
    const double fast = std::accumulate(x.begin(), x.begin() + n, 0.0);
    const double slow = std::accumulate(x.end() - n, x.end(), 0.0);
    return std::min(1.0, slow / fast);
  };
  const json pc = incore.value("probe_cpu", json::object());
  for (const char* key : {"rates_instructions_per_s", "rates_flops_per_s"}) {
    // Too few rates for `cores` (a cache of another machine's shape): the clocks instead.
    if (pc.contains(key) && pc[key].is_array() && static_cast<int>(pc[key].size()) >= cores) {
      return {ratio(pc[key]), true, {}};
    }
  }
  return {ratio(incore.value("clocks_hz", json::array())), false, {}};
}

// Why a record at `share` (< kIncoreExplained) of its in-core bound fell short, the first cause
// whose evidence holds: one call too short, more threads than cores, what its own workers measured
// (worker_shortfall: disturbance, the GIL, load balance, communication), operands from L2 (matmul's
// tile probe), latency (the chains probe), unequal CPUs under floating threads (slow_cpus), or
// latency with the last; then the computation itself (computation_shortfall), then noise (its
// repetitions disagree, with what it measured of the machine); else that no cause was measured.
// Each "could" cause is named where the record reaches kIncoreExplained of the bound lowered by
// it: it would account for the shortfall. A probe is quoted only at the CPU count the record used.
std::string incore_shortfall(const Record& r, const json& incore, int threads, int cores, double share) {
  if (const double t = r.times ? r.times->time_s.median : 0.0; t > 0 && t < 1e-3) {
    return "one call takes " + fixed(t * 1e6, 0) + " us: start-up and the reduction weigh on it";
  }
  if (threads > incore.value("cores", 1)) {
    return std::to_string(threads) + " threads on " + std::to_string(incore.value("cores", 1)) +
           " cores: more threads than cores, which take turns";
  }
  // The record's threads float (never pinned): on the `cores` slowest CPUs the bound is lower. A
  // record on every CPU is held against the all-CPU probe, which ran on the slow ones already.
  const json all = incore.value("all_cpus", json::object());
  const bool on_all = all.contains("value") && threads >= all.value("cpus", 0);
  const std::optional<SlowCpus> ran_on = ran_on_cpus(r, incore, cores);
  const SlowCpus slow = ran_on ? *ran_on : on_all ? SlowCpus{} : slow_cpus(incore, cores);
  const double slow_share = slow.share;
  // The chains probe (incore.hpp): the round mix with only the loop's chains in flight.
  const json chains = incore.value("chains", json::object());
  const double chain_share = chains.value("share", 1.0) > 0 && chains.value("share", 1.0) < kChainsFill
                                 ? chains.value("share", 1.0)
                                 : 1.0;
  const std::string chains_cause =
      "latency: the loop keeps " + std::to_string(chains.value("chains", 0)) +
      " dependency chains in flight, and the same mix with that many reached " + fixed(chain_share, 2) +
      " of the ports' rate on this core (the loop, whose trips overlap, can do a little better)";
  const std::string clocks_cause =
      !slow.where.empty()
          ? "the CPUs differ: its workers ran on CPU(s) " + slow.where + ", which ran its probe at " +
                fixed(slow_share, 3) + " of the " + std::to_string(cores) + " fastest on average, and the record reads " +
                fixed(share / slow_share, 2) + " of that"
      : slow.probed ? "its threads are not pinned, and the CPUs differ: pinned in turn, the " + std::to_string(cores) +
                        " slowest ran its probe at " + fixed(slow_share, 3) + " of the " + std::to_string(cores) +
                        " fastest, and the record reads " + fixed(share / slow_share, 2) + " of that"
                  : "its threads are not pinned, and the CPUs' clocks differ: on the " + std::to_string(cores) +
                        " slowest the bound is " + fixed(slow_share, 3) + " of this, and the record " +
                        fixed(share / slow_share, 2) + " of that";
  // matmul's tile probe (incore.hpp): the same loop over one output tile, B's k-block slab from L2.
  const double tile_share = incore.value("tile", json::object()).value("share", 1.0) > 0
                                ? std::min(1.0, incore.value("tile", json::object()).value("share", 1.0))
                                : 1.0;
  const std::string tile_cause = "its operands come from L2: B's k-block slab does not fit L1, and the same loop over "
                                 "one output tile reached " + fixed(tile_share, 2) +
                                 " of the bound on this core; the record reads " + fixed(share / tile_share, 2) + " of that";
  // What the record's own workers measured (load balance, communication, disturbance) comes
  // before any cause the ceilings' probes suggest.
  if (std::string measured = worker_shortfall(r); !measured.empty()) return measured;
  const auto explains = [&](double lowered) { return lowered < 1 && share / lowered >= kIncoreExplained; };
  if (explains(tile_share)) return tile_cause;
  if (explains(chain_share)) return chains_cause;
  if (explains(slow_share)) return clocks_cause;
  if (chain_share < 1 && explains(chain_share * slow_share)) return chains_cause + "; and " + clocks_cause;
  // The all-CPU probe is not quoted for fewer threads than it ran: with every CPU busy it says
  // nothing of how 2 of 16 slow each other, and a record at the probe's count is held against it.
  // Every worker factor held, and no probe explains it: the loss is in each CPU-second's work.
  if (std::string computation = r.workers ? computation_shortfall(*r.workers, share) : std::string();
      !computation.empty()) {
    return computation;
  }
  // Noise last: repetitions that disagree, with what the record measured of the machine meanwhile.
  if (r.times && !r.times->unstable.empty()) {
    const std::string figures = r.workers ? disturbance_text(*r.workers) : std::string();
    return "its repetitions disagree (" + r.times->unstable + ")" +
           (figures.empty() ? std::string(": noise; the record did not measure the machine's other work")
                            : ": noise, though by its own figures the machine was quiet (" + figures + ")");
  }
  std::string factors;  // the worker factors, all at least kFactorExplains where measured
  if (r.workers && r.workers->accounting) {
    const PopFigures pop = r.workers->pop.value_or(PopFigures{});
    factors = " (its workers' load balance " + fixed(pop.load_balance, 2) + ", communication efficiency " +
              fixed(pop.communication, 2) + ", runnable but not running " +
              fixed((r.workers->disturbance ? r.workers->disturbance->runnable_share : 0.0) * 100, 0) +
              "% of their time)";
  }
  return "no cause measured: the loop ran below what its instructions allow on this core" + factors;
}

void add_incore(json& limit, const Record& r, const json& incore, int threads, bool gpu) {
  const int cores = std::max(1, std::min(threads, incore.value("cores", 1)));
  // One core's bound at the fastest CPU's clock, times the clocks of the `cores` fastest CPUs over
  // it (a VM's vCPUs differ); `cores` times it where the clocks were not read.
  double bound = incore["value"].get<double>() * cores;
  if (const json clocks = incore.value("clocks_hz", json::array());
      clocks.is_array() && static_cast<int>(clocks.size()) >= cores && clocks[0].is_number() && clocks[0].get<double>() > 0) {
    double sum = 0;
    for (int i = 0; i < cores; ++i) sum += clocks[static_cast<std::size_t>(i)].is_number() ? clocks[static_cast<std::size_t>(i)].get<double>() : 0;
    bound = incore["value"].get<double>() * sum / clocks[0].get<double>();
  }
  // A record with a thread for every allowed CPU: the probe measured with all of them busy, where
  // that is lower (clocks drop as cores wake; SMT siblings share ports).
  std::string basis = gpu ? std::string("the whole GPU")
                          : std::to_string(cores) + " core(s) at the clocks each reached alone";
  if (const json all = incore.value("all_cpus", json::object()); all.contains("value") && all.contains("cpus") &&
                                                                 threads >= all["cpus"].get<int>() &&
                                                                 all["value"].get<double>() < bound) {
    bound = all["value"].get<double>();
    basis = "its probe on all " + std::to_string(all["cpus"].get<int>()) +
            " CPUs at once (each reached " + fixed(all.value("share", 0.0), 2) + " of the fastest one alone)";
  }
  const std::string unit = incore.value("unit", "samples/s");
  const RecordRates rates = r.rate.value_or(RecordRates{});
  const double rate = (unit == "flops/s" ? rates.flops_per_s : rates.samples_per_s).value_or(0.0);
  if (!(rate > 0)) return;
  json j = {{"value", bound},
            {"unit", unit},
            {"fraction", rate / bound},
            {"cores", cores},
            {"basis", basis},
            {"model", incore.value("model", "")},
            {"binds", incore.value("binds", "")}};
  if (std::string note = incore_above_note(j, &incore); !note.empty()) j["above"] = std::move(note);
  if (rate / bound < kIncoreExplained) j["below"] = incore_shortfall(r, incore, threads, cores, rate / bound);
  limit["incore"] = j;
}

// The roofs that bound the record's kernel: the catalogue's model, or for a Python kernel file
// what its WORK declares per item (bytes: the triad bandwidth roof, flops: the FMA roof). nullopt,
// with `why`, where nothing says what the kernel moves or computes.
std::optional<RoofModel> roof_model_of(const Record& r, const std::string& kernel, std::string& why) {
  if (const KernelSpec* spec = find_kernel(kernel)) return spec->roof;
  if (r.kernel_file.empty()) {
    why = "kernel " + kernel + " is not in the catalogue, so it has no work model";
    return std::nullopt;
  }
  RoofModel declared;
  const WorkCount w = r.work.value_or(WorkCount{});
  if (w.bytes > 0) declared.memory = MemoryRoof::triad;
  if (w.flops > 0) declared.flops = true;
  if (!declared.bounded()) {
    why = "the kernel file declares no WORK (bytes and flops per item), so nothing says what it moves or "
          "computes; add WORK = {\"bytes\": B, \"flops\": F} to it for a roof";
    return std::nullopt;
  }
  return declared;
}

// The limit of a record whose binding roof is `bind`: the share of it, the roof's peak where one
// is kept and the note of an excess, how its multiplies were counted, and whether its arrays are
// partly cache-resident.
json bound_limit(const Candidate& bind, const json& ceilings, const std::string& counted, bool partly_cached) {
  json limit = {{"roof", bind.roof},
                {"value", bind.value},
                {"unit", bind.unit},
                {"attained", bind.attained},
                {"fraction", bind.attained / bind.value}};
  if (!bind.basis.empty()) limit["basis"] = bind.basis;
  add_peak_and_excess(limit, ceilings, bind);
  if (!counted.empty() && bind.unit == "muls/s") limit["counted"] = counted;
  if (partly_cached) {
    // Held against memory's roof, but part of each sweep hits the cache: such a record may read
    // above 1, and the label says why.
    limit["residency"] = "partly cache-resident: arrays between the last-level cache and " +
                         std::to_string(static_cast<int>(kMemoryResidentFactor)) + "x it";
  }
  return limit;
}

}  // namespace

json record_limit(const Record& r, const json& ceilings) {
  if (r.status != RecordStatus::ok) return json();
  const std::string& kernel = r.spec.problem.kernel;
  std::string unmodelled;
  const std::optional<RoofModel> found = roof_model_of(r, kernel, unmodelled);
  if (!found) return no_roof(unmodelled);
  const RoofModel& model = *found;
  if (!model.bounded()) {
    return no_roof("the catalogue names no bound resource (bandwidth, flops, multiplies) for " + kernel + ": " +
                   std::string(model.no_roof));
  }
  if (r.layout && r.layout->hosts > 1) return no_roof("a record spread over several hosts has no one machine's roof");
  const bool gpu = record_on_gpu(r);
  // Threads of this host the record used: ranks on the host times each rank's threads.
  const int threads = r.spec.problem.threads * (gpu || !r.layout ? 1 : r.layout->ranks_per_node);
  // The in-core bound of the loop the record ran, when the ceilings hold one: beside its roof, or
  // beside its `no roof` reason (CPU matmul has no fp32 roof).
  const json* incore = kernel_incore(r, ceilings);
  const auto with_incore = [&](json limit) {
    if (incore != nullptr && incore->contains("value")) add_incore(limit, r, *incore, threads, gpu);
    return limit;
  };
  const RecordRates rate = r.rate.value_or(RecordRates{});
  const WorkCount work = r.work.value_or(WorkCount{});
  const Precision precision = r.spec.problem.precision;

  std::vector<Candidate> cands;
  std::string why;
  bool partly_cached = false;  // residency() said partly_cache: the limit says so
  const auto add = [&](RoofKey gpu_key, CpuRoof cpu_base, double w, double attained) {
    Candidate c;
    c.work = w;
    c.attained = attained;
    if (gpu) {
      const json* roof = measured_roof(ceilings, gpu_key, why);
      if (roof == nullptr) return false;
      c.roof = to_string(gpu_key);
      c.value = (*roof)["value"].get<double>();
      c.unit = (*roof).value("unit", "");
    } else if (!cpu_roof_at(ceilings, cpu_base, threads, c, why)) {
      return false;
    }
    cands.push_back(c);
    return true;
  };
  if (model.memory != MemoryRoof::none && !gpu) {
    if (std::optional<json> none = cache_residency(r.footprint_bytes.value_or(0.0), ceilings, partly_cached)) {
      return *none;
    }
  }
  if (const std::optional<CpuRoof> bw = cpu_bandwidth_roof(model.memory)) {
    if (!add(RoofKey::gpu_bw, *bw, work.bytes, rate.bytes_per_s.value_or(0.0))) {
      return no_roof(why);
    }
  }
  if (model.flops) {
    const bool f64 = precision == Precision::f64;
    if (!f64 && precision != Precision::f32) return no_roof("no FMA roof for precision " + std::string(to_string(precision)));
    if (!gpu && !f64) {
      return with_incore(no_roof("no measured CPU fp32 FMA roof (only cpu_fma_f64)"));
    }
    if (!add(f64 ? RoofKey::gpu_fma_f64 : RoofKey::gpu_fma_f32, CpuRoof::fma_f64, work.flops,
             rate.flops_per_s.value_or(0.0))) {
      return no_roof(why);
    }
  }
  std::string counted;  // how the multiplies were counted, when not the algorithm's count
  if (model.imuls_per_sample > 0) {
    const double k = issued_per_sample(model, incore, gpu, counted);
    if (gpu && incore != nullptr && !probe_bounds_pi(*incore)) {
      std::optional<Candidate> c =
          gpu_pi_peak(ceilings, *incore, k * work.samples, k * rate.samples_per_s.value_or(0.0));
      if (!c) return no_roof("gpu_imul's probe does not bound pi's instruction mix, and there is no gpu_imul_peak");
      cands.push_back(*c);
    } else if (!add(RoofKey::gpu_imul, CpuRoof::imul, k * work.samples, k * rate.samples_per_s.value_or(0.0))) {
      return no_roof(why);
    }
  }
  // A bounded model tried at least one roof, and each one either joined `cands` or returned above.
  // The binding roof: the largest lower bound on the time, work / roof.
  const Candidate* bind = &cands.front();
  for (const auto& c : cands) {
    if (c.work / c.value > bind->work / bind->value) bind = &c;
  }
  if (!(bind->attained > 0)) return no_roof("the record has no rate in " + bind->unit);
  return with_incore(bound_limit(*bind, ceilings, counted, partly_cached));
}

}  // namespace parlab
