// Energy where the machine tells (docs/ceilings.md, "Energy"): NVML's total-energy counter of a GPU
// (libnvidia-ml.so.1, opened at run time: no link dependency), and for the CPU RAPL's package
// counters through powercap, else the perf `power` PMU's energy-pkg events (energy_perf.cpp). A
// counter that cannot be read, or that did not advance, is unavailable with its reason, never 0 J.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workload.hpp"

namespace parlab {

// A monotonic energy counter in joules (wrap-around handled by the implementation).
class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  // The counter now; nullopt when a read fails.
  virtual std::optional<double> joules() = 0;
  // What it reads, for the context, its method first: "rapl: 2 package domain(s) under
  // /sys/class/powercap", "perf power PMU: energy-pkg on 2 package(s) (CPU 0,18) under ...".
  virtual std::string describe() const = 0;
};

// RAPL package domains under $PARLAB_POWERCAP_ROOT (tests), else /sys/class/powercap; null with
// `why` set when there are none or they cannot be read (root-only on Linux >= 5.10).
std::unique_ptr<EnergyMeter> open_rapl(std::string& why);

// The perf `power` PMU's energy-pkg event, one system-wide counter per package (the CPUs of the
// PMU's cpumask), under $PARLAB_EVENT_SOURCE_ROOT (tests), else /sys/bus/event_source/devices;
// null with `why` when there is no such PMU or perf_event_open refuses (the errno and
// perf_event_paranoid named). The counters' descriptors are closed by the meter.
std::unique_ptr<EnergyMeter> open_perf_power(std::string& why);

// The CPU's meter: RAPL through powercap, else the perf power PMU; null with both reasons in `why`
// ("<RAPL's>; <the PMU's>") when neither opens.
std::unique_ptr<EnergyMeter> open_cpu_energy(std::string& why);

// open_cpu_energy, then a check that the counter moves: it must advance within `wait` (a package
// uses energy even idle, and RAPL updates every millisecond). Some virtual machines expose a
// counter that never moves; without the check every record would wait 10 s for it. Null with
// the reason when it does not.
std::unique_ptr<EnergyMeter> open_moving_cpu_energy(std::string& why, std::chrono::milliseconds wait);

// Whether m's counter advances within `wait`, read every 5 ms.
bool advances_within(EnergyMeter& m, std::chrono::milliseconds wait);

// A sysfs CPU list ("0", "0,18", "0-3,8") as its CPUs, ascending as written; empty when malformed.
std::vector<int> parse_cpu_list(const std::string& s);

// NVML's counter of GPU `device` (NVML's index); null with `why` when libnvidia-ml.so.1 is absent,
// NVML does not start, or the device has no energy counter (before Volta).
std::unique_ptr<EnergyMeter> open_nvml(int device, std::string& why);

// The context's `energy`: {"cpu": what or "unavailable: <why>", "gpu": ...}, opening each once.
nlohmann::json energy_context();

// Runs `w` after its timed repetitions until the counter of its side (GPU for gpu records, CPU
// otherwise) has advanced kEnergyUpdates times, and measures the energy between the first and the
// last advance, at least kEnergyMinSeconds apart: {energy_j (joules per run), energy_s,
// energy_runs, j_per_sample | j_per_byte}. Null when the side has
// no counter (the context says why); {"energy_unavailable": why} when the counter did not advance.
nlohmann::json measure_energy(Workload& w, bool gpu, int device, const WorkCount& work);

// The same on a given meter, giving up after `limit_s` seconds (measure_energy: 10 s).
nlohmann::json measure_energy_on(EnergyMeter& m, Workload& w, const WorkCount& work, double limit_s);

// Counter advances an energy measurement spans: NVML updates every 20-100 ms, so 5 advances are at
// least 100 ms of whole update periods, and the error of the partial periods at the ends is gone.
inline constexpr int kEnergyUpdates = 5;
// And the least time they span (RAPL counters update every millisecond): 0.1 s.
inline constexpr double kEnergyMinSeconds = 0.1;

}  // namespace parlab
