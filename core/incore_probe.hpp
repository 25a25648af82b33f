// The measured half of a compiled loop's in-core bound (experiments/machine/incore.hpp): this
// core's clock, and how many instructions per cycle its vector ports issue for the instruction mix
// of pi's Philox round. llvm-mca's port model of a CPU can be wrong (it spreads 512-bit operations
// over three ports of Intel server cores, which issue them on two), so the model is checked
// against these before it is trusted, and these stand in where it is missing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pi_simd.hpp"

namespace parlab {

// Every probe below times windows of about `window_s` each: 20 ms by default, long against the
// clock's read and a core's settling. The ceilings' test mode (PARLAB_CEILINGS_QUICK, whose
// numbers are no roofs) takes windows of kQuickProbeWindowSeconds.
inline constexpr double kProbeWindowSeconds = 0.02;
inline constexpr double kQuickProbeWindowSeconds = 0.002;

// Cycles per second of the core the calling thread runs on: a chain of dependent 64-bit register
// adds (one cycle each on every x86-64 core since the Pentium 4's successors), best of `reps`
// windows of about `window_s`. nullopt off x86-64. The caller pins the thread (CpuPin) so every window
// runs on one core.
std::optional<double> measure_core_clock_hz(int reps, double window_s = kProbeWindowSeconds);

// The mix probe: independent copies of pi's round (vpmuludq, vpsrlq, then vpternlogq on AVX-512;
// vpmuludq, vpsrlq and two vpxor on AVX2), more copies than the round's latency needs to keep
// every port busy, so the ports alone bound it.
struct MixProbe {
  std::string_view symbol;             // the probe's function, for the disassembler and llvm-mca
  double instructions_per_iteration;   // vector instructions of one trip of its loop
  double seconds_per_iteration = 0;    // the best repetition's
  std::vector<double> samples;         // every repetition's vector instructions per second
  std::string how;
};

// Runs the mix probe of `isa` on the calling thread, best of `reps` windows of about `window_s`.
// `chains` 0: the ports probe (enough chains to fill the ports); pi_loop(isa)->chains: the same
// round step with only the chains pi's loop keeps in flight (the chains probe: how much of the
// ports' rate latency leaves that loop; `symbol` is then empty). nullopt for PiIsa::scalar, off
// x86-64, or another chain count. PRECONDITION: pi_isa_supported(isa).
std::optional<MixProbe> measure_round_mix(PiIsa isa, int reps, int chains = 0, double window_s = kProbeWindowSeconds);

// The mix probe on every CPU of `cpus` at once, one thread pinned to each, all started together:
// what the ports give when every core is busy (a core's clock drops as more cores run, and SMT
// siblings share one core's ports), which no one-CPU probe shows. Each thread runs windows of
// `iterations` trips until every thread has run `reps`; only windows that ended before the first
// thread could stop count, so each counted window ran with all the others busy. Windows of about
// `window_s`, sized on the calling thread. Returns each CPU's best window, in vector instructions per
// second, in the order of `cpus`; nullopt where the mix probe cannot run (as measure_round_mix).
// Throws UnavailableError where pinning is refused.
std::optional<std::vector<double>> measure_round_mix_all(PiIsa isa, const std::vector<int>& cpus, int reps,
                                                         double window_s = kProbeWindowSeconds);

// The matmul probe: the kernel's own tile update (matmul_tile.hpp), timed on the calling thread,
// best of `reps` windows of about `window_s`. Its compiled code is the probe, so no instruction mix is
// assumed; what differs is where the operands live:
//   l1:   kMatmulRowBlock rows of kTile2D columns over a k-block of kMatmulKBlock, every operand
//         in L1 (ldb 0: every k reads one B row; 5 KiB in all): the loop as the kernel runs it,
//         memory aside: the in-core bound;
//   tile: one output tile over one k-block as matmul_blocked runs it (kTile2D C rows, their A
//         rows, B's slab of kMatmulKBlock x kTile2D floats, 64 KiB): B does not fit L1, so each
//         block of rows reads it from L2. A record near this and below l1 is held back by where
//         its operands live, not by its instructions.
// The arithmetic is 0 * 1 + 1 on every element: no value grows or turns subnormal over millions
// of calls (a multiply's speed does not depend on its operands otherwise).
enum class MatmulShape { l1, tile };
struct MatmulProbe {
  double flops_per_call = 0;     // 2 x rows x k-block x columns
  double seconds_per_call = 0;   // the best window's
  std::vector<double> samples;   // every window's flop/s
  std::string how;
  double flops_per_s() const { return seconds_per_call > 0 ? flops_per_call / seconds_per_call : 0.0; }
};
MatmulProbe measure_matmul_tile(MatmulShape shape, int reps, double window_s = kProbeWindowSeconds);

// The matmul probe of `shape` on every CPU of `cpus` at once, as measure_round_mix_all runs the
// mix probe (each thread its own buffers): each CPU's best window in flop/s, in the order of
// `cpus`; nullopt for no CPUs. Throws UnavailableError where pinning is refused.
std::optional<std::vector<double>> measure_matmul_tile_all(MatmulShape shape, const std::vector<int>& cpus, int reps,
                                                           double window_s = kProbeWindowSeconds);

}  // namespace parlab
