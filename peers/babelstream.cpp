#include "babelstream.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/error.hpp"
#include "core/stream.hpp"
#include "peer_text.hpp"

namespace parlab::babelstream {
namespace {

using peer_text::excerpt;
using peer_text::lines_of;
using peer_text::stderr_note;

// BabelStream's CSV header; field 4 is max_<unit>_per_sec (unit_bytes reads it).
constexpr std::string_view kHeaderNames[] = {"function",        "num_times",   "n_elements",  "sizeof",
                                             "max_<unit>_per_sec", "min_runtime", "max_runtime", "avg_runtime"};
constexpr std::size_t kFields = std::size(kHeaderNames);

// The bandwidth column's unit, as main.cpp's Unit::str() names it (and v4/v5's names), in bytes.
std::optional<double> unit_bytes(std::string_view column) {
  constexpr std::string_view prefix = "max_", suffix = "_per_sec";
  if (column.size() <= prefix.size() + suffix.size() || column.substr(0, prefix.size()) != prefix ||
      column.substr(column.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  const std::string_view unit = column.substr(prefix.size(), column.size() - prefix.size() - suffix.size());
  static const std::pair<std::string_view, double> units[] = {
      {"MB", 1e6},           {"GB", 1e9},       {"TB", 1e12},          {"MiB", 1048576.0},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"mbytes", 1e6},       {"mibytes", 1048576.0}};  // BabelStream v4.0 and v5.0
  for (const auto& [name, bytes] : units) {
    if (unit == name) return bytes;
  }
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = line.find(sep, start);
    out.push_back(line.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::uint64_t integer_field(std::string_view f, std::string_view name, std::size_t row) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (f.empty() || ec != std::errc() || end != f.data() + f.size()) {
    throw FailureError("row " + std::to_string(row) + ": " + std::string(name) + " '" + excerpt(f) +
                       "' is not a whole number");
  }
  return v;
}

// A positive, finite number (times and bandwidths).
double positive_field(std::string_view f, std::string_view name, std::size_t row) {
  double v = 0;
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (f.empty() || ec != std::errc() || end != f.data() + f.size() || !std::isfinite(v) || !(v > 0)) {
    throw FailureError("row " + std::to_string(row) + ": " + std::string(name) + " '" + excerpt(f) +
                       "' is not a positive finite number");
  }
  return v;
}

// BabelStream's first "FAILED validation" line, if its gold check failed.
std::string gold_failure(const std::string& err) {
  for (std::string_view l : lines_of(err)) {
    if (l.find("FAILED validation") != std::string_view::npos) return excerpt(l, 300);
  }
  return {};
}

std::string format_rate(double bytes_per_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s", bytes_per_s / 1e9);
  return buf;
}

class BabelStreamWorkload final : public Workload {
 public:
  BabelStreamWorkload(std::string backend, Invocation inv, PeerLauncher launch, int threads)
      : backend_(std::move(backend)),
        inv_(std::move(inv)),
        launch_(std::move(launch)),
        argv_(command_line(inv_)),
        label_(label_of(inv_.kernel)),
        info_(info(*stream_kernel_from_name(inv_.kernel))),
        element_bytes_(inv_.precision == Precision::f32 ? 4 : 8) {
    if (!inv_.gpu) env_.emplace_back("OMP_NUM_THREADS", std::to_string(threads));
    command_ = peer_text::command_text(env_, argv_);  // for messages: what it sets, and runs
  }

  void run() override {
    last_.reset();
    const PeerProcess c = launch_(argv_, env_);
    if (c.interrupted) {
      // This process was interrupted (SIGINT/SIGTERM) and stopped the binary: nothing was
      // measured, and the runner, seeing the interruption, leaves the measurement to --resume.
      interrupted_ = true;
      return;
    }
    if (!c.started) throw FailureError(backend_ + ": " + inv_.binary + " " + c.ended);
    if (c.exit_code != 0) {
      std::string why = backend_ + ": `" + command_ + "` " + c.ended;
      if (const std::string g = gold_failure(c.err_tail); !g.empty()) why += " after its gold check failed (" + g + ")";
      throw FailureError(why + stderr_note(c.err_tail));
    }
    CsvRow row;
    try {
      row = checked_row(c);
    } catch (const FailureError& e) {
      throw FailureError(e.what() + stderr_note(c.err_tail));  // what the binary said, as for any fault
    }
    if (const std::string g = gold_failure(c.err_tail); !g.empty() && gold_failure_.empty()) gold_failure_ = g;
    last_ = SelfTiming{row.avg_s, 0.0};
    best_bytes_per_s_ = timed_ == 0 ? row.bytes_per_s : std::max(best_bytes_per_s_, row.bytes_per_s);
    best_min_s_ = timed_ == 0 ? row.min_s : std::min(best_min_s_, row.min_s);
    ++runs_;
    ++timed_;
  }

  // BabelStream's own figure is the fastest iteration of the timed invocations only: the warm-up
  // invocations' iterations are as many again, and a fastest over twice the iterations of
  // parlab's timed repetitions would not be the same statistic on both sides.
  void warmed_up() override {
    timed_ = 0;
    best_bytes_per_s_ = 0;
    best_min_s_ = 0;
  }

  Validation validate() override {
    if (runs_ == 0) return Validation::never_ran();
    Validation v;
    v.checksum = 0.0;  // BabelStream prints no result values, only its verdict
    // Invocations whose iterations the figure covers: the timed ones (all of them when the runner
    // never said the warm-up was over, as for a workload run outside it).
    v.metrics = {{"peer_bytes_per_s", best_bytes_per_s_},
                 {"peer_min_runtime_s", best_min_s_},
                 {"peer_invocations", static_cast<double>(timed_)},
                 {"peer_num_times", static_cast<double>(kNumTimes)}};
    if (interrupted_) {
      v.pass = false;
      v.detail = "interrupted: an invocation of " + command_ + " was stopped";
    } else if (!gold_failure_.empty()) {
      v.pass = false;
      v.detail = "BabelStream's own gold check failed: " + gold_failure_;
    } else {
      v.detail = "BabelStream's own gold check passed in " + std::to_string(runs_) + " invocation" +
                 (runs_ == 1 ? "" : "s") + " of `" + command_ + "`; its figure (bandwidth from its fastest iteration): " +
                 format_rate(best_bytes_per_s_);
    }
    return v;
  }

  WorkCount work() const override { return kernel_work(inv_.kernel, inv_.precision, inv_.size); }

  std::optional<SelfTiming> last_timing() const override { return last_; }

 private:
  // The row of this record's kernel, checked against the planned measurement.
  CsvRow checked_row(const PeerProcess& c) const {
    const std::string where = backend_ + ": `" + command_ + "`: ";
    std::vector<CsvRow> rows;
    try {
      rows = parse_csv(c.out);
    } catch (const FailureError& e) {
      throw FailureError(where + "output is not BabelStream's CSV: " + e.what());
    }
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const CsvRow& r) { return r.function == label_; });
    if (it == rows.end()) {
      std::string found;
      for (const auto& r : rows) found += (found.empty() ? "" : ", ") + excerpt(r.function, 40);
      throw FailureError(where + "its CSV has no row for " + label_ + " (rows: " + found + ")");
    }
    const CsvRow& r = *it;
    const auto mismatch = [&](const std::string& what, std::uint64_t got, std::uint64_t want) {
      throw FailureError(where + "its " + label_ + " row reports " + what + " " + std::to_string(got) + ", not the " +
                         std::to_string(want) + " asked for");
    };
    if (r.n_elements != inv_.size) mismatch("n_elements", r.n_elements, inv_.size);
    if (r.element_bytes != element_bytes_) mismatch("sizeof", r.element_bytes, element_bytes_);
    if (r.num_times != static_cast<std::uint64_t>(kNumTimes)) mismatch("num_times", r.num_times, kNumTimes);
    // Its timings are 6 significant digits; the statistics must be ordered, and its bandwidth
    // must be parlab's bytes over its min time, or the two bandwidths would not be comparable.
    constexpr double kRounding = 2e-5;
    if (r.min_s > r.avg_s * (1 + kRounding) || r.avg_s > r.max_s * (1 + kRounding)) {
      throw FailureError(where + "its " + label_ + " row's runtimes are out of order (min " + std::to_string(r.min_s) +
                         ", avg " + std::to_string(r.avg_s) + ", max " + std::to_string(r.max_s) + " s)");
    }
    const double expected = work().bytes / r.min_s;
    if (std::abs(r.bytes_per_s - expected) > 1e-4 * expected) {
      throw FailureError(where + "its " + label_ + " bandwidth " + format_rate(r.bytes_per_s) + " is not " +
                         std::to_string(info_.words) + " x sizeof x n_elements / min_runtime = " +
                         format_rate(expected) + " (parlab's byte count): garbled, or BabelStream counts bytes "
                         "differently from the version this was written against");
    }
    return r;
  }

  std::string backend_;
  Invocation inv_;
  PeerLauncher launch_;
  std::vector<std::string> argv_;
  PeerEnv env_;
  std::string command_;  // for messages: the environment it sets, the binary's name, its arguments
  std::string label_;
  StreamKernelInfo info_;
  std::uint64_t element_bytes_;
  std::optional<SelfTiming> last_;
  std::uint64_t runs_ = 0;   // every invocation (its gold check covers them all)
  std::uint64_t timed_ = 0;  // those after the warm-up, which BabelStream's own figure covers
  double best_bytes_per_s_ = 0, best_min_s_ = 0;
  std::string gold_failure_;
  bool interrupted_ = false;
};

}  // namespace

// The external peers' kernel table: the catalogue kernels BabelStream runs, with its label for
// each. A STREAM kernel added to the catalogue is not among them until BabelStream has it.
const KernelTable<std::string_view>& kernel_table() {
  static const KernelTable<std::string_view> table = [] {
    KernelTable<std::string_view> t;
    t.kernel("copy", "Copy").kernel("mul", "Mul").kernel("add", "Add").kernel("triad", "Triad").kernel("dot", "Dot");
    t.kernel("nstream", "Nstream");
    return t;
  }();
  return table;
}

std::string label_of(const std::string& kernel) {
  if (const std::string_view* label = kernel_table().find(kernel)) return std::string(*label);
  std::string accepted;
  for (const auto& n : kernel_table().names()) accepted += (accepted.empty() ? "" : ", ") + n;
  throw UsageError("BabelStream has no kernel '" + kernel + "' (accepted: " + accepted + ")");
}

std::vector<CsvRow> parse_csv(const std::string& out) {
  const std::vector<std::string_view> lines = lines_of(out);
  std::size_t h = 0;
  while (h < lines.size() && lines[h].substr(0, 9) != "function,") ++h;
  if (h == lines.size()) {
    if (out.find_first_not_of(" \t\r\n") == std::string::npos) throw FailureError("it printed nothing on stdout");
    throw FailureError("no header line 'function,num_times,...'; its stdout begins '" + excerpt(out) + "'");
  }
  const std::vector<std::string_view> header = split(lines[h], ',');
  double unit = 0;
  bool ok = header.size() == kFields;
  for (std::size_t i = 0; ok && i < kFields; ++i) {
    if (i == 4) {
      const auto u = unit_bytes(header[i]);
      ok = u.has_value();
      unit = u.value_or(0);
    } else {
      ok = header[i] == kHeaderNames[i];
    }
  }
  if (!ok) {
    throw FailureError("header '" + excerpt(lines[h]) +
                       "' is not BabelStream's (function,num_times,n_elements,sizeof,max_<MB|MiB|GB|GiB|TB|TiB>_per_sec,"
                       "min_runtime,max_runtime,avg_runtime)");
  }
  std::vector<CsvRow> rows;
  for (std::size_t i = h + 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::size_t n = rows.size() + 1;
    const std::vector<std::string_view> f = split(lines[i], ',');
    if (f.size() != kFields) {
      throw FailureError("row " + std::to_string(n) + " '" + excerpt(lines[i]) + "' has " + std::to_string(f.size()) +
                         " fields, not " + std::to_string(kFields));
    }
    CsvRow r;
    r.function = std::string(f[0]);
    r.num_times = integer_field(f[1], "num_times", n);
    r.n_elements = integer_field(f[2], "n_elements", n);
    r.element_bytes = integer_field(f[3], "sizeof", n);
    r.bytes_per_s = positive_field(f[4], header[4], n) * unit;
    r.min_s = positive_field(f[5], "min_runtime", n);
    r.max_s = positive_field(f[6], "max_runtime", n);
    r.avg_s = positive_field(f[7], "avg_runtime", n);
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw FailureError("a header and no rows");
  return rows;
}

std::vector<std::string> command_line(const Invocation& inv) {
  std::vector<std::string> argv = {inv.binary,   "--arraysize", std::to_string(inv.size), "--numtimes",
                                   std::to_string(kNumTimes), "--only", label_of(inv.kernel), "--csv",
                                   "--silence-errors"};
  if (inv.precision == Precision::f32) argv.emplace_back("--float");
  if (inv.gpu) {
    argv.emplace_back("--device");
    argv.push_back(std::to_string(inv.device));
  }
  return argv;
}

std::unique_ptr<Workload> make_workload(std::string backend, std::string binary, bool gpu, PeerLauncher launch,
                                        const Problem& p) {
  label_of(p.kernel);  // throws UsageError for a kernel BabelStream does not have
  if (p.precision != Precision::f64 && p.precision != Precision::f32) {
    throw UsageError("backend '" + backend + "' runs " + p.kernel + " in double or float, not " + to_string(p.precision));
  }
  if (p.size == 0 || p.size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw UsageError("backend '" + backend + "': size " + std::to_string(p.size) + " is not an array size BabelStream takes");
  }
  Invocation inv;
  inv.binary = std::move(binary);
  inv.kernel = p.kernel;
  inv.size = p.size;
  inv.precision = p.precision;
  inv.gpu = gpu;
  inv.device = p.device;
  return std::make_unique<BabelStreamWorkload>(std::move(backend), std::move(inv), std::move(launch),
                                               gpu ? 1 : p.threads);
}

}  // namespace parlab::babelstream
