// `parlab migrate` grading older runs by today's rules (experiments/run/migrate.cpp): a record
// above its roof or its in-core bound without the note that says so is given it, from its own
// share and the run's ceilings, through the functions record_limit writes its notes with
// (experiments/machine/limit.hpp); and the run's machine paths are taken out. On given numbers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/io/read.hpp"
#include "experiments/machine/limit.hpp"
#include "experiments/record/record.hpp"
#include "experiments/run/migrate.hpp"
#include "experiments/run/runner.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

const PathRoots kRoots{"/data/results", "/home/me"};

bool starts_with(const std::string& s, const std::string& head) { return s.rfind(head, 0) == 0; }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A triad record's limit against cpu_bw_triad_all (10 GB/s) at `fraction` of it.
json triad_limit(double fraction) {
  return {{"roof", "cpu_bw_triad_all"}, {"value", 10e9}, {"unit", "bytes/s"},
          {"attained", fraction * 10e9}, {"fraction", fraction}};
}

// A triad record as the runner writes it (its one serializer, record/record.hpp), with `limit`.
json triad_record(json limit) {
  Record r;
  r.spec.study = "t";
  r.spec.scaling = "none";
  r.spec.problem.kernel = "triad";
  r.spec.backend = "serial";
  r.spec.problem.threads = 1;
  r.spec.problem.size = 1024;
  r.spec.problem.precision = Precision::f64;
  r.kind = "cpu";
  r.family = "stream";
  r.processor = "cpu";
  r.status = RecordStatus::ok;
  RecordTimes t;
  t.reps_s = {0.01, 0.011};
  t.time_s = *spread_of(t.reps_s);
  r.times = t;
  r.validation = RecordVerdict{true, "ok"};
  r.limit = std::move(limit);
  return to_json(r);
}

// Ceilings whose triad roof is the best of measurements from 9.5 to 10 GB/s, or that keep no spread.
json ceilings(bool with_spread) {
  json roof = {{"value", 10e9}, {"unit", "bytes/s"}, {"method", "measured"}, {"threads", 4}};
  if (with_spread) roof["spread"] = {{"n", 5}, {"min", 9.5e9}, {"median", 9.8e9}, {"max", 10e9}};
  return {{"roofs", {{"cpu_bw_triad_all", roof}}}, {"cache", "/home/me/.cache/parlab/ceilings/vm-1.json"}};
}

// `records` a json::array: a one-element brace list is that element itself in newer nlohmann-json
// (Debian 13's), not an array of it, so the callers say json::array.
json run_of(json records, json ceilings_block, const char* schema = "parlab-results/3") {
  json context = {{"host", "vm"}};
  if (!ceilings_block.is_null()) context["ceilings"] = std::move(ceilings_block);
  return {{"schema", schema}, {"status", "complete"}, {"suite", "t"}, {"context", context}, {"plan", json::array()},
          {"records", std::move(records)}, {"consistency", json::array()}};
}

Migration migrated(const json& doc) { return migrate_results(doc, test::registry(), "test/results.json", kRoots); }

TEST(AboveRoofNote, WithinOrBeyondTheRoofsSpreadWhereTheCeilingsKeepOne) {
  // The roof's measurements differ by 0.5 GB/s: up to 10.5 GB/s is within their noise.
  EXPECT_EQ(above_roof_note(triad_limit(1.04), ceilings(true)),
            "above its roof by 4%, within the roof's own spread (its measurements differ by as much)");
  EXPECT_EQ(above_roof_note(triad_limit(1.07), ceilings(true)), "above its roof by 7%, beyond the roof's own spread");
  EXPECT_EQ(above_roof_note(triad_limit(1.0), ceilings(true)), "");
  EXPECT_EQ(above_roof_note(triad_limit(0.8), ceilings(true)), "");
}

TEST(AboveRoofNote, SaysPlainlyWhatTheRunLacksToGradeIt) {
  EXPECT_EQ(above_roof_note(triad_limit(1.07), ceilings(false)),
            "above its roof by 7%; this run's ceilings keep no spread for cpu_bw_triad_all, so whether that is "
            "within the roof's noise is not known");
  EXPECT_TRUE(has(above_roof_note(triad_limit(1.07), json()), "this run keeps no ceilings"));
  json scaled = triad_limit(1.07);
  scaled["basis"] = "2 x cpu_bw_triad_1 (below cpu_bw_triad_all)";
  EXPECT_EQ(above_roof_note(scaled, ceilings(true)),
            "above its roof by 7%; the roof's basis: 2 x cpu_bw_triad_1 (below cpu_bw_triad_all)");
}

TEST(IncoreAboveNote, ByHowMuchAndWhetherItsProbesSpreadCoversIt) {
  const json block = {{"value", 1e9}, {"probe", {{"spread", {{"median", 1.0}, {"max", 1.05}}}}}};
  EXPECT_TRUE(starts_with(incore_above_note({{"fraction", 1.03}}, &block),
                          "above its in-core bound by 3.0%, within its probe's spread (the best window 5.0% over"));
  EXPECT_TRUE(starts_with(incore_above_note({{"fraction", 1.12}}, &block), "above its in-core bound by 12.0%, beyond"));
  EXPECT_EQ(incore_above_note({{"fraction", 0.97}}, &block), "");
  const json no_spread = {{"value", 1e9}};
  EXPECT_TRUE(starts_with(incore_above_note({{"fraction", 1.12}}, &no_spread),
                          "above its in-core bound by 12.0%; this run's ceilings keep no spread of its probe, so "
                          "whether that is within the probe's noise is not known"));
  EXPECT_TRUE(has(incore_above_note({{"fraction", 1.12}}, nullptr), "keep no in-core block for its loop"));
}

TEST(MigrateGrading, ARecordAboveItsRoofIsGivenItsNoteAndKeepsItsShare) {
  json doc = run_of(json::array({triad_record(triad_limit(1.07)), triad_record(triad_limit(1.04)), triad_record(triad_limit(0.9))}),
                    ceilings(true));
  doc["records"][1]["id"] = 1;
  doc["records"][2]["id"] = 2;
  const Migration m = migrated(doc);
  EXPECT_EQ(m.roof_notes_added, 2);
  const json& r = m.doc["records"];
  EXPECT_EQ(r[0]["limit"]["above_roof"], "above its roof by 7%, beyond the roof's own spread (graded by parlab migrate)");
  EXPECT_TRUE(starts_with(r[1]["limit"]["above_roof"].get<std::string>(), "above its roof by 4%, within the roof's own spread"));
  // Below its roof: untouched, as is every share and roof.
  EXPECT_EQ(r[2], doc["records"][2]);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r[i]["limit"]["fraction"], doc["records"][i]["limit"]["fraction"]);
    EXPECT_EQ(r[i]["limit"]["roof"], doc["records"][i]["limit"]["roof"]);
  }
  EXPECT_EQ(m.doc["schema"], kResultsSchema);
  EXPECT_EQ(m.doc["migrated_from"], "parlab-results/3");
  // The ceilings' cache under $HOME: one path made portable.
  EXPECT_EQ(m.paths_made_portable, 1);
  EXPECT_EQ(m.doc["context"]["ceilings"]["cache"], "~/.cache/parlab/ceilings/vm-1.json");
}

TEST(MigrateGrading, WithoutASpreadTheNoteSaysWhatIsNotKnown) {
  const Migration m = migrated(run_of(json::array({triad_record(triad_limit(1.07))}), ceilings(false)));
  EXPECT_EQ(m.roof_notes_added, 1);
  EXPECT_EQ(m.doc["records"][0]["limit"]["above_roof"],
            "above its roof by 7%; this run's ceilings keep no spread for cpu_bw_triad_all, so whether that is "
            "within the roof's noise is not known (graded by parlab migrate)");
}

TEST(MigrateGrading, AnInCoreShareAboveOneIsGivenItsNote) {
  json c = ceilings(true);
  c["incore"]["pi"] = {{"value", 1e9}, {"unit", "samples/s"}, {"probe", {{"spread", {{"median", 1.0}, {"max", 1.05}}}}}};
  json pi = triad_record({{"roof", nullptr}, {"reason", "no roof: test"},
                          {"incore", {{"value", 1e9}, {"unit", "samples/s"}, {"fraction", 1.12}, {"cores", 1},
                                      {"model", "m"}, {"binds", "b"}}}});
  pi["kernel"] = "pi";
  pi["family"] = "pi";
  pi["own_kernels"] = true;
  pi["precision"] = "int32";
  const Migration m = migrated(run_of(json::array({pi}), c));
  EXPECT_EQ(m.incore_notes_added, 1);
  EXPECT_EQ(m.roof_notes_added, 0);
  const std::string above = m.doc["records"][0]["limit"]["incore"]["above"];
  EXPECT_TRUE(starts_with(above, "above its in-core bound by 12.0%, beyond its probe's spread")) << above;
  EXPECT_TRUE(has(above, "(graded by parlab migrate)")) << above;
  EXPECT_EQ(m.doc["records"][0]["limit"]["incore"]["fraction"], 1.12);
}

TEST(MigrateGrading, ACurrentRunWithNothingToDoIsLeftAndOneWithAPathIsNot) {
  json graded = triad_record(triad_limit(1.07));
  graded["limit"]["above_roof"] = "above its roof by 7%, beyond the roof's own spread";
  json c = ceilings(true);
  c["cache"] = nullptr;
  const Migration current = migrated(run_of(json::array({graded}), c, kResultsSchema));
  EXPECT_FALSE(current.changed());
  // A current run whose only fault is a path of its machine is still rewritten.
  const Migration with_path = migrated(run_of(json::array({graded}), ceilings(true), kResultsSchema));
  EXPECT_TRUE(with_path.changed());
  EXPECT_EQ(with_path.paths_made_portable, 1);
  EXPECT_EQ(with_path.roof_notes_added, 0);
}

// A cause an older rule gave is graded again from the record's own measurements; its figures, and
// a limit today's rules would grade to another share, are kept as they are.
TEST(MigrateCauses, AnOlderRulesCauseIsGradedAgainAndTheFiguresKept) {
  json c = ceilings(true);
  c["cache"] = nullptr;
  c["incore"]["pi"] = {{"value", 1e9}, {"unit", "samples/s"}, {"cores", 4}, {"model", "m"}, {"binds", "b"}};
  c["roofs"]["cpu_imul_1"] = {{"value", 40e9}, {"unit", "muls/s"}, {"method", "measured"}, {"threads", 1}};
  c["roofs"]["cpu_imul_all"] = {{"value", 160e9}, {"unit", "muls/s"}, {"method", "measured"}, {"threads", 4}};
  json pi = triad_record(nullptr);
  pi["kernel"] = "pi";
  pi["family"] = "pi";
  pi["own_kernels"] = true;
  pi["precision"] = "int32";
  pi["threads"] = 2;
  pi["rate"] = {{"samples_per_s", 1e9}};  // half of the bound of 2 cores
  Record typed = read_record(pi);
  Workers w;
  w.accounting = true;
  w.count = 2;
  w.runtime_s = 1.0;
  w.busy_s = w.cpu_s = {1.0, 0.5};
  w.items = {100, 100};
  w.chunks = {1, 1};
  w.switches = {0, 0};
  w.cpus = {{0}, {1}};
  w.pop = PopFigures{};
  w.pop->load_balance = 0.5;
  typed.workers = w;
  const json today = record_limit(typed, c);
  ASSERT_TRUE(today["incore"].contains("below")) << today.dump();
  const std::string cause = today["incore"]["below"];
  EXPECT_TRUE(starts_with(cause, "load balance 0.50")) << cause;
  // As an older parlab wrote it: the all-CPU probe quoted, and no workers' cause.
  typed.limit = today;
  typed.limit["incore"]["below"] = "CPUs busy together slow each other: with all 16 busy ...";
  json moved = to_json(typed);  // a limit today's rules would grade to another share
  moved["limit"]["incore"]["fraction"] = 0.6;
  const Migration m = migrated(run_of(json::array({to_json(typed), moved}), c, kResultsSchema));
  EXPECT_EQ(m.causes_graded, 3) << "both workers' causes, and the first record's in-core cause";
  EXPECT_EQ(m.doc["records"][0]["limit"], today);
  EXPECT_EQ(m.doc["records"][0]["workers"]["cause"].get<std::string>().rfind("load balance 0.50", 0), 0u);
  EXPECT_EQ(m.doc["records"][1]["limit"], moved["limit"]) << "its share would move: left as it was";
  // Graded once: a second migration has nothing to do.
  EXPECT_FALSE(migrated(m.doc).changed());
}

// A label an older rule did not give (arrays partly in the cache) is given where the limit's
// figures stay; a note of an excess it lacks is still marked as migrate's.
TEST(MigrateCauses, ALabelTheRunLackedIsGivenAndItsFiguresKept) {
  json c = ceilings(true);
  c["cache"] = nullptr;
  c["roofs"]["cpu_bw_triad_1"] = {{"value", 10e9}, {"unit", "bytes/s"}, {"method", "measured"}, {"threads", 1}};
  c["roofs"]["cpu_llc_bytes"] = {{"value", 1e6}, {"unit", "bytes"}, {"method", "measured"}, {"threads", 1}};
  json triad = triad_record(nullptr);
  triad["work"] = {{"samples", 0.0}, {"bytes", 2.4e7}, {"flops", 0.0}, {"footprint_bytes", 2e6}};
  triad["rate"] = {{"bytes_per_s", 12e9}};  // above the one-thread roof
  const json today = record_limit(read_record(triad), c);
  ASSERT_TRUE(today.contains("residency") && today.contains("above_roof")) << today.dump();
  triad["limit"] = today;
  triad["limit"].erase("residency");
  triad["limit"].erase("above_roof");
  const Migration m = migrated(run_of(json::array({triad}), c, kResultsSchema));
  EXPECT_EQ(m.causes_graded, 1);
  EXPECT_EQ(m.roof_notes_added, 1);
  const json& limit = m.doc["records"][0]["limit"];
  EXPECT_EQ(limit["residency"], today["residency"]);
  EXPECT_EQ(limit["fraction"], today["fraction"]);
  EXPECT_TRUE(has(limit["above_roof"].get<std::string>(), "(graded by parlab migrate)")) << limit.dump();
}

// A run in rounds is given its pooled figures, and left alone once it holds this build's.
TEST(MigrateRounds, ARunInRoundsIsPooledOnce) {
  json a = triad_record(triad_limit(0.5)), b = a;
  a["round"] = 1;
  b["round"] = 2;
  json c = ceilings(true);
  c["cache"] = nullptr;
  const Migration first = migrated(run_of(json::array({a, b}), c, kResultsSchema));
  EXPECT_TRUE(first.changed());
  EXPECT_EQ(first.rounds_pooled, 1);
  ASSERT_TRUE(first.doc.contains("pooled"));
  EXPECT_EQ(first.doc["pooled"][0]["records"], json::array({0, 1}));
  const Migration again = migrated(first.doc);
  EXPECT_FALSE(again.changed());
}

// An integer that does not fit 64 bits is refused by name, never rounded into a double on its way
// through a migration (2^70+1 would become 1.1805916207174113e+21).
TEST(MigrateExactIntegers, AnIntegerPast64BitsIsNamedByItsField) {
  const std::string f = inexact_integer(R"({"records": [{"id": 0}, {"id": 1, "hits": 1180591620717411303425}]})");
  EXPECT_TRUE(starts_with(f, "records[1].hits: the integer '1180591620717411303425' does not fit")) << f;
  EXPECT_TRUE(has(inexact_integer(R"({"seed": -9223372036854775809})"), "seed:"));
  EXPECT_TRUE(has(inexact_integer(R"([[1, 2], [3, 99999999999999999999]])"), "[1][1]:"));
  // What fits, and numbers written as doubles, pass.
  EXPECT_EQ(inexact_integer(R"({"a": 18446744073709551615, "b": -9223372036854775808, "c": 1.5e300, "d": 1e21,
                                "e": [1180591620717411303425.0], "f": "1180591620717411303425"})"), "");
}

TEST(MigrateExactIntegers, MigrateRefusesTheRunAndLeavesItAsItWas) {
  const auto dir = std::filesystem::temp_directory_path() / ("parlab-migrate-int-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "results.json";
  const std::string text =
      R"({"schema": "parlab-results/1", "status": "complete", "suite": "x", "context": {}, "plan": [],)"
      R"( "records": [{"id": 0, "kernel": "pi", "backend": "serial", "threads": 1, "size": 1, "seed": 1180591620717411303425}]})";
  std::ofstream(file) << text;
  std::ostringstream out, err;
  EXPECT_EQ(cmd_migrate(test::registry(), {dir.string()}, false, out, err), 2);
  EXPECT_TRUE(has(err.str(), "records[0].seed: the integer '1180591620717411303425'")) << err.str();
  std::ifstream in(file);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), text);
  ReadLimits limits;
  limits.exact_integers = true;
  EXPECT_THROW(read_json_file(file, "results file", limits), UsageError);
  EXPECT_NO_THROW(read_json_file(file, "results file"));  // other readers as before
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace parlab
