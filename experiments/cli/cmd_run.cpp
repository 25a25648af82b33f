// `parlab run`: its options into a plan, checked whole before anything touches the disk, then
// a run (or the resume of one) and its report.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "experiments/plan/args.hpp"
#include "experiments/plan/cpus.hpp"
#include "experiments/machine/ceilings.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/machine/context.hpp"
#include "experiments/plan/estimate.hpp"
#include "experiments/wiring/mpi_job.hpp"
#include "experiments/run/rank_sweep.hpp"
#include "experiments/wiring/make_registry.hpp"
#include "experiments/run/runner.hpp"
#include "experiments/io/files.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/plan/suite.hpp"
#include "core/error.hpp"

namespace parlab {
namespace {

// A run's exit code once its report has been made: the report's failure is the run's too.
int with_report(int run_code, const std::string& run_dir, const RunArgs& a, std::ostream& err) {
  if (run_code != 0 && run_code != 1) return run_code;
  if (a.no_report) {
    // The results table alone: asked for, or a person is watching (a pipe or a script that said
    // --no-report gets no Python started for it).
    if (a.summary == "none" || (a.summary.empty() && ::isatty(STDOUT_FILENO) == 0)) return run_code;
    const int code = cmd_report(run_dir, err, {a.quiet, a.summary, true});
    if (code == 130) return 130;
    // The table is a view of the results, not a step of the run; but one asked for by --summary
    // that could not be printed is a failed report, not an empty stdout with exit 0.
    return run_code == 0 && code != 0 && !a.summary.empty() ? kExitReport : run_code;
  }
  const auto drawing = std::chrono::steady_clock::now();
  const int report_code = cmd_report(run_dir, err, {a.quiet, a.summary, false});
  if (report_code == 130) return 130;
  // How long drawing took, for the next plan's estimate (plan/estimate.hpp).
  if (report_code == 0) {
    record_report_seconds(run_dir,
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - drawing).count(), err);
  }
  // After a run the input is the run's own results.json: a report that fails is a failed step,
  // with a code of its own (the measurements stand; `parlab report` draws them again). A failed
  // measurement's 1 takes precedence: it is the graver news, and the report's message is printed.
  return run_code != 0 ? run_code : (report_code == 0 ? 0 : kExitReport);
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
  return parse_seconds(value, "--timeout", 1e7);
}

// Why a planned point cannot be measured here (its backend's reason), or "" when it can: its
// backend is available (or broken, which makes an error record), or another interpreter's parlab
// measures it (planning kept only the interpreters that were found).
std::string why_not_here(const MeasurementSpec& m, const Registry& registry) {
  if (!m.interpreter.empty()) return "";
  const BackendEntry* e = registry.find(m.backend);
  if (e == nullptr) return "not in this build";
  return e->available || e->broken ? "" : e->reason;
}

// One line of a plan: its points' count, thread counts and sizes, and why it cannot run here.
struct PlanLine {
  std::size_t count = 0;
  std::set<int> threads;
  std::set<std::uint64_t> sizes;
  std::string unavailable;  // the backend's reason; empty where it runs
};

std::string joined(const std::set<int>& v) {
  std::ostringstream out;
  for (auto it = v.begin(); it != v.end(); ++it) out << (it == v.begin() ? "" : ",") << *it;
  return out.str();
}

// --dry-run: what the run would measure, one line per (study, kernel, backend) with its thread
// and size points, the lines that cannot run here marked with the reason.
// "about 52.1 s to measure and 11.0 s to draw (from 91 of 91 measurements on this machine
// before; not the roofs' measurement)": the estimate from earlier runs, or "" without any.
std::string history_text(const HistoryEstimate& h) {
  if (h.matched == 0) return "";
  std::ostringstream os;
  os << "about " << format_duration(h.measure_s) << " to measure"
     << (h.draw_s > 0 ? " and " + format_duration(h.draw_s) + " to draw" : std::string()) << " (from " << h.matched
     << " of " << h.planned << " measurements made on this machine before, in " << h.runs_seen
     << " earlier run(s); the others at their lower bound; not the roofs' measurement)";
  return os.str();
}

// The estimate from this machine's earlier runs under the run's --out.
HistoryEstimate history_of(const Plan& plan, const Registry& registry, const RunArgs& a) {
  return estimate_from_history(plan, registry, std::filesystem::path(a.out.empty() ? "results" : a.out) / host_name());
}

void print_plan(const Plan& plan, const Registry& registry, double at_least, std::ostream& out,
                const HistoryEstimate& history) {
  const std::size_t width = terminal_width();
  int rounds = 1;
  for (const auto& m : plan.specs) rounds = std::max(rounds, m.round);
  out << "plan of suite '" << plan.suite << "': " << plan.specs.size() << " measurements"
      << (rounds > 1 ? " (" + std::to_string(rounds) + " rounds of " + std::to_string(plan.specs.size() / rounds) + ")"
                     : std::string())
      << ", at least " << format_duration(at_least) << " (a lower bound)\n";
  if (const std::string h = history_text(history); !h.empty()) {
    out << hanging("estimate: ", h, terminal_width()) << "\n";
  } else {
    out << hanging("estimate: ", "none: no earlier run of these measurements on this machine under this --out "
                   "(the first run on a machine is not estimated)", terminal_width()) << "\n";
  }
  std::vector<std::string> order;
  std::map<std::string, PlanLine> lines;
  for (const auto& m : plan.specs) {
    const std::string key = "  " + m.study + "  " + m.problem.kernel + "  " + m.backend +
                            (m.interpreter.empty() ? "" : " [" + m.interpreter + (m.python_gil.empty() ? "" : " PYTHON_GIL=" + m.python_gil) + "]") +
                            (m.ranks > 0 ? " (MPI jobs)" : "");
    PlanLine& l = lines[key];
    if (l.count++ == 0) order.push_back(key);
    l.threads.insert(m.problem.threads);
    l.sizes.insert(m.problem.size);
    if (l.unavailable.empty()) l.unavailable = why_not_here(m, registry);
  }
  for (const auto& key : order) {
    const PlanLine& l = lines[key];
    std::ostringstream what;
    what << l.count << " (threads " << joined(l.threads) << "; n ";
    for (auto it = l.sizes.begin(); it != l.sizes.end(); ++it) what << (it == l.sizes.begin() ? "" : ",") << format_size(*it);
    what << ")";
    if (!l.unavailable.empty()) what << "; UNAVAILABLE here: " << l.unavailable;
    out << hanging(key + ": ", what.str(), width) << "\n";
  }
  for (const auto& w : plan.warnings) out << hanging("warning: ", w, width) << "\n";
}

// A plan of which nothing can be measured here (`parlab run -b cuda` without a GPU): its
// backends and their reasons, or "" when something can run.
std::string nothing_measurable(const Plan& plan, const Registry& registry) {
  std::map<std::string, std::string> reasons;
  for (const auto& m : plan.specs) {
    std::string why = why_not_here(m, registry);
    if (why.empty()) return "";
    reasons[m.backend] = std::move(why);
  }
  std::ostringstream out;
  for (const auto& [backend, why] : reasons) out << "\n" << hanging("  " + backend + ": ", why, terminal_width());
  return out.str();
}

// The run's output options: formats and the timeout of a measurement in another process.
RunOptions run_options(const RunArgs& a) {
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
  return options;
}

int resume_run(const Registry& registry, const RunArgs& a, const RunOptions& options, std::ostream& err) {
  refuse_filters_with_resume(a);
  Runner runner(registry, err, options);
  install_interrupt_handler();
  const int code = runner.resume(a.resume);
  return with_report(code, runner.run_dir().string(), a, err);
}

// --ranks: rank counts in the thread-list syntax ("max" is the hardware threads); every R >= 1.
void add_rank_overrides(PlanOverrides& o, const RunArgs& a, const Registry& registry, int max_threads) {
  o.ranks = parse_thread_list(a.ranks, "--ranks", max_threads, "rank count");
  if (MpiJobScope::in_job()) throw UsageError("--ranks launches its own MPI jobs: run parlab outside mpirun");
  std::vector<std::string> mpi_backends;
  for (const auto& e : registry.entries()) {
    if (e.kind == BackendKind::mpi && e.available) mpi_backends.push_back(e.name);
  }
  if (mpi_backends.empty()) throw UsageError("--ranks: no MPI backend is available (see `parlab list`)");
  // Without --backend: the single-process CPU backends beside every MPI one, so the run holds
  // the figures (and the pi counts and dot bits) to compare with.
  if (o.backends.empty()) {
    o.backends = {"cpu"};
    o.backends.insert(o.backends.end(), mpi_backends.begin(), mpi_backends.end());
  }
}

// The numeric options' limits; each error names its option.
void add_number_overrides(PlanOverrides& o, const RunArgs& a) {
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
    if (r > kMaxReps) throw UsageError("invalid value '" + a.reps + "' for --reps: at most " + std::to_string(kMaxReps));
    o.reps = static_cast<int>(r);
  }
  if (!a.rounds.empty()) {
    const std::uint64_t r = parse_count(a.rounds, "--rounds", 1);
    if (r > kMaxRounds) {
      throw UsageError("invalid value '" + a.rounds + "' for --rounds: at most " + std::to_string(kMaxRounds));
    }
    o.rounds = static_cast<int>(r);
  }
  if (!a.seed.empty()) o.seed = parse_u64(a.seed, "--seed");
  if (!a.device.empty()) {
    const std::uint64_t d = parse_u64(a.device, "--device");
    if (d > 1024) throw UsageError("invalid value '" + a.device + "' for --device: expected a GPU index");
    o.device = static_cast<int>(d);
  }
}

PlanOverrides plan_overrides(const RunArgs& a, const Registry& registry, int max_threads) {
  PlanOverrides o;
  if (!a.kernel.empty()) o.kernels = split_list(a.kernel, "--kernel");
  if (!a.backend.empty()) o.backends = split_list(a.backend, "--backend");
  if (!a.threads.empty()) o.threads = parse_thread_list(a.threads, "--threads", max_threads);
  if (!a.ranks.empty()) add_rank_overrides(o, a, registry, max_threads);
  add_number_overrides(o, a);
  o.quick = a.quick;
  return o;
}

// The suite named (default: quick, unless --kernel makes an ad-hoc run) expanded into the plan.
Plan plan_of(const RunArgs& a, const PlanOverrides& o, const Registry& registry, int max_threads) {
  std::string suite_name = a.suite;
  if (suite_name.empty() && o.kernels.empty()) suite_name = "quick";  // the default suite
  nlohmann::json suite;
  if (!suite_name.empty()) suite = load_suite(suite_name);
  try {
    // Its kernel files under the names they were registered by (cli.cpp), before the plan.
    if (!suite_name.empty()) resolve_suite_kernel_files(suite, suite_name);
    return make_plan(suite_name.empty() ? nullptr : &suite, o, registry, max_threads);
  } catch (const UsageError& e) {
    // A suite given by path: its errors name the file too (a suite's "name" need not say which).
    const std::filesystem::path given = suite_name;
    if (suite_name.find('/') == std::string::npos && given.extension() != ".json") throw;
    throw UsageError("suite file '" + suite_name + "': " + e.what());
  }
}

// Entries measured by MPI jobs the runner launches (--ranks, a suite's "ranks"): the launcher
// must exist before anything starts, and ranks x threads beyond the cores is said up front.
// Returns false when this process was interrupted (SIGINT, SIGTERM) while the launcher was asked
// what it is: nothing is written, and the run exits 130.
bool check_mpi_jobs(Plan& plan, const Registry& registry, int max_threads, double timeout_s) {
  int most_ranks = 0, most_threads = 1;
  for (const auto& s : plan.specs) {
    const BackendEntry* e = registry.find(s.backend);
    if (s.ranks > 0 && e != nullptr && e->available) {
      most_ranks = std::max(most_ranks, s.ranks);
      most_threads = std::max(most_threads, s.problem.threads);
    }
  }
  if (most_ranks == 0) return true;
  // The launcher is asked `--version` here, before anything is written: a signal meanwhile ends
  // the run as an interruption (130), at once, and takes the launcher's process group with it.
  install_interrupt_handler();
  MpiLauncher launcher;
  try {
    launcher = find_mpi_launcher(timeout_s);
  } catch (const LauncherProbeInterrupted&) {
    restore_default_interrupt_action();
    return false;
  } catch (...) {
    restore_default_interrupt_action();
    throw;
  }
  restore_default_interrupt_action();
  if (g_interrupted.load()) return false;  // a signal between the answer and the line above
  plan.warnings.push_back("MPI jobs launched as: " + launcher.describe() + " -np R");
  if (most_ranks * most_threads > max_threads) {
    plan.warnings.push_back("up to " + std::to_string(most_ranks) + " MPI ranks x " + std::to_string(most_threads) +
                            " threads on " + std::to_string(max_threads) +
                            " hardware threads: oversubscribed points measure time-slicing");
  }
  return true;
}

// A lower bound from optimistic rates (experiments/plan/estimate.hpp): a plan over an hour needs
// --yes, so a mistyped size cannot start a run of centuries. Returns the bound.
double check_duration(const Plan& plan, const Registry& registry, const RunArgs& a, std::ostream& err) {
  const double at_least = min_seconds(plan, registry);
  if (at_least > 3600 && !a.yes) {
    throw UsageError("this plan would take at least " + format_duration(at_least) +
                     " (a lower bound; check --size and --reps), pass --yes to run it anyway");
  }
  if (at_least > 600 && !a.quiet) {
    err << "parlab: this plan takes at least " << format_duration(at_least) << "\n";
  }
  return at_least;
}

// plan.warnings go into the run's context; the runner prints them with the context's own.
int start_run(const Registry& registry, const RunArgs& a, RunOptions options, const Plan& plan, int argc,
              const char* const* argv, std::ostream& err) {
  nlohmann::json invocation = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) invocation.push_back(argv[i]);
  // The roofs the records are held against (docs/ceilings.md): cached, or measured now.
  if (!a.no_ceilings) options.ceilings = load_or_measure_ceilings(registry, false, err);
  Runner runner(registry, err, options);
  install_interrupt_handler();
  const int code = runner.run_new(plan, a.out.empty() ? "results" : a.out, invocation);
  return with_report(code, runner.run_dir().string(), a, err);
}

}  // namespace

int cmd_run(Registry& registry, const RunArgs& a, std::ostream& out, std::ostream& err, int argc,
            const char* const* argv) {
  RunOptions options = run_options(a);
  set_peer_timeout(options.child_timeout_s);  // the external peers are measured in another process too
  // The hosts of every MPI job of this run (--ranks, a suite's "ranks", a resumed run's).
  if (!a.hostfile.empty()) set_mpi_hostfile(a.hostfile);
  if (!a.resume.empty()) return resume_run(registry, a, options, err);

  // Everything is parsed and the whole plan built before anything touches the disk, so bad
  // input never leaves a half-written result directory.
  const int max_threads = hardware_threads();
  const PlanOverrides o = plan_overrides(a, registry, max_threads);
  Plan plan = plan_of(a, o, registry, max_threads);
  // What this process measures is probed now (a Python library imported), so that the plan
  // printed, the "nothing measurable" verdict and the records agree with `parlab list`. Another
  // interpreter's points are its child's to judge.
  std::set<std::string> here;
  for (const auto& s : plan.specs) {
    if (s.interpreter.empty()) here.insert(s.backend);
  }
  if (!here.empty()) registry.probe({here.begin(), here.end()});
  if (!check_mpi_jobs(plan, registry, max_threads, options.child_timeout_s)) {
    err << "parlab: interrupted while asking the MPI launcher what it is; nothing was written\n";
    return 130;
  }
  int most_threads = 1;
  for (const auto& s : plan.specs) {
    if (s.ranks == 0) most_threads = std::max(most_threads, s.problem.threads);  // ranks x threads: check_mpi_jobs
  }
  // Read once: the plan's warning and the run's context quote this one reading.
  options.load_1min = load_average_1min();
  for (std::string& w : cpu_warnings(most_threads, max_threads, options.load_1min)) plan.warnings.push_back(std::move(w));
  const double at_least = check_duration(plan, registry, a, err);
  const std::string nothing = plan.specs.empty() ? std::string() : nothing_measurable(plan, registry);
  if (a.dry_run) {
    print_plan(plan, registry, at_least, out, history_of(plan, registry, a));
    // The code the run would have where the plan already decides it: a script can ask a dry run
    // whether the plan can run here (the plan is printed either way).
    if (!nothing.empty()) {
      out << "nothing in this plan can be measured here:" << nothing << "\n";
      return kExitUsage;
    }
    return kExitOk;
  }
  // Exit 2 before anything is written: a run of unavailable records alone would exit 0 with an
  // empty report, and read as a success.
  if (!nothing.empty()) throw UsageError("nothing in this plan can be measured here:" + nothing);
  if (!a.quiet) {
    if (const std::string h = history_text(history_of(plan, registry, a)); !h.empty()) {
      err << hanging("parlab: this plan takes ", h, terminal_width()) << "\n";
    }
  }
  return start_run(registry, a, options, plan, argc, argv, err);
}

}  // namespace parlab
