// Runner: starting a run, measuring its plan's records one by one in this process or a child,
// the pi consistency check and the summary, and the result files (results.json, results.csv).
// Resuming an interrupted run is resume.cpp.
#include "experiments/run/runner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "experiments/wiring/python_part.hpp"
#include "experiments/machine/context.hpp"
#include "experiments/machine/energy.hpp"
#include "experiments/machine/limit.hpp"
#include "experiments/machine/roof_drift.hpp"
#include "experiments/machine/worker_causes.hpp"
#include "experiments/plan/estimate.hpp"
#include "experiments/run/child_record.hpp"
#include "experiments/run/interpreter_child.hpp"
#include "experiments/run/rank_sweep.hpp"
#include "experiments/run/worker_accounting.hpp"
#include "core/ceilings_cpu.hpp"
#include "core/error.hpp"
#include "core/spread.hpp"
#include "experiments/io/files.hpp"
#include "experiments/io/portable_paths.hpp"
#include "experiments/io/spread_json.hpp"
#include "experiments/run/pool_rounds.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/read.hpp"

namespace parlab {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string utc_stamp(const char* format) {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream os;
  os << std::put_time(&tm, format);
  return os.str();
}

std::string describe(const MeasurementSpec& s) {
  std::ostringstream os;
  os << s.problem.kernel << " " << s.backend << " t=" << s.problem.threads << " n=" << format_size(s.problem.size);
  if (s.problem.precision != Precision::i32) os << " " << to_string(s.problem.precision);
  if (s.round > 0) os << " round " << s.round;
  return os.str();
}

// Progress: a rewritten line on a terminal, one line per measurement otherwise.
class Progress {
 public:
  Progress(std::ostream& out, std::size_t total, std::size_t done, bool quiet)
      : out_(out), total_(total), done_at_start_(done), done_(done), quiet_(quiet),
        tty_(isatty(STDERR_FILENO) == 1 && &out == &std::cerr), start_(Clock::now()) {}
  void begin(const MeasurementSpec& s) {
    if (quiet_) return;
    std::ostringstream line;
    line << "[" << std::setw(static_cast<int>(std::to_string(total_).size())) << done_ + 1 << "/" << total_ << "] "
         << describe(s);
    const std::size_t finished = done_ - done_at_start_;
    if (finished > 0) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
      line << "  ETA " << format_duration(elapsed / static_cast<double>(finished) * static_cast<double>(total_ - done_));
    }
    if (tty_) {
      out_ << "\r\033[K" << line.str() << std::flush;
    } else {
      out_ << line.str() << "\n" << std::flush;
    }
  }
  void end() {
    ++done_;
    if (!quiet_ && tty_ && done_ == total_) out_ << "\r\033[K" << std::flush;
  }

 private:
  std::ostream& out_;
  std::size_t total_, done_at_start_, done_;
  bool quiet_, tty_;
  Clock::time_point start_;
};

// A text cell of results.csv. One that begins with = + - @ (or a tab or CR) would be read as a
// formula by a spreadsheet: it takes a leading ' (OWASP's rule, as the analysis's csv_text does).
// Names come from the plan, and a suite file from elsewhere can hold anything.
std::string csv_escape(const std::string& text) {
  const std::string s = !text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos
                            ? "'" + text : text;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_value(const json& j) {
  if (j.is_null()) return "";
  if (j.is_string()) return csv_escape(j.get<std::string>());
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_float()) {
    // The shortest text that reads back as the same double (0.0016320602, not the 17 digits
    // 0.0016320602000000001), as the analysis writes its CSV (writer.csv_number).
    char buf[64];
    const auto end = std::to_chars(buf, buf + sizeof buf, j.get<double>()).ptr;
    return std::string(buf, end);
  }
  return j.dump();
}

// The value of `key` in `j`, or null where `j` is not an object or lacks it. The records of a
// resumed run are the user's input (resume.cpp checks only what resuming reads), and nlohmann's
// const operator[] on a missing key is undefined behaviour: records_to_csv read past a buffer for
// a record without "scaling" until fuzz_results found it (tests/fuzz/regressions/results/).
const json& field(const json& j, const char* key) {
  static const json null;
  if (!j.is_object()) return null;
  const auto it = j.find(key);
  return it == j.end() ? null : *it;
}

}  // namespace

json write_results_file(const std::filesystem::path& file, json doc) {
  make_portable(doc, PathRoots::of_run(file.parent_path()));
  // error_handler replace: text is made valid UTF-8 where it enters (io/text.hpp); should any
  // byte slip past that, one record's text is marked, never the whole run lost.
  write_atomically(file, doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  return doc;
}

void record_report_seconds(const std::filesystem::path& run_dir, double seconds, std::ostream& log) {
  const std::filesystem::path file = run_dir / "results.json";
  try {
    json doc = read_json_file(file, "results file");
    if (!doc.is_object()) return;
    doc["report_s"] = seconds;
    write_results_file(file, std::move(doc));
  } catch (const Error& e) {
    log << "parlab: warning: the report's time not recorded (" << e.what() << ")\n";
  }
}

std::string records_to_csv(const json& records) {
  static const char* const kColumns[] = {
      "id", "study", "scaling", "kernel", "backend", "kind", "threads", "size", "size_y", "precision", "seed",
      "status", "valid", "median_s", "mean_s", "stddev_s", "min_s", "max_s", "q1_s", "q3_s", "cv", "unstable",
      "reps", "inner",
      "samples_per_s", "bytes_per_s", "flops_per_s", "kernel_s", "transfer_s", "hits", "checksum", "detail"};
  std::ostringstream os;
  for (std::size_t i = 0; i < std::size(kColumns); ++i) os << (i ? "," : "") << kColumns[i];
  os << "\n";
  for (const auto& r : records) {
    const json& agg = field(r, "time_s");
    const json& rate = field(r, "rate");
    const json& val = field(r, "validation");
    const auto f = [&r](const char* key) -> const json& { return field(r, key); };
    const json row[] = {f("id"), f("study"), f("scaling"), f("kernel"), f("backend"), f("kind"),
                        f("threads"), f("size"), f("size_y"), f("precision"), f("seed"), f("status"),
                        field(val, "pass"), field(agg, "median"), field(agg, "mean"),
                        field(agg, "stddev"), field(agg, "min"), field(agg, "max"),
                        field(agg, "q1"), field(agg, "q3"), field(agg, "cv"), f("unstable"),
                        json(f("reps_s").size()), f("inner"),
                        field(rate, "samples_per_s"), field(rate, "bytes_per_s"),
                        field(rate, "flops_per_s"), f("kernel_s"), f("transfer_s"),
                        f("hits"), f("checksum"), val.contains("detail") ? val["detail"] : f("reason")};
    for (std::size_t i = 0; i < std::size(row); ++i) os << (i ? "," : "") << csv_value(row[i]);
    os << "\n";
  }
  return os.str();
}

Runner::Runner(const Registry& registry, std::ostream& log, RunOptions options)
    : registry_(registry), log_(log), options_(options) {}

void Runner::save() {
  // A run in rounds holds its measurements pooled (pool_rounds.hpp) at every write, so that the
  // file is whole wherever the run stops.
  if (has_rounds(records_)) {
    doc_["pooled"] = pool_rounds(records_, doc_["context"]);
  } else {
    doc_.erase("pooled");
  }
  // A portable copy is written: doc_ keeps this machine's paths, which a measurement may still use.
  const json written = write_results_file(dir_ / "results.json", doc_);
  if (options_.write_csv) write_atomically(dir_ / "results.csv", records_to_csv(written["records"]));
}

int Runner::run_new(const Plan& plan, const std::filesystem::path& out_root, const json& invocation) {
  ContextOptions co;
  co.load_1min = options_.load_1min;
  for (const auto& s : plan.specs) co.max_threads_requested = std::max(co.max_threads_requested, s.problem.threads);
  json context = collect_context(registry_, co);
  for (const auto& w : plan.warnings) context["warnings"].push_back(w);
  if (!options_.ceilings.is_null()) context["ceilings"] = options_.ceilings;
  context["energy"] = energy_context();  // which counters the records' energy comes from, or why none
  // The interpreters a run spans besides its own (their records come from child processes).
  for (const auto& m : interpreter_modes()) {
    const bool used = std::any_of(plan.specs.begin(), plan.specs.end(), [&](const MeasurementSpec& s) {
      return !m.parlab.empty() && s.interpreter == m.interpreter && s.python_gil == m.python_gil;
    });
    if (used) context["interpreters"].push_back(m.describe());
  }

  ensure_writable_dir(out_root, "output directory (--out)");
  // The host's folder is a slug of its name: nothing a host name holds ("..", "/", ".") can put
  // the run or its `latest` link anywhere but under --out (the name itself stays in the context).
  const std::filesystem::path host_dir = out_root / host_slug(context["host"].get<std::string>());
  ensure_writable_dir(host_dir, "output directory");
  dir_ = make_run_dir(host_dir, utc_stamp("%Y%m%dT%H%M%SZ"));
  lock_.emplace(dir_);
  // <host>/latest names the newest run, for a user's `parlab report OUT/<host>/latest`; every
  // reader that lists runs skips links (records.py, _runs_under), so it never counts twice.
  const std::string link_error = point_link(host_dir / "latest", dir_.filename());

  specs_ = plan.specs;
  records_.clear();
  json specs = json::array();
  for (const auto& s : plan.specs) specs.push_back(to_json(s));
  doc_ = {{"schema", kResultsSchema},     {"status", "incomplete"}, {"suite", plan.suite},
          {"invocation", invocation}, {"context", context},   {"plan", specs},
          {"records", json::array()}, {"consistency", json::array()}};
  save();
  if (!options_.quiet) log_ << "parlab: writing " << (dir_ / "results.json").string() << "\n";
  // Wrapped to the terminal's width (a warning names paths and remedies: 357 columns once).
  if (!link_error.empty() && !options_.quiet) log_ << hanging("parlab: warning: ", link_error, terminal_width()) << "\n";
  for (const auto& w : context["warnings"]) {
    if (!options_.quiet) log_ << hanging("parlab: warning: ", w.get<std::string>(), terminal_width()) << "\n";
  }
  return execute();
}

int Runner::execute() {
  const std::vector<MeasurementSpec>& plan = specs_;
  std::vector<bool> done(plan.size(), false);
  for (const Record& r : records_) {
    if (r.id < done.size()) done[r.id] = true;
  }
  const auto already = static_cast<std::size_t>(std::count(done.begin(), done.end(), true));
  Progress progress(log_, plan.size(), already, options_.quiet);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (done[i]) continue;
    if (g_interrupted.load()) break;
    const MeasurementSpec& spec = plan[i];
    progress.begin(spec);
    const auto started = Clock::now();
    std::optional<Record> measured = measure(spec, i);
    progress.end();
    // None only when this process was interrupted (SIGINT/SIGTERM) inside the measurement; every
    // fault of a child process is a failed record (child_record.hpp).
    if (!measured) break;
    Record& record = *measured;
    // The measurement's whole wall time (setup, warm-up, calibration, repetitions, validation, a
    // child's start): what the next plan's estimate reads from earlier runs (plan/estimate.hpp).
    record.elapsed_s = std::chrono::duration<double>(Clock::now() - started).count();
    // The kernel's family (the catalogue's, or the backend's own studies'), so plot code routes
    // records by family, never by lists of kernel names: here, once for every record, whether this
    // process measured it or a child did.
    if (record.family.empty()) record.family = kernel_family(spec.problem.kernel, registry_.find(spec.backend));
    // Its share of its roof (docs/ceilings.md), against the ceilings the run's context holds.
    if (const json& ctx = doc_["context"]; ctx.contains("ceilings") && ctx["ceilings"].is_object()) {
      record.limit = record_limit(record, ctx["ceilings"]);
    }
    // Written once, as it is kept: a save rewrites the file without serializing every record again.
    doc_["records"].push_back(to_json(record));
    records_.push_back(std::move(record));
    save();
  }
  // The bandwidth roofs measured again, and the records graded against the highest measurement
  // with an interval (docs/ceilings.md, "The end probe"): the file is written after, whole.
  if (!g_interrupted.load()) grade_with_end_probe();
  check_consistency();
  const bool complete = records_.size() == plan.size();
  doc_["status"] = complete ? "complete" : "incomplete";
  doc_["finished_utc"] = utc_stamp("%Y-%m-%dT%H:%M:%SZ");
  save();

  // The summary: failures loudly, in red on a terminal unless NO_COLOR asks for none
  // (no-color.org: set and not empty), wrapped to its width like every other line.
  const char* no_color = std::getenv("NO_COLOR");
  const bool color = isatty(STDERR_FILENO) == 1 && &log_ == &std::cerr && (no_color == nullptr || *no_color == '\0');
  int failed = 0, unavailable = 0;
  for (const Record& r : records_) {
    if (r.status == RecordStatus::unavailable) {
      ++unavailable;
    } else if (r.status != RecordStatus::ok) {
      ++failed;
      // Where it ran, when not in this process: the dimensions a failure is told apart by.
      std::string where;
      if (const int ranks = r.spec.ranks > 0 ? r.spec.ranks : (r.layout ? r.layout->ranks : 0); ranks > 0) {
        where += " ranks=" + std::to_string(ranks);
      }
      if (r.spec.round > 0) where += " round " + std::to_string(r.spec.round);
      if (!r.spec.interpreter.empty()) {
        where += " [" + r.spec.interpreter + (r.spec.python_gil.empty() ? "" : ", PYTHON_GIL=" + r.spec.python_gil) + "]";
      }
      // n as the table writes it (2^22, not 4194304).
      const std::string lead = "FAILED " + r.spec.problem.kernel + " " + r.spec.backend + " t=" +
                               std::to_string(r.spec.problem.threads) + " n=" + format_size(r.spec.problem.size) +
                               where + ": ";
      log_ << (color ? "\033[31m" : "")
           << hanging(lead, r.validation ? r.validation->detail : r.reason, terminal_width())
           << (color ? "\033[0m" : "") << "\n";
    }
  }
  if (!options_.quiet || failed > 0) {
    log_ << "parlab: " << records_.size() << "/" << plan.size() << " measurements, " << failed << " failed, "
         << unavailable << " unavailable; " << (complete ? "complete" : "INCOMPLETE") << ": " << dir_.string() << "\n";
  }
  if (!complete) {
    log_ << "parlab: interrupted; resume with: parlab run --resume " << dir_.string() << "\n";
    return 130;
  }
  return failed > 0 ? 1 : 0;
}

namespace {

// A file kernel's record names the file, relative to the run's directory (a path that stays
// true when the run is resumed from another working directory, and names no machine's folders),
// and its hash (docs/records.md).
void name_kernel_file(Record& r, const PythonFileKernel& file, const std::filesystem::path& run_dir) {
  std::error_code ec;
  const std::filesystem::path rel =
      std::filesystem::relative(file.path, std::filesystem::absolute(run_dir, ec), ec);
  r.kernel_file = ec || rel.empty() ? file.path : rel.string();
  r.kernel_sha256 = file.sha256;
}

// The record a plan entry begins as: its spec, its index, and its backend's kind.
Record record_of(const MeasurementSpec& s, std::size_t index, BackendKind kind) {
  Record r;
  r.spec = s;
  r.id = index;
  r.kind = to_string(kind);
  return r;
}

}  // namespace

ChildJob Runner::child_job(const MeasurementSpec& s, std::size_t index, const PythonFileKernel* file) const {
  ChildJob job;
  job.base = record_of(s, index, BackendKind::python);
  job.timeout_s = options_.child_timeout_s;
  if (file != nullptr) {
    // The child registers the file as this process did, refuses it if edited since, and works in
    // the run's directory.
    job.set_env = {{kRunDirEnv, std::filesystem::absolute(dir_).string()},
                   {kKernelSha256Env, file->sha256},
                   {kKernelFileEnv, file->path}};
    // Its worker processes (py-processes, dask.distributed) end with it when it is stopped.
    job.own_process_group = true;
  }
  return job;
}

std::optional<Record> Runner::measure_file_kernel_in_child(const MeasurementSpec& s, const PythonFileKernel& file,
                                                           std::size_t index) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  ChildJob job = child_job(s, index, &file);
  job.argv = {ec ? std::string("parlab") : self.string(), "measure-spec"};
  job.what = "the child parlab measuring " + file.path;
  return measure_in_child_process(job);
}

std::optional<Record> Runner::measure(const MeasurementSpec& s, std::size_t index) {
  // An MPI record of a swept job size: measured by that many ranks, launched for it.
  if (s.ranks > 0) return measure_in_mpi_job(s, s.ranks, index, options_.child_timeout_s);
  const std::optional<PythonFileKernel> file = python_file_kernel(s.problem.kernel);
  if (!s.interpreter.empty()) {
    // Another interpreter's record: measured in a child parlab built against it.
    const InterpreterMode* mode = find_interpreter_mode(s.interpreter, s.python_gil);
    if (mode == nullptr) {
      Record r = record_of(s, index, BackendKind::python);
      r.status = RecordStatus::unavailable;
      r.reason = "interpreter " + s.interpreter + (s.python_gil.empty() ? "" : " PYTHON_GIL=" + s.python_gil) +
                 " not found by this run (see `parlab list`)";
      return r;
    }
    if (!mode->parlab.empty()) {
      std::optional<Record> r = measure_in_child(*mode, child_job(s, index, file ? &*file : nullptr));
      if (r && file) name_kernel_file(*r, *file, dir_);
      return r;
    }
  }
  // A Python kernel file's point: in a child parlab, so that --timeout ends a chunk that never
  // returns (a Python thread cannot be stopped) and the file's module state dies with the point.
  if (file && !options_.in_child) {
    const BackendEntry* e = registry_.find(s.backend);
    if (e != nullptr && e->available) {
      std::optional<Record> r = measure_file_kernel_in_child(s, *file, index);
      if (r) name_kernel_file(*r, *file, dir_);
      return r;
    }
  }
  std::optional<Record> r = measure_here(s, index);
  if (!r) return r;  // interrupted inside the measurement
  if (file) name_kernel_file(*r, *file, dir_);
  if (r->kind == to_string(BackendKind::python) && r->status != RecordStatus::unavailable) {
    if (const auto f = python_interpreter_fields()) {
      // Which interpreter ran it, from the process that did (docs/records.md, "Dimensions that compose").
      r->spec.interpreter = f->interpreter;
      r->python_build = f->python_build;
      r->gil_enabled = f->gil_enabled;
    }
  }
  return r;
}

namespace {

// Whether `r` is of a backend this build or machine cannot run, made unavailable, or an error
// where its wing is broken. false where the backend is there to measure.
bool without_backend(Record& r, const BackendEntry* entry) {
  if (entry != nullptr && entry->available) return false;
  r.status = RecordStatus::unavailable;
  r.reason = entry ? entry->reason : "backend not registered in this build";
  if (entry != nullptr && entry->broken) {
    r.status = RecordStatus::error;
    r.validation = RecordVerdict{false, "error: " + entry->reason};
  }
  return true;
}

// Warm-up, and calibration of `inner`: how many runs make one repetition last min_rep_seconds,
// so short kernels are not timed at the clock's resolution; `last` is the last warm-up run's time.
// nullopt when interrupted.
std::optional<long> warm_up_and_calibrate(Workload& w, const MeasurementSpec& s, double& last) {
  last = 0;
  for (int i = 0; i < s.warmup; ++i) {
    const auto t0 = Clock::now();
    w.run();
    last = std::chrono::duration<double>(Clock::now() - t0).count();
    if (g_interrupted.load()) return std::nullopt;
  }
  w.warmed_up();
  long inner = 1;
  if (s.min_rep_seconds > 0 && last > 0 && last < s.min_rep_seconds) {
    inner = std::min(1000000L, static_cast<long>(std::ceil(s.min_rep_seconds / last)));
  }
  return inner;
}

// Seconds per run of each repetition; kernel_s and transfer_s only for backends that time themselves.
struct RepTimes {
  std::vector<double> reps, kernel_s, transfer_s;
};

// The repetition whose first run the ledger traces (the middle one).
int traced_repetition(int reps) { return reps / 2; }

// The timed repetitions, each `inner` runs, each closed in `ledger` when one accounts the workers
// (the middle repetition's first run traced). nullopt when interrupted.
std::optional<RepTimes> time_repetitions(Workload& w, int reps, long inner, WorkerAccounting* ledger) {
  RepTimes t;
  for (int rep = 0; rep < reps; ++rep) {
    double self_kernel = 0, self_transfer = 0;
    bool self_timed = false;
    const auto t0 = Clock::now();
    for (long k = 0; k < inner; ++k) {
      const bool trace = ledger != nullptr && k == 0 && rep == traced_repetition(reps);
      if (trace) ledger->start_trace();
      w.run();
      if (trace) ledger->stop_trace();
      if (auto own = w.last_timing()) {
        self_timed = true;
        self_kernel += own->kernel_s;
        self_transfer += own->transfer_s;
      }
    }
    const double rep_wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (ledger != nullptr) ledger->end_repetition(rep_wall);
    const double wall = rep_wall / static_cast<double>(inner);
    if (self_timed) {
      // Backends that time themselves report compute and transfers apart; the repetition's
      // time is their sum, so a figure never hides a transfer.
      t.kernel_s.push_back(self_kernel / static_cast<double>(inner));
      t.transfer_s.push_back(self_transfer / static_cast<double>(inner));
      t.reps.push_back(t.kernel_s.back() + t.transfer_s.back());
    } else {
      t.reps.push_back(wall);
    }
    if (g_interrupted.load()) return std::nullopt;
  }
  return t;
}

RecordTimes times_of(const RepTimes& t, long inner) {
  RecordTimes out;
  out.inner = inner;
  out.reps_s = t.reps;
  if (const auto s = spread_of(t.reps)) {
    out.time_s = *s;
    // Unstable: its repetitions disagree too much for the median to be quoted alone
    // (docs/records.md, "Spread"); more --reps or --rounds say whether it settles.
    out.unstable = unstable_reason(*s);
  }
  if (!t.kernel_s.empty()) {
    out.kernel_s = spread_of(t.kernel_s)->median;
    out.transfer_s = spread_of(t.transfer_s)->median;
  }
  return out;
}

// Rates from the median time; the work, with what the workload's arrays occupy (the
// catalogue's host words): the x axis of a bandwidth figure, which marks the caches they fit in.
void add_rates_and_work(Record& r, const WorkCount& work, const MeasurementSpec& s) {
  r.rate = rates_of(work, r.times->time_s.median);
  r.work = work;
  if (const double footprint = kernel_host_bytes(s.problem.kernel, s.problem.precision, s.problem.size, s.problem.size_y); footprint > 0) {
    r.footprint_bytes = footprint;
  }
}

// The verdict, its metrics with the energy's beside them, and the record's status.
void add_validation(Record& r, const Validation& v, const json& energy) {
  r.validation = RecordVerdict{v.pass, v.detail};
  for (const auto& [name, value] : v.metrics) r.metrics[name] = value;
  if (energy.contains("energy_unavailable")) {
    r.energy = "unavailable: " + energy["energy_unavailable"].get<std::string>();
  } else if (energy.is_object()) {
    for (const auto& [k, x] : energy.items()) r.metrics[k] = x.get<double>();
  }
  r.checksum = v.checksum;
  r.hits = v.hits;
  r.status = v.pass ? RecordStatus::ok : RecordStatus::failed_validation;
}

// The record's `machine` block: what else ran beside its timed repetitions, for a CPU executor or
// an accounted backend; for any other record whose work ran on the CPU, why that was not measured.
// None for a record whose work ran on a GPU.
std::optional<json> machine_beside(const BackendEntry& entry, const MachineWindow& window, WorkerAccounting* ledger,
                                   const std::optional<Workers>& workers, bool python, int threads) {
  if (entry.kind == BackendKind::cpu || ledger != nullptr) {
    // A Python thread's time off a CPU in a chunk includes the GIL's wait: not the machine's.
    const double runnable = workers && workers->accounting && workers->disturbance && !python
                                ? workers->disturbance->runnable_share
                                : 0.0;
    // The workers on this host, whose CPUs /proc/stat read: an MPI job's on host 0 only.
    int here = threads;
    double peers = 0;
    if (ledger != nullptr) {
      const LedgerView view = ledger->view();
      peers = view.peers_cpu_s;
      here = view.hosts.empty() ? view.workers : static_cast<int>(std::count(view.hosts.begin(), view.hosts.end(), 0));
    }
    return machine_json(window, peers, here, static_cast<int>(allowed_cpus().size()), runnable);
  }
  if (entry.processor != Processor::cpu) return std::nullopt;
  return machine_unmeasured_json(window, !runs_in_this_process(entry.kind));
}

}  // namespace

std::optional<Record> Runner::measure_here(const MeasurementSpec& s, std::size_t index) {
  Record r;
  r.spec = s;
  r.id = index;
  const BackendEntry* entry = registry_.find(s.backend);
  if (entry != nullptr) r.kind = to_string(entry->kind);
  // Where it ran, as its wing says (docs/records.md): what record_limit and the figures read.
  if (entry != nullptr && entry->processor) r.processor = to_string(*entry->processor);
  // A kernel another project added runs its own code on parlab's executors, not parlab's code.
  const KernelSpec* spec = find_kernel(s.problem.kernel);
  const bool user_kernel = spec != nullptr && spec->family == KernelFamily::own;
  r.own_kernels = entry != nullptr && entry->own_kernels && !user_kernel;
  if (without_backend(r, entry)) return r;
  try {
    std::unique_ptr<Workload> w = entry->make(s.problem);
    // A CPU executor's loops are accounted per worker (docs/records.md, `workers`): through the
    // warm-up, which says whether the runs are long enough to carry it, then the timed repetitions.
    WorkerAccounting* ledger = w->worker_ledger();
    if (ledger != nullptr) ledger->set_on(true);
    double warm_run_s = 0;
    const std::optional<long> inner = warm_up_and_calibrate(*w, s, warm_run_s);
    if (!inner) return std::nullopt;
    AccountingDecision accounting;
    MachineWindow window;
    if (ledger != nullptr) {
      accounting = decide_accounting(ledger->view(), s.warmup, warm_run_s, accounted_cost());
      if (!accounting.on) accounting.why += size_within_budget(s.problem.size, accounting.overhead);
      ledger->reset();
      ledger->set_on(accounting.on);
    }
    // What else ran on the machine over the timed repetitions, for every record (two reads of
    // /proc/stat): whether it shared its CPUs is its own measurement, not the load at the start.
    window.before = CpuTicks::read();
    window.process_cpu_before = process_cpu_s();
    const auto window_start = Clock::now();
    const std::optional<RepTimes> times = time_repetitions(*w, s.reps, *inner, accounting.on ? ledger : nullptr);
    window.after = CpuTicks::read();
    window.process_cpu_after = process_cpu_s();
    window.wall_s = std::chrono::duration<double>(Clock::now() - window_start).count();
    if (ledger != nullptr) ledger->set_on(false);  // the energy's extra runs and validation are not the record's repetitions
    if (!times) return std::nullopt;
    // Energy (docs/ceilings.md): more runs, after the timed ones, until the counter has advanced
    // enough; not for external peers and MPI jobs, whose runs are processes of their own.
    json energy;
    if (runs_in_this_process(entry->kind)) {
      // The GPU's counter for a record that ran there (py-cupy and py-torch included), by the entry's processor.
      const bool gpu_side = entry->processor == Processor::gpu;
      energy = measure_energy(*w, gpu_side, s.problem.device, w->work());
    }
    const Validation v = w->validate();
    r.times = times_of(*times, *inner);
    add_rates_and_work(r, w->work(), s);
    add_validation(r, v, energy);
    r.layout = w->layout();
    // The workers' figures, every one derived here on typed values before the record is written.
    std::optional<Workers> workers;
    const bool python = entry->kind == BackendKind::python;
    if (ledger != nullptr) {
      const double runs = static_cast<double>(s.reps) * static_cast<double>(*inner);
      const LedgerView view = ledger->view();
      if (s.warmup == 0 && accounting.on) {
        accounting.overhead = accounting_overhead(view, runs, r.times->time_s.median, accounted_cost());
      }
      workers = account_workers(view, accounting, runs, window, accounting.on ? traced_repetition(s.reps) : -1);
      // What its own workers measured as the cause of a shortfall, once, for every view to quote.
    }
    if (std::optional<json> m = machine_beside(*entry, window, ledger, workers, python, s.problem.threads)) {
      r.machine = std::move(*m);
    }
    r.workers = std::move(workers);
    // What its own workers measured as the cause of a shortfall, once, for every view to quote.
    if (r.workers && r.workers->accounting && r.workers->count > 1) r.workers->cause = worker_shortfall(r);
  } catch (const UnavailableError& e) {
    r.status = RecordStatus::unavailable;
    r.reason = e.what();
  } catch (const std::exception& e) {
    // Recorded, not fatal: one broken measurement must not cost the rest of the suite.
    r = failed_record(std::move(r), e.what());
  }
  return r;
}

void Runner::check_consistency() {
  // pi hits are a pure function of (seed, N): any two records that disagree are a failure.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::map<std::uint64_t, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const Record& r = records_[i];
    if (r.spec.problem.kernel == "pi" && r.hits) groups[{r.spec.problem.seed, r.spec.problem.size}][*r.hits].push_back(i);
  }
  json checks = json::array();
  for (const auto& [key, by_hits] : groups) {
    std::size_t n = 0;
    for (const auto& [hits, idx] : by_hits) n += idx.size();
    json c = {{"kernel", "pi"}, {"seed", key.first}, {"size", key.second}, {"records", n},
              {"distinct_hits", by_hits.size()}, {"pass", by_hits.size() == 1}};
    checks.push_back(c);
    if (by_hits.size() > 1) {
      std::ostringstream os;
      os << "pi hits differ between backends for seed " << key.first << ", N " << key.second << ":";
      for (const auto& [hits, idx] : by_hits) {
        os << " " << hits << " (";
        for (std::size_t k = 0; k < idx.size(); ++k) {
          os << (k ? ", " : "") << records_[idx[k]].spec.backend << " t=" << records_[idx[k]].spec.problem.threads;
        }
        os << ")";
      }
      for (const auto& [hits, idx] : by_hits) {
        for (std::size_t i : idx) {
          records_[i].status = RecordStatus::failed_validation;
          records_[i].validation = RecordVerdict{false, os.str()};
          doc_["records"][i] = to_json(records_[i]);
        }
      }
    }
  }
  doc_["consistency"] = checks;
}

void Runner::grade_with_end_probe() {
  // The probe grades the typed records (roof_drift.hpp); the file's are written from them again.
  if (!parlab::grade_with_end_probe(records_, doc_["context"], log_, options_.quiet)) return;
  doc_["records"] = records_json();
  save();
}

json Runner::records_json() const {
  json out = json::array();
  for (const Record& r : records_) out.push_back(to_json(r));
  return out;
}

}  // namespace parlab
