// The `workers` block's one serializer and its reader (experiments/record/workers.hpp): every
// committed record's block reads and writes back unchanged, a block the ledger makes survives the
// trip, the schema names exactly the fields the serializer writes, and a hostile block reads as
// absent fields, never as a cause built from them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/machine/worker_causes.hpp"
#include "experiments/record/workers.hpp"
#include "experiments/run/worker_accounting.hpp"
#include "committed_runs.hpp"
#include "record_fields.hpp"


namespace parlab {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

using test::committed_runs;
using test::read_json;

TEST(RecordWorkers, EveryCommittedBlockReadsAndWritesBackUnchanged) {
  int blocks = 0, causes = 0;
  for (const fs::path& run : committed_runs()) {
    const json doc = read_json(run);
    if (!doc.contains("records") || !doc["records"].is_array()) continue;
    for (const json& r : doc["records"]) {
      if (!r.is_object() || !r.contains("workers")) continue;
      const std::optional<Workers> w = workers_of(r);
      ASSERT_TRUE(w) << run;
      EXPECT_EQ(to_json(*w), r["workers"]) << run << " record " << r.value("id", -1);
      ++blocks;
      // The cause the runner derived from its typed values is the one its reader's rules give.
      if (w->count > 1 && !w->cause.empty()) {
        EXPECT_EQ(worker_shortfall(read_record(r)), w->cause) << run << " record " << r.value("id", -1);
        ++causes;
      }
    }
  }
  // The committed runs hold hundreds of accounted records; none read means none were found.
  EXPECT_GT(blocks, 100);
  EXPECT_GT(causes, 10);
}

// A view of a ledger of three workers over two repetitions, every optional part filled.
LedgerView full_view() {
  LedgerView v;
  v.workers = 3;
  for (int k = 0; k < 3; ++k) {
    WorkerTotals t;
    t.busy_ns = 1000000 * (k + 1);
    t.cpu_ns = 900000 * (k + 1);
    t.items = 100 * (k + 1);
    t.chunks = 4;
    t.switches = 2;
    t.run_delay_ns = 50000;
    t.windows = 2;
    v.totals.push_back(t);
  }
  for (int rep = 0; rep < 2; ++rep) {
    RepetitionTotals r;
    r.wall_s = 0.004 + 0.001 * rep;
    r.busy_ns = {1000000, 1500000, 2000000};
    r.cpu_ns = {1000000, 1500000, 2000000};
    r.run_delay_ns = {0, 0, 0};
    v.repetitions.push_back(r);
  }
  v.cpus = {{0}, {1}, {0, 1}};
  v.trace = {{0, 0.0, 0.001, 0}, {2, 0.0005, 0.002, 1}};
  v.unattributed = 3;
  v.ranks = {0, 0, 1};
  v.hosts = {0, 0, 1};
  v.run_delay_source = "schedstat";
  return v;
}

TEST(RecordWorkers, ALedgersBlockSurvivesTheTrip) {
  MachineWindow window;
  window.wall_s = 0.01;
  Workers w = account_workers(full_view(), AccountingDecision{}, 2, window, 1);
  w.cause = worker_shortfall(w, false, 0.0);
  ASSERT_FALSE(w.cause.empty());  // load balance 0.67: the planted 1:1.5:2
  const json j = to_json(w);
  const std::optional<Workers> back = workers_of(json{{"workers", j}});
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back), j);
  // The JSON overloads, for records read back, apply the same rules to what they read.
  EXPECT_EQ(test::shortfall_of(json{{"workers", j}}), w.cause);
  EXPECT_EQ(test::cpus_of(json{{"workers", j}}), (std::vector<int>{0, 1}));
  EXPECT_EQ(test::disturbance_of(json{{"workers", j}}), disturbance_text(w));
}

// The names a JSON object's schema lists under `properties`, and those a value holds.
std::set<std::string> properties(const json& schema) {
  std::set<std::string> out;
  for (const auto& [k, v] : schema.at("properties").items()) out.insert(k);
  return out;
}
std::set<std::string> keys(const json& o) {
  std::set<std::string> out;
  for (const auto& [k, v] : o.items()) out.insert(k);
  return out;
}

TEST(RecordWorkers, TheSchemaNamesExactlyWhatTheSerializerWrites) {
  const json schema = read_json(fs::path(PARLAB_SOURCE_DIR) / "experiments/schema/results.schema.json");
  const json& def = schema.at("$defs").at("workers");
  MachineWindow window;
  window.wall_s = 0.01;
  window.before.cpus = {{0, 10, 0, 100}, {1, 10, 0, 100}};  // id, busy, steal, total ticks
  window.after.cpus = {{0, 60, 5, 200}, {1, 70, 0, 200}};
  Workers on = account_workers(full_view(), AccountingDecision{}, 2, window, 1);
  on.cause = "load balance 0.67";
  const json j = to_json(on);
  std::set<std::string> when_on = properties(def);
  when_on.erase("why");
  EXPECT_EQ(keys(j), when_on);
  EXPECT_EQ(keys(j["pop"]), properties(def["properties"]["pop"]));
  EXPECT_EQ(keys(j["pop"]["range"]), properties(def["properties"]["pop"]["properties"]["range"]));
  EXPECT_EQ(keys(j["disturbance"]), properties(def["properties"]["disturbance"]));
  EXPECT_EQ(keys(j["trace"]), properties(def["properties"]["trace"]));
  EXPECT_EQ(keys(j["counters"]), properties(def["properties"]["counters"]["oneOf"][1]));
  Workers without = on;
  without.counters = WorkerCounters{false, "no perf_event here", {}, {}};
  EXPECT_EQ(keys(to_json(without)["counters"]), properties(def["properties"]["counters"]["oneOf"][0]));
  AccountingDecision off{false, 0.2, "runs too short"};
  EXPECT_EQ(keys(to_json(account_workers(full_view(), off, 2, window, -1))),
            (std::set<std::string>{"accounting", "overhead", "count", "why"}));
}

TEST(RecordWorkers, AHostileBlockReadsAsAbsentFields) {
  const json bad = {{"accounting", "on"},
                    {"count", "three"},
                    {"busy_s", {1.0, "x"}},
                    {"cpu_s", {1.0, nullptr}},
                    {"cpus", {{0, -1, 2.5, "1"}, "x", {3}}},
                    {"pop", {{"load_balance", "low"}, {"communication", 0.5}, {"definition", 7}}},
                    {"disturbance", {{"others", "many"}, {"runnable_share", -0.0}, {"cpus", {0, "a"}}, {"steal", {0.5}}}},
                    {"counters", {{"available", "yes"}}},
                    {"trace", {{"events", {{0, 0.1}, {-1, 0, 1, 0}, {1, 0.0, 0.5, 2}}}}}};
  const std::optional<Workers> w = workers_of(json{{"workers", bad}});
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->accounting);
  EXPECT_EQ(w->count, 0);
  EXPECT_TRUE(w->busy_s.empty());
  EXPECT_TRUE(w->cpu_s.empty());
  EXPECT_EQ(w->cpus, (std::vector<std::vector<int>>{{0}, {}, {3}}));
  ASSERT_TRUE(w->pop);
  EXPECT_FALSE(w->pop->per_execution);
  EXPECT_EQ(w->pop->load_balance, 1.0);
  EXPECT_EQ(w->pop->communication, 0.5);
  ASSERT_TRUE(w->disturbance);
  EXPECT_FALSE(w->disturbance->others);
  EXPECT_EQ(w->disturbance->cpus, (std::vector<int>{0, -1}));
  ASSERT_TRUE(w->counters);
  EXPECT_FALSE(w->counters->available);
  ASSERT_TRUE(w->trace);
  ASSERT_EQ(w->trace->events.size(), 1u);
  EXPECT_EQ(w->trace->events[0].worker, 1);
  // The cause it gives is the communication's, the one factor that read as a number.
  EXPECT_EQ(test::shortfall_of(json{{"workers", bad}}).rfind("communication efficiency 0.50", 0), 0u);
  EXPECT_FALSE(workers_of(json{{"workers", "on"}}));
  EXPECT_FALSE(workers_of(json::array()));
}

}  // namespace
}  // namespace parlab
