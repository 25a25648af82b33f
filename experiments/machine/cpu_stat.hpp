// What every CPU did over a window, from /proc/stat: the disturbance a record's workers met
// (docs/records.md, `workers.disturbance`).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace parlab {

// One reading of /proc/stat's per-CPU lines, in clock ticks. Empty where the file is not there.
struct CpuTicks {
  struct Cpu {
    int id = -1;
    std::uint64_t busy = 0;   // user, nice, system, irq, softirq (guest time is inside user)
    std::uint64_t steal = 0;  // taken by the hypervisor while this CPU had work
    std::uint64_t total = 0;  // every field but guest and guest_nice (already in user and nice)
  };
  std::vector<Cpu> cpus;
  static CpuTicks read();
  // Seconds per tick (sysconf(_SC_CLK_TCK)).
  static double tick_s();
};

// This process's CPU time so far (user + system, every thread), in seconds.
double process_cpu_s();

// CPUs' worth of time other processes used between two readings `wall_s` apart: every CPU's busy
// time less `ours` (this process's CPU time over the same span, and any peer's counted as its
// own), held within [0, the CPUs read] since ticks are read at their grain; nullopt where
// /proc/stat was not read.
std::optional<double> others_cpus_between(const CpuTicks& before, const CpuTicks& after, double ours, double wall_s);

}  // namespace parlab
