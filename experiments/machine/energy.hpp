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

// The energy of `w`'s runs after its timed repetitions (docs/ceilings.md, "Energy"): first, idle,
// the counter's update period and the idle power over kEnergyIdleAdvances advances and
// kEnergyIdleSeconds at least; then a window
// of back-to-back runs with the counter read at its two ends only, each just after an advance, so
// it holds whole update periods and no read sits between runs. The window lasts
// period / kEnergyAdvanceShare (at least kEnergyMinSeconds, at most 10 s). Gives {energy_j and
// energy_above_idle_j (joules per run, gross and above idle), energy_s, energy_runs, power_w,
// idle_power_w, energy_period_s, energy_duty (the window's fraction spent in runs), and j_per_sample
// or j_per_byte with their _above_idle}. Null when the side has no counter (the context says why);
// {"energy_unavailable": why} when the counter did not advance.
nlohmann::json measure_energy(Workload& w, bool gpu, int device, const WorkCount& work);

// The same on a given meter, the window at most `limit_s` seconds (measure_energy: 10 s).
nlohmann::json measure_energy_on(EnergyMeter& m, Workload& w, const WorkCount& work, double limit_s);

// The window for a counter that updates every `period_s`: {period, seconds}.
struct EnergyWindow {
  double period = 0;
  double seconds = 0;
};
EnergyWindow plan_energy_window(double period_s, double limit_s);

// One counter update at most this share of the window's energy: NVML updates every 20-100 ms, so
// its windows last 2-10 s; RAPL's every millisecond, so the least window below decides.
inline constexpr double kEnergyAdvanceShare = 0.01;
// The least window: 0.1 s.
inline constexpr double kEnergyMinSeconds = 0.1;
// Idle advances that give the update period and the idle power: at least this many, over at least
// kEnergyIdleSeconds, so that an advance seen a poll late is a small share of the idle time.
inline constexpr int kEnergyIdleAdvances = 3;
inline constexpr double kEnergyIdleSeconds = 0.1;

}  // namespace parlab
