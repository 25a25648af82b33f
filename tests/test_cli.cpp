// `parlab pi` and `parlab list`: output, JSON, and exit code 2 naming the argument on bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include <ostream>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/pi.hpp"
#include "experiments/plan/args.hpp"
#include "experiments/plan/cpus.hpp"
#include "experiments/plan/suggest.hpp"
#include "experiments/cli/cli.hpp"
#include "experiments/machine/context.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/run/child_record.hpp"
#include "experiments/run/rank_sweep.hpp"
#include "core/error.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

struct CliResult {
  int code;
  std::string out, err;
};

CliResult run(std::vector<std::string> args) {
  args.insert(args.begin(), "parlab");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

TEST(CliPi, JsonHasTheContractKeys) {
  const auto r = run({"pi", "--backend", "serial", "--threads", "1", "--samples", "100003", "--seed", "42", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"hits", "samples", "seed", "backend", "threads", "pi"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["samples"].get<std::uint64_t>(), 100003u);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 42u);
  EXPECT_EQ(j["hits"].get<std::uint64_t>(), pi_hits_points(42, 0, 100003));
}

TEST(CliPi, SameHitsForEveryBackendAndThreadCount) {
  const std::uint64_t expect = pi_hits_points(0xFFFFFFFFFFFFFFFFull, 0, 77777);
  for (const auto& bt : test::backend_thread_params()) {
    const auto r = run({"pi", "-b", bt.backend, "-t", std::to_string(bt.threads), "-n", "77777", "-s",
                        "18446744073709551615", "--json"});
    ASSERT_EQ(r.code, 0) << bt.backend << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["hits"].get<std::uint64_t>(), expect) << test::name_of(bt);
  }
}

TEST(CliPi, TextOutputHasTheVerdict) {
  const auto r = run({"pi", "--samples", "2^16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("hits"), std::string::npos);
  EXPECT_NE(r.out.find("pass"), std::string::npos);
}

struct BadInput {
  std::vector<std::string> args;
  std::string names;  // the message must mention this
};

void PrintTo(const BadInput& b, std::ostream* os) {
  *os << "parlab";
  for (const auto& a : b.args) *os << ' ' << a;
}

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsTwoNamingTheArgument) {
  const auto r = run(GetParam().args);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(GetParam().names), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "usage errors print nothing on stdout: " << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Pi, CliBadInput,
    ::testing::Values(BadInput{{"pi", "--backend", "cilk"}, "cilk"},
                      BadInput{{"pi", "--samples", "0"}, "--samples"},
                      BadInput{{"pi", "--samples", "-5"}, "--samples"},
                      BadInput{{"pi", "--samples", "12abc"}, "--samples"},
                      BadInput{{"pi", "--samples", "1.5"}, "--samples"},
                      BadInput{{"pi", "--samples", "1e30"}, "--samples"},
                      BadInput{{"pi", "--threads", "0"}, "--threads"},
                      BadInput{{"pi", "--threads", "-2"}, "--threads"},
                      BadInput{{"pi", "--threads", "4x"}, "--threads"},
                      BadInput{{"pi", "--seed", "18446744073709551616"}, "--seed"},
                      BadInput{{"pi", "--seed", "-1"}, "--seed"},
                      BadInput{{"pi", "--seed", "0x1g"}, "--seed"},
                      BadInput{{"pi", "--backend", "serial", "--threads", "2"}, "serial"},
                      BadInput{{"pi", "--bogus"}, "--bogus"},
                      BadInput{{"frobnicate"}, "frobnicate"}),
    [](const auto& tp) { return "case" + std::to_string(tp.index); });

// Text with every run of white space made one space: a reason `parlab list` wrapped to the
// terminal's width reads the same.
std::string squeezed(const std::string& text) {
  std::istringstream in(text);
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

TEST(CliList, ListsEveryBackendWithAvailability) {
  const auto r = run({"list"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string listed = squeezed(r.out);
  for (const auto& e : test::registry().entries()) {
    EXPECT_NE(r.out.find(e.name), std::string::npos) << e.name;
    if (!e.available) {
      EXPECT_NE(listed.find(squeezed(e.reason)), std::string::npos) << e.reason;
    }
  }
  EXPECT_NE(r.out.find("cuda"), std::string::npos);  // listed even where it is not built
}

TEST(CliHelp, HelpAndVersionExitZero) {
  EXPECT_EQ(run({"--help"}).code, 0);
  EXPECT_EQ(run({"--version"}).code, 0);
  const auto r = run({"pi", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--samples"), std::string::npos);
}

TEST(Args, U64Forms) {
  EXPECT_EQ(parse_u64("0", "x"), 0u);
  EXPECT_EQ(parse_u64("18446744073709551615", "x"), 18446744073709551615ull);
  EXPECT_EQ(parse_u64("0xFFFFFFFFFFFFFFFF", "x"), 18446744073709551615ull);
  EXPECT_EQ(parse_u64("2^28", "x"), 1ull << 28);
  EXPECT_EQ(parse_u64("1e9", "x"), 1000000000ull);
  for (const char* bad : {"", " 1", "1 ", "+1", "-1", "1.0", "2^64", "3^2", "1e20", "0x", "abc", "1,000"}) {
    EXPECT_THROW(parse_u64(bad, "x"), UsageError) << "'" << bad << "'";
  }
}

// The NeK branch once looped over K, so a zero mantissa with a huge exponent spun until killed.
// Each of these returns (or refuses) at once; the timing is left to ctest's timeout and the fuzzer.
TEST(Args, ExponentFormIsBoundedWhateverItsExponent) {
  EXPECT_EQ(parse_u64("0e99999999999999999", "x"), 0u);
  EXPECT_EQ(parse_u64("0e18446744073709551615", "x"), 0u);
  EXPECT_EQ(parse_u64("00e5", "x"), 0u);
  EXPECT_EQ(parse_u64("1e19", "x"), 10000000000000000000ull);
  EXPECT_EQ(parse_u64("18e18", "x"), 18000000000000000000ull);
  for (const char* bad : {"1e99999999999999999", "1e18446744073709551615", "19e18", "1e20", "0e", "e5", "0e-1"}) {
    EXPECT_THROW(parse_u64(bad, "x"), UsageError) << "'" << bad << "'";
  }
  EXPECT_EQ(parse_count("0e99999999999", "x", 0), 0u);
  EXPECT_THROW(parse_count("0e99999999999", "x", 1), UsageError);
}

TEST(Args, SecondsArePlainDecimalsWithinTheirRange) {
  EXPECT_DOUBLE_EQ(parse_seconds("0", "t", 1e7), 0.0);
  EXPECT_DOUBLE_EQ(parse_seconds("0.5", "t", 1e7), 0.5);
  EXPECT_DOUBLE_EQ(parse_seconds("1e3", "t", 1e7), 1000.0);
  EXPECT_DOUBLE_EQ(parse_seconds("1e7", "t", 1e7), 1e7);
  for (const char* bad : {"", " 1", "-1", "1e400", "1e8", "inf", "nan", "0x10", "1s", "1,5", "+", "."}) {
    EXPECT_THROW(parse_seconds(bad, "t", 1e7), UsageError) << "'" << bad << "'";
  }
  try {
    parse_seconds("1e12", "--timeout", 1e7);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("from 0 to 1e7"), std::string::npos) << e.what();
  }
}

TEST(Args, SuffixesArePowersOf1000Or1024) {
  EXPECT_EQ(parse_u64("16k", "x"), 16000u);
  EXPECT_EQ(parse_u64("1M", "x"), 1000000u);
  EXPECT_EQ(parse_u64("3G", "x"), 3000000000ull);
  EXPECT_EQ(parse_u64("2T", "x"), 2000000000000ull);
  EXPECT_EQ(parse_u64("1Ki", "x"), 1024u);
  EXPECT_EQ(parse_u64("2Mi", "x"), 2u << 20);
  EXPECT_EQ(parse_u64("1Gi", "x"), 1ull << 30);
  EXPECT_EQ(parse_u64("16777215Ti", "x"), 16777215ull << 40);  // 2^64 - 2^40: the largest
  EXPECT_THROW(parse_u64("16777216Ti", "x"), UsageError);     // 2^64
  for (const char* bad : {"M", "1m", "1K", "1.5M", "1Mib", "-1M", "1 M", "16777217Ti", "1e3k"}) {
    EXPECT_THROW(parse_u64(bad, "x"), UsageError) << "'" << bad << "'";
  }
}

TEST(Args, ARangeWithADashSuggestsTheDots) {
  try {
    (void)parse_thread_list("1-2", "--threads", 8);
    FAIL() << "1-2 was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean '1..2'?"), std::string::npos) << e.what();
  }
}

TEST(Suggest, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(edit_distance("opnmp", "openmp"), 1u);
  EXPECT_EQ(edit_distance("tirad", "triad"), 1u);
  EXPECT_EQ(edit_distance("OpenMP", "openmp"), 0u);
  EXPECT_EQ(edit_distance("", "pool"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, NamesTheClosestOnlyWhenNearEnough) {
  const std::vector<std::string> names = {"serial", "pool", "threads", "openmp", "openmp_dynamic", "tbb"};
  EXPECT_EQ(did_you_mean("opnmp", names), "; did you mean 'openmp'?");
  EXPECT_EQ(did_you_mean("thread", names), "; did you mean 'threads'?");
  EXPECT_EQ(did_you_mean("TBB", names), "; did you mean 'tbb'?");
  EXPECT_EQ(did_you_mean("cuda", names), "");
  EXPECT_EQ(did_you_mean("x", names), "");
  EXPECT_EQ(did_you_mean(std::string(1000, 'a'), names), "");
}

TEST(Args, ThreadLists) {
  EXPECT_EQ(parse_thread_list("1,2,4", "t", 8), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_thread_list("1..4", "t", 8), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_thread_list("max", "t", 6), (std::vector<int>{6}));
  EXPECT_EQ(parse_thread_list("pow2", "t", 6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(parse_thread_list("4,1..2,max", "t", 16), (std::vector<int>{1, 2, 4, 16}));
  for (const char* bad : {"0", "1,,2", "4..2", "x", "1..", "-1"}) {
    EXPECT_THROW(parse_thread_list(bad, "t", 8), UsageError) << bad;
  }
}

// A suite file takes its numbers through the flags' parser and limits: what -n, --rounds or
// --reps refuse, the suite's "sizes", "rounds" and "reps" refuse too, naming the file and key.
std::filesystem::path write_suite(const std::string& name, const nlohmann::json& suite) {
  const auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << suite.dump();
  return path;
}

nlohmann::json suite_with(const nlohmann::json& top, const nlohmann::json& experiment) {
  nlohmann::json e = {{"kernel", "pi"}, {"backends", {"serial"}}, {"threads", "1"}, {"sizes", {4096}}};
  if (experiment.is_object()) e.update(experiment);
  nlohmann::json s = {{"name", "edges"}, {"reps", 1}, {"experiments", {e}}};
  if (top.is_object()) s.update(top);
  return s;
}

TEST(CliSuiteNumbers, RefusesWhatTheFlagsRefuseNamingFileAndKey) {
  EXPECT_EQ(run({"run", "-k", "pi", "-b", "serial", "-n", "0e99999999999999999", "--dry-run"}).code, 2);
  EXPECT_EQ(run({"run", "-k", "pi", "-b", "serial", "--rounds", "1000000", "--dry-run"}).code, 2);
  const struct {
    nlohmann::json top, experiment;
    std::string key;
  } cases[] = {
      {{}, {{"sizes", {"0e99999999999999999"}}}, "sizes"},
      {{}, {{"sizes", {0}}}, "sizes"},
      {{{"seed", "0e99999999999999999"}, {"rounds", 1000000}}, {}, "rounds"},
      {{{"rounds", 1001}}, {}, "rounds"},
      {{{"reps", 100001}}, {}, "reps"},
      {{}, {{"reps", 100001}}, "reps"},
      {{}, {{"sizes", {"2^64"}}}, "sizes"},
  };
  for (const auto& c : cases) {
    const auto path = write_suite("suite-numbers", suite_with(c.top, c.experiment));
    const CliResult r = run({"run", path.string(), "--dry-run"});
    std::filesystem::remove(path);
    EXPECT_EQ(r.code, 2) << c.top.dump() << c.experiment.dump() << r.err;
    EXPECT_NE(r.err.find("suite file '" + path.string() + "'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.key), std::string::npos) << r.err;
  }
  // The limits themselves are accepted, as by the flags.
  const auto path = write_suite("suite-limits", suite_with({{"rounds", 2}, {"reps", 1}, {"seed", "0x10"}},
                                                           {{"sizes", {"1e3", "2^12", 5000}}}));
  const CliResult r = run({"run", path.string(), "--dry-run"});
  std::filesystem::remove(path);
  EXPECT_EQ(r.code, 0) << r.err;
}

// What a launched job printed is checked field by field before it becomes a record.
nlohmann::json good_record() {
  return {{"kernel", "pi"}, {"backend", "mpi+serial"}, {"threads", 2}, {"size", 1000}, {"status", "ok"},
          {"hits", 785}, {"reps_s", {0.1, 0.2}}, {"validation", {{"pass", true}, {"detail", "ok"}}},
          {"time_s", {{"median", 0.15}, {"min", 0.1}, {"max", 0.2}, {"n", 2}, {"median_ci", {0.1, 0.2}}}},
          {"workers", {{"accounting", "on"}, {"count", 2}, {"busy_s", {0.1, 0.1}}, {"ranks", {0, 0}},
                       {"cpus", {{0}, {1}}}}}};
}

TEST(LaunchedRecord, AWellFormedRecordPasses) { EXPECT_EQ(record_field_fault(good_record()), ""); }

TEST(LaunchedRecord, EachBadFieldIsNamed) {
  const struct {
    nlohmann::json::json_pointer at;
    nlohmann::json value;
    std::string field;
  } cases[] = {
      {"/time_s/median"_json_pointer, "fast", "time_s.median:"},
      {"/time_s/median"_json_pointer, 0, "time_s.median:"},
      {"/time_s/min"_json_pointer, -1, "time_s.min:"},
      {"/time_s/n"_json_pointer, 0.5, "time_s.n:"},
      {"/hits"_json_pointer, "many", "hits:"},
      {"/hits"_json_pointer, -3, "hits:"},
      {"/hits"_json_pointer, 1001, "hits:"},  // more than the samples drawn
      {"/reps_s"_json_pointer, {0.1, "x"}, "reps_s[1]:"},
      {"/validation/pass"_json_pointer, "yes", "validation.pass:"},
      {"/workers/count"_json_pointer, 0, "workers.count:"},
      {"/workers/busy_s"_json_pointer, nlohmann::json(std::vector<double>(1000000, 0.5)), "workers.busy_s:"},
      {"/workers/busy_s"_json_pointer, {0.1}, "workers.busy_s:"},
      {"/workers/ranks"_json_pointer, {0, -1}, "workers.ranks[1]:"},
      {"/workers/cpus"_json_pointer, {{0}}, "workers.cpus:"},
      {"/checksum"_json_pointer, "3.14", "checksum:"},
      {"/host_names"_json_pointer, {""}, "host_names[0]:"},
  };
  for (const auto& c : cases) {
    nlohmann::json rec = good_record();
    rec[c.at] = c.value;
    const std::string fault = record_field_fault(rec);
    EXPECT_EQ(fault.rfind(c.field, 0), 0u) << c.at.to_string() << ": " << fault;
    EXPECT_LT(fault.size(), 400u) << "the value is quoted, not copied whole";
  }
}

// A child's output is bounded, and a descendant holding its pipes holds the read only for a grace.
TEST(ChildOutputBounds, AFloodIsStoppedAtTheBound) {
  SpawnOptions o;
  o.max_stdout_bytes = std::size_t{1} << 20;
  o.timeout_s = 60;
  const auto t0 = std::chrono::steady_clock::now();
  const ChildOutput c = run_child({"yes"}, o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30);
  EXPECT_TRUE(c.stdout_overflow);
  EXPECT_FALSE(c.timed_out);
  EXPECT_EQ(c.out.size(), o.max_stdout_bytes);
}

TEST(ChildOutputBounds, ADescendantOutsideTheGroupHoldsTheReadOnlyForTheGrace) {
  SpawnOptions o;
  o.own_process_group = true;
  o.after_exit_s = 0.5;
  o.timeout_s = 60;
  const auto t0 = std::chrono::steady_clock::now();
  // setsid: the sleeper leaves the group, so killing the group cannot close the pipe it holds.
  const ChildOutput c = run_child({"sh", "-c", "setsid sleep 30 & echo $!"}, o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20);
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_FALSE(c.timed_out);
  const int pid = std::atoi(c.out.c_str());
  ASSERT_GT(pid, 1) << c.out;
  ::kill(pid, SIGKILL);  // what the test started, ended by its id
}

TEST(ChildOutputBounds, ATimeoutEndsTheWholeGroup) {
  SpawnOptions o;
  o.own_process_group = true;
  o.timeout_s = 1;
  o.term_grace_s = 1;
  const auto t0 = std::chrono::steady_clock::now();
  const ChildOutput c = run_child({"sh", "-c", "sleep 30 & echo $!; wait"}, o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20);
  EXPECT_TRUE(c.timed_out);
  const int pid = std::atoi(c.out.c_str());
  ASSERT_GT(pid, 1) << c.out;
  // Gone, or a zombie left for a reaper: not running either way.
  bool running = false;
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    running = close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
    if (!running) break;
    ::usleep(50000);
  }
  if (running) ::kill(pid, SIGKILL);
  EXPECT_FALSE(running) << "the group's background child outlived the timeout";
}

// The launcher is asked `--version` once per process, within the run's --timeout.
TEST(LauncherProbe, AHangingLauncherIsAskedOnceWithinTheTimeout) {
  const auto dir = std::filesystem::temp_directory_path() / ("parlab-probe-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto script = dir / "mpirun";
  const auto calls = dir / "calls";
  std::ofstream(script) << "#!/bin/sh\necho \"$@\" >> '" << calls.string() << "'\nexec sleep 30\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const test::ScopedEnv env("PARLAB_MPIRUN", script.string());
  for (int i = 0; i < 2; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      find_mpi_launcher(1);
      ADD_FAILURE() << "a launcher that never answers was taken";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("did not answer '--version' within 1 s"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), i == 0 ? 10 : 1);
  }
  std::ifstream in(calls);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "--version\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace parlab

// The result context's commit: a declared PARLAB_SOURCE_COMMIT wins (a copied tree can carry a
// stale .git) and is marked as declared, with the build's differing answer beside it; else the
// commit the binary was built from (cmake/ParlabCommit.cmake, tested in test_build_commit.py).
TEST(Context, SourceCommitTakesADeclaredOneAndSaysSo) {
  const parlab::SourceCommit both = parlab::source_commit("abc123-dirty", "def456");
  EXPECT_EQ(both.commit, "def456");
  EXPECT_NE(both.source.find("PARLAB_SOURCE_COMMIT"), std::string::npos);
  EXPECT_NE(both.source.find("abc123-dirty"), std::string::npos) << both.source;
  const parlab::SourceCommit same = parlab::source_commit("def456", "def456");
  EXPECT_EQ(same.source.find("git at build time"), std::string::npos) << same.source;
  const parlab::SourceCommit declared = parlab::source_commit("", "def456");
  EXPECT_EQ(declared.commit, "def456");
  const parlab::SourceCommit from_git = parlab::source_commit("abc123", "");
  EXPECT_EQ(from_git.commit, "abc123");
  EXPECT_EQ(from_git.source, "git");
  EXPECT_TRUE(parlab::source_commit("", nullptr).commit.empty());
  EXPECT_TRUE(parlab::source_commit("", nullptr).source.empty());
}

// A run's start once quoted two load averages a line apart (9.65 and 8.28): the plan's warning and
// the context each read their own. The command reads it once and hands it on; the context records
// and quotes that reading, as the plan's warning does.
TEST(RunContext, QuotesTheOneLoadAverageItIsGiven) {
  parlab::ContextOptions co;
  co.load_1min = 1000.25 * parlab::hardware_threads();  // above any machine's own: busy, and unmistakable
  const nlohmann::json ctx = parlab::collect_context(parlab::test::registry(), co);
  EXPECT_EQ(ctx["load_average_1min"].get<double>(), *co.load_1min);
  std::ostringstream figure;
  figure << std::fixed << std::setprecision(2) << *co.load_1min;
  std::size_t quoted = 0;
  for (const auto& w : ctx["warnings"]) {
    const std::string text = w.get<std::string>();
    if (text.find("load average") == std::string::npos) continue;
    EXPECT_NE(text.find("load average " + figure.str()), std::string::npos) << text;
    ++quoted;
  }
  EXPECT_EQ(quoted, 1u) << ctx["warnings"].dump();
  const auto plan = parlab::cpu_warnings(2, 2, co.load_1min);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_NE(plan[0].find("load average " + figure.str()), std::string::npos) << plan[0];
}

// The check a command makes before it calls a backend available (a Python library imported):
// once, only for the entries asked about, and an entry it fails becomes unavailable everywhere,
// its make() saying why.
TEST(RegistryProbe, AFailedProbeMakesTheEntryUnavailableOnce) {
  parlab::Registry r;
  int asked = 0;
  for (const char* name : {"lib-missing", "lib-here", "not-asked"}) {
    parlab::BackendEntry e;
    e.name = name;
    e.kind = parlab::BackendKind::python;
    e.processor = parlab::Processor::cpu;
    e.available = true;
    e.kernels = {"pi"};
    e.make = [](const parlab::Problem&) -> std::unique_ptr<parlab::Workload> { return nullptr; };
    const std::string why = std::string(name) == "lib-here" ? "" : std::string(name) + " not importable: planted";
    e.probe = [why, &asked] {
      ++asked;
      return why;
    };
    r.add(std::move(e));
  }
  r.probe({"lib-missing", "lib-here", "no-such-backend"});
  EXPECT_EQ(asked, 2);
  EXPECT_FALSE(r.find("lib-missing")->available);
  EXPECT_EQ(r.find("lib-missing")->reason, "lib-missing not importable: planted");
  EXPECT_TRUE(r.find("lib-here")->available);
  EXPECT_TRUE(r.find("not-asked")->available) << "only the entries named are probed";
  try {
    (void)r.find("lib-missing")->make(parlab::pi_problem(16, 1, 1, 0));
    ADD_FAILURE() << "make() of an unavailable entry returned";
  } catch (const parlab::UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("lib-missing not importable: planted"), std::string::npos) << e.what();
  }
  r.probe();  // every entry: the one not asked yet, the others' answers stand
  EXPECT_EQ(asked, 3);
  EXPECT_FALSE(r.find("not-asked")->available);
}

// `-t 64` on 2 cores once planned without a word, and points beyond the free CPUs were
// measured as if the machine were quiet. The plan says both, before anything runs.
TEST(PlanCpus, MoreThreadsThanTheMachineOrThanAreFreeIsSaid) {
  using parlab::cpu_warnings;
  const auto over = cpu_warnings(64, 2, std::nullopt);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_NE(over[0].find("up to 64 on 2 hardware threads"), std::string::npos) << over[0];
  const auto busy = cpu_warnings(2, 2, 1.5);  // one CPU busy elsewhere: about 1 free (0.5 rounds up)
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_NE(busy[0].find("about 1 of 2 hardware threads free"), std::string::npos) << busy[0];
  EXPECT_NE(cpu_warnings(16, 16, 3.2).front().find("about 13 of 16"), std::string::npos);
  EXPECT_TRUE(cpu_warnings(1, 2, 0.9).empty());
  EXPECT_TRUE(cpu_warnings(2, 2, 0.3).empty());
  EXPECT_TRUE(cpu_warnings(2, 2, std::nullopt).empty());
  EXPECT_TRUE(cpu_warnings(13, 16, 3.2).empty());
}
