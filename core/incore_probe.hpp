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

// Cycles per second of the core the calling thread runs on: a chain of dependent 64-bit register
// adds (one cycle each on every x86-64 core since the Pentium 4's successors), best of `reps`
// windows of about 20 ms. nullopt off x86-64. The caller pins the thread (CpuPin) so every window
// runs on one core.
std::optional<double> measure_core_clock_hz(int reps);

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

// Runs the mix probe of `isa` on the calling thread, best of `reps` windows of about 20 ms.
// `chains` 0: the ports probe (enough chains to fill the ports); pi_loop(isa)->chains: the same
// round step with only the chains pi's loop keeps in flight (the chains probe: how much of the
// ports' rate latency leaves that loop; `symbol` is then empty). nullopt for PiIsa::scalar, off
// x86-64, or another chain count. PRECONDITION: pi_isa_supported(isa).
std::optional<MixProbe> measure_round_mix(PiIsa isa, int reps, int chains = 0);

// The mix probe on every CPU of `cpus` at once, one thread pinned to each, all started together:
// what the ports give when every core is busy (a core's clock drops as more cores run, and SMT
// siblings share one core's ports), which no one-CPU probe shows. Each thread runs windows of
// `iterations` trips until every thread has run `reps`; only windows that ended before the first
// thread could stop count, so each counted window ran with all the others busy. Windows of about
// 20 ms, sized on the calling thread. Returns each CPU's best window, in vector instructions per
// second, in the order of `cpus`; nullopt where the mix probe cannot run (as measure_round_mix).
// Throws UnavailableError where pinning is refused.
std::optional<std::vector<double>> measure_round_mix_all(PiIsa isa, const std::vector<int>& cpus, int reps);

}  // namespace parlab
