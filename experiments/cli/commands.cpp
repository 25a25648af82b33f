// `parlab list`, `pi`, `report` and `compare`: the short commands (commands.hpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/plan/args.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/text.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/io/data_dir.hpp"
#include "experiments/machine/interpreters.hpp"
#include "experiments/plan/suggest.hpp"
#include "experiments/plan/suite.hpp"
#include "core/error.hpp"
#include "experiments/io/numbers.hpp"
#include "core/kernels.hpp"

namespace parlab {

// ---------------------------------------------------------------- list
namespace {

// "  name                    cpu    available    ": a row's columns, padded; a name wider than its
// column gets one space after it.
std::string padded(std::initializer_list<std::pair<std::string, std::size_t>> cells) {
  std::string row = "  ";
  for (const auto& [text, width] : cells) row += text + std::string(text.size() < width ? width - text.size() : 1, ' ');
  return row;
}

void list_backends(const Registry& registry, std::ostream& out, std::size_t width) {
  out << "backends:\n";
  for (const auto& e : registry.entries()) {
    const char* state = e.available ? "available" : e.broken ? "FAILED" : "unavailable";
    out << column_text(padded({{e.name, 24}, {to_string(e.kind), 7}, {state, 13}}), e.available ? e.detail : e.reason,
                       width)
        << "\n";
  }
}

void list_kernels(std::ostream& out, std::size_t width) {
  out << "kernels:\n";
  for (const auto& k : kernel_specs()) {
    std::string precisions;
    for (auto p : k.precisions) precisions += std::string(precisions.empty() ? "" : ",") + to_string(p);
    out << column_text(padded({{std::string(k.name), 16}, {to_string(k.family), 10}, {precisions, 14}}),
                       "size = " + std::string(k.size_meaning), width)
        << "\n";
  }
}

// A suite's description in the listing: its first lines only, so that one long description
// (stream-peers' runs to 30 lines at 80 columns) does not push the others off the screen.
constexpr std::size_t kSuiteListedLines = 3;

std::string suite_description(const std::string& name) {
  try {
    const nlohmann::json s = load_suite(name);
    const auto d = s.find("description");
    return d != s.end() && d->is_string() ? d->get<std::string>() : std::string();
  } catch (const Error& e) {
    return std::string("unreadable: ") + e.what();
  }
}

void list_suites(std::ostream& out, std::size_t width) {
  out << "suites (" << suites_dir().string() << "):\n";
  for (const auto& name : suite_names()) {
    out << column_text(padded({{name, 16}}), suite_description(name), width, kSuiteListedLines) << "\n";
  }
  out << hanging("", "(`parlab list suites NAME` prints a suite's whole description)", width) << "\n";
}

// A name given on the command line, as a message quotes it: cut, valid UTF-8, and its control
// characters written as \xNN, so a hostile one cannot move the terminal's cursor or clear it.
std::string shown_name(const std::string& name) {
  std::string shown;
  for (const char c : quoted_value(name, 60)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      shown += std::string("\\x") + kHex[u >> 4] + kHex[u & 0xf];
    } else {
      shown += c;
    }
  }
  return shown;
}

// `parlab list suites NAME`: the suite's name, file and whole description. Only the suites
// directory's names: an unknown one is refused with the closest (did-you-mean).
void show_suite(const std::string& name, std::ostream& out, std::size_t width) {
  const std::vector<std::string> names = suite_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw UsageError("unknown suite '" + shown_name(name) + "'" + did_you_mean(name, names) +
                     " (`parlab list suites` names them)");
  }
  const nlohmann::json s = load_suite(name);
  // The file on a line of its own: a path is one word, never cut, however deep the install.
  out << name << ":\n  (" << (suites_dir() / (name + ".json")).string() << ")\n";
  const auto d = s.find("description");
  out << hanging("  ", d != s.end() && d->is_string() ? d->get<std::string>() : "(no description)", width) << "\n";
}

}  // namespace

int cmd_list(Registry& registry, const std::string& what, const std::string& name, std::ostream& out) {
  const std::size_t width = terminal_width();
  if (!name.empty()) {
    if (what != "suites") throw UsageError("list: a NAME is taken after 'suites' only (`parlab list suites NAME`)");
    show_suite(name, out, width);
    return kExitOk;
  }
  if (what.empty() || what == "backends") {
    registry.probe();  // what a run would find: a Python library imported, not assumed
    list_backends(registry, out, width);
  }
  if (what.empty() || what == "interpreters") list_interpreters(out, width);
  if (what.empty() || what == "kernels") list_kernels(out, width);
  if (what.empty() || what == "suites") list_suites(out, width);
  return kExitOk;
}

// ---------------------------------------------------------------- pi
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
      << " sigma from N*pi/4 (at most 3 passes)\n"
      << "time     " << seconds << " s, "
      << format_rate(seconds > 0 ? static_cast<double>(samples) / seconds : 0.0, "samples/s") << "\n";
    out << s.str();
  }
  return v.pass ? kExitOk : kExitFailure;
}

// ---------------------------------------------------------------- plot / report
namespace {

// The Python scripts parlab starts, and their interpreter: $PARLAB_PYTHON overrides Debian's
// python3 (where matplotlib and pandas are); a script is data_dir()/<name> unless `env_override`
// names another file.
// A missing interpreter or script is the environment's error (exit 2), named with its variable.
std::vector<std::string> script_command(const std::string& name, const char* env_override) {
  std::string script;
  const char* s = std::getenv(env_override);
  if (s && *s) {
    script = s;
  } else {
    script = (data_dir() / name).string();
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(script, ec)) {
    throw UsageError("the script '" + quoted_value(script) + "' is not there" +
                     (s && *s ? std::string("; unset ") + env_override + ", or point it at " + name
                              : "; the installation is incomplete (reinstall, or set PARLAB_DATA_DIR)"));
  }
  std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (const char* p = std::getenv("PARLAB_PYTHON"); p && *p) {
    python = p;
    if (python.find('/') != std::string::npos && ::access(p, X_OK) != 0) {
      throw UsageError("PARLAB_PYTHON='" + quoted_value(python) + "' is not an executable file; unset it, or " +
                       "set it to a Python 3 with matplotlib (scripts/install-deps.sh installs Debian's)");
    }
  }
  return {python, script};
}

// Runs a script with this process's stdout; returns its exit code (-1 when it could not start).
// SIGINT and SIGTERM to parlab reach the script (SIGINT, then SIGKILL 10 s later: run_child),
// and parlab waits for it: the script removes what it had half written and exits 130.
ChildOutput run_script(std::vector<std::string> args, std::ostream& err) {
  install_interrupt_handler();
  std::cout << std::flush;
  err << std::flush;
  SpawnOptions options;
  options.capture_stdout = false;
  options.interrupted = &g_interrupted;
  return run_child(args, options);
}

}  // namespace

// Plots and report.html of a run ($PARLAB_PLOT_SCRIPT overrides analysis/plot.py). Its output
// is the user's; a script that fails makes the command fail, with its message.
int cmd_report(const std::string& run_dir, std::ostream& err, const ReportOptions& options) {
  std::vector<std::string> args = script_command("analysis/plot.py", "PARLAB_PLOT_SCRIPT");
  // A run folder named "-x" (from --out=-x) would read as an option to the script: "./-x" is the
  // same folder and cannot.
  args.push_back(!run_dir.empty() && run_dir[0] == '-' ? "./" + run_dir : run_dir);
  if (options.quiet) args.push_back("--quiet");
  if (!options.summary.empty()) args.insert(args.end(), {"--summary", options.summary});
  if (options.summary_only) args.push_back("--summary-only");
  const ChildOutput c = run_script(args, err);
  if (c.exit_code == 0) return kExitOk;
  if (c.interrupted || c.exit_code == 130) return 130;
  // plot.py's own codes keep their meaning: 2 bad input (a missing or malformed run), 3 its bug.
  if (c.exit_code == kExitUsage || c.exit_code == 3) return c.exit_code;
  const std::string last = last_line(c.err_tail);  // the script's own last word, under the verdict
  err << "parlab: the plots and report of " << run_dir << " failed: " << args[0] << " " << args[1] << " "
      << c.describe_end() << (c.exit_code == -1 ? " (set PARLAB_PYTHON)" : "") << (last.empty() ? "" : ": " + last)
      << "\n";
  // An interpreter that cannot start is the environment's error; a script that died, a failure.
  return c.exit_code == -1 ? kExitUsage : kExitFailure;
}

// `parlab compare BASE NEW [options]`: analysis/compare.py, whose exit code is the command's
// (0 compared, 1 --fail-if-slower tripped, 2 bad input, 3 internal error, 5 the gate judged
// nothing, 130 interrupted).
// Exit 1 means "slower" to a CI gate or `git bisect run`, so nothing else may turn into 1: a
// script that cannot start is an environment error (2), one that dies otherwise a bug (3).
int cmd_compare(const std::vector<std::string>& passed, std::ostream& err) {
  std::vector<std::string> args = script_command("analysis/compare.py", "PARLAB_COMPARE_SCRIPT");
  args.insert(args.end(), passed.begin(), passed.end());
  const ChildOutput c = run_script(args, err);
  if (c.interrupted || c.exit_code == 130) return 130;
  if ((c.exit_code >= 0 && c.exit_code <= 3) || c.exit_code == kExitNothingJudged) return c.exit_code;
  err << "parlab: compare: " << args[0] << " " << args[1] << " " << c.describe_end()
      << (c.exit_code == -1 ? " (set PARLAB_PYTHON)" : "") << "\n";
  return c.exit_code == -1 ? kExitUsage : 3;
}

}  // namespace parlab
