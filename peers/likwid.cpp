#include "likwid.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/error.hpp"
#include "core/kernel_table.hpp"
#include "peer_text.hpp"

namespace parlab::likwid {
namespace {

using peer_text::excerpt;
using peer_text::lines_of;
using peer_text::stderr_note;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The value of the first "<key>:" line (key at the line's start), or nullopt.
std::optional<std::string_view> value_of(const std::vector<std::string_view>& lines, std::string_view key) {
  for (std::string_view l : lines) {
    if (l.size() > key.size() && l.substr(0, key.size()) == key && l[key.size()] == ':') {
      return trim(l.substr(key.size() + 1));
    }
  }
  return std::nullopt;
}

std::string_view required(const std::vector<std::string_view>& lines, std::string_view key) {
  const auto v = value_of(lines, key);
  if (!v) throw FailureError("no '" + std::string(key) + ":' line");
  return *v;
}

// A finite number >= 0 (> 0 where `positive`), with an optional unit word after it ("sec").
double number(std::string_view text, std::string_view key, bool positive, std::string_view unit = {}) {
  std::string_view f = text;
  if (!unit.empty() && f.size() > unit.size() && f.substr(f.size() - unit.size()) == unit) {
    f = trim(f.substr(0, f.size() - unit.size()));
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (f.empty() || ec != std::errc() || end != f.data() + f.size() || !std::isfinite(v) || v < 0 ||
      (positive && !(v > 0))) {
    throw FailureError(std::string(key) + " '" + excerpt(text) + "' is not a " +
                       (positive ? "positive" : "non-negative") + " finite number");
  }
  return v;
}

std::uint64_t whole(std::string_view text, std::string_view key) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v == 0) {
    throw FailureError(std::string(key) + " '" + excerpt(text) + "' is not a positive whole number");
  }
  return v;
}

std::string format_rate(double per_s, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g G%s", per_s / 1e9, unit);
  return buf;
}

struct KernelTests {
  const char* kernel;
  int streams;
  const char* avx512;
  const char* avx;
  const char* sse;
};

// From `likwid-bench -a` of likwid 5.2.2 (the NT-store and peak-flops tests; see likwid.hpp).
// The catalogue kernels likwid-bench-nt runs, keyed by the catalogue like every wing's table: a
// STREAM kernel added to the catalogue is not among them until likwid-bench has a test for it.
const KernelTable<KernelTests>& kernel_table() {
  static const KernelTable<KernelTests> table = [] {
    KernelTable<KernelTests> t;
    t.kernel("copy", {"copy", 2, "copy_mem_avx512", "copy_mem_avx", "copy_mem_sse"});
    t.kernel("triad", {"triad", 3, "stream_mem_avx512", "stream_mem_avx", "stream_mem"});
    return t;
  }();
  return table;
}

// likwid-bench-peakflops's own kernel, not in the catalogue: a roof probe (family "peak"), as
// the GPU practices are the cuda entry's own.
constexpr KernelTests kPeakflops = {"peakflops", 1, "peakflops_avx512_fma", "peakflops_avx_fma", "peakflops_sse"};

const KernelTests& tests_of(const std::string& kernel) {
  if (kernel == kPeakflops.kernel) return kPeakflops;
  if (const KernelTests* t = kernel_table().find(kernel)) return *t;
  std::string accepted;
  for (const auto& n : kernel_names()) accepted += (accepted.empty() ? "" : ", ") + n;
  throw UsageError("likwid-bench peer has no kernel '" + kernel + "' (accepted: " + accepted + ")");
}

class LikwidWorkload final : public Workload {
 public:
  LikwidWorkload(std::string backend, Invocation inv, PeerLauncher launch)
      : backend_(std::move(backend)),
        inv_(std::move(inv)),
        launch_(std::move(launch)),
        argv_(command_line(inv_)) {
    // likwid-bench reads its configuration at start and looks for likwid-accessD on PATH (even for
    // benchmarks, where it reads no counter); the package puts the daemon in sbin, which a user's
    // PATH often lacks.
    const char* path = std::getenv("PATH");
    const std::string sbin = access_daemon_dir(inv_.binary);
    env_.emplace_back("PATH",
                      (path != nullptr && *path != '\0' ? std::string(path) + ":" : std::string()) + sbin);
    command_ = peer_text::command_text({}, argv_);  // for messages (PATH is too long to show)
  }

  void run() override {
    last_.reset();
    const PeerProcess c = launch_(argv_, env_);
    if (c.interrupted) {
      interrupted_ = true;  // nothing measured; the runner leaves the measurement to --resume
      return;
    }
    if (!c.started) throw FailureError(backend_ + ": " + inv_.binary + " " + c.ended);
    if (c.exit_code != 0)
      throw FailureError(backend_ + ": `" + command_ + "` " + c.ended + stderr_note(c.err_tail));
    Report r;
    try {
      r = checked(c.out);
    } catch (const FailureError& e) {
      throw FailureError(backend_ + ": `" + command_ + "`: " + e.what() + stderr_note(c.err_tail));
    }
    // One iteration of every thread at once: the record's time is the mean iteration's, as
    // likwid-bench's own figures are means over its iterations.
    last_ = SelfTiming{r.time_s / static_cast<double>(r.iterations_per_thread), 0.0};
    flops_per_iteration_ = r.flops / static_cast<double>(r.iterations_per_thread);
    bytes_per_iteration_ = r.data_volume_bytes / static_cast<double>(r.iterations_per_thread);
    if (timed_ == 0) {
      sum_bytes_per_s_ = sum_flops_per_s_ = 0;
      iterations_ = 0;
    }
    sum_bytes_per_s_ += r.mbytes_per_s * 1e6;
    sum_flops_per_s_ += r.mflops_per_s * 1e6;
    iterations_ += r.iterations_per_thread;
    ++runs_;
    ++timed_;
  }

  // Its figures over the timed invocations only, as the runner's statistic leaves out the warm-up.
  void warmed_up() override { timed_ = 0; }

  Validation validate() override {
    if (runs_ == 0) return Validation::never_ran();
    Validation v;
    v.checksum = 0.0;  // likwid-bench checks no result: it has none to compare
    const double n = static_cast<double>(std::max<std::uint64_t>(timed_, 1));
    v.metrics = {{"peer_mean_bytes_per_s", sum_bytes_per_s_ / n},
                 {"peer_mean_flops_per_s", sum_flops_per_s_ / n},
                 {"peer_invocations", static_cast<double>(timed_)},
                 {"peer_iterations_per_thread", static_cast<double>(iterations_)}};
    if (interrupted_) {
      v.pass = false;
      v.detail = "interrupted: an invocation of " + command_ + " was stopped";
      return v;
    }
    v.detail = "likwid-bench " + inv_.test + " has no result check; " + std::to_string(runs_) +
               " invocation" + (runs_ == 1 ? "" : "s") + " of `" + command_ +
               "`; its figures (mean over its iterations, " +
               "averaged over the timed invocations): " + format_rate(sum_bytes_per_s_ / n, "B/s") +
               (sum_flops_per_s_ > 0 ? ", " + format_rate(sum_flops_per_s_ / n, "flop/s") : std::string());
    return v;
  }

  WorkCount work() const override {
    if (inv_.kernel == "peakflops") {
      // No parlab kernel is this one: its work is likwid-bench's own count, per iteration.
      WorkCount w;
      w.flops = flops_per_iteration_;
      w.bytes = bytes_per_iteration_;
      return w;
    }
    return kernel_work(inv_.kernel, Precision::f64, inv_.size);
  }

  std::optional<SelfTiming> last_timing() const override { return last_; }

 private:
  // The report, checked against the planned measurement and parlab's byte count.
  Report checked(const std::string& out) const {
    Report r;
    try {
      r = parse_report(out);
    } catch (const FailureError& e) {
      throw FailureError(std::string("output is not likwid-bench's report: ") + e.what());
    }
    if (r.test != inv_.test)
      throw FailureError("it ran test '" + excerpt(r.test, 60) + "', not " + inv_.test);
    if (r.threads != inv_.threads) {
      throw FailureError("it used " + std::to_string(r.threads) + " threads, not the " +
                         std::to_string(inv_.threads) + " asked for");
    }
    const std::uint64_t want = working_set_bytes();
    if (r.size_bytes != want) {
      throw FailureError(
          "its working set is " + std::to_string(r.size_bytes) + " bytes, not the " + std::to_string(want) +
          " asked for (it rounds a vector length to a multiple of its loop stride times the threads: "
          "choose a size that is one)");
    }
    if (inv_.kernel != "peakflops") {
      // Its bytes per iteration must be parlab's, or the two bandwidths would not be comparable.
      const double per_iteration = r.data_volume_bytes / static_cast<double>(r.iterations_per_thread);
      const double expected = kernel_work(inv_.kernel, Precision::f64, inv_.size).bytes;
      if (std::abs(per_iteration - expected) > 1e-6 * expected) {
        throw FailureError("it moved " + std::to_string(per_iteration) +
                           " bytes per iteration, not parlab's " + std::to_string(expected) + " for " +
                           inv_.kernel + " of " + std::to_string(inv_.size) + " elements");
      }
    }
    return r;
  }

  std::uint64_t working_set_bytes() const {
    return static_cast<std::uint64_t>(streams_of(inv_.kernel)) * sizeof(double) * inv_.size;
  }

  std::string backend_;
  Invocation inv_;
  PeerLauncher launch_;
  std::vector<std::string> argv_;
  PeerEnv env_;
  std::string command_;
  std::optional<SelfTiming> last_;
  double flops_per_iteration_ = 0, bytes_per_iteration_ = 0;
  double sum_bytes_per_s_ = 0, sum_flops_per_s_ = 0;
  std::uint64_t iterations_ = 0;
  std::uint64_t runs_ = 0, timed_ = 0;
  bool interrupted_ = false;
};

}  // namespace

Report parse_report(const std::string& out) {
  if (out.find_first_not_of(" \t\r\n") == std::string::npos)
    throw FailureError("it printed nothing on stdout");
  const std::vector<std::string_view> lines = lines_of(out);
  if (!value_of(lines, "Test")) {
    throw FailureError("no 'Test:' line; its stdout begins '" + excerpt(out) + "'");
  }
  Report r;
  r.test = std::string(required(lines, "Test"));
  // "Using 2 threads": not a key-value line.
  for (std::string_view l : lines) {
    constexpr std::string_view pre = "Using ", post = " threads";
    if (l.size() > pre.size() + post.size() && l.substr(0, pre.size()) == pre &&
        l.substr(l.size() - post.size()) == post) {
      r.threads =
          static_cast<int>(whole(l.substr(pre.size(), l.size() - pre.size() - post.size()), "thread count"));
    }
  }
  if (r.threads == 0) throw FailureError("no 'Using N threads' line");
  r.time_s = number(required(lines, "Time"), "Time", true, "sec");
  r.iterations = whole(required(lines, "Iterations"), "Iterations");
  r.iterations_per_thread = whole(required(lines, "Iterations per thread"), "Iterations per thread");
  r.size_bytes = whole(required(lines, "Size (Byte)"), "Size (Byte)");
  r.flops = number(required(lines, "Number of Flops"), "Number of Flops", false);
  r.mflops_per_s = number(required(lines, "MFlops/s"), "MFlops/s", false);
  r.data_volume_bytes = number(required(lines, "Data volume (Byte)"), "Data volume (Byte)", false);
  r.mbytes_per_s = number(required(lines, "MByte/s"), "MByte/s", false);
  // Its figures are printed to 0.01 and its time to 7 digits: MByte/s must be the data volume
  // over the time (decimal megabytes), MFlops/s the flops over it, or the report is garbled.
  const auto agrees = [&](double reported_m, double total, const char* what) {
    const double expected = total / r.time_s / 1e6;
    if (std::abs(reported_m - expected) > 1e-5 * expected + 0.011) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s %.2f is not its total / Time = %.2f: garbled", what, reported_m,
                    expected);
      throw FailureError(buf);
    }
  };
  agrees(r.mbytes_per_s, r.data_volume_bytes, "MByte/s");
  agrees(r.mflops_per_s, r.flops, "MFlops/s");
  if (r.data_volume_bytes == 0 && r.flops == 0) throw FailureError("it reports neither bytes nor flops");
  return r;
}

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = kernel_table().names();
    v.emplace_back(kPeakflops.kernel);
    return v;
  }();
  return names;
}

std::optional<Isa> host_isa() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  // The avx peakflops test uses FMA; a CPU with AVX and no FMA (Sandy Bridge) runs the SSE one.
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx;
  return Isa::sse;  // SSE2 is x86-64's baseline
#else
  return std::nullopt;
#endif
}

std::string test_name(const std::string& kernel, Isa isa) {
  const KernelTests& t = tests_of(kernel);
  switch (isa) {
    case Isa::avx512:
      return t.avx512;
    case Isa::avx:
      return t.avx;
    case Isa::sse:
      return t.sse;
  }
  return t.sse;
}

int streams_of(const std::string& kernel) {
  return tests_of(kernel).streams;
}

std::vector<std::string> command_line(const Invocation& inv) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(streams_of(inv.kernel)) * sizeof(double) * inv.size;
  return {inv.binary, "-t", inv.test, "-W",
          "N:" + std::to_string(bytes) + "B:" + std::to_string(inv.threads)};
}

std::string access_daemon_dir(const std::string& binary) {
  const std::filesystem::path bin = std::filesystem::path(binary).parent_path();
  return (bin.parent_path() / "sbin").string();
}

std::unique_ptr<Workload> make_workload(std::string backend, std::string binary, Isa isa, PeerLauncher launch,
                                        const Problem& p) {
  if (p.precision != Precision::f64) {
    throw UsageError("backend '" + backend + "' runs " + p.kernel + " in double only, not " +
                     to_string(p.precision));
  }
  if (p.size == 0 || p.size > std::numeric_limits<std::uint64_t>::max() / 64) {
    throw UsageError("backend '" + backend + "': size " + std::to_string(p.size) + " is not an array size");
  }
  Invocation inv;
  inv.binary = std::move(binary);
  inv.kernel = p.kernel;
  inv.test = test_name(p.kernel, isa);  // throws UsageError for a kernel the peer does not run
  inv.size = p.size;
  inv.threads = std::max(1, p.threads);
  return std::make_unique<LikwidWorkload>(std::move(backend), std::move(inv), std::move(launch));
}

namespace {

namespace fs = std::filesystem;

struct PeerBackend {
  const char* name;
  std::vector<std::string> kernels;
  const char* what;
};

// The binary: PARLAB_LIKWID_BENCH, else likwid-bench on PATH; empty with the reason when neither.
std::string find_binary(std::string& from, std::string& why) {
  std::error_code ec;
  if (const char* v = std::getenv("PARLAB_LIKWID_BENCH"); v != nullptr && *v != '\0') {
    from = "PARLAB_LIKWID_BENCH";
    if (!fs::is_regular_file(v, ec)) {
      why = std::string("PARLAB_LIKWID_BENCH ") + v + " is not a file";
      return {};
    }
    return fs::absolute(v, ec).string();
  }
  from = "PATH";
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "";
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / "likwid-bench";
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  why =
      "no likwid-bench on PATH (install Debian's likwid package, scripts/install-deps.sh does, or set "
      "PARLAB_LIKWID_BENCH to the binary)";
  return {};
}

}  // namespace

void add_likwid_backends(Registry& registry, const PeerLauncher& launch) {
  const PeerBackend backends[] = {
      {"likwid-bench-nt", kernel_table().names(), "non-temporal-store copy_mem_* / stream_mem_*"},
      {"likwid-bench-peakflops", {kPeakflops.kernel}, "peakflops_* (FP64 multiplies and adds, in cache)"}};
  std::string from, why;
  const std::string binary = find_binary(from, why);
  const std::optional<Isa> isa = host_isa();
  std::error_code ec;
  if (why.empty() && (fs::status(binary, ec).permissions() & (fs::perms::owner_exec | fs::perms::group_exec |
                                                              fs::perms::others_exec)) == fs::perms::none) {
    why = binary + " is not an executable file";
  }
  if (why.empty() && !isa) why = "likwid-bench's tests here are written for x86-64 (this is another CPU)";
  if (why.empty() && !launch) why = "this build has no process launcher for external peers";
  for (const PeerBackend& b : backends) {
    BackendEntry e;
    e.name = b.name;
    e.kind = BackendKind::peer;
    e.processor = Processor::cpu;  // likwid-bench runs on this host's cores
    e.in_default_set = false;  // measured where a suite or --backend names it
    e.kernels = b.kernels;
    e.own_family = "peak";  // peakflops, which the catalogue has not: a roof probe
    if (!why.empty()) {
      e.available = false;
      e.reason = why;
      e.make = [reason = why, name = e.name](const Problem&) -> std::unique_ptr<Workload> {
        throw UnavailableError(name + ": " + reason);
      };
      registry.add(std::move(e));
      continue;
    }
    e.available = true;
    std::string tests;
    for (const auto& k : b.kernels) tests += (tests.empty() ? "" : ", ") + k + " = " + test_name(k, *isa);
    e.detail =
        std::string("likwid-bench at ") + binary + " (" + from + "), " + b.what + ": " + tests +
        "; -W N:<bytes>B:<threads>, its mean over its iterations; PATH += " + access_daemon_dir(binary) +
        " (likwid-accessD)";
    e.make = [name = e.name, binary, isa = *isa, launch, kernels = e.kernels](const Problem& p) {
      if (std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) {
        std::string accepted;
        for (const auto& k : kernels) accepted += (accepted.empty() ? "" : ", ") + k;
        throw UsageError("backend '" + name + "' does not run kernel '" + p.kernel +
                         "' (accepted: " + accepted + ")");
      }
      return make_workload(name, binary, isa, launch, p);
    };
    registry.add(std::move(e));
  }
}

}  // namespace parlab::likwid
