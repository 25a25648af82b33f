#include "experiments/cli/cli.hpp"

#include <csignal>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "experiments/machine/ceilings.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/machine/interpreters.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/text.hpp"
#include "experiments/plan/suggest.hpp"
#include "experiments/run/migrate.hpp"
#include "experiments/wiring/mpi_job.hpp"
#include "experiments/wiring/python_part.hpp"
#include "experiments/wiring/make_registry.hpp"
#include "experiments/run/runner.hpp"
#include "core/error.hpp"
#include "core/file_kernel.hpp"
#include "experiments/plan/args.hpp"
#include "experiments/plan/suite.hpp"
#include "experiments/io/read.hpp"
#include "parlab/build_commit.hpp"
#include "parlab/build_info.hpp"

namespace parlab {
namespace {

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

// The contract every command keeps (README, "Exit codes"); a CI gate relies on 1 meaning only
// "a measurement or validation failed" (compare: "slower beyond the gate").
const char* const kExitCodesText =
    "Exit codes (every command): 0 done, nothing failed; 1 a measurement or validation failed (compare: "
    "slower beyond --fail-if-slower); 2 bad input or environment (a path, a file, a type, a permission), "
    "naming the argument or key; 4 run: measured, but the report failed; 5 compare --fail-if-slower judged "
    "nothing (too few repetitions); 130 interrupted; 3 an internal error of the Python helpers (report, "
    "compare; please report it).";

// The subcommands and the values their options fill in. CLI::App keeps pointers into it, so it
// stays where it was made while the app lives.
struct Commands {
  std::string python_home;
  PiArgs pi_args;
  RunArgs run_args;
  bool ceilings_remeasure = false, ceilings_json = false;
  std::string spec_json;
  std::string report_dir;
  std::string report_summary;
  std::string list_what;
  std::string list_name;
  std::vector<std::string> migrate_runs;
  bool migrate_dry_run = false;
  CLI::App* list = nullptr;
  CLI::App* pi = nullptr;
  CLI::App* run = nullptr;
  CLI::App* ceilings = nullptr;
  CLI::App* interpreter_info = nullptr;
  CLI::App* measure_spec = nullptr;
  CLI::App* report = nullptr;
  CLI::App* migrate = nullptr;
  CLI::App* compare = nullptr;
};

void add_pi_command(CLI::App& app, Commands& c) {
  PiArgs& a = c.pi_args;
  c.pi = app.add_subcommand("pi", "Monte Carlo pi on one backend: hits, estimate, 3-sigma verdict");
  c.pi->add_option("--backend,-b", a.backend, "Backend name (see `parlab list`)")->capture_default_str();
  c.pi->add_option("--threads,-t", a.threads, "Thread count, a positive integer")->capture_default_str();
  c.pi->add_option("--samples,-n", a.samples, "Sample count N >= 1 (e.g. 1000000, 2^28, 1e9)")
      ->capture_default_str();
  c.pi->add_option("--seed,-s", a.seed, "64-bit seed (decimal or 0x hex)")->capture_default_str();
  c.pi->add_option("--device", a.device, "GPU index for GPU backends")->capture_default_str();
  c.pi->add_flag("--json", a.json, "Print one JSON object instead of text");
}

void add_run_command(CLI::App& app, Commands& c) {
  RunArgs& a = c.run_args;
  auto* run = c.run = app.add_subcommand("run", "Run a suite (default: quick) and write results.json/.csv, plots and report.html");
  // One option with both a positional and a long name: CLI11 >= 2.4 refuses a positional and an
  // option that share a name ("suite is already added"), and 2.1 accepts this form as well.
  run->add_option("suite,--suite", a.suite,
                  "Suite name (see `parlab list`) or path to a suite .json; positional or --suite");
  run->add_option("--kernel,-k", a.kernel, "Kernels (comma list); filters a suite, or runs ad hoc without one");
  run->add_option("--backend,-b", a.backend, "Backends (comma list, or all/cpu/gpu/python)");
  run->add_option("--threads,-t", a.threads, "Thread counts: 1,2,4 | 1..16 | max | pow2 | a mix");
  run->add_option("--size,-n", a.size, "Sizes (comma list): 2^K, NeK, 16M (10^6), 2Mi (2^20) or plain integers");
  run->add_option("--precision,-p", a.precision, "float, double (array kernels), int32");
  run->add_option("--reps,-r", a.reps, "Timed repetitions per measurement (default 5; per round with --rounds)");
  run->add_option("--rounds", a.rounds,
                  "Measure the whole plan this many times over, round after round, a record per measurement and "
                  "round (default: the suite's \"rounds\", else 1)");
  run->add_option("--seed,-s", a.seed, "Seed of the pi stream (default " + std::to_string(kDefaultSeed) + ")");
  run->add_option("--out,-o", a.out, "Results root (default: results); the run goes to OUT/<host>/<UTC timestamp>/");
  run->add_option("--format", a.format, "Result formats: json,csv (results.json is always written)")->capture_default_str();
  run->add_option("--device", a.device, "GPU index for GPU backends");
  run->add_option("--ranks", a.ranks,
                  "MPI job sizes (1,2,4 | 1..4): each mpi+ backend is measured by an MPI job of each size, launched "
                  "with mpirun; without --backend, the CPU backends and every mpi+ one");
  run->add_option("--hostfile", a.hostfile,
                  "Hostfile the --ranks jobs run on (Open MPI's format: 'host slots=N' a line); records say how "
                  "many hosts and ranks per host each job had (docs/multihost.md)");
  run->add_option("--resume", a.resume,
                  "Complete the interrupted run in this directory (its own plan: no suite or filters)");
  run->add_option("--timeout", a.timeout,
                  "Seconds one measurement in another process (another interpreter's parlab, an MPI job, an "
                  "external peer's binary with everything it started) may take before it is stopped and its "
                  "record fails (default " +
                      std::to_string(static_cast<int>(RunOptions::kDefaultChildTimeoutSeconds)) +
                      "; 0: no limit; at most 1e7)");
  run->add_option("--peer-dir", a.peer_dir,
                  "Directory of BabelStream's omp-stream and cuda-stream for the babelstream-* peers (overrides "
                  "PARLAB_BABELSTREAM_DIR; scripts/build-babelstream.sh builds them); must be an existing directory");
  run->add_flag("--quick", a.quick, "At most 3 repetitions, no minimum repetition time");
  run->add_flag("--quiet,-q", a.quiet, "No progress output");
  run->add_flag("--no-report", a.no_report, "Do not make plots and report.html after the run");
  run->add_option("--summary", a.summary,
                  "The results on stdout at the end: table (default; after --no-report only on a terminal), "
                  "markdown, csv, json, none, or pop (the efficiency hierarchy)")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json", "none", "pop"}));
  run->add_flag("--yes,-y", a.yes, "Start a plan estimated to take over an hour");
  run->add_flag("--dry-run", a.dry_run, "Plan and check the run, print what it would measure, write nothing");
  run->add_flag("--no-ceilings", a.no_ceilings,
                "Do not measure or read this machine's roofs: no context.ceilings, no record `limit`");
}

// ceilings, the internal ones, report, migrate and compare, in the order --help lists them.
void add_tool_commands(CLI::App& app, Commands& c) {
  c.ceilings = app.add_subcommand("ceilings", "Measure (or show the cached) roofs of this machine: bandwidth, FMA "
                                              "peak, integer multiplies, LLC; GPU when present (docs/ceilings.md)");
  c.ceilings->add_flag("--remeasure", c.ceilings_remeasure, "Measure again even when this machine and build has them cached");
  c.ceilings->add_flag("--json", c.ceilings_json, "Print the ceilings block as JSON (the context.ceilings of a run)");

  // Internal: how a run reaches the interpreter of another parlab build (experiments/machine/interpreters.hpp).
  c.interpreter_info = app.add_subcommand("interpreter-info", "")->group("");
  c.measure_spec = app.add_subcommand("measure-spec", "")->group("");
  c.measure_spec->add_option("spec", c.spec_json)->required();

  c.report = app.add_subcommand("report", "Make the plots and report.html of a run directory");
  c.report->alias("plot");
  c.report->add_option("run_dir", c.report_dir,
                       "A run directory, its results.json, or a folder of runs (the --out of parlab run: its "
                       "newest run)")
      ->required();
  c.report->add_option("--summary", c.report_summary,
                       "The results on stdout: table (default), markdown, csv, json, none, or pop (where the "
                       "speedup went: the efficiency hierarchy per kernel and backend)")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json", "none", "pop"}));

  c.migrate = app.add_subcommand("migrate", "Bring runs written by an older parlab to the current results schema, in "
                                            "place (records get their kernel's family from the catalogue)");
  c.migrate->add_option("runs", c.migrate_runs, "Run directories (or their results.json)")->required();
  c.migrate->add_flag("--dry-run", c.migrate_dry_run, "Say what would change, write nothing");

  // Everything after `compare` is the comparison script's own command line (its --help included).
  c.compare = app.add_subcommand("compare",
                                 "Hold a run against another (a reference or yesterday's): per-record change with "
                                 "its significance, context and scaling-shape differences (compare --help)");
  c.compare->prefix_command();
  c.compare->allow_extras();
  c.compare->set_help_flag();
}

// --help within the terminal's width: every description wrapped to the space right of CLI11's
// name column (CLI11 indents each line after a newline to that column), footers to the width.
void wrap_help(CLI::App& app) {
  const std::size_t width = terminal_width();
  const std::size_t column = app.get_formatter()->get_column_width() + 2;  // the name column, indented
  const auto wrap = [&](const std::string& text) { return hanging("", text, width > column + 30 ? width - column : 30); };
  app.description(hanging("", app.get_description(), width));
  std::vector<CLI::App*> apps = {&app};
  for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) apps.push_back(sub);
  for (CLI::App* a : apps) {
    if (a != &app) a->description(wrap(a->get_description()));
    a->footer(hanging("", kExitCodesText, width));
    for (CLI::Option* o : a->get_options()) o->description(wrap(o->get_description()));
  }
}

void define_commands(CLI::App& app, Commands& c) {
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.add_option("--python-home", c.python_home,
                 "Python backends: the CPython prefix to embed (overrides PYTHONHOME and VIRTUAL_ENV)");
  c.list = app.add_subcommand("list",
                              "List backends (with availability and reason), interpreters, kernels, suites; "
                              "`list suites NAME`: one suite's whole description");
  c.list->add_option("what", c.list_what, "One kind only: backends, interpreters, kernels or suites")
      ->check(CLI::IsMember({"backends", "interpreters", "kernels", "suites"}));
  c.list->add_option("name", c.list_name, "With suites: that suite's whole description");
  add_pi_command(app, c);
  add_run_command(app, c);
  add_tool_commands(app, c);
  wrap_help(app);
}

// CLI11 reports an unknown first word only as "a subcommand is required"; name it instead.
// Returns whether it did.
bool reported_unknown_command(const CLI::App& app, int argc, const char* const* argv, std::ostream& err) {
  const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  const auto is_subcommand = [&](std::string_view word) {
    return std::any_of(subcommands.begin(), subcommands.end(),
                       [&](const CLI::App* sub) { return sub->check_name(std::string(word)); });
  };
  if (argc <= 1 || argv[1][0] == '-' || is_subcommand(argv[1])) return false;
  std::vector<std::string> names;
  for (const auto* sub : subcommands) {
    if (sub->get_group().empty()) continue;  // not the internal ones
    names.push_back(sub->get_name());
    for (const std::string& alias : sub->get_aliases()) names.push_back(alias);
  }
  err << "parlab: unknown command '" << quoted_value(argv[1], 60) << "'" << did_you_mean(argv[1], names)
      << " (`parlab --help` lists them)\n";
  return true;
}

// After CLI11 refused the command line: "did you mean" for the first option the command does not
// have ("--thread" for --threads), or "" when none is near.
std::string option_hint(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2) return "";
  const CLI::App* sub = nullptr;
  for (const auto* s : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (s->get_name() == argv[1]) sub = s;
  }
  if (sub == nullptr) return "";
  std::vector<std::string> names;
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const std::string word(arg.substr(0, arg.find('=')));
    if (word.size() < 2 || word[0] != '-' || std::find(names.begin(), names.end(), word) != names.end()) continue;
    if (std::string hint = did_you_mean(word, names); !hint.empty()) return "'" + word + "'" + hint;
  }
  return "";
}

// An option given an empty value ("--size ''") would read as "not given" and run the defaults;
// it is a usage error instead. (Flags take no value and are skipped.) Returns whether it found one.
bool reported_empty_value(const Commands& c, std::ostream& err) {
  for (const CLI::App* sub : {static_cast<const CLI::App*>(c.pi), static_cast<const CLI::App*>(c.run)}) {
    if (sub->count() == 0) continue;
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size() == 0 || opt->count() == 0) continue;
      for (const std::string& value : opt->results()) {
        if (value.empty()) {
          err << "parlab: invalid value '' for " << opt->get_name() << ": expected a value\n";
          return true;
        }
      }
    }
  }
  return false;
}

// Bad input, said up front: a missing directory would otherwise only make every peer
// "unavailable", a reason found in results.json, with exit 0. Before the registry is made.
void use_peer_dir(const std::string& peer_dir) {
  std::error_code ec;
  const auto st = std::filesystem::status(peer_dir, ec);
  if (!std::filesystem::exists(st)) throw UsageError("--peer-dir '" + peer_dir + "': no such directory");
  if (!std::filesystem::is_directory(st)) throw UsageError("--peer-dir '" + peer_dir + "': not a directory");
  set_peer_dir(peer_dir);
}

// The file kernels of the run being resumed, registered as the run checked them: a file edited
// since its records were made is refused (they would mix two kernels under one name), as is a
// file that no longer exists or parses. A run's written names are portable ("…/kernel.py" for an
// absolute path outside the results and home folders), so the file is found where its records'
// kernel_file says, relative to the run's directory; a kernel without a record yet, by its name.
// A directory without a readable results.json is left to the resume's own message.
void register_resumed_file_kernels(const std::string& dir) {
  const std::filesystem::path file = std::filesystem::path(dir) / "results.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return;
  nlohmann::json doc;
  try {
    doc = read_json_file(file, "--resume: results file");
  } catch (const Error&) {
    return;
  }
  if (!doc.is_object() || !doc.contains("plan") || !doc["plan"].is_array()) return;
  // kernel -> (its file relative to the run's directory, its hash) from its first record.
  std::map<std::string, std::pair<std::string, std::string>> measured;
  if (doc.contains("records") && doc["records"].is_array()) {
    for (const auto& r : doc["records"]) {
      if (!r.is_object() || !r.contains("kernel_file") || !r["kernel_file"].is_string() || !r.contains("kernel") ||
          !r["kernel"].is_string() || !r.contains("kernel_sha256") || !r["kernel_sha256"].is_string()) {
        continue;
      }
      measured.emplace(r["kernel"].get<std::string>(),
                       std::make_pair(r["kernel_file"].get<std::string>(), r["kernel_sha256"].get<std::string>()));
    }
  }
  std::set<std::string> done;
  for (const auto& m : doc["plan"]) {
    if (!m.is_object() || !m.contains("kernel") || !m["kernel"].is_string()) continue;
    const std::string k = m["kernel"].get<std::string>();
    if (!is_file_kernel(k) || !done.insert(k).second) continue;
    const auto it = measured.find(k);
    if (it == measured.end()) {
      register_python_file_kernels({k});
      continue;
    }
    const std::string where = (std::filesystem::path(dir) / it->second.first).lexically_normal().string();
    try {
      register_python_file_kernels({k}, it->second.second, where);
    } catch (const UsageError& e) {
      throw UsageError("--resume: " + std::string(e.what()) +
                       " (its records were made from the file as it was; put it back, or start a new run)");
    }
  }
}

// The kernel files a suite given by path names, under their names resolved against the suite's
// directory, as the plan will name them (resolve_suite_kernel_files); a refusal names the suite
// file, the experiment and the kernel as given. A suite given by name names none (the plan
// refuses one that does), and a suite that cannot be read is left to the plan's own message.
void register_suite_file_kernels(const std::string& suite_name) {
  if (suite_name.empty() || !suite_given_by_path(suite_name)) return;
  nlohmann::json suite;
  try {
    suite = load_suite(suite_name);
  } catch (const Error&) {
    return;
  }
  for (const SuiteKernelFile& f : resolve_suite_kernel_files(suite, suite_name)) {
    try {
      register_python_file_kernels({f.name});
    } catch (const UsageError& e) {
      throw UsageError(f.where + ": " + e.what());
    }
  }
}

// A Python kernel file among the run's kernels (`-k path/to/file.py`, or a suite file's
// experiment), checked with ast and registered before the registry is made, so its Python
// backends list it: on a new run, from --kernel (each name as given) and from a suite given by
// path; on a resume, from the run's plan, the file refused when it was edited since the run's
// records were made; in the child measuring one point, from its spec.
void register_file_kernels(Commands& c) {
  if (*c.run && c.run_args.resume.empty()) {
    if (!c.run_args.kernel.empty()) register_python_file_kernels(split_list(c.run_args.kernel, "--kernel"));
    register_suite_file_kernels(c.run_args.suite);
  } else if (*c.run && !c.run_args.resume.empty()) {
    register_resumed_file_kernels(c.run_args.resume);
  } else if (*c.measure_spec) {
    nlohmann::json spec = nlohmann::json::parse(c.spec_json, nullptr, false);
    if (!spec.is_object() || !spec.contains("kernel") || !spec["kernel"].is_string()) return;
    const std::string kernel = spec["kernel"].get<std::string>();
    if (!is_file_kernel(kernel)) return;
    const char* sha = std::getenv(kKernelSha256Env);
    const char* where = std::getenv(kKernelFileEnv);
    register_python_file_kernels({kernel}, sha != nullptr ? sha : "", where != nullptr ? where : "");
  }
}

// The parsed command, run; its errors become the exit code of their category.
int run_command(Commands& c, int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    if (*c.run && !c.run_args.peer_dir.empty()) use_peer_dir(c.run_args.peer_dir);
    // Before any file kernel is checked: checking starts the interpreter these options configure.
    if (!c.python_home.empty()) configure_python(c.python_home);
    register_file_kernels(c);
    Registry registry = make_registry();
    if (*c.list) return cmd_list(registry, c.list_what, c.list_name, out);
    if (*c.pi) return cmd_pi(registry, c.pi_args, out);
    if (*c.run) return cmd_run(registry, c.run_args, out, err, argc, argv);
    if (*c.report) return cmd_report(c.report_dir, err, {false, c.report_summary, false});
    if (*c.ceilings) return cmd_ceilings(registry, c.ceilings_remeasure, c.ceilings_json, out, err);
    if (*c.migrate) return cmd_migrate(registry, c.migrate_runs, c.migrate_dry_run, out, err);
    if (*c.compare) return cmd_compare(c.compare->remaining(), err);
    if (*c.interpreter_info) return cmd_interpreter_info(out);
    if (*c.measure_spec) return cmd_measure_spec(registry, c.spec_json, out);
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
  // A rank of an MPI job keeps SIGPIPE's default action (main ignores it): when a host is lost,
  // the launcher ends the job's ranks by closing their pipes, and a rank that ignored SIGPIPE
  // would wait in MPI for the lost host until --timeout.
  if (MpiJobScope::in_job()) std::signal(SIGPIPE, SIG_DFL);
  if (mpi_job->follower()) return mpi_job->serve();
  CLI::App app{"parlab: the same computations under serial, std::thread, a thread pool, oneTBB, "
               "OpenMP, CUDA and embedded Python, measured side by side.",
               "parlab"};
  Commands commands;
  define_commands(app, commands);
  if (reported_unknown_command(app, argc, argv, err)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "parlab: " << e.what() << "\n";
    if (const std::string hint = option_hint(app, argc, argv); !hint.empty()) err << "parlab: " << hint << "\n";
    err << "Run with --help for usage.\n";
    return kExitUsage;
  }
  if (reported_empty_value(commands, err)) return kExitUsage;
  return run_command(commands, argc, argv, out, err);
}

}  // namespace parlab
