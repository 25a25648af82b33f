// NVML through dlopen, RAPL through powercap, and the choice of the CPU's meter (energy.hpp; the
// perf power PMU is energy_perf.cpp).
#include "experiments/machine/energy.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "experiments/io/read.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxCounterBytes = 4096;  // a sysfs counter is one number

// --- RAPL -----------------------------------------------------------------------------------
// One package domain: energy_uj counts microjoules and wraps at max_energy_range_uj.
struct RaplDomain {
  fs::path energy;
  double range_uj = 0;
  double last_uj = 0;
  double total_uj = 0;
};

// A counter file's number: nullopt when it is not a regular file (never waited on), unreadable,
// not a number, or outside [0, 2^63) (energy_uj and its range are non-negative 64-bit counts).
std::optional<double> read_number(const fs::path& p) {
  try {
    std::istringstream in(read_regular_file(p, "energy counter", kMaxCounterBytes));
    double v = 0;
    if (in >> v && std::isfinite(v) && v >= 0 && v < 9.3e18) return v;
  } catch (const UsageError&) {
  }
  return std::nullopt;
}

class RaplMeter final : public EnergyMeter {
 public:
  RaplMeter(std::vector<RaplDomain> d, std::string root) : domains_(std::move(d)), root_(std::move(root)) {}
  std::optional<double> joules() override {
    double total = 0;
    for (auto& d : domains_) {
      const auto now = read_number(d.energy);
      if (!now) return std::nullopt;
      // A smaller reading wrapped once (a package of 200 W wraps every ~20 min at 2^38 uJ ranges).
      d.total_uj += *now >= d.last_uj ? *now - d.last_uj : *now + d.range_uj - d.last_uj;
      d.last_uj = *now;
      total += d.total_uj;
    }
    return total * 1e-6;
  }
  std::string describe() const override {
    return "rapl: " + std::to_string(domains_.size()) + " package domain(s) under " + root_;
  }

 private:
  std::vector<RaplDomain> domains_;
  std::string root_;
};

// --- NVML -----------------------------------------------------------------------------------
// The few NVML entry points used, declared here (nvml.h is not needed to build): nvmlReturn_t is an
// int, 0 success; nvmlDevice_t an opaque pointer.
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlHandleByIndex = int (*)(unsigned, void**);
using NvmlTotalEnergy = int (*)(void*, unsigned long long*);  // millijoules since the driver loaded

// dlopen's handle, closed when the owner goes.
struct DlClose {
  void operator()(void* h) const noexcept { dlclose(h); }
};
using DlHandle = std::unique_ptr<void, DlClose>;

class NvmlMeter final : public EnergyMeter {
 public:
  // PRECONDITION: nvmlInit succeeded on `lib` (this object calls nvmlShutdown when it goes).
  NvmlMeter(DlHandle lib, NvmlShutdown shutdown, NvmlTotalEnergy energy, void* device, int index)
      : lib_(std::move(lib)), shutdown_(shutdown), energy_(energy), device_(device), index_(index) {}
  ~NvmlMeter() override { shutdown_(); }
  NvmlMeter(const NvmlMeter&) = delete;
  NvmlMeter& operator=(const NvmlMeter&) = delete;
  std::optional<double> joules() override {
    unsigned long long mj = 0;
    if (energy_(device_, &mj) != 0) return std::nullopt;
    return static_cast<double>(mj) * 1e-3;
  }
  std::string describe() const override {
    return "nvml: nvmlDeviceGetTotalEnergyConsumption of device " + std::to_string(index_) + " (mJ)";
  }

 private:
  DlHandle lib_;
  NvmlShutdown shutdown_;
  NvmlTotalEnergy energy_;
  void* device_;
  int index_;
};

// Meters are opened once per process and kept (opening NVML takes tens of milliseconds).
struct Meters {
  std::mutex m;
  bool cpu_tried = false;
  std::unique_ptr<EnergyMeter> cpu;
  std::string cpu_why;
  std::map<int, std::pair<std::unique_ptr<EnergyMeter>, std::string>> gpu;
};
Meters& meters() {
  static Meters m;
  return m;
}

EnergyMeter* cpu_meter(std::string& why) {
  Meters& m = meters();
  std::lock_guard lock(m.m);
  if (!m.cpu_tried) {
    m.cpu = open_moving_cpu_energy(m.cpu_why, std::chrono::milliseconds(250));
    m.cpu_tried = true;
  }
  why = m.cpu_why;
  return m.cpu.get();
}

EnergyMeter* gpu_meter(int device, std::string& why) {
  Meters& m = meters();
  std::lock_guard lock(m.m);
  auto it = m.gpu.find(device);
  if (it == m.gpu.end()) {
    std::string w;
    auto meter = open_nvml(device, w);
    it = m.gpu.emplace(device, std::make_pair(std::move(meter), w)).first;
  }
  why = it->second.second;
  return it->second.first.get();
}

}  // namespace

std::unique_ptr<EnergyMeter> open_rapl(std::string& why) {
  const char* env = std::getenv("PARLAB_POWERCAP_ROOT");
  const std::string root = env != nullptr && *env != '\0' ? env : "/sys/class/powercap";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    why = "no powercap directory " + root;
    return nullptr;
  }
  std::vector<RaplDomain> domains;
  std::string unreadable;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    // Package domains are intel-rapl:N (AMD's too); intel-rapl:N:M are their parts, already counted.
    if (name.rfind("intel-rapl:", 0) != 0 || name.find(':', 11) != std::string::npos) continue;
    RaplDomain d;
    d.energy = e.path() / "energy_uj";
    const auto now = read_number(d.energy);
    if (!now) {
      unreadable = d.energy.string();
      continue;
    }
    d.range_uj = read_number(e.path() / "max_energy_range_uj").value_or(0);
    d.last_uj = *now;
    domains.push_back(d);
  }
  if (!unreadable.empty()) {
    why = unreadable + " is not readable (root only since Linux 5.10)";
    return nullptr;
  }
  if (domains.empty()) {
    why = "no RAPL package domain (intel-rapl:N) under " + root;
    return nullptr;
  }
  return std::make_unique<RaplMeter>(std::move(domains), root);
}

std::unique_ptr<EnergyMeter> open_cpu_energy(std::string& why) {
  std::string rapl_why, perf_why;
  if (auto m = open_rapl(rapl_why)) return m;
  if (auto m = open_perf_power(perf_why)) return m;
  why = rapl_why + "; " + perf_why;
  return nullptr;
}

bool advances_within(EnergyMeter& m, std::chrono::milliseconds wait) {
  const auto first = m.joules();
  if (!first) return false;
  const auto until = std::chrono::steady_clock::now() + wait;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto now = m.joules();
    if (!now) return false;
    if (*now != *first) return true;
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

std::unique_ptr<EnergyMeter> open_moving_cpu_energy(std::string& why, std::chrono::milliseconds wait) {
  auto m = open_cpu_energy(why);
  if (m && !advances_within(*m, wait)) {
    why = m->describe() + ": opened, but the counter did not advance in " + std::to_string(wait.count()) +
          " ms (a counter that never moves, as some virtual machines expose)";
    return nullptr;
  }
  return m;
}

std::unique_ptr<EnergyMeter> open_nvml(int device, std::string& why) {
  DlHandle lib(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char* e = dlerror();
    why = std::string("libnvidia-ml.so.1 not loadable (") + (e ? e : "?") + ")";
    return nullptr;
  }
  const auto sym = [&](const char* name) { return dlsym(lib.get(), name); };
  auto init = reinterpret_cast<NvmlInit>(sym("nvmlInit_v2"));
  auto shutdown = reinterpret_cast<NvmlShutdown>(sym("nvmlShutdown"));
  auto by_index = reinterpret_cast<NvmlHandleByIndex>(sym("nvmlDeviceGetHandleByIndex_v2"));
  auto energy = reinterpret_cast<NvmlTotalEnergy>(sym("nvmlDeviceGetTotalEnergyConsumption"));
  if (!init || !shutdown || !by_index || !energy) {
    why = "libnvidia-ml.so.1 lacks nvmlDeviceGetTotalEnergyConsumption or its companions";
    return nullptr;
  }
  if (const int rc = init(); rc != 0) {
    why = "nvmlInit_v2 failed (nvmlReturn_t " + std::to_string(rc) + ")";
    return nullptr;
  }
  void* dev = nullptr;
  unsigned long long mj = 0;
  if (const int rc = by_index(static_cast<unsigned>(device), &dev); rc != 0) {
    shutdown();
    why = "NVML has no device " + std::to_string(device) + " (nvmlReturn_t " + std::to_string(rc) + ")";
    return nullptr;
  }
  if (const int rc = energy(dev, &mj); rc != 0) {
    shutdown();
    why = "device " + std::to_string(device) + " has no total-energy counter (nvmlReturn_t " + std::to_string(rc) +
          "; Volta or newer needed)";
    return nullptr;
  }
  return std::make_unique<NvmlMeter>(std::move(lib), shutdown, energy, dev, device);
}

json energy_context() {
  std::string cpu_why, gpu_why;
  EnergyMeter* cpu = cpu_meter(cpu_why);
  EnergyMeter* gpu = gpu_meter(0, gpu_why);
  return {{"cpu", cpu ? cpu->describe() : "unavailable: " + cpu_why},
          {"gpu", gpu ? gpu->describe() : "unavailable: " + gpu_why}};
}

json measure_energy(Workload& w, bool gpu, int device, const WorkCount& work) {
  std::string why;
  EnergyMeter* m = gpu ? gpu_meter(device, why) : cpu_meter(why);
  if (m == nullptr) return json();
  return measure_energy_on(*m, w, work, 10.0);
}

namespace {

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Reads m until its counter differs from `from`, idle, for at most `limit_s`: the first value past
// `from` and when it was read; nullopt on a failed read or no change in time.
std::optional<std::pair<double, Clock::time_point>> next_advance(EnergyMeter& m, double from, double limit_s) {
  const auto start = Clock::now();
  while (seconds_between(start, Clock::now()) < limit_s) {
    const auto now = m.joules();
    if (!now) return std::nullopt;
    if (*now != from) return std::make_pair(*now, Clock::now());
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return std::nullopt;
}

}  // namespace

EnergyWindow plan_energy_window(double period_s, double limit_s) {
  // One update period at most kEnergyAdvanceShare of the window's energy: the counter is read at
  // the window's two ends only, each read just after an advance, so the window holds whole update
  // periods; the share bounds what a stale end could still cost.
  return {period_s, std::clamp(period_s / kEnergyAdvanceShare, kEnergyMinSeconds, limit_s)};
}

json measure_energy_on(EnergyMeter& m, Workload& w, const WorkCount& work, double limit_s) {
  const auto unavailable = [](const std::string& why) { return json{{"energy_unavailable", why}}; };
  // 1. Idle: the counter's update period and the idle power, with nothing running (the GPU or
  //    package idles between measurements anyway), over at least kEnergyIdleAdvances advances and
  //    kEnergyIdleSeconds: each advance is seen up to a poll late (more on a loaded machine), and
  //    over 3 advances of a 5 ms counter 1.6 ms of that read a 50 W idle as 56 W.
  const auto first_read = m.joules();
  if (!first_read) return unavailable("the counter could not be read");
  const double idle_limit = std::min(2.0, limit_s);
  auto a = next_advance(m, *first_read, idle_limit);
  if (!a) return unavailable("the counter did not advance in " + std::to_string(idle_limit) + " s idle");
  auto b = a;
  int advances = 0;
  while (advances < kEnergyIdleAdvances || seconds_between(a->second, b->second) < kEnergyIdleSeconds) {
    const auto next = next_advance(m, b->first, idle_limit);
    if (!next) break;
    b = next;
    ++advances;
    if (seconds_between(a->second, b->second) >= idle_limit) break;
  }
  if (advances < kEnergyIdleAdvances) {
    return unavailable("the counter advanced fewer than " + std::to_string(kEnergyIdleAdvances) + " times idle");
  }
  const double idle_s = seconds_between(a->second, b->second);
  const double idle_w = idle_s > 0 ? (b->first - a->first) / idle_s : 0.0;
  const EnergyWindow win = plan_energy_window(idle_s / advances, limit_s);
  // 2. The window: from the read at b (just after an advance) the workload runs back to back, the
  //    counter untouched, until win.seconds have passed; then run and read until the next advance,
  //    so the window ends just after one too. Every run between the two reads counts.
  const double e0 = b->first;
  const Clock::time_point t0 = Clock::now();
  long runs = 0;
  double in_runs = 0;
  const auto one_run = [&] {
    const auto r0 = Clock::now();
    w.run();
    in_runs += seconds_between(r0, Clock::now());
    ++runs;
  };
  while (seconds_between(t0, Clock::now()) < win.seconds) one_run();
  // The counter as the window's runs left it; the window closes at its next advance.
  const auto before_end = m.joules();
  if (!before_end) return unavailable("the counter could not be read");
  double e1 = e0;
  Clock::time_point t1;
  for (;;) {
    one_run();
    const auto now = m.joules();
    if (!now) return unavailable("the counter could not be read");
    if (*now != *before_end) {
      e1 = *now;
      t1 = Clock::now();
      break;
    }
    if (seconds_between(t0, Clock::now()) > limit_s + 2 * win.period) {
      return unavailable("the counter did not advance at the end of a " + std::to_string(win.seconds) + " s window");
    }
  }
  if (!(e1 > e0) || runs == 0) return unavailable("the counter did not advance over the window");
  const double window_s = seconds_between(t0, t1);
  const double per_run = (e1 - e0) / static_cast<double>(runs);
  const double above_idle = std::max(0.0, (e1 - e0) - idle_w * window_s) / static_cast<double>(runs);
  json e = {{"energy_j", per_run},
            {"energy_above_idle_j", above_idle},
            {"energy_s", window_s},
            {"energy_runs", runs},
            {"power_w", (e1 - e0) / window_s},
            {"idle_power_w", idle_w},
            {"energy_period_s", win.period},
            // The fraction of the window spent inside runs: the rest (loop, the closing reads) is
            // idle time whose energy the per-run figures still carry.
            {"energy_duty", in_runs / window_s}};
  if (work.samples > 0) {
    e["j_per_sample"] = per_run / work.samples;
    e["j_per_sample_above_idle"] = above_idle / work.samples;
  }
  if (work.bytes > 0) {
    e["j_per_byte"] = per_run / work.bytes;
    e["j_per_byte_above_idle"] = above_idle / work.bytes;
  }
  return e;
}

}  // namespace parlab
