// Measured CPU roofs (docs/ceilings.md): memory bandwidth, FP64 FMA peak, the rate of 32x32->64-bit
// integer multiplies, and the last-level cache size. Each probe runs on an Executor the caller
// gives (parlab's pool in `parlab ceilings`), so its threads are parlab's own and the roof is what
// parlab's backends can reach on the machine, not a datasheet's number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "executor.hpp"

namespace parlab {

// One roof as a probe found it (experiments/ceilings.cpp turns it into the JSON of docs/ceilings.md).
// `inputs` only for a theoretical roof (units x clock x operations per cycle): the numbers it is
// the product of, by name.
struct Roof {
  std::string name;    // cpu_bw_read_all, gpu_fma_f64, ... (docs/ceilings.md)
  double value = 0;
  std::string unit;    // bytes/s, flops/s, muls/s, bytes, count, hz
  std::string method;  // measured | theoretical
  std::string how;
  int threads = 1;
  std::string device;  // cpu, gpu0, ...
  std::vector<std::pair<std::string, double>> inputs;
};

// What a set of probes found: the roofs, and for each roof it could not give, why.
struct RoofSet {
  std::vector<Roof> roofs;
  std::vector<std::pair<std::string, std::string>> unavailable;
};

// The widest SIMD path the compute probes take here, chosen at run time as core/pi_simd.cpp does.
enum class CeilingIsa { scalar, avx2, avx512 };
std::string_view to_string(CeilingIsa isa) noexcept;
CeilingIsa ceiling_isa() noexcept;

// One probe's result: the best rate of its repetitions (a roof is what the machine can do, so the
// fastest repetition is its estimate; slower ones were disturbed), and what it measured.
struct ProbeResult {
  double value = 0;   // bytes/s, flops/s or muls/s
  std::string how;    // one line: kernel, sizes, ISA, repetitions
};

enum class BandwidthKernel { read, copy_nt, triad_nt };

// Memory bandwidth of `kernel` over arrays of `elements` doubles each (read: one array summed;
// copy_nt: c = a with non-temporal stores; triad_nt: a = b + s*c with non-temporal stores, through
// core/stream_store.hpp), on `ex`'s threads taking chunks dynamically. Counted bytes are the ones
// the kernel moves (8, 16, 24 per element): non-temporal stores need no read for ownership.
// PRECONDITION: elements large enough that the arrays are well past the last-level cache.
ProbeResult measure_bandwidth(Executor& ex, BandwidthKernel kernel, std::uint64_t elements, int reps);

// FP64 FMA peak on every thread of `ex`: independent accumulator chains (more than the FMA
// latency times the FMA ports) of fused multiply-adds on the widest vectors; 2 flops per lane.
ProbeResult measure_fma_f64(Executor& ex, double seconds_per_rep, int reps);

// 32x32->64-bit unsigned multiplies per second (vpmuludq lanes on AVX2/AVX-512, scalar otherwise):
// the operation Philox4x32 is made of, so the roof of the pi kernel.
ProbeResult measure_imul(Executor& ex, double seconds_per_rep, int reps);

// The largest cache's size from sysfs (/sys/devices/system/cpu/cpu0/cache/index*/size, the
// highest level), or nullopt where sysfs says nothing. `sysfs_cpu0_cache` is the directory, for tests.
std::optional<std::uint64_t> last_level_cache_sysfs(
    const std::string& sysfs_cpu0_cache = "/sys/devices/system/cpu/cpu0/cache");

}  // namespace parlab
