// A run's rounds pooled where the run is made (experiments/run/pool_rounds.hpp), on given numbers:
// the time, its spread and the unstable mark, the rate, the limit graded on the pooled time, a
// failed round, and the workers pooled exactly as one record of all the runs would have them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/spread.hpp"
#include "experiments/machine/limit.hpp"
#include "experiments/run/pool_rounds.hpp"
#include "experiments/run/runner.hpp"
#include "committed_runs.hpp"
#include "record_fields.hpp"

#ifndef PARLAB_SOURCE_DIR
#error "PARLAB_SOURCE_DIR names the source tree (tests/CMakeLists.txt)"
#endif

namespace parlab {
namespace {

using json = nlohmann::json;

constexpr double kGB = 1e9;
constexpr double kN = 134217728.0;
constexpr double kBytes = 16 * kN;
constexpr double kFootprint = 2 * 8 * kN;

json roof(double value, int threads) {
  return {{"value", value}, {"unit", "bytes/s"}, {"method", "measured"}, {"how", "given"}, {"threads", threads},
          {"device", "cpu"}, {"measured_utc", "2026-11-28T00:00:00Z"}};
}

json ceilings(double copy_all) {
  json c = {{"measured_utc", "2026-11-28T00:00:00Z"}, {"cache", nullptr}, {"unavailable", json::object()}};
  c["roofs"]["cpu_bw_copy_nt_all"] = roof(copy_all, 16);
  c["roofs"]["cpu_bw_copy_nt_1"] = roof(20 * kGB, 1);
  c["roofs"]["cpu_llc_bytes"] = {{"value", 300.0 * (1 << 20)}, {"unit", "bytes"}, {"method", "measured"},
                                 {"how", "sysfs"}, {"threads", 1}, {"device", "cpu"},
                                 {"measured_utc", "2026-11-28T00:00:00Z"}};
  return c;
}

// One round's record of copy on 16 threads, its repetitions `reps` (seconds per run), with the
// time, rate and limit the runner gives it against `ceil` (null: no ceilings).
Record round_record(int round, std::vector<double> reps, const json& ceil = nullptr, int inner = 1) {
  Record r = test::record_from({{"study", "s"}, {"kernel", "copy"}, {"backend", "openmp"}, {"processor", "cpu"},
                                {"threads", 16}, {"size", kN}, {"precision", "double"}, {"seed", 1},
                                {"reps", reps.size()}, {"round", round}, {"inner", inner},
                                {"validation", {{"pass", true}, {"detail", "round " + std::to_string(round)}}},
                                {"work", {{"bytes", kBytes}, {"footprint_bytes", kFootprint}}}});
  r.times->reps_s = reps;
  r.times->time_s = *spread_of(reps);
  r.rate = RecordRates{std::nullopt, kBytes / r.times->time_s.median, std::nullopt};
  if (!ceil.is_null()) r.limit = record_limit(r, ceil);
  return r;
}

// Repetitions spread 5% either side of `median`.
std::vector<double> reps_around(double median) {
  return {median * 0.975, median * 0.99, median, median * 1.01, median * 1.025};
}

TEST(PoolRounds, ARunWithoutRoundsHasNothingToPool) {
  Record r = round_record(1, {1.0});
  r.spec.round = 0;
  const std::vector<Record> records = {r, r};
  EXPECT_FALSE(has_rounds(records));
  EXPECT_EQ(pool_rounds(records, json::object()), json::array());
}

TEST(PoolRounds, TheRoundsRepetitionsMakeOneSpreadAndItsRate) {
  // Rounds written out of order, between a record of no round: the entry lists them in round order.
  Record plain = round_record(1, {9.0});
  plain.spec.round = 0;
  plain.spec.problem.kernel = "triad";
  std::vector<double> one = {1.0, 1.1, 1.2}, two = {1.3, 1.4, 1.5};
  const std::vector<Record> records = {round_record(2, two, nullptr, 3), plain, round_record(1, one, nullptr, 2)};
  const json pooled = pool_rounds(records, json::object());
  ASSERT_EQ(pooled.size(), 1u);
  const json& p = pooled[0];
  EXPECT_EQ(p["records"], json::array({2, 0}));
  EXPECT_EQ(p["rounds"], 2);
  EXPECT_FALSE(p.contains("failed"));
  std::vector<double> all = one;
  all.insert(all.end(), two.begin(), two.end());
  const Spread s = *spread_of(all);
  EXPECT_EQ(p["time_s"]["n"], 6);
  EXPECT_DOUBLE_EQ(p["time_s"]["median"].get<double>(), s.median);
  EXPECT_DOUBLE_EQ(p["time_s"]["q3"].get<double>(), s.q3);
  EXPECT_DOUBLE_EQ(p["rate"]["bytes_per_s"].get<double>(), kBytes / s.median);
  EXPECT_EQ(p["inner"], 3) << "the largest of the rounds'";
  EXPECT_FALSE(p.contains("limit")) << "no ceilings in the context: no limit";
}

TEST(PoolRounds, ManyRepetitionsMakeTheMediansIntervalOfAllOfThem) {
  std::vector<double> reps;
  for (int i = 0; i < 520; ++i) reps.push_back(1.0 + (i * 7919 % 520) / 52000.0);
  const json p = pool_rounds(std::vector<Record>({round_record(1, reps), round_record(2, reps)}), json::object())[0];
  EXPECT_EQ(p["time_s"]["n"], 1040);
  EXPECT_GE(p["time_s"]["ci_level"].get<double>(), kSpreadCiLevel);
  EXPECT_LE(p["time_s"]["median_ci"][0].get<double>(), p["time_s"]["median"].get<double>());
  EXPECT_GE(p["time_s"]["median_ci"][1].get<double>(), p["time_s"]["median"].get<double>());
}

TEST(PoolRounds, RoundsThatDisagreeAreUnstableThoughEachIsSteady) {
  const json steady = pool_rounds(std::vector<Record>({round_record(1, reps_around(1.0)), round_record(2, reps_around(1.05))}),
                                  json::object())[0];
  EXPECT_FALSE(steady.contains("unstable")) << steady.dump();
  const json apart = pool_rounds(std::vector<Record>({round_record(1, reps_around(1.0)), round_record(2, reps_around(1.12))}),
                                 json::object())[0];
  EXPECT_EQ(apart.value("unstable", ""), "rounds differ by 12%, over 10%");
  const json noisy = pool_rounds(std::vector<Record>({round_record(1, {1.0, 2.0, 3.0}), round_record(2, {1.0, 2.0, 3.0})}),
                                 json::object())[0];
  EXPECT_EQ(noisy.value("unstable", "").rfind("CV ", 0), 0u) << "its own spread's reason first";
}

TEST(PoolRounds, AFailedRoundIsTheMeasurementsRecord) {
  Record bad = round_record(2, {1.0});
  bad.validation->pass = false;
  Record err = round_record(3, {1.0});
  err.status = RecordStatus::error;
  json p = pool_rounds(std::vector<Record>({round_record(1, {1.0}), err, bad}), json::object())[0];
  EXPECT_EQ(p["failed"], 2) << "round 2 is the first to fail, whichever record comes first";
  EXPECT_FALSE(p.contains("time_s"));
  p = pool_rounds(std::vector<Record>({round_record(1, {1.0}), err}), json::object())[0];
  EXPECT_EQ(p["failed"], 1);
}

TEST(PoolRounds, RoundsWhoseTimesAreNotTimesAreRefusedNamingTheRecord) {
  Record r = round_record(2, {1.0});
  r.times->reps_s = {1.0, 0.0};
  try {
    pool_rounds(std::vector<Record>({round_record(1, {1.0}), r}), json::object());
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("record 1 (round 2)"), std::string::npos) << e.what();
  }
  Record below = round_record(1, {1.0});
  below.spec.round = -1;
  EXPECT_THROW(pool_rounds(std::vector<Record>({below}), json::object()), UsageError);
  // A file's record is read before it is pooled (read_record): a field of the wrong type, or a
  // round or inner count out of range, is refused there, naming the field.
  for (const auto& [field, value] : std::vector<std::pair<const char*, json>>{
           {"threads", "sixteen"}, {"round", 0}, {"inner", 1e300}, {"reps_s", {1.0, -1.0}}}) {
    json odd = to_json(round_record(1, {1.0}));
    odd[field] = value;
    EXPECT_THROW(read_record(odd), UsageError) << field;
  }
  // An inner count no double holds exactly is read as 1.
  Record huge = round_record(1, {1.0});
  huge.times->inner = std::numeric_limits<long>::max();
  EXPECT_EQ(pool_rounds(std::vector<Record>({huge, round_record(2, {1.0})}), json::object())[0]["inner"], 1);
}

// The limit is graded on the pooled time, against the run's roofs: a first round above its roof
// and a second below pool to a record that is not above it; two above, to one that is.
TEST(PoolRounds, TheLimitIsThePooledTimesAgainstTheRunsRoofs) {
  const double roof_value = 150 * kGB;
  const json ceil = ceilings(roof_value);
  const json context = {{"ceilings", ceil}};
  const double at_110 = kBytes / (1.10 * roof_value), at_090 = kBytes / (0.90 * roof_value);
  const Record first = round_record(1, reps_around(at_110), ceil), second = round_record(2, reps_around(at_090), ceil);
  ASSERT_TRUE(first.limit.contains("above_roof"));
  ASSERT_FALSE(second.limit.contains("above_roof"));
  const json p = pool_rounds(std::vector<Record>({first, second}), context)[0];
  const double attained = kBytes / p["time_s"]["median"].get<double>();
  EXPECT_DOUBLE_EQ(p["limit"]["attained"].get<double>(), attained);
  EXPECT_DOUBLE_EQ(p["limit"]["fraction"].get<double>(), attained / roof_value);
  EXPECT_FALSE(p["limit"].contains("above_roof")) << p["limit"].dump();
  const json both = pool_rounds(std::vector<Record>({first, round_record(2, reps_around(kBytes / (1.12 * roof_value)), ceil)}),
                                context)[0];
  EXPECT_TRUE(both["limit"].contains("above_roof")) << both["limit"].dump();
}

// ---------------------------------------------------------------------------------------------
// Workers

// A round's workers: 2 workers, its repetitions' factors given, per-run figures given.
RoundWorkers round_workers(std::vector<double> reps, std::vector<double> lb, std::vector<double> ce, double runs,
                           std::vector<double> busy, double runtime, double runnable_w0, double window,
                           double others) {
  RoundWorkers r;
  r.reps_s = std::move(reps);
  r.runs = runs;
  Workers& w = r.workers;
  w.accounting = true;
  w.count = 2;
  w.runtime_s = runtime;
  w.busy_s = busy;
  w.cpu_s = busy;
  w.items = {100, 100};
  w.chunks = {4, 4};
  w.switches = {0, 1};
  w.cpus = {{0}, {1}};
  w.load_balance = std::move(lb);
  w.communication = std::move(ce);
  Disturbance d;
  d.window_s = window;
  d.runnable_s = {runnable_w0, 0};
  d.runnable_source = "schedstat";
  d.run_delay_s = std::vector<double>{runnable_w0, 0};
  d.cpus = {0, 1};
  d.steal = {0, 0};
  d.busy = {1, 1};
  d.others = others;
  w.disturbance = d;
  WorkerCounters c;
  c.available = false;
  c.why = "no counters here";
  w.counters = c;
  return r;
}

TEST(PoolWorkers, PerRunFiguresAreTheMeanOverEveryRun) {
  // Round 1: 3 runs; round 2: 1 run. The pooled per-run figures are the mean over all 4 runs.
  const RoundWorkers a = round_workers({1.0, 1.1, 1.2}, {0.9, 0.8, 0.7}, {0.95, 0.9, 0.85}, 3, {1.0, 0.5}, 1.1, 0.1, 3.3, 0.2);
  const RoundWorkers b = round_workers({2.0}, {0.6}, {0.5}, 1, {2.0, 1.0}, 2.0, 0.3, 2.0, 1.0);
  const auto w = pool_workers({a, b});
  ASSERT_TRUE(w.has_value());
  EXPECT_TRUE(w->accounting);
  EXPECT_DOUBLE_EQ(w->runtime_s, (3 * 1.1 + 2.0) / 4);
  EXPECT_DOUBLE_EQ(w->busy_s[0], (3 * 1.0 + 2.0) / 4);
  EXPECT_DOUBLE_EQ(w->busy_s[1], (3 * 0.5 + 1.0) / 4);
  EXPECT_EQ(w->load_balance, (std::vector<double>{0.9, 0.8, 0.7, 0.6}));
  EXPECT_EQ(w->communication, (std::vector<double>{0.95, 0.9, 0.85, 0.5}));
  // Disturbance: runnable share = pooled runnable time / pooled busy time; windows summed; others
  // over the windows.
  ASSERT_TRUE(w->disturbance.has_value());
  const Disturbance& d = *w->disturbance;
  EXPECT_DOUBLE_EQ(d.window_s, 5.3);
  EXPECT_DOUBLE_EQ(d.runnable_s[0], (3 * 0.1 + 0.3) / 4);
  EXPECT_DOUBLE_EQ(d.runnable_share, ((3 * 0.1 + 0.3) / 4) / (w->busy_s[0] + w->busy_s[1]));
  EXPECT_DOUBLE_EQ(*d.others, (0.2 * 3.3 + 1.0 * 2.0) / 5.3);
  EXPECT_EQ(d.runnable_source, "schedstat");
  ASSERT_TRUE(w->counters.has_value());
  EXPECT_FALSE(w->counters->available);
  EXPECT_EQ(w->counters->why, "no counters here");
  EXPECT_TRUE(w->cause.empty()) << "the caller makes the cause";
}

TEST(PoolWorkers, PopIsThePooledMedianRepetitionsPerExecution) {
  // Repetitions 1.0, 1.1, 1.2 | 2.0, 0.5: sorted 0.5, 1.0, 1.1, 1.2, 2.0, the median 1.1 (index 1).
  const RoundWorkers a = round_workers({1.0, 1.1, 1.2}, {0.9, 0.8, 0.7}, {0.95, 0.9, 0.85}, 3, {1, 1}, 1, 0, 1, 0);
  const RoundWorkers b = round_workers({2.0, 0.5}, {0.6, 0.99}, {0.5, 0.98}, 2, {1, 1}, 1, 0, 1, 0);
  const auto w = pool_workers({a, b});
  ASSERT_TRUE(w && w->pop);
  const PopFigures& p = *w->pop;
  EXPECT_TRUE(p.per_execution);
  EXPECT_EQ(p.rep, 1);
  EXPECT_DOUBLE_EQ(p.runtime_s, 1.1);
  EXPECT_DOUBLE_EQ(p.load_balance, 0.8);
  EXPECT_DOUBLE_EQ(p.communication, 0.9);
  EXPECT_DOUBLE_EQ(p.parallel, 0.8 * 0.9);
  EXPECT_DOUBLE_EQ(p.useful_s, 0.8 * 0.9 * 2 * 1.1) << "parallel efficiency = useful / (workers x runtime)";
  EXPECT_DOUBLE_EQ(p.load_balance_range.lo, 0.6);
  EXPECT_DOUBLE_EQ(p.load_balance_range.hi, 0.99);
  EXPECT_DOUBLE_EQ(p.parallel_range.lo, 0.6 * 0.5);
  // Of an even count, the faster of the middle two: 1.0, 1.1, 1.2, 2.0 -> 1.1 (round 1's index 1).
  const RoundWorkers c = round_workers({2.0}, {0.6}, {0.5}, 1, {1, 1}, 1, 0, 1, 0);
  EXPECT_EQ(pool_workers({a, c})->pop->rep, 1);
}

TEST(PoolWorkers, RoundsThatCannotBePooledGiveNone) {
  const RoundWorkers a = round_workers({1.0}, {0.9}, {0.9}, 1, {1, 1}, 1, 0, 1, 0);
  RoundWorkers three = a;
  three.workers.count = 3;
  EXPECT_FALSE(pool_workers({a, three})) << "worker counts differ";
  RoundWorkers off = a;
  off.workers.accounting = false;
  off.workers.why = "too short to account";
  EXPECT_FALSE(pool_workers({a, off})) << "accounted in one round only";
  const auto both_off = pool_workers({off, off});
  ASSERT_TRUE(both_off);
  EXPECT_FALSE(both_off->accounting);
  EXPECT_EQ(both_off->why, "too short to account");
  RoundWorkers unpaired = a;
  unpaired.workers.load_balance.clear();
  const auto w = pool_workers({a, unpaired});
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->pop) << "a round's factors that do not pair with its repetitions: no per-execution figure";
  EXPECT_FALSE(pool_workers({}));
}

TEST(PoolRounds, PooledWorkersCarryTheirOwnCause) {
  // Two rounds whose median repetition's load balance is 0.5: the pooled record names it.
  Record r1 = round_record(1, {1.0, 1.1, 1.2}), r2 = round_record(2, {1.3});
  const auto block = [](std::vector<double> lb) {
    RoundWorkers r = round_workers({}, lb, std::vector<double>(lb.size(), 1.0), 1, {2.0, 0.5}, 1, 0, 1, 0);
    r.workers.items = {200, 50};
    return r.workers;
  };
  r1.workers = block({0.5, 0.5, 0.5});
  r2.workers = block({0.5});
  const json p = pool_rounds(std::vector<Record>({r1, r2}), json::object())[0];
  ASSERT_TRUE(p.contains("workers")) << p.dump();
  EXPECT_EQ(p["workers"]["pop"]["load_balance"], 0.5);
  EXPECT_EQ(p["workers"].value("cause", "").rfind("load balance 0.50", 0), 0u) << p["workers"].dump();
  EXPECT_FALSE(p["workers"].contains("trace"));
}

// The committed runs in rounds hold the pooled figures this build derives from their records, so no
// view reads a pooling that another rule made.
TEST(PoolRounds, EveryCommittedRunInRoundsHoldsWhatThisBuildPools) {
  int runs = 0;
  for (const std::filesystem::path& path : test::committed_runs()) {
    const json doc = test::read_json(path);
    // Runs of an older schema are pooled by `parlab migrate`, after its steps (test_migrate.cpp).
    if (!doc.is_object() || doc.value("schema", "") != kResultsSchema || !doc.contains("records")) continue;
    std::vector<Record> records;
    for (const json& r : doc["records"]) records.push_back(read_record(r));
    if (!has_rounds(records)) continue;
    ASSERT_TRUE(doc.contains("pooled")) << path << ": `parlab migrate` pools it";
    EXPECT_EQ(pool_rounds(records, doc["context"]), doc["pooled"]) << path;
    ++runs;
  }
  EXPECT_GE(runs, 5);
}

// The schema names every field an entry may hold (it refuses any other), and each is one pooling writes.
TEST(PoolRounds, TheSchemaNamesWhatAnEntryHolds) {
  std::ifstream in(std::filesystem::path(PARLAB_SOURCE_DIR) / "experiments/schema/results.schema.json");
  const json schema = json::parse(in);
  const json& item = schema["properties"]["pooled"]["items"];
  ASSERT_EQ(item["additionalProperties"], false);
  std::vector<std::string> named;
  for (const auto& [k, v] : item["properties"].items()) named.push_back(k);
  Record bad = round_record(1, {1.0});
  bad.validation->pass = false;
  std::vector<std::string> written;
  RoundWorkers w = round_workers({}, {0.5}, {1.0}, 1, {2.0, 0.5}, 1, 0, 1, 0);
  Record r1 = round_record(1, {1.0}, ceilings(150 * kGB)), r2 = round_record(2, {1.2}, ceilings(150 * kGB));
  r1.workers = r2.workers = w.workers;
  for (const json& e : {pool_rounds(std::vector<Record>({r1, r2}), {{"ceilings", ceilings(150 * kGB)}})[0],
                        pool_rounds(std::vector<Record>({bad, round_record(2, {1.0})}), json::object())[0]}) {
    for (const auto& [k, v] : e.items()) {
      if (std::find(written.begin(), written.end(), k) == written.end()) written.push_back(k);
    }
  }
  std::sort(named.begin(), named.end());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, named) << "an entry that fails and one that pools, with its limit, workers and mark";
}

}  // namespace
}  // namespace parlab
