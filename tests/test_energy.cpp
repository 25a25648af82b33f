// The energy meters (experiments/machine/energy.cpp, energy_perf.cpp) on fake sysfs trees and synthetic
// counters: each reason a meter is unavailable, the CPU's order (RAPL, then the perf power PMU),
// and the measurement's span of counter advances. Real joules are shown by runs, not by tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/machine/energy.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;
using test::ScopedEnv;

// A workload that does nothing: the energy tests count its runs.
class NopWorkload final : public Workload {
 public:
  explicit NopWorkload(std::chrono::microseconds pause = {}) : pause_(pause) {}
  void run() override {
    ++runs;
    if (pause_.count() > 0) std::this_thread::sleep_for(pause_);
  }
  Validation validate() override { return {}; }
  WorkCount work() const override { return samples_work(1000); }
  long runs = 0;

 private:
  std::chrono::microseconds pause_;
};

TEST(Energy, RaplIsUnavailableWithItsReason) {
  const auto root =
      std::filesystem::temp_directory_path() / ("parlab-powercap-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::string why;
  {
    ScopedEnv env("PARLAB_POWERCAP_ROOT", root.string());
    EXPECT_EQ(open_rapl(why), nullptr);
    EXPECT_NE(why.find("no powercap directory"), std::string::npos) << why;
    std::filesystem::create_directories(root / "intel-rapl:0:0");  // a sub-domain only
    EXPECT_EQ(open_rapl(why), nullptr);
    EXPECT_NE(why.find("no RAPL package domain"), std::string::npos) << why;
    // A package domain whose counter is present: a meter, reading microjoules as joules.
    std::filesystem::create_directories(root / "intel-rapl:0");
    std::ofstream(root / "intel-rapl:0" / "energy_uj") << "2500000\n";
    std::ofstream(root / "intel-rapl:0" / "max_energy_range_uj") << "262143328850\n";
    auto m = open_rapl(why);
    ASSERT_NE(m, nullptr) << why;
    EXPECT_DOUBLE_EQ(m->joules().value(), 0.0);  // counted from opening
    std::ofstream(root / "intel-rapl:0" / "energy_uj") << "4500000\n";
    EXPECT_DOUBLE_EQ(m->joules().value(), 2.0);
    // A counter that never advances is unavailable, never 0 J.
    NopWorkload w;
    const json e = measure_energy_on(*m, w, w.work(), 0.05);
    ASSERT_TRUE(e.contains("energy_unavailable")) << e.dump();
    EXPECT_FALSE(e.contains("energy_j"));
  }
  std::filesystem::remove_all(root);
}

TEST(Energy, NvmlIsUnavailableWithItsReasonWhereThereIsNone) {
  std::string why;
  auto m = open_nvml(0, why);
  if (m != nullptr) GTEST_SKIP() << "this machine has NVML with an energy counter: " << m->describe();
  EXPECT_FALSE(why.empty());
  const json ctx = energy_context();
  EXPECT_EQ(ctx["gpu"].get<std::string>().rfind("unavailable: ", 0), 0u) << ctx.dump();
}

// A stand-in for NVML: the true energy is the integral of the power (busy_w while a run is in
// progress, idle_w otherwise), and the counter shows it as of the last whole update period, as a
// counter that updates every `period` does.
class ClockMeter final : public EnergyMeter {
 public:
  using Clock = std::chrono::steady_clock;
  ClockMeter(std::chrono::milliseconds period, double idle_w, double busy_w)
      : period_(period), idle_w_(idle_w), busy_w_(busy_w), origin_(Clock::now()) {
    changes_.push_back({origin_, 0.0, idle_w_});
  }
  void set_busy(bool busy) {
    const auto now = Clock::now();
    changes_.push_back({now, energy_at(now), busy ? busy_w_ : idle_w_});
  }
  std::optional<double> joules() override {
    const auto whole = (Clock::now() - origin_) / period_;  // update periods completed
    return energy_at(origin_ + whole * period_);
  }
  std::string describe() const override { return "test clock meter"; }

 private:
  struct Change {
    Clock::time_point at;
    double energy;  // the integral up to `at`
    double watts;   // the power from `at` on
  };
  double energy_at(Clock::time_point t) const {
    const Change* c = &changes_.front();
    for (const Change& x : changes_) {
      if (x.at <= t) c = &x;
    }
    return c->energy + c->watts * std::chrono::duration<double>(t - c->at).count();
  }
  std::chrono::milliseconds period_;
  double idle_w_, busy_w_;
  Clock::time_point origin_;
  std::vector<Change> changes_;
};

// A workload whose runs sleep, marking the meter busy while they do.
class BusyWorkload final : public Workload {
 public:
  BusyWorkload(ClockMeter& m, std::chrono::microseconds each) : m_(m), each_(each) {}
  void run() override {
    m_.set_busy(true);
    std::this_thread::sleep_for(each_);
    m_.set_busy(false);
  }
  Validation validate() override { return {}; }
  WorkCount work() const override { return samples_work(1000); }

 private:
  ClockMeter& m_;
  std::chrono::microseconds each_;
};

TEST(Energy, TheWindowHoldsWholeUpdatesWithTheCounterReadOnlyAtItsEnds) {
  // 5 ms updates: the window is 100 of them (0.5 s), one update 1% of it; runs of 5 ms, the counter
  // read only at the window's ends, so the window is almost all runs (an NVML read takes 4 ms: read
  // after every run, a 5 ms run would spend nearly half the window idle).
  ClockMeter m(std::chrono::milliseconds(5), 50.0, 300.0);
  BusyWorkload w(m, std::chrono::microseconds(5000));
  const json e = measure_energy_on(m, w, w.work(), 10.0);
  ASSERT_TRUE(e.contains("energy_j")) << e.dump();
  EXPECT_NEAR(e["energy_period_s"].get<double>(), 0.005, 0.002);
  // At least the window the measured period asks for: 100 updates.
  EXPECT_GE(e["energy_s"].get<double>(), e["energy_period_s"].get<double>() / kEnergyAdvanceShare);
  EXPECT_GE(e["energy_duty"].get<double>(), 0.98) << e.dump();
  EXPECT_NEAR(e["idle_power_w"].get<double>(), 50.0, 5.0);
  EXPECT_NEAR(e["power_w"].get<double>(), 300.0, 15.0);  // whole busy periods: the runs' power
  const double per_run = e["energy_j"].get<double>();
  EXPECT_NEAR(per_run, 300.0 * e["energy_s"].get<double>() / e["energy_runs"].get<double>(), 0.05 * per_run);
  // Above idle: the idle power's share of the window taken out.
  EXPECT_NEAR(e["energy_above_idle_j"].get<double>(), per_run * (300.0 - e["idle_power_w"].get<double>()) / 300.0,
              0.05 * per_run);
  EXPECT_DOUBLE_EQ(e["j_per_sample"].get<double>(), per_run / 1000);
}

TEST(Energy, TheWindowIsAHundredUpdatesWithinItsBounds) {
  EXPECT_DOUBLE_EQ(plan_energy_window(0.05, 10.0).seconds, 5.0);   // NVML at 50 ms
  EXPECT_DOUBLE_EQ(plan_energy_window(0.2, 10.0).seconds, 10.0);   // capped
  EXPECT_DOUBLE_EQ(plan_energy_window(0.0005, 10.0).seconds, kEnergyMinSeconds);  // RAPL: the least
}

// A fake sysfs directory (event_source's devices, or powercap) of this process, removed at the end.
class FakeSysfs {
 public:
  explicit FakeSysfs(const char* name)
      : root_(std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(root_);
  }
  ~FakeSysfs() { std::filesystem::remove_all(root_); }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;
  const std::filesystem::path& root() const { return root_; }
  // A power PMU of `type` whose energy-pkg is `event`, counted on `cpumask`, `scale` J a count.
  void power(const std::string& type, const std::string& event = "event=0x02",
             const std::string& scale = "2.3283064365386962890625e-10", const std::string& unit = "Joules",
             const std::string& cpumask = "0", const std::string& name = "energy-pkg") const {
    const auto dir = root_ / "power";
    std::filesystem::remove_all(dir / "events");
    std::filesystem::create_directories(dir / "events");
    std::ofstream(dir / "type") << type << "\n";
    std::ofstream(dir / "cpumask") << cpumask << "\n";
    std::ofstream(dir / "events" / name) << event << "\n";
    std::ofstream(dir / "events" / (name + ".scale")) << scale << "\n";
    std::ofstream(dir / "events" / (name + ".unit")) << unit << "\n";
  }

 private:
  std::filesystem::path root_;
};

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Energy, PerfPowerIsUnavailableWithItsReason) {
  FakeSysfs fake("parlab-event-source-test");
  ScopedEnv env("PARLAB_EVENT_SOURCE_ROOT", fake.root().string());
  std::string why;
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_EQ(why, "no perf power PMU (" + (fake.root() / "power").string() + " missing)");
  fake.power("bogus");
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why, "type is not a PMU type number")) << why;
  fake.power("4000000", "event=0x02", "1e-9", "Joules", "0", "energy-cores");  // neither pkg nor psys
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why, "no package or platform counter")) << why;
  fake.power("4000000", "umask=0x1");
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why, "not event=<number>")) << why;
  fake.power("4000000", "event=0x02", "0");
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why, ".scale is missing or not a positive number")) << why;
  fake.power("4000000", "event=0x02", "1e-9", "Watts");
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why, "not Joules")) << why;
  fake.power("4000000", "event=0x02", "1e-9", "Joules", "");
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why, "no CPU to count")) << why;
  // A type no PMU has: perf_event_open fails (ENOENT where events are allowed, else EACCES or
  // EPERM), and the reason names the errno and perf_event_paranoid.
  fake.power("4000000");
  EXPECT_EQ(open_perf_power(why), nullptr);
  EXPECT_TRUE(has(why,
                  "perf_event_open of the power PMU's energy-pkg (type 4000000, config event=0x02) on CPU 0 "
                  "failed: "))
      << why;
  EXPECT_TRUE(has(why, "failed: E") || has(why, "failed: errno ")) << why;  // its name, else its number
  EXPECT_TRUE(has(why, "perf_event_paranoid")) << why;
}

TEST(Energy, CpuMeterIsRaplThenPerfPowerAndGivesBothReasons) {
  FakeSysfs powercap("parlab-powercap-order-test");
  FakeSysfs events("parlab-event-source-order-test");
  ScopedEnv rapl_env("PARLAB_POWERCAP_ROOT", powercap.root().string());
  ScopedEnv perf_env("PARLAB_EVENT_SOURCE_ROOT", events.root().string());
  std::string why;
  EXPECT_EQ(open_cpu_energy(why), nullptr);
  EXPECT_EQ(why, "no powercap directory " + powercap.root().string() + "; no perf power PMU (" +
                     (events.root() / "power").string() + " missing)");
  // The PMU's reason follows RAPL's whatever it is.
  events.power("4000000");
  EXPECT_EQ(open_cpu_energy(why), nullptr);
  EXPECT_EQ(why.rfind("no powercap directory " + powercap.root().string() + "; perf_event_open of ", 0), 0u)
      << why;
  // A readable RAPL package domain is taken first, whatever the PMU.
  std::filesystem::create_directories(powercap.root() / "intel-rapl:0");
  std::ofstream(powercap.root() / "intel-rapl:0" / "energy_uj") << "2500000\n";
  auto m = open_cpu_energy(why);
  ASSERT_NE(m, nullptr) << why;
  EXPECT_EQ(m->describe().rfind("rapl: ", 0), 0u) << m->describe();
}

TEST(Energy, PerfPowerMeterCountsFromOpening) {
  // The software PMU's cpu-clock (config 0, nanoseconds) stands in for the power PMU: it opens the
  // same way (system-wide on one CPU) and always advances; a count of 1e-9 "J" is a nanosecond.
  std::ifstream type_file("/sys/bus/event_source/devices/software/type");
  std::string software_type;
  if (!(type_file >> software_type)) GTEST_SKIP() << "no software PMU in sysfs";
  FakeSysfs fake("parlab-event-source-sw-test");
  fake.power(software_type, "event=0x0", "1e-9", "Joules", "0");
  ScopedEnv env("PARLAB_EVENT_SOURCE_ROOT", fake.root().string());
  std::string why;
  auto m = open_perf_power(why);
  if (m == nullptr) GTEST_SKIP() << "system-wide perf events are not allowed here: " << why;
  EXPECT_EQ(m->describe(),
            "perf power PMU: energy-pkg on 1 package(s) (CPU 0) under " + (fake.root() / "power").string());
  // A PMU with only the platform's counter (as some virtual machines have) is taken, and named.
  {
    FakeSysfs psys("parlab-event-source-psys-test");
    psys.power(software_type, "event=0x0", "1e-9", "Joules", "0", "energy-psys");
    ScopedEnv psys_env("PARLAB_EVENT_SOURCE_ROOT", psys.root().string());
    std::string psys_why;
    auto p = open_perf_power(psys_why);
    ASSERT_NE(p, nullptr) << psys_why;
    EXPECT_EQ(p->describe(), "perf power PMU: energy-psys (the platform's, more than the CPU's) on 1 package(s) (CPU 0) "
                             "under " + (psys.root() / "power").string());
  }
  const double first = m->joules().value();
  EXPECT_GE(first, 0.0);
  EXPECT_LT(first, 1.0);  // counted from opening, not from boot
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GT(m->joules().value(), first);
  NopWorkload w(std::chrono::milliseconds(1));
  const json e = measure_energy_on(*m, w, w.work(), 5.0);
  ASSERT_TRUE(e.contains("energy_j")) << e.dump();
  EXPECT_GT(e["energy_j"].get<double>(), 0.0);
  EXPECT_GE(e["energy_runs"].get<long>(), 1);
}

TEST(Energy, ParsesSysfsCpuLists) {
  EXPECT_EQ(parse_cpu_list("0"), std::vector<int>{0});
  EXPECT_EQ(parse_cpu_list("0,18"), (std::vector<int>{0, 18}));
  EXPECT_EQ(parse_cpu_list("0-2,8"), (std::vector<int>{0, 1, 2, 8}));
  for (const char* bad : {"", "a", "3-1", "-1", "1-", "1,,2", "1-2-3", "12345678"})
    EXPECT_TRUE(parse_cpu_list(bad).empty()) << bad;
}

}  // namespace
}  // namespace parlab

namespace parlab {
namespace {

// A meter whose counter is a function of the read count.
class ScriptedMeter final : public EnergyMeter {
 public:
  explicit ScriptedMeter(double step) : step_(step) {}
  std::optional<double> joules() override { return step_ * static_cast<double>(reads_++); }
  std::string describe() const override { return "scripted"; }

 private:
  double step_;
  long reads_ = 0;
};

TEST(Energy, AStillCounterIsNoMeter) {
  ScriptedMeter still(0.0), moving(1e-3);
  EXPECT_FALSE(advances_within(still, std::chrono::milliseconds(30)));
  EXPECT_TRUE(advances_within(moving, std::chrono::milliseconds(30)));
  // The product's opening: a RAPL domain whose counter never moves (as some virtual machines
  // expose) is refused with its reason; one that moves is taken.
  const auto root =
      std::filesystem::temp_directory_path() / ("parlab-powercap-still-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "intel-rapl:0");
  std::ofstream(root / "intel-rapl:0" / "energy_uj") << "2500000\n";
  {
    ScopedEnv env("PARLAB_POWERCAP_ROOT", root.string());
    FakeSysfs events("parlab-event-source-still-test");  // no power PMU behind it
    ScopedEnv perf_env("PARLAB_EVENT_SOURCE_ROOT", events.root().string());
    std::string why;
    EXPECT_EQ(open_moving_cpu_energy(why, std::chrono::milliseconds(50)), nullptr);
    EXPECT_EQ(why.rfind("rapl: ", 0), 0u) << why;
    EXPECT_NE(why.find("did not advance in 50 ms"), std::string::npos) << why;
    // A writer moves the counter while the check waits.
    std::thread writer([&root] {
      for (int i = 1; i <= 40; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        // Written aside and renamed over: a reader never sees a half-written file.
        std::ofstream(root / "intel-rapl:0" / "energy_uj.new") << 2500000 + 1000 * i << "\n";
        std::filesystem::rename(root / "intel-rapl:0" / "energy_uj.new", root / "intel-rapl:0" / "energy_uj");
      }
    });
    auto m = open_moving_cpu_energy(why, std::chrono::milliseconds(1000));
    writer.join();
    ASSERT_NE(m, nullptr) << why;
    EXPECT_EQ(m->describe().rfind("rapl: ", 0), 0u);
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace parlab
