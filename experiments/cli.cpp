#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>
#include <iostream>
#include <map>

#include "args.hpp"
#include "child_process.hpp"
#include "ceilings.hpp"
#include "context.hpp"
#include "data_dir.hpp"
#include "interpreters.hpp"
#include "runner.hpp"
#include "estimate.hpp"
#include "rank_sweep.hpp"
#include "suite.hpp"
#include "mpi_job.hpp"
#include "python_part.hpp"
#include "registry.hpp"
#include "core/error.hpp"
#include "core/kernels.hpp"
#include "parlab/build_commit.hpp"
#include "parlab/build_info.hpp"

namespace parlab {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;


// ---------------------------------------------------------------- list
int cmd_list(const Registry& registry, std::ostream& out) {
  out << "backends:\n";
  for (const auto& e : registry.entries()) {
    out << "  " << std::left << std::setw(24) << e.name << std::setw(7) << e.kind
        << (e.available ? "available    " : e.broken ? "FAILED       " : "unavailable  ")
        << (e.available ? e.detail : e.reason)
        << "\n";
  }
  list_interpreters(out);
  out << "kernels:\n";
  for (const auto& k : kernel_specs()) {
    std::string precisions;
    for (auto p : k.precisions) precisions += std::string(precisions.empty() ? "" : ",") + to_string(p);
    out << "  " << std::left << std::setw(16) << k.name << std::setw(10) << to_string(k.family) << std::setw(14)
        << precisions << "size = " << k.size_meaning << "\n";
  }
  out << "suites (" << suites_dir().string() << "):\n";
  for (const auto& name : suite_names()) {
    std::string description;
    try {
      description = load_suite(name).value("description", "");
    } catch (const Error& e) {
      description = std::string("unreadable: ") + e.what();
    }
    out << "  " << std::left << std::setw(16) << name << description << "\n";
  }
  return kExitOk;
}

// ---------------------------------------------------------------- pi
struct PiArgs {
  std::string backend = "serial";
  std::string threads = "1";
  std::string samples = "2^24";
  std::string seed = std::to_string(kDefaultSeed);
  std::string device = "0";
  bool json = false;
};

int cmd_pi(const Registry& registry, const PiArgs& a, std::ostream& out) {
  // Validate every argument before any work, so a usage error never follows partial output.
  const int threads = parse_threads(a.threads, "--threads");
  const std::uint64_t samples = parse_count(a.samples, "--samples", 1);
  const std::uint64_t seed = parse_u64(a.seed, "--seed");
  const std::uint64_t device = parse_u64(a.device, "--device");
  if (device > 1024) throw UsageError("invalid value '" + a.device + "' for --device: expected a GPU index");
  const BackendEntry& backend = registry.get(a.backend);

  const Problem p = pi_problem(samples, threads, seed, static_cast<int>(device));
  auto workload = backend.make(p);
  const auto t0 = std::chrono::steady_clock::now();
  workload->run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Validation v = workload->validate();
  const std::uint64_t hits = v.hits.value_or(0);
  const PiCheck check = pi_check(hits, samples);

  if (a.json) {
    nlohmann::json j = {{"backend", backend.name}, {"threads", threads},     {"samples", samples},
                        {"seed", seed},            {"hits", hits},           {"pi", check.estimate},
                        {"sigmas", check.sigmas},  {"pass", v.pass},         {"seconds", seconds},
                        {"samples_per_second", seconds > 0 ? static_cast<double>(samples) / seconds : 0.0}};
    out << j.dump() << "\n";
  } else {
    std::ostringstream s;
    s << std::setprecision(10);
    s << "backend  " << backend.name << " (" << threads << " thread" << (threads == 1 ? "" : "s") << ")\n"
      << "samples  " << samples << "\n"
      << "seed     " << seed << "\n"
      << "hits     " << hits << "\n"
      << "pi       " << check.estimate << "\n"
      << std::setprecision(3) << "check    " << (v.pass ? "pass" : "FAIL") << ": " << check.sigmas
      << " sigma from N*pi/4 (limit 3)\n"
      << "time     " << seconds << " s, " << (seconds > 0 ? static_cast<double>(samples) / seconds : 0.0)
      << " samples/s\n";
    out << s.str();
  }
  return v.pass ? kExitOk : kExitFailure;
}

// ---------------------------------------------------------------- run
struct RunArgs {
  std::string suite;
  std::string kernel, backend, threads, size, precision, reps, rounds, seed, device;
  std::string out;  // empty: "results"
  std::string format = "json,csv";
  std::string resume;
  std::string ranks;  // MPI job sizes for the mpi backends
  std::string hostfile;  // the hosts those MPI jobs run on (empty: this one)
  std::string timeout;  // seconds per measurement in another process
  std::string peer_dir;  // where BabelStream's binaries are (overrides PARLAB_BABELSTREAM_DIR)
  bool quick = false;
  bool quiet = false;
  bool no_report = false;
  bool yes = false;      // run even when the plan's estimate is over an hour
  bool dry_run = false;  // plan, print, write nothing
  bool no_ceilings = false;  // no roofs in the context, no `limit` in the records
};

int cmd_report(const std::string& run_dir, std::ostream& err, bool quiet);

// A run's exit code once its report has been made: the report's failure is the run's too.
int with_report(int run_code, const std::string& run_dir, const RunArgs& a, std::ostream& err) {
  if ((run_code != 0 && run_code != 1) || a.no_report) return run_code;
  const int report_code = cmd_report(run_dir, err, a.quiet);
  if (report_code == 130) return 130;
  // After a run the input is the run's own results.json: a report that fails is a failed step.
  return run_code != 0 ? run_code : (report_code == 0 ? 0 : kExitFailure);
}

// --resume continues a run's own plan; every option that would change the plan is refused by
// name rather than ignored. Output options (--format, --quiet, --no-report, --timeout) apply.
void refuse_filters_with_resume(const RunArgs& a) {
  const std::pair<const char*, const std::string*> plan_options[] = {
      {"a suite", &a.suite}, {"--kernel", &a.kernel}, {"--backend", &a.backend}, {"--threads", &a.threads},
      {"--size", &a.size},   {"--precision", &a.precision}, {"--reps", &a.reps}, {"--rounds", &a.rounds},
      {"--seed", &a.seed}, {"--device", &a.device}, {"--ranks", &a.ranks}, {"--out", &a.out}};
  std::string given;
  for (const auto& [name, value] : plan_options) {
    if (!value->empty()) given += (given.empty() ? "" : ", ") + std::string(name);
  }
  if (a.quick) given += (given.empty() ? "" : ", ") + std::string("--quick");
  if (a.dry_run) given += (given.empty() ? "" : ", ") + std::string("--dry-run");
  if (!given.empty()) {
    throw UsageError("--resume continues the run's own plan in its own directory; it cannot apply " + given +
                     " (start a new run for that)");
  }
}

double parse_timeout(const std::string& value) {
  if (value.empty()) return RunOptions::kDefaultChildTimeoutSeconds;
  std::size_t used = 0;
  double t = -1;
  try {
    t = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || !(t >= 0) || t > 1e7) {
    throw UsageError("invalid value '" + value + "' for --timeout: expected seconds from 0 to 1e7 (0: no limit)");
  }
  return t;
}

// --dry-run: what the run would measure, in one line per (study, kernel, backend).
void print_plan(const Plan& plan, double at_least, std::ostream& out) {
  int rounds = 1;
  for (const auto& m : plan.specs) rounds = std::max(rounds, m.round);
  out << "plan of suite '" << plan.suite << "': " << plan.specs.size() << " measurements"
      << (rounds > 1 ? " (" + std::to_string(rounds) + " rounds of " + std::to_string(plan.specs.size() / rounds) + ")"
                     : std::string())
      << ", at least " << format_duration(at_least) << " (a lower bound)\n";
  std::vector<std::string> lines;
  std::map<std::string, std::size_t> counts;
  for (const auto& m : plan.specs) {
    const std::string key = "  " + m.study + "  " + m.kernel + "  " + m.backend +
                            (m.interpreter.empty() ? "" : " [" + m.interpreter + (m.python_gil.empty() ? "" : " PYTHON_GIL=" + m.python_gil) + "]") +
                            (m.ranks > 0 ? " (MPI jobs)" : "");
    if (counts[key]++ == 0) lines.push_back(key);
  }
  for (const auto& l : lines) out << l << ": " << counts[l] << "\n";
  for (const auto& w : plan.warnings) out << "warning: " << w << "\n";
}

int cmd_run(const Registry& registry, const RunArgs& a, std::ostream& out, std::ostream& err, int argc,
            const char* const* argv) {
  RunOptions options;
  options.quiet = a.quiet;
  // results.json is always written: it is the run's state, needed to resume and to plot.
  options.write_csv = false;
  for (const auto& f : split_list(a.format, "--format")) {
    if (f == "csv") {
      options.write_csv = true;
    } else if (f != "json") {
      throw UsageError("invalid value '" + f + "' for --format: accepted json, csv");
    }
  }

  options.child_timeout_s = parse_timeout(a.timeout);
  set_peer_timeout(options.child_timeout_s);  // the external peers are measured in another process too
  // The hosts of every MPI job of this run (--ranks, a suite's "ranks", a resumed run's).
  if (!a.hostfile.empty()) set_mpi_hostfile(a.hostfile);

  if (!a.resume.empty()) {
    refuse_filters_with_resume(a);
    Runner runner(registry, err, options);
    install_interrupt_handler();
    const int code = runner.resume(a.resume);
    return with_report(code, runner.run_dir().string(), a, err);
  }

  // Everything is parsed and the whole plan built before anything touches the disk, so bad
  // input never leaves a half-written result directory.
  const int max_threads = hardware_threads();
  PlanOverrides o;
  if (!a.kernel.empty()) o.kernels = split_list(a.kernel, "--kernel");
  if (!a.backend.empty()) o.backends = split_list(a.backend, "--backend");
  if (!a.threads.empty()) o.threads = parse_thread_list(a.threads, "--threads", max_threads);
  if (!a.ranks.empty()) {
    // Rank counts: the thread-list syntax ("max" is the hardware threads); every R >= 1.
    o.ranks = parse_thread_list(a.ranks, "--ranks", max_threads, "rank count");
    if (MpiJobScope::in_job()) throw UsageError("--ranks launches its own MPI jobs: run parlab outside mpirun");
    std::vector<std::string> mpi_backends;
    for (const auto& e : registry.entries()) {
      if (e.kind == "mpi" && e.available) mpi_backends.push_back(e.name);
    }
    if (mpi_backends.empty()) throw UsageError("--ranks: no MPI backend is available (see `parlab list`)");
    // Without --backend: the single-process CPU backends beside every MPI one, so the run holds
    // the figures (and the pi counts and dot bits) to compare with.
    if (o.backends.empty()) {
      o.backends = {"cpu"};
      o.backends.insert(o.backends.end(), mpi_backends.begin(), mpi_backends.end());
    }
  }
  if (!a.size.empty()) {
    std::vector<std::uint64_t> sizes;
    for (const auto& s : split_list(a.size, "--size")) sizes.push_back(parse_count(s, "--size", 1));
    o.sizes = sizes;
  }
  if (!a.precision.empty()) {
    for (const auto& p : split_list(a.precision, "--precision")) {
      const auto pp = precision_from_name(p);
      if (!pp) throw UsageError("invalid value '" + p + "' for --precision: accepted float, double, int32");
      o.precisions.push_back(*pp);
    }
  }
  if (!a.reps.empty()) {
    const std::uint64_t r = parse_count(a.reps, "--reps", 1);
    if (r > 100000) throw UsageError("invalid value '" + a.reps + "' for --reps: at most 100000");
    o.reps = static_cast<int>(r);
  }
  if (!a.rounds.empty()) {
    const std::uint64_t r = parse_count(a.rounds, "--rounds", 1);
    if (r > 1000) throw UsageError("invalid value '" + a.rounds + "' for --rounds: at most 1000");
    o.rounds = static_cast<int>(r);
  }
  if (!a.seed.empty()) o.seed = parse_u64(a.seed, "--seed");
  if (!a.device.empty()) {
    const std::uint64_t d = parse_u64(a.device, "--device");
    if (d > 1024) throw UsageError("invalid value '" + a.device + "' for --device: expected a GPU index");
    o.device = static_cast<int>(d);
  }
  o.quick = a.quick;
  std::string suite_name = a.suite;
  if (suite_name.empty() && o.kernels.empty()) suite_name = "quick";  // the default suite
  nlohmann::json suite;
  if (!suite_name.empty()) suite = load_suite(suite_name);
  Plan plan;
  try {
    plan = make_plan(suite_name.empty() ? nullptr : &suite, o, registry, max_threads);
  } catch (const UsageError& e) {
    // A suite given by path: its errors name the file too (a suite's "name" need not say which).
    const std::filesystem::path given = suite_name;
    if (suite_name.find('/') == std::string::npos && given.extension() != ".json") throw;
    throw UsageError("suite file '" + suite_name + "': " + e.what());
  }
  // Entries measured by MPI jobs the runner launches (--ranks, a suite's "ranks"): the launcher
  // must exist before anything starts, and ranks x threads beyond the cores is said up front.
  int most_ranks = 0, most_threads = 1;
  for (const auto& s : plan.specs) {
    const BackendEntry* e = registry.find(s.backend);
    if (s.ranks > 0 && e != nullptr && e->available) {
      most_ranks = std::max(most_ranks, s.ranks);
      most_threads = std::max(most_threads, s.threads);
    }
  }
  if (most_ranks > 0) {
    const MpiLauncher launcher = find_mpi_launcher();
    plan.warnings.push_back("MPI jobs launched as: " + launcher.describe() + " -np R");
    if (most_ranks * most_threads > max_threads) {
      plan.warnings.push_back("up to " + std::to_string(most_ranks) + " MPI ranks x " + std::to_string(most_threads) +
                              " threads on " + std::to_string(max_threads) +
                              " hardware threads: oversubscribed points measure time-slicing");
    }
  }
  // A lower bound from optimistic rates (experiments/estimate.hpp): a plan over an hour needs
  // --yes, so a mistyped size cannot start a run of centuries.
  const double at_least = min_seconds(plan, registry);
  if (at_least > 3600 && !a.yes) {
    throw UsageError("this plan would take at least " + format_duration(at_least) +
                     " (a lower bound; check --size and --reps), pass --yes to run it anyway");
  }
  if (at_least > 600 && !a.quiet) {
    err << "parlab: this plan takes at least " << format_duration(at_least) << "\n";
  }
  if (a.dry_run) {
    print_plan(plan, at_least, out);
    return kExitOk;
  }
  // plan.warnings go into the run's context; the runner prints them with the context's own.

  nlohmann::json invocation = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) invocation.push_back(argv[i]);
  // The roofs the records are held against (docs/ceilings.md): cached, or measured now.
  if (!a.no_ceilings) options.ceilings = load_or_measure_ceilings(registry, false, err);
  Runner runner(registry, err, options);
  install_interrupt_handler();
  const int code = runner.run_new(plan, a.out.empty() ? "results" : a.out, invocation);
  return with_report(code, runner.run_dir().string(), a, err);
}

// ---------------------------------------------------------------- plot / report
// The Python scripts parlab starts, and their interpreter: $PARLAB_PYTHON overrides Debian's
// python3 (where matplotlib and pandas are); a script is data_dir()/<name> unless `env_override`
// names another file.
std::vector<std::string> script_command(const std::string& name, const char* env_override) {
  std::string script;
  if (const char* s = std::getenv(env_override); s && *s) {
    script = s;
  } else {
    script = (data_dir() / name).string();
  }
  std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (const char* p = std::getenv("PARLAB_PYTHON"); p && *p) python = p;
  if (!std::filesystem::exists(script)) throw FailureError("script '" + script + "' not found");
  return {python, script};
}

// Runs a script with this process's stdout; returns its exit code (-1 when it could not start).
ChildOutput run_script(std::vector<std::string> args, std::ostream& err) {
  std::cout << std::flush;
  err << std::flush;
  SpawnOptions options;
  options.capture_stdout = false;
  options.interrupted = &g_interrupted;
  return run_child(args, options);
}

// Plots and report.html of a run ($PARLAB_PLOT_SCRIPT overrides experiments/analysis/plot.py). Its output
// is the user's; a script that fails makes the command fail, with its message.
int cmd_report(const std::string& run_dir, std::ostream& err, bool quiet) {
  std::vector<std::string> args = script_command("analysis/plot.py", "PARLAB_PLOT_SCRIPT");
  args.push_back(run_dir);
  if (quiet) args.push_back("--quiet");
  const ChildOutput c = run_script(args, err);
  if (c.exit_code == 0) return kExitOk;
  if (c.interrupted || c.exit_code == 130) return 130;
  // plot.py's own codes keep their meaning: 2 bad input (a missing or malformed run), 3 its bug.
  if (c.exit_code == kExitUsage || c.exit_code == 3) return c.exit_code;
  const std::string last = last_line(c.err_tail);  // the script's own last word, under the verdict
  err << "parlab: the plots and report of " << run_dir << " failed: " << args[0] << " " << args[1] << " "
      << c.describe_end() << (c.exit_code == -1 ? " (set PARLAB_PYTHON)" : "") << (last.empty() ? "" : ": " + last)
      << "\n";
  return kExitFailure;
}

// `parlab compare BASE NEW [options]`: experiments/analysis/compare.py, whose exit code is the command's
// (0 compared, 1 --fail-if-slower tripped, 2 bad input, 3 internal error, 130 interrupted).
// Exit 1 means "slower" to a CI gate or `git bisect run`, so nothing else may turn into 1: a
// script that cannot start is an environment error (2), one that dies otherwise a bug (3).
int cmd_compare(const std::vector<std::string>& passed, std::ostream& err) {
  std::vector<std::string> args = script_command("analysis/compare.py", "PARLAB_COMPARE_SCRIPT");
  args.insert(args.end(), passed.begin(), passed.end());
  const ChildOutput c = run_script(args, err);
  if (c.interrupted || c.exit_code == 130) return 130;
  if (c.exit_code >= 0 && c.exit_code <= 3) return c.exit_code;
  err << "parlab: compare: " << args[0] << " " << args[1] << " " << c.describe_end()
      << (c.exit_code == -1 ? " (set PARLAB_PYTHON)" : "") << "\n";
  return c.exit_code == -1 ? kExitUsage : 3;
}

// `parlab --version`: the version, the commit it was built from and what was built.
std::string version_text() {
  std::string commit = build_info::kBuildCommit;
  std::string text = std::string("parlab ") + build_info::kVersion + " (commit " +
                     (commit.empty() ? std::string("unknown: not built from a git checkout") : commit) + ")\n";
  text += std::string("built: ") + build_info::kBuildType + ", " + build_info::kCompiler + ", sanitizers " +
          build_info::kSanitizers + "\n";
  const std::pair<const char*, const char*> parts[] = {{"oneTBB", build_info::kTbbWhy},
                                                       {"OpenMP", build_info::kOpenMpWhy},
                                                       {"CUDA", build_info::kCudaWhy},
                                                       {"embedded Python", build_info::kPythonWhy},
                                                       {"MPI", build_info::kMpiWhy}};
  text += "parts: serial, std::thread, thread pool";
  std::string missing;
  for (const auto& [name, why] : parts) {
    if (*why == '\0') {
      text += std::string(", ") + name;
    } else {
      missing += std::string("\n  not built: ") + name + ": " + why;
    }
  }
  return text + missing;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // Under an MPI launcher every rank starts here. Ranks other than 0 only serve rank 0's
  // distributed workloads (mpi/), so output and result files come from rank 0 alone; the
  // scope ends the job when rank 0 returns.
  std::optional<MpiJobScope> mpi_job;
  try {
    mpi_job.emplace();
  } catch (const Error& e) {
    err << "parlab: " << e.what() << "\n";
    return kExitFailure;
  }
  if (mpi_job->follower()) return mpi_job->serve();
  CLI::App app{"parlab: the same computations under serial, std::thread, a thread pool, oneTBB, "
               "OpenMP, CUDA and embedded Python, measured side by side.",
               "parlab"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  // The contract every command keeps (README, "Exit codes"); a CI gate relies on 1 meaning only
  // "a measurement or validation failed" (compare: "slower beyond the gate").
  const std::string exit_codes =
      "Exit codes (every command): 0 done, nothing failed; 1 a measurement or validation failed (compare: "
      "slower beyond --fail-if-slower); 2 bad input or environment (a path, a file, a type, a permission), "
      "naming the argument or key; 130 interrupted; 3 an internal error of the Python helpers (report, "
      "compare; please report it).";
  app.footer(exit_codes);
  std::string python_home;
  app.add_option("--python-home", python_home,
                 "Python backends: the CPython prefix to embed (overrides PYTHONHOME and VIRTUAL_ENV)");

  auto* list = app.add_subcommand("list", "List backends (with availability and reason) and kernels");

  PiArgs pi_args;
  auto* pi = app.add_subcommand("pi", "Monte Carlo pi on one backend: hits, estimate, 3-sigma verdict");
  pi->add_option("--backend,-b", pi_args.backend, "Backend name (see `parlab list`)")->capture_default_str();
  pi->add_option("--threads,-t", pi_args.threads, "Thread count, a positive integer")->capture_default_str();
  pi->add_option("--samples,-n", pi_args.samples, "Sample count N >= 1 (e.g. 1000000, 2^28, 1e9)")
      ->capture_default_str();
  pi->add_option("--seed,-s", pi_args.seed, "64-bit seed (decimal or 0x hex)")->capture_default_str();
  pi->add_option("--device", pi_args.device, "GPU index for GPU backends")->capture_default_str();
  pi->add_flag("--json", pi_args.json, "Print one JSON object instead of text");

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run a suite (default: quick) and write results.json/.csv, plots and report.html");
  // One option with both a positional and a long name: CLI11 >= 2.4 refuses a positional and an
  // option that share a name ("suite is already added"), and 2.1 accepts this form as well.
  run->add_option("suite,--suite", run_args.suite,
                  "Suite name (see `parlab list`) or path to a suite .json; positional or --suite");
  run->add_option("--kernel,-k", run_args.kernel, "Kernels (comma list); filters a suite, or runs ad hoc without one");
  run->add_option("--backend,-b", run_args.backend, "Backends (comma list, or all/cpu/gpu/python)");
  run->add_option("--threads,-t", run_args.threads, "Thread counts: 1,2,4 | 1..16 | max | pow2 | a mix");
  run->add_option("--size,-n", run_args.size, "Sizes (comma list; 2^K, NeK accepted)");
  run->add_option("--precision,-p", run_args.precision, "float, double (array kernels), int32");
  run->add_option("--reps,-r", run_args.reps, "Timed repetitions per measurement (default 5; per round with --rounds)");
  run->add_option("--rounds", run_args.rounds,
                  "Measure the whole plan this many times over, round after round, a record per measurement and "
                  "round (default: the suite's \"rounds\", else 1)");
  run->add_option("--seed,-s", run_args.seed, "Seed of the pi stream (default " + std::to_string(kDefaultSeed) + ")");
  run->add_option("--out,-o", run_args.out, "Results root (default: results); the run goes to OUT/<host>/<UTC timestamp>/");
  run->add_option("--format", run_args.format, "Result formats: json,csv (results.json is always written)")->capture_default_str();
  run->add_option("--device", run_args.device, "GPU index for GPU backends");
  run->add_option("--ranks", run_args.ranks,
                  "MPI job sizes (1,2,4 | 1..4): each mpi+ backend is measured by an MPI job of each size, launched "
                  "with mpirun; without --backend, the CPU backends and every mpi+ one");
  run->add_option("--hostfile", run_args.hostfile,
                  "Hostfile the --ranks jobs run on (Open MPI's format: 'host slots=N' a line); records say how "
                  "many hosts and ranks per host each job had (docs/multihost.md)");
  run->add_option("--resume", run_args.resume,
                  "Complete the interrupted run in this directory (its own plan: no suite or filters)");
  run->add_option("--timeout", run_args.timeout,
                  "Seconds one measurement in another process (another interpreter's parlab, an MPI job, an "
                  "external peer's binary with everything it started) may take before it is stopped and its "
                  "record fails (default " +
                      std::to_string(static_cast<int>(RunOptions::kDefaultChildTimeoutSeconds)) +
                      "; 0: no limit; at most 1e7)");
  run->add_option("--peer-dir", run_args.peer_dir,
                  "Directory of BabelStream's omp-stream and cuda-stream for the babelstream-* peers (overrides "
                  "PARLAB_BABELSTREAM_DIR; scripts/build-babelstream.sh builds them); must be an existing directory");
  run->add_flag("--quick", run_args.quick, "At most 3 repetitions, no minimum repetition time");
  run->add_flag("--quiet,-q", run_args.quiet, "No progress output");
  run->add_flag("--no-report", run_args.no_report, "Do not make plots and report.html after the run");
  run->add_flag("--yes,-y", run_args.yes, "Start a plan estimated to take over an hour");
  run->add_flag("--dry-run", run_args.dry_run, "Plan and check the run, print what it would measure, write nothing");
  run->add_flag("--no-ceilings", run_args.no_ceilings,
                "Do not measure or read this machine's roofs: no context.ceilings, no record `limit`");

  bool ceilings_remeasure = false, ceilings_json = false;
  auto* ceilings = app.add_subcommand("ceilings", "Measure (or show the cached) roofs of this machine: bandwidth, FMA "
                                                  "peak, integer multiplies, LLC; GPU when present (docs/ceilings.md)");
  ceilings->add_flag("--remeasure", ceilings_remeasure, "Measure again even when this machine and build has them cached");
  ceilings->add_flag("--json", ceilings_json, "Print the ceilings block as JSON (the context.ceilings of a run)");

  // Internal: how a run reaches the interpreter of another parlab build (experiments/interpreters.hpp).
  auto* interpreter_info = app.add_subcommand("interpreter-info", "")->group("");
  std::string spec_json;
  auto* measure_spec = app.add_subcommand("measure-spec", "")->group("");
  measure_spec->add_option("spec", spec_json)->required();

  std::string report_dir;
  auto* report = app.add_subcommand("report", "Make the plots and report.html of a run directory");
  report->alias("plot");
  report->add_option("run_dir", report_dir, "A run directory holding results.json")->required();

  // Everything after `compare` is the comparison script's own command line (its --help included).
  auto* compare = app.add_subcommand("compare",
                                     "Hold a run against another (a reference or yesterday's): per-record change with "
                                     "its significance, context and scaling-shape differences (compare --help)");
  compare->prefix_command();
  compare->allow_extras();
  compare->set_help_flag();

  // CLI11 reports an unknown first word only as "a subcommand is required"; name it instead.
  const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  const auto is_subcommand = [&](std::string_view word) {
    return std::any_of(subcommands.begin(), subcommands.end(),
                       [&](const CLI::App* sub) { return sub->get_name() == word; });
  };
  if (argc > 1 && argv[1][0] != '-' && !is_subcommand(argv[1])) {
    std::string accepted;
    for (const auto* sub : subcommands) {
      if (!sub->get_group().empty()) accepted += (accepted.empty() ? "" : ", ") + sub->get_name();  // not internal ones
    }
    err << "parlab: unknown command '" << argv[1] << "' (accepted: " << accepted << ")\n";
    return kExitUsage;
  }
  for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) sub->footer(exit_codes);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "parlab: " << e.what() << "\n";
    err << "Run with --help for usage.\n";
    return kExitUsage;
  }

  // An option given an empty value ("--size ''") would read as "not given" and run the defaults;
  // it is a usage error instead. (Flags take no value and are skipped.)
  for (const CLI::App* sub : {static_cast<const CLI::App*>(pi), static_cast<const CLI::App*>(run)}) {
    if (sub->count() == 0) continue;
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size() == 0 || opt->count() == 0) continue;
      for (const std::string& value : opt->results()) {
        if (value.empty()) {
          err << "parlab: invalid value '' for " << opt->get_name() << ": expected a value\n";
          return kExitUsage;
        }
      }
    }
  }
  try {
    if (*run && !run_args.peer_dir.empty()) {  // before the registry is made
      // Bad input, said up front: a missing directory would otherwise only make every peer
      // "unavailable", a reason found in results.json, with exit 0.
      std::error_code ec;
      const auto st = std::filesystem::status(run_args.peer_dir, ec);
      if (!std::filesystem::exists(st)) {
        throw UsageError("--peer-dir '" + run_args.peer_dir + "': no such directory");
      }
      if (!std::filesystem::is_directory(st)) {
        throw UsageError("--peer-dir '" + run_args.peer_dir + "': not a directory");
      }
      set_peer_dir(run_args.peer_dir);
    }
    const Registry registry = make_registry();
    if (!python_home.empty()) configure_python(python_home);
    if (*list) return cmd_list(registry, out);
    if (*pi) return cmd_pi(registry, pi_args, out);
    if (*run) return cmd_run(registry, run_args, out, err, argc, argv);
    if (*report) return cmd_report(report_dir, err, false);
    if (*ceilings) return cmd_ceilings(registry, ceilings_remeasure, ceilings_json, out, err);
    if (*compare) return cmd_compare(compare->remaining(), err);
    if (*interpreter_info) return cmd_interpreter_info(out);
    if (*measure_spec) return cmd_measure_spec(registry, spec_json, out);
    return kExitUsage;
  } catch (const Error& e) {
    err << "parlab: " << e.what() << "\n";
    switch (e.category()) {
      case ErrorCategory::usage: return kExitUsage;
      case ErrorCategory::unavailable: return kExitFailure;
      case ErrorCategory::failure: return kExitFailure;
    }
    return kExitFailure;
  } catch (const std::exception& e) {
    err << "parlab: failure: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace parlab
