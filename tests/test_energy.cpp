// The energy meters (experiments/energy.cpp) on fake sysfs trees and synthetic counters: each
// reason a meter is unavailable, and the measurement's span of counter advances. Real joules are
// shown by runs, not by tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "experiments/energy.hpp"
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

// A counter that advances by 0.5 J every `period` reads.
class SteppingMeter final : public EnergyMeter {
 public:
  explicit SteppingMeter(int period) : period_(period) {}
  std::optional<double> joules() override { return 0.5 * static_cast<double>(reads_++ / period_); }
  std::string describe() const override { return "test"; }

 private:
  int period_;
  long reads_ = 0;
};

TEST(Energy, RaplIsUnavailableWithItsReason) {
  const auto root = std::filesystem::temp_directory_path() / ("parlab-powercap-test-" + std::to_string(getpid()));
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

TEST(Energy, SpansSeveralCounterAdvancesAndGivesJoulesPerSample) {
  SteppingMeter m(4);  // advances every 4th read: one read per run
  NopWorkload w(std::chrono::milliseconds(11));  // longer than the poll interval: a read per run
  const json e = measure_energy_on(m, w, w.work(), 5.0);
  ASSERT_TRUE(e.contains("energy_j")) << e.dump();
  // At least 5 advances of 0.5 J, 4 runs each, over at least kEnergyMinSeconds: 0.125 J per run
  // of 1000 samples.
  EXPECT_GE(e["energy_runs"].get<long>(), 4 * kEnergyUpdates);
  EXPECT_EQ(e["energy_runs"].get<long>() % 4, 0);
  EXPECT_GE(e["energy_s"].get<double>(), kEnergyMinSeconds);
  EXPECT_DOUBLE_EQ(e["energy_j"].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(e["j_per_sample"].get<double>(), 0.125 / 1000);
}

}  // namespace
}  // namespace parlab
