// Measuring the in-core bound on this machine's CPUs (incore.hpp, docs/ceilings.md "In-core
// bound"): the clocks, which CPU runs each block's probe fastest (and at which rate each CPU ran
// it), the probes pinned there and on every CPU at once, and measure_incore, which reads each
// kernel's loop (incore_loop.cpp) and hands the numbers to the decision (incore_decide.cpp).
#include "experiments/machine/incore.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "core/ceilings_cpu.hpp"
#include "core/error.hpp"
#include "core/incore_probe.hpp"
#include "core/kernels.hpp"
#include "core/matmul_tile.hpp"
#include "core/pi_simd.hpp"
#include "core/spread.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/spread_json.hpp"
#include "experiments/machine/context.hpp"
#include "experiments/machine/incore_internal.hpp"

namespace parlab {

using incore_detail::disassemble;
using incore_detail::find_llvm_mca;
using incore_detail::float_lanes;
using incore_detail::kToolSeconds;
using incore_detail::run_mca;

namespace {

using json = nlohmann::json;

// The clock of the core this thread runs on once it has settled: a core that was idle (while
// objdump ran) climbs to its clock over tens of milliseconds, so two readings in a row must agree
// within 1% (at most 10 pairs; then the larger of the last pair).
double stable_clock_hz(double window_s) {
  double a = 0, b = 0;
  for (int i = 0; i < 10; ++i) {
    a = measure_core_clock_hz(3, window_s).value_or(0);
    b = measure_core_clock_hz(3, window_s).value_or(0);
    if (std::abs(a - b) <= 0.01 * std::max(a, b)) break;
  }
  return std::max(a, b);
}

// The CPUs the clocks and the all-CPU probe are measured on: the allowed ones, at most 64 (bounded
// time; a larger machine's first 64 stand for it).
std::vector<int> probe_cpus() {
  std::vector<int> cpus = allowed_cpus();
  if (cpus.size() > 64) cpus.resize(64);
  return cpus;
}

// The allowed CPU with the fastest clock (a VM's vCPUs differ: 3.35 against 3.51 GHz on the
// 2-core EPYC): the bound is an upper bound for a record whichever CPU ran it. -1 when the
// process cannot pin (then the clock of wherever it runs, and `pi.pinning` says so).
struct FastCore {
  int cpu = -1;
  double hz = 0;
  std::vector<double> clocks;  // every pinned CPU's, fastest first
};
FastCore fastest_core(json& pi, double window_s) {  // `pi`: gets `pinning` where pinning is refused
  FastCore best;
  std::vector<double> clocks;
  const std::vector<int> cpus = probe_cpus();
  try {
    for (const int cpu : cpus) {
      CpuPin pin(cpu);
      const double hz = stable_clock_hz(window_s);
      clocks.push_back(hz);
      if (hz > best.hz) best = {cpu, hz, {}};
    }
    std::sort(clocks.begin(), clocks.end(), std::greater<>());
    best.clocks = clocks;
  } catch (const UnavailableError& e) {
    pi["pinning"] = std::string("unpinned: ") + e.what();
    best = {};
  }
  return best;
}

// The CPU a block's probes are measured on: of the pinnable CPUs, the one where `rate` (the
// probe's rate, run pinned there: best of 3 windows) is highest; `fallback` (the fastest clock)
// where pinning fails or the probe cannot run. Not the fastest scalar clock: a core whose SMT
// sibling is busy (another tenant's vCPU) or whose clock drops under 512-bit work runs a vector
// probe slower than its add chain shows, and a bound taken there is no upper bound. On the H200
// node the CPU with the fastest add chain reached 4.1e9 vector instructions per second at pi's mix
// where another reached 5.1e9, and records later ran at 1.12 of the bound taken from it; matmul's
// probe on pi's CPU read 61 Gflop/s where the same node's CPUs together averaged 73 each. Each
// kernel's block is chosen by its own probe, and `probe_cpu` says how (keys `fastest_<per_s>`).
template <class Rate>
int fastest_cpu_for(json& block, Rate rate, int fallback, const std::string& probe, const std::string& per_s) {
  const std::vector<int> cpus = probe_cpus();
  int best = fallback;
  double best_rate = 0;
  std::vector<double> rates;  // every CPU's, fastest first: a floating record's bound on the slow ones
  json by_cpu = {{"cpus", json::array()}, {"rates", json::array()}};  // in CPU order: where a record ran
  try {
    for (const int cpu : cpus) {
      CpuPin pin(cpu);
      const double r = rate();
      if (!(r > 0)) return fallback;
      if (r > best_rate) {
        best_rate = r;
        best = cpu;
      }
      rates.push_back(r);
      by_cpu["cpus"].push_back(cpu);
      by_cpu["rates"].push_back(r);
    }
  } catch (const UnavailableError&) {
    return fallback;  // fastest_core has said so in `pinning`
  }
  std::sort(rates.begin(), rates.end(), std::greater<>());
  const double slowest = rates.empty() ? 0 : rates.back();
  block["probe_cpu"] = {{"cpus", cpus.size()},
                        {"fastest_" + per_s, best_rate},
                        {"slowest_" + per_s, slowest},
                        {"rates_" + per_s, rates},
                        {"by_cpu", by_cpu},
                        {"how", "the CPU that ran " + probe + " fastest, of " + std::to_string(cpus.size()) +
                                    " pinned in turn (best of 3 windows each; the slowest reached " +
                                    fixed(best_rate > 0 ? slowest / best_rate : 0, 2) + " of it)"}};
  return best;
}

// A mix probe's rate in vector instructions per second, 0 for none.
double mix_rate(const std::optional<MixProbe>& m) {
  return m && m->seconds_per_iteration > 0 ? m->instructions_per_iteration / m->seconds_per_iteration : 0.0;
}

int fastest_vector_cpu(json& pi, PiIsa isa, int fallback, double window_s) {
  return fastest_cpu_for(
      pi, [isa, window_s] { return mix_rate(measure_round_mix(isa, 3, 0, window_s)); }, fallback, "the mix probe", "instructions_per_s");
}

// The scan's rate of a block's probe on the CPU it chose (fastest_cpu_for), 0 where there was none
// or where the probes could not be pinned there (an unpinned probe is no match for it).
double scan_rate_of(const json& block, const std::string& per_s) {
  if (block.contains("pinning")) return 0;
  return block.value("probe_cpu", json::object()).value("fastest_" + per_s, 0.0);
}

// On `cpu` (-1: wherever the thread runs), the ports probe with the clock read on each side of it
// (its cycles are its seconds times the clock; a probe the clock moved under is measured again, at
// most 4 times, then the last kept), all of it again where the probe read below kProbeAgreement
// of the scan's rate (kProbeAttempts in all, the best kept), its rate raised to the scan's where
// that is higher (bound_probe_rate: `pi.probe_vs_scan`); then the chains probe at the loop's
// `chains` where that is fewer than the ports probe's: `pi.chains` gets its rate against the ports
// probe's (against the probe's own rate where it was disturbed: both ran beside the same
// neighbour), what latency leaves of the ports to a loop that keeps that many chains in flight.
std::optional<MixProbe> measure_pinned_probes(json& pi, PiIsa isa, int cpu, int chains, double& clock_hz,
                                              double window_s) {
  std::optional<CpuPin> pin;
  try {
    if (cpu >= 0) pin.emplace(cpu);
  } catch (const UnavailableError& e) {
    pi["pinning"] = std::string("unpinned: ") + e.what();
  }
  const double scan = scan_rate_of(pi, "instructions_per_s");
  std::optional<MixProbe> mix;
  int attempts = 0;
  for (; attempts < kProbeAttempts; ++attempts) {  // again where a neighbour disturbed it
    std::optional<MixProbe> m;
    double hz = 0;
    for (int tries = 0; tries < 4; ++tries) {  // again where the clock moved under it
      const double before = stable_clock_hz(window_s);
      m = measure_round_mix(isa, 7, 0, window_s);
      const double after = stable_clock_hz(window_s);
      hz = std::max(before, after);
      if (std::abs(before - after) <= 0.02 * hz) break;
    }
    if (mix_rate(m) > mix_rate(mix)) {
      mix = m;
      clock_hz = hz;
    }
    if (!mix || !probe_disturbed(mix_rate(mix), scan)) break;
  }
  if (!mix || !(mix->seconds_per_iteration > 0)) return mix;
  // The bound's rate: the scan's where it is higher (the cycles per trip follow from it).
  const double own = mix_rate(mix);
  const ProbeRate taken = bound_probe_rate(own, scan, std::min(attempts + 1, kProbeAttempts));
  if (!taken.note.is_null()) pi["probe_vs_scan"] = taken.note;
  mix->seconds_per_iteration = mix->instructions_per_iteration / taken.rate;
  if (const auto c = measure_round_mix(isa, 7, chains, window_s)) {
    const double ports = probe_disturbed(own, scan) ? own : taken.rate;
    const double rate = mix_rate(c);
    pi["chains"] = {{"chains", chains},
                    {"share", rate / ports},
                    {"instructions_per_cycle", clock_hz > 0 ? rate / clock_hz : 0.0},
                    {"how", c->how + ", against the ports probe on the same CPU"}};
  }
  return mix;
}

// The bound with every allowed CPU busy (`all_cpus`): the block's probe run on all of them at once
// (`rates`, each CPU's, in the block's unit per second for its probe's work) against the one-CPU
// probe's `single` rate. Where cores share ports (SMT) or clocks drop under load, a record on every
// core is held against this, not against the one-CPU bound times the cores.
void add_all_cpus(json& block, const std::optional<std::vector<double>>& rates, double single, std::size_t cpus,
                  const std::string& probe) {
  if (!rates || !(single > 0)) return;
  double sum = 0;
  for (const double r : *rates) sum += r;
  if (!(sum > 0)) return;
  block["all_cpus"] = {{"cpus", cpus},
                       {"share", sum / (static_cast<double>(cpus) * single)},
                       {"value", block["value"].get<double>() * sum / single},
                       {"how", probe + " on all " + std::to_string(cpus) +
                                   " allowed CPUs at once, one pinned thread each, each CPU's best of at least 7 windows "
                                   "while every other ran; the sum against the one-CPU probe's rate"}};
}

// add_all_cpus with the probe `measure` runs on every allowed CPU (at least 2), or why it cannot.
template <class Measure>
void measure_all_cpus(json& block, Measure measure, double single, const std::string& probe) {
  const std::vector<int> cpus = probe_cpus();
  if (cpus.size() < 2 || !block.contains("value")) return;
  try {
    add_all_cpus(block, measure(cpus), single, cpus.size(), probe);
  } catch (const UnavailableError& e) {
    block["all_cpus"] = {{"unavailable", std::string("unpinned: ") + e.what()}};
  }
}

}  // namespace

json measure_gpu_incore(const std::string& function_fragment, int pairs_per_trip, const std::string& imul_probe_fragment,
                        const json& roofs) {
  SpawnOptions o;
  o.timeout_s = kToolSeconds;
  const ChildOutput d = run_child({"cuobjdump", "-sass", self_executable()}, o);
  if (d.exit_code != 0) {
    return {{"unavailable", "cuobjdump: " + d.describe_end() + (d.exit_code == -1 ? " (it comes with the CUDA Toolkit)" : "")}};
  }
  const auto loop = sass_hot_loop(d.out, function_fragment);
  if (!loop) return {{"unavailable", "no loop with IMAD.WIDE in a kernel named *" + function_fragment + "* in cuobjdump's SASS"}};
  return decide_gpu_incore(*loop, pairs_per_trip, sass_hot_loop(d.out, imul_probe_fragment), roofs);
}

// CPU pi's block: its loop, the probes on `fast`'s CPUs, the decision.
namespace {

json measure_pi_incore(std::ostream& log, const FastCore& fast, const json& pinning, double window_s) {
  json pi = json::object();
  if (!pinning.is_null()) pi["pinning"] = pinning;
  const PiIsa isa = pi_active_isa();
  pi["isa"] = std::string(to_string(isa));
  const std::optional<PiLoop> loop = pi_loop(isa);
  if (!loop) {
    pi["unavailable"] = "pi runs its scalar path here (" + std::string(to_string(isa)) +
                        "), the compiler's loop, which parlab does not read";
    return pi;
  }
  const std::string reg = isa == PiIsa::avx512 ? "%zmm" : "%ymm";
  const std::string binary = self_executable();
  std::string why;
  const auto text = disassemble(binary, loop->symbol, why);
  const auto found = text ? hottest_loop(*text, "vpmuludq", reg) : std::nullopt;
  if (!found) {
    pi["unavailable"] = text ? "no loop with vpmuludq in " + std::string(loop->symbol) + " (a stripped binary?)" : why;
    return pi;
  }
  const double samples = 2.0 * loop->pairs_per_iteration;
  pi["loop"] = {{"symbol", loop->symbol},
                {"instructions", found->instructions.size()},
                {"vector_instructions", found->vector_instructions},
                {"moves", found->moves},
                {"multiply_instructions", found->counted},
                {"lanes", loop->lanes},
                {"samples_per_iteration", samples},
                {"imuls_per_sample", found->counted * loop->lanes / samples}};

  IncoreInputs in;
  in.loop_vector_instructions = found->port_instructions();
  in.loop_moves = found->moves;
  in.samples_per_iteration = samples;
  const int cpu = fast.cpu >= 0 ? fastest_vector_cpu(pi, isa, fast.cpu, window_s) : -1;
  const std::optional<MixProbe> mix = measure_pinned_probes(pi, isa, cpu, loop->chains, in.clock_hz, window_s);
  if (cpu >= 0) pi["cpu"] = cpu;
  // Each CPU's clock, fastest first: a record on c cores is bounded by the c fastest (limit.cpp).
  if (!fast.clocks.empty()) pi["clocks_hz"] = fast.clocks;
  pi["clock_hz"] = in.clock_hz;
  in.peak_clock_hz = fast.hz;
  if (mix) {
    std::string pwhy;
    const auto ptext = disassemble(binary, mix->symbol, pwhy);
    const auto ploop = ptext ? hottest_loop(*ptext, "vpmuludq", reg) : std::nullopt;
    if (!ploop) {
      pi["unavailable"] = ptext ? "no loop in the mix probe " + std::string(mix->symbol) : pwhy;
      return pi;
    }
    // A trip of the compiled probe may hold more than one source iteration.
    in.probe_vector_instructions = ploop->port_instructions();
    in.probe_cycles_measured =
        mix->seconds_per_iteration * in.clock_hz * ploop->vector_instructions / mix->instructions_per_iteration;
    json probe = {{"symbol", mix->symbol},
                  {"how", mix->how},
                  {"vector_instructions_per_trip", ploop->vector_instructions},
                  {"cycles_per_trip", in.probe_cycles_measured}};
    if (const auto s = spread_of(mix->samples)) probe["spread"] = spread_json(*s);
    pi["probe"] = probe;
    if (const auto mca = find_llvm_mca(in.mca_why_not)) {
      in.mca_name = mca->tool + " -mcpu=" + mca->cpu;
      in.mca_loop = run_mca(*mca, *found, in.mca_why_not);
      if (in.mca_loop) in.mca_probe = run_mca(*mca, *ploop, in.mca_why_not);
    }
  }
  const json d = decide_incore(in);
  pi.update(d);
  pi["cores"] = physical_cores();
  if (mix && mix->seconds_per_iteration > 0) {
    measure_all_cpus(
        pi, [isa, window_s](const std::vector<int>& cpus) { return measure_round_mix_all(isa, cpus, 7, window_s); },
        mix_rate(mix), "the mix probe");
  }
  if (pi.contains("value")) {
    log << hanging("parlab: ceilings: ",
                   "in-core bound of pi's " + pi["isa"].get<std::string>() + " loop = " +
                       fixed(pi["value"].get<double>() / 1e9, 2) + " Gsamples/s per core (" +
                       pi["model"].get<std::string>() + "; " + pi["binds"].get<std::string>() + ")",
                   terminal_width())
        << "\n";
  }
  return pi;
}

// matmul's block: its tile update's hot loop (the one with the most fused multiply-adds, or
// multiplies where the build keeps them apart: -ffp-contract=off), its two probes on `cpu`,
// llvm-mca's model of the loop, and the decision.
json measure_matmul_incore(std::ostream& log, const FastCore& fast, const json& pinning, double window_s) {
  json mm = json::object();
  if (!pinning.is_null()) mm["pinning"] = pinning;
  const std::string binary = self_executable();
  std::string why;
  const auto text = disassemble(binary, kMatmulTileSymbol, why);
  if (!text) return {{"unavailable", why}};
  std::optional<AsmLoop> loop;
  std::string pattern;
  int lanes = 0;
  // The loop with the most multiplies is the whole-width path's (kMatmulRowBlock rows at once).
  for (const char* p : {"vfmadd*", "vmulps", "mulps"}) {
    loop = hottest_loop(*text, p, "%xmm");
    if (loop && (lanes = float_lanes(*loop, p)) > 0) {
      pattern = p;
      break;
    }
  }
  if (!loop || lanes == 0) {
    return {{"unavailable", "no loop with vfmadd*, vmulps or mulps in " + std::string(kMatmulTileSymbol) + " (a stripped binary?)"}};
  }
  // Again with the width found, so that its vector instructions and moves are counted.
  const std::optional<AsmLoop> wide = hottest_loop(*text, pattern, lanes == 16 ? "%zmm" : lanes == 8 ? "%ymm" : "%xmm");
  if (!wide) return {{"unavailable", "the loop of " + std::string(kMatmulTileSymbol) + " was lost on a second reading"}};
  const AsmLoop& found = *wide;
  MatmulIncoreInputs in;
  // A fused multiply-add is 2 flops a lane; an unfused multiply has its add beside it (the loop
  // is crow[j] += aik * brow[j]), so 2 flops a lane either way.
  in.flops_per_trip = 2.0 * lanes * found.counted;
  mm["loop"] = {{"symbol", kMatmulTileSymbol},
                {"instructions", found.instructions.size()},
                {"vector_instructions", found.vector_instructions},
                {"moves", found.moves},
                {"multiply_instructions", found.counted},
                {"multiply", pattern == "vfmadd*" ? "fused multiply-add" : pattern + " (and its add)"},
                {"lanes", lanes},
                {"flops_per_iteration", in.flops_per_trip}};
  const int cpu = fast.cpu >= 0 ? fastest_cpu_for(
                                      mm,
                                      [window_s] { return measure_matmul_tile(MatmulShape::l1, 3, window_s).flops_per_s(); },
                                      fast.cpu, "the matmul probe (operands in L1)", "flops_per_s")
                                : -1;
  {
    std::optional<CpuPin> pin;
    try {
      if (cpu >= 0) pin.emplace(cpu);
    } catch (const UnavailableError& e) {
      mm["pinning"] = std::string("unpinned: ") + e.what();
    }
    const double before = stable_clock_hz(window_s);
    // Again where a neighbour disturbed it (kProbeAgreement), the best kept.
    const double scan = scan_rate_of(mm, "flops_per_s");
    MatmulProbe l1 = measure_matmul_tile(MatmulShape::l1, 7, window_s);
    int attempts = 1;
    for (; attempts < kProbeAttempts && probe_disturbed(l1.flops_per_s(), scan); ++attempts) {
      MatmulProbe again = measure_matmul_tile(MatmulShape::l1, 7, window_s);
      if (again.flops_per_s() > l1.flops_per_s()) l1 = std::move(again);
    }
    const MatmulProbe tile = measure_matmul_tile(MatmulShape::tile, 7, window_s);
    const double after = stable_clock_hz(window_s);
    in.clock_hz = std::max(before, after);
    const ProbeRate taken = bound_probe_rate(l1.flops_per_s(), scan, attempts);
    if (!taken.note.is_null()) mm["probe_vs_scan"] = taken.note;
    in.l1_flops_per_s = taken.rate;
    // The tile probe ran beside the same neighbour as a disturbed L1 probe: its share against that.
    in.l1_probe_flops_per_s = probe_disturbed(l1.flops_per_s(), scan) ? l1.flops_per_s() : 0;
    in.tile_flops_per_s = tile.flops_per_s();
    const auto probe_json = [](const MatmulProbe& p) {
      json j = {{"flops_per_s", p.flops_per_s()}, {"how", p.how}};
      if (const auto sp = spread_of(p.samples)) j["spread"] = spread_json(*sp);
      return j;
    };
    // `probe`: the bound's own (its spread is what limit.incore.above weighs, as pi's); `tile`'s
    // probe is reported beside its share (decide_matmul_incore).
    mm["probe"] = probe_json(l1);
    mm["tile_probe"] = probe_json(tile);
  }
  if (cpu >= 0) mm["cpu"] = cpu;
  if (!fast.clocks.empty()) mm["clocks_hz"] = fast.clocks;
  mm["clock_hz"] = in.clock_hz;
  in.peak_clock_hz = fast.hz;
  if (const auto mca = find_llvm_mca(in.mca_why_not)) {
    in.mca_name = mca->tool + " -mcpu=" + mca->cpu;
    in.mca_loop = run_mca(*mca, found, in.mca_why_not);
  }
  mm.update(decide_matmul_incore(in));
  mm["cores"] = physical_cores();
  measure_all_cpus(
      mm, [window_s](const std::vector<int>& cpus) { return measure_matmul_tile_all(MatmulShape::l1, cpus, 7, window_s); },
      in.l1_flops_per_s, "the matmul probe (operands in L1)");
  if (mm.contains("value")) {
    log << hanging("parlab: ceilings: ",
                   "in-core bound of matmul's loop = " + fixed(mm["value"].get<double>() / 1e9, 1) +
                       " Gflop/s per core (" + mm["binds"].get<std::string>() + ")",
                   terminal_width())
        << "\n";
  }
  return mm;
}

}  // namespace

json measure_incore(std::ostream& log, double window_s) {
  json note = json::object();
  const FastCore fast = fastest_core(note, window_s);
  const json pinning = note.value("pinning", json());
  // Each block's probes run on the CPU its own probe found fastest.
  json pi = measure_pi_incore(log, fast, pinning, window_s);
  json mm;
  try {
    mm = measure_matmul_incore(log, fast, pinning, window_s);
  } catch (const Error& e) {  // pi's block stands whatever befalls matmul's
    mm = {{"unavailable", e.what()}};
  }
  return {{"pi", pi}, {"matmul", mm}};
}

bool probe_disturbed(double probe_rate, double scan_rate) {
  return scan_rate > 0 && probe_rate < kProbeAgreement * scan_rate;
}

ProbeRate bound_probe_rate(double probe_rate, double scan_rate, int attempts) {
  ProbeRate out{probe_rate, nullptr};
  if (!(scan_rate > 0)) return out;
  const bool scan = scan_rate > probe_rate;
  out.rate = std::max(probe_rate, scan_rate);
  out.note = {{"probe", probe_rate},
              {"scan", scan_rate},
              {"attempts", attempts},
              {"taken", scan ? "scan" : "probe"},
              {"how", std::string("the probe's best window against its rate on the same CPU in the scan (best of 3 "
                                  "windows); the bound takes the higher") +
                          (probe_disturbed(probe_rate, scan_rate)
                               ? ": the probe read " + fixed(probe_rate / scan_rate, 2) + " of the scan's rate after " +
                                     std::to_string(attempts) + " attempt(s) (disturbed: another tenant on the CPU?)"
                               : "")}};
  return out;
}

}  // namespace parlab
