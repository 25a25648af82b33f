// The record's one serializer and its reader (experiments/record/record.hpp): every committed
// record of the current schema reads and writes back unchanged, a record with every part filled
// survives the trip, the schema names exactly the fields the serializer writes, and a hostile
// record is refused naming its field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiments/record/record.hpp"
#include "experiments/run/runner.hpp"
#include "committed_runs.hpp"

namespace parlab {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

using test::committed_runs;
using test::read_json;

std::set<std::string> keys(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

TEST(Record, EveryCommittedRecordReadsAndWritesBackUnchanged) {
  int records = 0, runs = 0;
  for (const fs::path& run : committed_runs()) {
    const json doc = read_json(run);
    // Runs of an older schema are migrate's input (test_migrate.cpp), not this reader's.
    if (doc.value("schema", "") != kResultsSchema) continue;
    ++runs;
    for (const json& r : doc.at("records")) {
      Record typed;
      ASSERT_NO_THROW(typed = read_record(r)) << run << " record " << r.value("id", -1);
      EXPECT_EQ(to_json(typed), r) << run << " record " << r.value("id", -1);
      ++records;
    }
  }
  // The committed runs hold thousands of records; few read means few were found.
  EXPECT_GT(runs, 20);
  EXPECT_GT(records, 1000);
}

// A record with every optional part the serializer writes.
Record full_record() {
  Record r;
  r.spec.study = "s";
  r.spec.scaling = "strong";
  r.spec.problem.kernel = "pi";
  r.spec.backend = "mpi+threads";
  r.spec.problem.threads = 2;
  r.spec.problem.size = 1000;
  r.spec.problem.size_y = 0;
  r.spec.interpreter = "3.13.5 free-threaded";
  r.spec.python_gil = "0";
  r.spec.round = 2;
  r.id = 3;
  r.kind = "mpi";
  r.family = "pi";
  r.processor = "cpu";
  r.own_kernels = true;
  r.status = RecordStatus::ok;
  r.reason = "why";
  RecordTimes t;
  t.inner = 4;
  t.reps_s = {0.1, 0.2, 0.3};
  t.time_s = *spread_of(t.reps_s);
  t.unstable = "cv 50%";
  t.kernel_s = 0.15;
  t.transfer_s = 0.05;
  r.times = t;
  r.rate = RecordRates{1e3, 2e3, 3e3};
  r.work = WorkCount{1000, 2000, 3000};
  r.footprint_bytes = 4096;
  r.validation = RecordVerdict{true, "ok"};
  r.checksum = 3.14;
  r.hits = 785;
  r.metrics = {{"devices", 2}};
  r.energy = "unavailable: the counter did not advance";
  ProcessLayout l;
  l.ranks = 2;
  l.ranks_per_node = 1;
  l.hosts = 2;
  l.host_names = {"a", "b"};
  l.ranks_per_host = {1, 1};
  l.binding = "r0:0 r1:0";
  l.link_latency_s = 1e-5;
  r.layout = l;
  r.python_build = "free-threaded";
  r.gil_enabled = false;
  r.kernel_file = "k.py";
  r.kernel_sha256 = std::string(64, 'a');
  r.elapsed_s = 1.5;
  r.limit = json{{"roof", "cpu_fma_f64"}};
  r.machine = json{{"others", 0.1}};
  Workers w;
  w.accounting = false;
  w.count = 2;
  w.why = "runs too short";
  r.workers = w;
  return r;
}

TEST(Record, AFullRecordSurvivesTheTrip) {
  const json j = to_json(full_record());
  EXPECT_EQ(to_json(read_record(j)), j);
  // A checksum that is no number is written as null and read back as one.
  Record nan = full_record();
  nan.checksum = std::numeric_limits<double>::quiet_NaN();
  const json jn = to_json(nan);
  EXPECT_TRUE(jn["checksum"].is_null());
  EXPECT_TRUE(std::isnan(*read_record(jn).checksum));
  EXPECT_EQ(to_json(read_record(jn)), jn);
}

TEST(Record, TheSchemaNamesExactlyWhatTheSerializerWrites) {
  const json schema = read_json(fs::path(PARLAB_SOURCE_DIR) / "experiments/schema/results.schema.json");
  const json& def = schema.at("$defs").at("record");
  std::set<std::string> properties;
  for (const auto& [k, v] : def.at("properties").items()) properties.insert(k);
  EXPECT_EQ(keys(to_json(full_record())), properties);
  // Every field the schema requires, a record with nothing optional still has.
  Record bare;
  bare.spec.problem.kernel = "pi";
  bare.spec.backend = "serial";
  bare.kind = "cpu";
  const std::set<std::string> written = keys(to_json(bare));
  for (const json& k : def.at("required")) EXPECT_TRUE(written.count(k.get<std::string>())) << k;
}

TEST(Record, AHostileRecordIsRefusedNamingItsField) {
  const json good = to_json(full_record());
  const struct {
    json::json_pointer at;
    json value;
    std::string field;
  } cases[] = {
      {"/status"_json_pointer, "failed", "status:"},
      {"/id"_json_pointer, -1, "id:"},
      {"/kind"_json_pointer, 3, "kind:"},
      {"/gil_enabled"_json_pointer, "no", "gil_enabled:"},
      {"/limit"_json_pointer, "high", "limit:"},
      {"/machine"_json_pointer, json::array(), "machine:"},
      {"/own_kernels"_json_pointer, false, "own_kernels:"},
      {"/ranks_per_host"_json_pointer, {1}, "ranks_per_host:"},
      {"/ranks_per_node"_json_pointer, 100000, "ranks_per_node:"},
      {"/link_latency_s"_json_pointer, -1, "link_latency_s:"},
      {"/time_s/median"_json_pointer, "fast", "time_s.median:"},
      {"/reps_s"_json_pointer, {0.1, "x"}, "reps_s[1]:"},
      {"/kernel_sha256"_json_pointer, "", "kernel_file:"},
  };
  for (const auto& c : cases) {
    json rec = good;
    rec[c.at] = c.value;
    try {
      (void)read_record(rec);
      ADD_FAILURE() << c.at.to_string() << " read";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(c.field, 0), 0u) << c.at.to_string() << ": " << e.what();
    }
  }
  // A plan entry's field missing, and an ok record without its times.
  for (const char* key : {"threads", "precision", "time_s"}) {
    json rec = good;
    rec.erase(key);
    EXPECT_THROW((void)read_record(rec), UsageError) << key;
  }
}

}  // namespace
}  // namespace parlab
