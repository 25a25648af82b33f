// Measured CPU roofs (docs/ceilings.md): memory bandwidth, FP64 FMA peak, the rate of 32x32->64-bit
// integer multiplies, and the last-level cache size. The compute probes run on an Executor the
// caller gives (parlab's pool in `parlab ceilings`); the bandwidth probes on threads of their own,
// pinned one per logical CPU, with parlab's STREAM element bodies. A roof is the best the probes
// find on the machine, not a datasheet's number.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "executor.hpp"
#include "roof.hpp"

namespace parlab {

// One roof as a probe found it (experiments/machine/ceilings.cpp turns it into the JSON of docs/ceilings.md).
// `inputs` only for a theoretical roof (units x clock x operations per cycle): the numbers it is
// the product of, by name.
struct Roof {
  RoofKey key;         // its name in the JSON is to_string(key) (docs/ceilings.md)
  double value = 0;
  std::string unit;    // bytes/s, flops/s, muls/s, bytes, count, hz
  std::string method;  // measured | theoretical
  std::string how;
  int threads = 1;
  std::string device;  // cpu, gpu0, ...
  std::vector<std::pair<std::string, double>> inputs;
  // Every measurement the value was the best of (a measured roof), for its spread (core/spread.hpp):
  // how far the machine's repetitions disagree is part of what the roof says.
  std::vector<double> samples;
};

// What a set of probes found: the roofs, and for each roof it could not give, why.
struct RoofSet {
  std::vector<Roof> roofs;
  std::vector<std::pair<RoofKey, std::string>> unavailable;
};

// The widest SIMD path the compute probes take here, chosen at run time as core/pi_simd.cpp does.
enum class CeilingIsa { scalar, avx2, avx512 };
std::string_view to_string(CeilingIsa isa) noexcept;
CeilingIsa ceiling_isa() noexcept;

// One probe's result: the best rate of its repetitions (a roof is what the machine can do, so the
// fastest repetition is its estimate; slower ones were disturbed), and what it measured.
struct ProbeResult {
  double value = 0;              // bytes/s, flops/s or muls/s
  std::string how;               // one line: kernel, sizes, ISA, repetitions
  std::vector<double> samples;   // every repetition's rate; value is their largest
};

enum class BandwidthKernel { read, copy_nt, triad_nt };

// One measurement a roof may come from: a kernel, a size, a launch shape, and what it reached.
struct RoofCandidate {
  std::string label;             // e.g. "copy at 600 MiB", "triad (parlab's cuda kernel)"
  double value = 0;              // bytes/s: the best of samples
  std::vector<double> samples;   // every repetition's rate
};

// A bandwidth roof from its candidates: the largest value (a roof is the best the machine does,
// so a slower candidate only shows where the machine is slower), and a `how` that gives every
// candidate's figure and names the one that won, after `what`. Throws FailureError when there is
// no candidate or a value is not a positive number: a roof must come from a measurement.
ProbeResult best_bandwidth_candidate(const std::string& what, const std::vector<RoofCandidate>& candidates);

// Pins the calling thread to one logical CPU for its lifetime and gives the thread back its
// earlier affinity mask when it ends (RAII): the bandwidth probe's threads are pinned as
// likwid-bench pins its own, and the thread that creates the guard is left as it was found.
// Throws UnavailableError where the OS refuses (a CPU outside the process's cpuset) or has no
// affinity call.
class CpuPin {
 public:
  explicit CpuPin(int cpu);
  ~CpuPin();
  CpuPin(const CpuPin&) = delete;
  CpuPin& operator=(const CpuPin&) = delete;

 private:
  std::vector<unsigned char> saved_;  // the cpu_set_t the thread had, as bytes
};

// The logical CPUs this process may run on (sched_getaffinity), in increasing order; empty where
// the OS says nothing.
std::vector<int> allowed_cpus();

// Memory bandwidth probes on `threads` threads of their own, thread i pinned to the i-th CPU of
// allowed_cpus() (round robin when there are fewer): the pool's threads float between CPUs of
// unequal speed on a VM, and a roof is what pinned threads reach. The arrays are allocated once,
// for working sets up to `max_working_set` bytes (a: all of it, for read; c: half, for copy; b: a
// third, for triad), and first touched by the pinned threads; each working set measured uses a
// prefix of them. Chunks of a sweep are handed out dynamically, so a slower CPU takes fewer.
class BandwidthProbe {
 public:
  BandwidthProbe(int threads, std::uint64_t max_working_set);
  ~BandwidthProbe();
  BandwidthProbe(const BandwidthProbe&) = delete;
  BandwidthProbe& operator=(const BandwidthProbe&) = delete;

  // Memory bandwidth of `kernel` (read: one array summed; copy_nt: c = a, triad_nt: a = b + s*c,
  // both with core/stream_store.hpp's non-temporal stores) at each of `working_sets` (bytes of all
  // the kernel's arrays together, each <= max_working_set), best of `reps` sweeps after a warm-up
  // at each; the result is the best working set's figure (best_bandwidth_candidate), its `how`
  // naming every one's. Counted bytes are the ones the kernel moves (8, 16, 24 per element):
  // non-temporal stores need no read for ownership.
  ProbeResult measure(BandwidthKernel kernel, const std::vector<std::uint64_t>& working_sets, int reps);

  int threads() const noexcept;

 private:
  struct Team;
  std::unique_ptr<Team> team_;
};

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
