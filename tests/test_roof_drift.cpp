// The end probe's grading (experiments/machine/roof_drift.hpp, docs/ceilings.md "The end probe"),
// on given numbers: the H200 node's case that set the rule, copy at 2^27 doubles on 16 threads reading
// 0.98 to 1.17 of a cpu_bw_copy_nt_all measured at 122 GB/s minutes before, where the node's DRAM
// read 122 to 150 GB/s over the same rounds. No machine is measured here.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/machine/limit.hpp"
#include "experiments/machine/roof_drift.hpp"
#include "record_fields.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

constexpr double kGB = 1e9;
constexpr double kN = 134217728.0;      // 2^27 doubles
constexpr double kBytes = 16 * kN;      // copy moves 16 bytes per element
constexpr double kFootprint = 2 * 8 * kN;  // two arrays: 2 GiB, past 4x a 300 MiB LLC

json roof(double value, int threads) {
  return {{"value", value}, {"unit", "bytes/s"}, {"method", "measured"}, {"how", "given"}, {"threads", threads},
          {"device", "cpu"}, {"measured_utc", "2026-11-28T00:00:00Z"}};
}

// The node's ceilings: 16 hardware threads, a 300 MiB LLC, copy's roof measured at `start`.
json node_ceilings(double start) {
  json c = {{"measured_utc", "2026-11-28T00:00:00Z"}, {"cache", nullptr}, {"unavailable", json::object()}};
  c["roofs"]["cpu_bw_copy_nt_all"] = roof(start, 16);
  c["roofs"]["cpu_bw_copy_nt_1"] = roof(20 * kGB, 1);
  c["roofs"]["cpu_llc_bytes"] = {{"value", 300.0 * (1 << 20)}, {"unit", "bytes"}, {"method", "measured"},
                                 {"how", "sysfs"}, {"threads", 1}, {"device", "cpu"},
                                 {"measured_utc", "2026-11-28T00:00:00Z"}};
  return c;
}

// ceilings_end as measure_roofs_again writes it, copy's roof measured at `end` after `start`.
json node_end(double start, double end) {
  json r = roof(end, 16);
  r["start"] = start;
  r["drift"] = end / start - 1;
  return {{"measured_utc", "2026-11-28T00:10:00Z"}, {"seconds", 2.5}, {"roofs", {{"cpu_bw_copy_nt_all", r}}},
          {"unavailable", json::object()}};
}

// Each record's quartile times lie this share of its median either side: an interquartile range of
// 5% of the median, as wide as the node's openmp, pool and tbb records at 2^27 showed.
constexpr double kIqrHalf = 0.025;

// A copy record on 16 threads at `share` of `roof_value`, its quartile times kIqrHalf either side.
Record copy_record(double share, double roof_value, double iqr_half = kIqrHalf) {
  const double rate = share * roof_value, median = kBytes / rate;
  Record r = test::record_from({{"kernel", "copy"}, {"backend", "openmp"}, {"kind", "cpu"}, {"processor", "cpu"},
                                {"threads", 16}, {"size", kN}, {"precision", "double"},
                                {"rate", {{"bytes_per_s", rate}}},
                                {"work", {{"bytes", kBytes}, {"footprint_bytes", kFootprint}}}});
  r.times->time_s.n = 20;
  r.times->time_s.q1 = median * (1 - iqr_half);
  r.times->time_s.median = median;
  r.times->time_s.q3 = median * (1 + iqr_half);
  return r;
}

// The node's records: 0.98 to 1.17 of the roof measured at the start.
const std::vector<double> kNodeShares = {0.98, 1.00, 1.02, 1.05, 1.08, 1.10, 1.12, 1.15, 1.17};

struct Case {
  const char* name;
  double start, end;      // the roof at the run's start and end, GB/s
  int above_before;       // records above 1 graded against the start's roof alone
  int above_after;        // records whose whole interval is above 1 after the end probe
};

// The case's name where gtest prints the parameter (its ctest name), not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class NodeCase : public ::testing::TestWithParam<Case> {};

TEST_P(NodeCase, RecordsReadAboveTheirRoofOnlyWhereTheWholeIntervalIs) {
  const Case& k = GetParam();
  const json ceilings = node_ceilings(k.start * kGB);
  json context = {{"ceilings", ceilings}};
  int before = 0, after = 0;
  for (const double share : kNodeShares) {
    const Record r = copy_record(share, k.start * kGB);
    const json old = record_limit(r, ceilings);
    ASSERT_EQ(old["roof"], "cpu_bw_copy_nt_all");
    if (old.contains("above_roof")) ++before;
    EXPECT_EQ(graded_limit(r, context), old) << "no end probe: record_limit's limit, unchanged";
  }
  context["ceilings_end"] = node_end(k.start * kGB, k.end * kGB);
  const double high = std::max(k.start, k.end) * kGB, low = std::min(k.start, k.end) * kGB;
  for (const double share : kNodeShares) {
    const Record r = copy_record(share, k.start * kGB);
    const json l = graded_limit(r, context);
    ASSERT_TRUE(l.contains("interval")) << l.dump();
    EXPECT_DOUBLE_EQ(l["value"].get<double>(), high) << "graded against the highest roof";
    EXPECT_DOUBLE_EQ(l["fraction"].get<double>(), share * k.start * kGB / high);
    const json& iv = l["interval"];
    EXPECT_DOUBLE_EQ(iv["roof_low"].get<double>(), low);
    // low: the rate at the slower quartile (q3) over the highest roof; high: the rate at the faster
    // quartile (q1) over the lowest.
    EXPECT_NEAR(iv["low"].get<double>(), share * k.start / ((1 + kIqrHalf) * std::max(k.start, k.end)), 1e-12);
    EXPECT_NEAR(iv["high"].get<double>(), share * k.start / ((1 - kIqrHalf) * std::min(k.start, k.end)), 1e-12);
    EXPECT_LE(iv["low"].get<double>(), l["fraction"].get<double>());
    EXPECT_GE(iv["high"].get<double>(), l["fraction"].get<double>());
    const bool above = l.contains("above_roof");
    EXPECT_EQ(above, iv["low"].get<double>() > 1) << share;
    if (above) {
      EXPECT_NE(l["above_roof"].get<std::string>().find("whole interval"), std::string::npos);
      ++after;
    }
  }
  EXPECT_EQ(before, k.above_before);
  EXPECT_EQ(after, k.above_after);
}

// Counted by hand: before, every share over 1 (1.02 to 1.17: 7 records). After, a record reads
// above 1 where share x start / (1.025 x highest) > 1.
INSTANTIATE_TEST_SUITE_P(
    RoofDrift, NodeCase,
    ::testing::Values(Case{"node_rising_122_to_150", 122, 150, 7, 0},  // 1.17 x 122 / 150 / 1.025 = 0.93
                      Case{"falling_150_to_122", 150, 122, 7, 6},      // the start is the highest: 1.05 .. 1.17
                      Case{"no_drift", 122, 122, 7, 6},                // over 1.025: 1.05 .. 1.17
                      Case{"small_rise_122_to_125", 122, 125, 7, 5}),  // 1.05 x 122 / 125 / 1.025 = 0.9998
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

TEST(RoofDrift, TheBindingRoofsAreTheRecordsBandwidthRoofs) {
  const json c = node_ceilings(122 * kGB);
  std::vector<Record> records = {copy_record(1.0, 122 * kGB)};
  records[0].limit = record_limit(records[0], c);
  EXPECT_EQ(binding_bandwidth_roofs(records, c), std::vector<std::string>{"cpu_bw_copy_nt_all"});
  // A record between one thread and all: its roof is scaled from both, and both are measured again.
  Record four = copy_record(0.5, 60 * kGB);
  four.spec.problem.threads = 4;
  four.limit = record_limit(four, c);
  ASSERT_TRUE(four.limit.contains("basis")) << four.limit.dump();
  EXPECT_EQ(binding_bandwidth_roofs({four}, c),
            (std::vector<std::string>{"cpu_bw_copy_nt_1", "cpu_bw_copy_nt_all"}));
  // No bandwidth-bound record: nothing to measure again.
  Record failed = copy_record(1.0, 122 * kGB);
  failed.status = RecordStatus::error;
  failed.limit = record_limit(copy_record(1.0, 122 * kGB), c);  // a limit it kept would not count
  Record cached = copy_record(1.0, 122 * kGB);
  cached.limit = {{"roof", nullptr}, {"reason", "no roof: its arrays fit the last-level cache"}};
  EXPECT_TRUE(binding_bandwidth_roofs({failed, cached}, c).empty());
}

TEST(RoofDrift, ARunWithoutCeilingsOrBandwidthRecordsIsNotProbedAgain) {
  json context = json::object();
  std::vector<Record> records = {copy_record(1.0, 122 * kGB)};
  std::ostringstream log;
  EXPECT_FALSE(grade_with_end_probe(records, context, log, false));  // no ceilings
  context["ceilings"] = node_ceilings(122 * kGB);
  records[0].spec.problem.kernel = "count_atomic";  // a lab kernel: no roof
  records[0].limit = record_limit(records[0], context["ceilings"]);
  EXPECT_FALSE(grade_with_end_probe(records, context, log, false));
  EXPECT_FALSE(context.contains("ceilings_end"));
  EXPECT_EQ(log.str(), "") << "nothing measured, nothing said";
}

TEST(RoofDrift, CeilingsAtTakesTheWholeRoofOfTheChosenMeasurement) {
  const json c = node_ceilings(122 * kGB);
  const json end = node_end(122 * kGB, 150 * kGB);
  const json hi = ceilings_at(c, end, RoofEnd::highest), lo = ceilings_at(c, end, RoofEnd::lowest);
  EXPECT_DOUBLE_EQ(hi["roofs"]["cpu_bw_copy_nt_all"]["value"].get<double>(), 150 * kGB);
  EXPECT_FALSE(hi["roofs"]["cpu_bw_copy_nt_all"].contains("drift")) << "a roof as context.ceilings holds one";
  EXPECT_EQ(lo, c);
  EXPECT_EQ(hi["roofs"]["cpu_bw_copy_nt_1"], c["roofs"]["cpu_bw_copy_nt_1"]) << "not measured again: kept";
}

}  // namespace
}  // namespace parlab
