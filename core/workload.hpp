// What a backend offers the runner: prepared workloads, and a registry of backends.
//
// A Workload is one (kernel, backend, parameters) instance with its memory allocated and
// initialised outside any timed region. run() is the timed region; validate() checks the
// result after all runs, so a failed validation is a result the runner records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error.hpp"
#include "executor.hpp"
#include "roof.hpp"

namespace parlab {

class WorkerAccounting;

enum class Precision { f32, f64, i32 };

const char* to_string(Precision p);
// "float"/"f32", "double"/"f64", "int32"/"i32"; nullopt otherwise.
std::optional<Precision> precision_from_name(std::string_view name);

// pi, stream, basic (the basic array kernels): the canonical kernels. race: the lab's deliberately non-deterministic
// kernels and their exact counterparts (core/lab.hpp). overhead: scheduling-overhead probes.
// comm: communication probes between processes (OSU-style barrier, allreduce, broadcast), run
// only by the MPI backends (mpi/). user: kernels another project adds through the installed
// package (core/include/parlab/kernel.hpp, core/user_kernels.hpp), run by the CPU executors only.
enum class KernelFamily { pi, stream, basic, race, overhead, comm, own };

// The family's name as records carry it ("pi", "stream", "basic", "race", "overhead", "comm", "own": a person's own kernel).
const char* to_string(KernelFamily f);

// The bytes of one word of a precision (float and int32: 4, double: 8).
double word_bytes(Precision p);

// What --size (and size_y) make a kernel's units: `line`, size units; `grid`, size x size_y
// (square when size_y is 0); `cube`, n x n units of memory and n^3 units of arithmetic (matmul);
// `triangle`, n units of memory and n (n + 1) / 2 of arithmetic (item i costs i + 1: a user kernel's).
enum class WorkShape { line, grid, cube, triangle };

// The work model: what one run must do, per unit of the shape, in words of the run's precision.
// The runner turns it into rates; the estimate, the suite's memory check and every backend's
// Workload::work() take it from here (kernel_work, kernel_host_bytes), never from a formula of
// their own.
struct WorkModel {
  WorkShape shape = WorkShape::line;
  double samples = 0;     // samples, increments, constructs or calls per unit (a count's rate)
  double words = 0;       // words read + written per unit (bytes = words x word_bytes)
  double flops = 0;       // arithmetic operations per unit (cube: per n^3)
  double host_words = 0;  // words a CPU workload allocates per unit (the suite's memory check)
};

struct KernelSpec {
  std::string_view name;
  KernelFamily family;
  std::vector<Precision> precisions;  // the first is the default
  std::string_view size_meaning;      // what --size counts for this kernel
  WorkModel work;
  std::string_view validation;        // how a run's result is checked
  RoofModel roof;                     // the roofs that bound it, or none and why (core/roof.hpp)
};

// The catalogue: every canonical kernel parlab knows, in display order, and the one kernel list.
// A kernel's id is its index here; the wings' kernel tables (kernel_table.hpp) are keyed by it.
const std::vector<KernelSpec>& kernel_specs();
// parlab's own kernels alone: the catalogue before another project's (core/user_kernels.hpp).
const std::vector<KernelSpec>& builtin_kernel_specs();
std::optional<std::size_t> kernel_id(std::string_view name);
const KernelSpec* find_kernel(std::string_view name);

struct Problem {
  std::string kernel;
  Precision precision = Precision::f64;
  std::uint64_t size = 0;    // pi: samples; arrays: elements; add2d: nx; matmul: n
  std::uint64_t size_y = 0;  // add2d rows; 0 means square
  std::uint64_t seed = 0;    // pi only
  // pi: the index of the first sample, so the workload counts points [first, first + size) of
  // the stream. Only the MPI wing sets it (one rank's share); the CPU and CUDA pi workloads
  // honour it, and no other backend is ever given a part.
  std::uint64_t first = 0;
  int threads = 1;
  int device = 0;            // GPU backends only
};

// The pi problem of `samples` points of the stream for `seed`, on `threads` threads (and GPU
// `device` for GPU backends).
inline Problem pi_problem(std::uint64_t samples, int threads, std::uint64_t seed, int device = 0) {
  Problem p;
  p.kernel = "pi";
  p.precision = Precision::i32;
  p.size = samples;
  p.seed = seed;
  p.threads = threads;
  p.device = device;
  return p;
}

// Work done by one run(), for rates.
struct WorkCount {
  double samples = 0;  // pi
  double bytes = 0;    // bytes the kernel must move (from the kernel table)
  double flops = 0;
};

// The work of a run that counts samples, increments or constructs (the Python wing's kernels,
// which are not in the catalogue).
inline WorkCount samples_work(std::uint64_t n) {
  WorkCount w;
  w.samples = static_cast<double>(n);
  return w;
}

// The catalogue's work model for one run of `kernel` at (precision, size, size_y): the one
// formula every backend's work() returns. Throws UsageError for a kernel not in the catalogue.
WorkCount kernel_work(std::string_view kernel, Precision precision, std::uint64_t size, std::uint64_t size_y = 0);
WorkCount kernel_work(const Problem& p);
// Bytes of host memory a CPU workload of the kernel allocates (0 for a kernel not in the catalogue).
double kernel_host_bytes(std::string_view kernel, Precision precision, std::uint64_t size, std::uint64_t size_y = 0);

struct Validation {
  bool pass = true;
  std::string detail;                 // why it failed, or what was checked
  std::optional<std::uint64_t> hits;  // pi: the hit count (compared across backends)
  double checksum = 0.0;              // pi: the estimate; dot: its value; arrays: a sum
  // Named figures a workload measured besides time (the race lab: trials, deviating trials,
  // largest deviation), written into the record's "metrics".
  std::vector<std::pair<std::string, double>> metrics;

  // The verdict of a workload validated before any run: nothing was measured, so it fails.
  static Validation never_ran() {
    Validation v;
    v.pass = false;
    v.detail = "never ran";
    return v;
  }

  // The metric called `name`, if the workload measured one.
  std::optional<double> metric(std::string_view name) const {
    for (const auto& [k, x] : metrics) {
      if (k == name) return x;
    }
    return std::nullopt;
  }
};

// Where a measurement ran (docs/records.md, "Dimensions that compose"): the process layout, recorded
// as the record's `ranks`, `ranks_per_node`, `hosts`, `host_names`, `ranks_per_host` and `binding`.
struct ProcessLayout {
  int ranks = 1;
  int ranks_per_node = 1;  // the most ranks on one host
  int hosts = 1;
  // Each host's name as its ranks saw it (MPI_Get_processor_name), in the order of its lowest
  // rank, and how many ranks ran there (aligned): which hosts, not only how many, so a record
  // says where it ran without reading a hostfile or a backend's name. Empty outside an MPI job.
  std::vector<std::string> host_names;
  std::vector<int> ranks_per_host;
  // Each rank's CPU affinity ("r0:0-15 r1:0-15"): a sweep launches one job per record, so the
  // placement it got is the record's, not the run's context's.
  std::string binding;
  // The one-way latency of the job's farthest link: half the median round trip of a 1-byte
  // message between rank 0 and the lowest rank on another host (rank 1 where every rank shares a
  // host), measured as the job starts. 0: one rank, or outside an MPI job.
  double link_latency_s = 0;
};

// Time a backend measured itself (CUDA events), split as docs/design.md, "Measurement method" asks.
struct SelfTiming {
  double kernel_s = 0;
  double transfer_s = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void run() = 0;
  virtual Validation validate() = 0;
  virtual WorkCount work() const = 0;
  // Backends that time themselves (GPU) return the last run's split; CPU returns nullopt and
  // the runner's wall clock is used.
  virtual std::optional<SelfTiming> last_timing() const { return std::nullopt; }
  // Called once by the runner after the warm-up runs, before the timed ones: a workload that
  // keeps statistics of its own runs (an external peer's fastest iteration) drops the warm-up's
  // from them, as the runner drops the warm-up's times. Checks (validate) still cover every run.
  virtual void warmed_up() {}
  // Workloads spread over several processes (mpi/) return their layout; one process: nullopt.
  virtual std::optional<ProcessLayout> layout() const { return std::nullopt; }
  // The per-worker accounting of its loops (core/worker_ledger.hpp): CPU executor workloads and
  // MPI jobs of them only.
  virtual WorkerAccounting* worker_ledger() { return nullptr; }
};

// Validation shared by every backend's workloads, so a CPU, GPU or multi-GPU figure is checked
// by the same code.
//
// PiHitsTracker: the hit counts of successive runs. validate() applies pi_check (3 sigma) and
// fails if any run's count differed from the first (the count is a pure function of seed, N).
class PiHitsTracker {
 public:
  void record(std::uint64_t hits) {
    if (runs_ == 0) first_ = hits;
    if (hits != first_) changed_ = true;
    last_ = hits;
    ++runs_;
  }
  bool ran() const noexcept { return runs_ > 0; }
  // `where` is added to the detail (e.g. "over 2 devices"). With `canonical` (the count of the
  // stream's first `samples` points, canonical_pi_hits), the last count must also equal it: for
  // workloads no other backend's record is held against in the run (Python's).
  Validation validate(std::uint64_t samples, const std::string& where = "",
                      std::optional<std::uint64_t> canonical = std::nullopt) const;

 private:
  std::uint64_t first_ = 0, last_ = 0, runs_ = 0;
  bool changed_ = false;
};

// The canonical hit count of points [0, n) of the stream for `seed`, counted on raw threads
// (one per core beyond 2^22 points), so checking a large run takes no longer than the run.
std::uint64_t canonical_pi_hits(std::uint64_t seed, std::uint64_t n);

// RaceTrials: the results of a race-lab kernel's trials against its exact answer. validate()
// reports how many trials differed and by how much (as metrics); a racy kernel passes regardless
// (observing it is the point), an exact counterpart fails on any deviation.
class RaceTrials {
 public:
  void set_exact(double exact) { exact_ = exact; }
  void record(double value);
  Validation validate(bool racy) const;

 private:
  double exact_ = 0, last_ = 0, max_dev_ = 0;
  std::uint64_t trials_ = 0, deviating_ = 0;
  std::vector<double> distinct_;  // sorted, at most kMaxDistinct
  static constexpr std::size_t kMaxDistinct = 1000;
};

// plus_one: every y[i] == plus_one_init(i) + 1.
Validation validate_plus_one(const std::int32_t* y, std::uint64_t n);
// add2d: every res[i] == a[i] + b[i] for the basic inputs, over an nx-by-ny grid.
Validation validate_add2d(const float* res, std::uint64_t nx, std::uint64_t ny);

// The CPU workload of p.kernel on any executor, from the CPU wing's kernel table
// (cpu_kernel_table, kernel_table.hpp). Throws UsageError for an unknown kernel, an unsupported
// precision or a size that cannot be allocated, and UnavailableError "not implemented by
// <backend>" for a catalogue kernel the table leaves out.
std::unique_ptr<Workload> make_cpu_workload(std::unique_ptr<Executor> executor, const Problem& p,
                                            std::string_view backend);

// The kind of a backend entry, the wing that made it, written into every record's `kind` and
// `parlab list`: cpu (an Executor of cpu/), gpu (cuda/), python (the embedded interpreter, embed/),
// peer (an external benchmark binary run per record, peers/), mpi (a job of ranks, mpi/).
enum class BackendKind { cpu, gpu, python, peer, mpi };
// The kind's name in records and suites ("cpu", "gpu", "python", "peer", "mpi").
const char* to_string(BackendKind k);
// The kind named `name`; nullopt for any other string (a backend's own name, "all").
std::optional<BackendKind> backend_kind_from_name(std::string_view name);
// Whether entries of the kind run their kernels in this process: a peer's binary and an MPI job
// are processes of their own, so the runner measures no energy of theirs here.
bool runs_in_this_process(BackendKind k);

// Where a backend's kernels run, written into every record's `processor`.
enum class Processor { cpu, gpu };
// "cpu" or "gpu", as records carry it.
const char* to_string(Processor p);
// The processor named `name` ("cpu", "gpu"); nullopt otherwise.
std::optional<Processor> processor_from_name(std::string_view name);

struct BackendEntry {
  std::string name;
  BackendKind kind = BackendKind::cpu;  // every wing sets its own
  // Where its kernels run. Set by the wing that makes the entry (it knows; a Python backend of
  // kind python may run on the GPU), written into every record's `processor` and read by
  // record_limit and the roofline figure: never parsed out of the name. Required of an available
  // entry (Registry::add); empty on an unavailable one that never says.
  std::optional<Processor> processor;
  // Its catalogue kernels run parlab's own compiled code (core/'s loops on the CPU, gpu/'s CUDA
  // kernels; cuda-cublas's matmul excepted, which its detail names), so what parlab reads from that
  // code (the count of multiplies pi issues, pi's in-core bound: docs/ceilings.md) holds for its
  // records. Written into each record as `own_kernels`; false for Python and the external peers.
  bool own_kernels = false;
  bool available = false;
  std::string reason;                // why it is unavailable; empty when available
  // Unavailable because its runtime failed (a CUDA driver error), not because this machine lacks
  // it: its records are failures (status "error"), and `parlab list` says FAILED.
  bool broken = false;
  std::string detail;                // e.g. the schedule, the library version
  bool in_default_set = true;        // false for variants (openmp-dynamic) that "all" leaves out
  bool sweeps_threads = true;        // false: runs on exactly one host thread (serial, vectorised
                                     // and GPU library backends), so a sweep runs it once
  std::vector<std::string> kernels;  // kernels it runs
  // The family of the kernels it runs that are not in the catalogue (a wing's own: the
  // Python race lab's "race", the GPU practices' "practice"), written into their records' `family`.
  std::string own_family;
  // Samples a thread takes at a time (Python threads call parlab.pi in blocks), 0 when work is
  // split evenly. A run whose per-thread share is below it measures one thread doing everything,
  // so the plan refuses such sizes in a suite and warns on the command line (experiments/plan/suite.cpp).
  std::uint64_t work_unit = 0;
  std::function<std::unique_ptr<Workload>(const Problem&)> make;
  std::function<std::unique_ptr<Executor>(int threads)> make_executor;  // CPU backends only
  // A check too costly to make for every command (importing a Python library in the embedded
  // interpreter): why the backend cannot run here, or "". Registry::probe makes it where a
  // command is about to say or act on availability (`list`, a plan before it runs), so that what
  // `list` calls available is what a run measures. Empty: nothing to check.
  std::function<std::string()> probe;
};

// The runtime registry. Each backend folder exports one register_* function that adds its
// entry; registration is explicit (see experiments/wiring/make_registry.cpp), no static initialisers.
class Registry {
 public:
  void add(BackendEntry entry);
  void add_unavailable(std::string name, BackendKind kind, std::string reason);
  const std::vector<BackendEntry>& entries() const { return entries_; }
  const BackendEntry* find(std::string_view name) const;
  // Throws UsageError naming the accepted values when `name` is unknown, and UnavailableError
  // with the reason when it is known but unavailable.
  const BackendEntry& get(std::string_view name) const;
  std::vector<std::string> names() const;
  // Makes the probe of each available entry named in `names` (every entry's where it is empty)
  // once: an entry whose probe gives a reason becomes unavailable with it, its make throwing
  // UnavailableError. Unknown names are skipped (the plan names them in its own errors).
  void probe(const std::vector<std::string>& names = {});

 private:
  std::vector<BackendEntry> entries_;
};

// Why this machine has no GPU, as the registry's cuda backend found when it looked: its reason where
// it found no CUDA device or driver; empty where a GPU is here, or where nothing looked (the CUDA
// wing not built). The one rule by which the backends that need a GPU without being parlab's CUDA
// (the external GPU peers, CuPy, PyTorch) are unavailable alike in `list`, `--dry-run` and a run.
std::string no_gpu_reason(const Registry& registry);

// A record's `family`: the catalogue's family of `kernel`, else the own family of `backend` where
// it runs the kernel (BackendEntry::own_family, BackendEntry::kernels); empty otherwise.
std::string kernel_family(std::string_view kernel, const BackendEntry* backend);

}  // namespace parlab
