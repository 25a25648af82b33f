#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>

#include "args.hpp"
#include "backends.hpp"
#include "core/error.hpp"
#include "core/kernels.hpp"
#include "parlab/build_info.hpp"

namespace parlab {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

[[maybe_unused]] int max_hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// ---------------------------------------------------------------- list
int cmd_list(const Registry& registry, std::ostream& out) {
  out << "backends:\n";
  for (const auto& e : registry.entries()) {
    out << "  " << std::left << std::setw(16) << e.name << std::setw(7) << e.kind
        << (e.available ? "available    " : "unavailable  ") << (e.available ? e.detail : e.reason)
        << "\n";
  }
  out << "kernels:\n";
  for (const auto& k : kernel_specs()) {
    std::string precisions;
    for (auto p : k.precisions) precisions += std::string(precisions.empty() ? "" : ",") + to_string(p);
    out << "  " << std::left << std::setw(16) << k.name << std::setw(14) << precisions
        << "size = " << k.size_meaning << "\n";
  }
  return kExitOk;
}

// ---------------------------------------------------------------- pi
struct PiArgs {
  std::string backend = "serial";
  std::string threads = "1";
  std::string samples = "2^24";
  std::string seed = "0";
  bool json = false;
};

int cmd_pi(const Registry& registry, const PiArgs& a, std::ostream& out) {
  // Validate every argument before any work, so a usage error never follows partial output.
  const int threads = parse_threads(a.threads, "--threads");
  const std::uint64_t samples = parse_count(a.samples, "--samples", 1);
  const std::uint64_t seed = parse_u64(a.seed, "--seed");
  const BackendEntry& backend = registry.get(a.backend);

  Problem p;
  p.kernel = "pi";
  p.precision = Precision::i32;
  p.size = samples;
  p.seed = seed;
  p.threads = threads;
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

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"parlab: the same computations under serial, std::thread, a thread pool, oneTBB, "
               "OpenMP, CUDA and embedded Python, measured side by side.",
               "parlab"};
  app.set_version_flag("--version", std::string("parlab ") + build_info::kVersion);
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "List backends (with availability and reason) and kernels");

  PiArgs pi_args;
  auto* pi = app.add_subcommand("pi", "Monte Carlo pi on one backend: hits, estimate, 3-sigma verdict");
  pi->add_option("--backend,-b", pi_args.backend, "Backend name (see `parlab list`)")->capture_default_str();
  pi->add_option("--threads,-t", pi_args.threads, "Thread count, a positive integer")->capture_default_str();
  pi->add_option("--samples,-n", pi_args.samples, "Sample count N >= 1 (e.g. 1000000, 2^28, 1e9)")
      ->capture_default_str();
  pi->add_option("--seed,-s", pi_args.seed, "64-bit seed (decimal or 0x hex)")->capture_default_str();
  pi->add_flag("--json", pi_args.json, "Print one JSON object instead of text");

  // CLI11 reports an unknown first word only as "a subcommand is required"; name it instead.
  const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  const auto is_subcommand = [&](std::string_view word) {
    return std::any_of(subcommands.begin(), subcommands.end(),
                       [&](const CLI::App* sub) { return sub->get_name() == word; });
  };
  if (argc > 1 && argv[1][0] != '-' && !is_subcommand(argv[1])) {
    std::string accepted;
    for (const auto* sub : subcommands) accepted += (accepted.empty() ? "" : ", ") + sub->get_name();
    err << "parlab: unknown command '" << argv[1] << "' (accepted: " << accepted << ")\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "parlab: " << e.what() << "\n";
    err << "Run with --help for usage.\n";
    return kExitUsage;
  }

  try {
    const Registry registry = make_registry();
    if (*list) return cmd_list(registry, out);
    if (*pi) return cmd_pi(registry, pi_args, out);
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
