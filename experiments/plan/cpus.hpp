// What a plan asks of this machine's CPUs, said before anything runs: more threads
// than the machine has, or more than are free while other work holds some of them, make points
// that measure time-slicing, not the backend. Said at plan time, so `--dry-run` says it too; the
// run's context keeps it among its warnings.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace parlab {

// Warnings for a plan whose largest thread count (per process, times ranks where a job has
// several on this host) is `most_threads`, on `hardware` hardware threads, with the 1-minute load
// average `load1` where known. Free CPUs are the hardware threads less the load, rounded to the
// nearest whole CPU. Empty when the plan fits.
std::vector<std::string> cpu_warnings(int most_threads, int hardware, std::optional<double> load1);

// The 1-minute load average, or nothing where the system does not say.
std::optional<double> load_average_1min();

}  // namespace parlab
