// The CPU workloads: the CPU wing's kernel table (cpu_kernel_table), on any executor.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "aligned_buffer.hpp"
#include "kernel_table.hpp"
#include "worker_ledger.hpp"
#include "kernels.hpp"
#include "lab.hpp"
#include "stream_validation.hpp"
#include "user_kernels.hpp"
#include "workload.hpp"

namespace parlab {

namespace {

// The precision a single-precision kernel runs at (its catalogue default).
Precision spec_precision(std::string_view kernel) { return find_kernel(kernel)->precisions.front(); }

// ---------------------------------------------------------------- pi
class PiWorkload final : public Workload {
 public:
  PiWorkload(std::unique_ptr<Executor> ex, const Problem& p)
      : ex_(std::move(ex)), seed_(p.seed), first_(p.first), samples_(p.size) {
    if (first_ > std::numeric_limits<std::uint64_t>::max() - samples_) throw UsageError("pi: first sample + samples overflows 64 bits");
  }

  void run() override {
    hits_.record(first_ == 0 ? pi_hits(*ex_, seed_, samples_) : pi_hits_range(*ex_, seed_, first_, first_ + samples_));
  }

  Validation validate() override { return hits_.validate(samples_); }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::uint64_t seed_, first_, samples_;
  PiHitsTracker hits_;
};

// ---------------------------------------------------------------- STREAM
// mpi/'s StreamRank holds the same over a rank's share, kept apart on purpose: core includes no
// MPI, and a rank's validation and dot gather across ranks.
template <class T>
class StreamWorkload final : public Workload {
 public:
  StreamWorkload(std::unique_ptr<Executor> ex, StreamKernel k, std::uint64_t n)
      : ex_(std::move(ex)), kernel_(k), n_(n), a_(n), b_(n), c_(n),
        partials_(k == StreamKernel::dot ? dot_block_count(n) : 0) {
    T* a = a_.data();
    T* b = b_.data();
    T* c = c_.data();
    ex_->parallel_for(n_, kArrayGrain, [=](Index lo, Index hi) {
      for (Index i = lo; i < hi; ++i) {
        a[i] = StreamInit<T>::a;
        b[i] = StreamInit<T>::b;
        c[i] = StreamInit<T>::c;
      }
    });
  }

  void run() override {
    if (kernel_ == StreamKernel::dot) {
      dot_.record(stream_dot(*ex_, a_.data(), b_.data(), n_, partials_.data()));
    } else {
      stream_run(*ex_, kernel_, a_.data(), b_.data(), c_.data(), n_);
    }
    gold_.apply(kernel_);
    ++runs_;
  }

  Validation validate() override {
    Validation v = validate_stream(kernel_, a_.data(), b_.data(), c_.data(), n_, gold_, runs_, dot_);
    note_stream_stores<T>(v, kernel_, n_);
    return v;
  }

  WorkCount work() const override { return stream_work<T>(kernel_, n_); }

 private:
  std::unique_ptr<Executor> ex_;
  StreamKernel kernel_;
  std::uint64_t n_;
  AlignedBuffer<T> a_, b_, c_, partials_;
  StreamGold<T> gold_;
  DotRuns<T> dot_;
  std::uint64_t runs_ = 0;
};

// ---------------------------------------------------------------- plus_one
class PlusOneWorkload final : public Workload {
 public:
  PlusOneWorkload(std::unique_ptr<Executor> ex, std::uint64_t n)
      : ex_(std::move(ex)), n_(n), x_(n), y_(n) {
    std::int32_t* x = x_.data();
    std::int32_t* y = y_.data();
    ex_->parallel_for(n_, kArrayGrain, [=](Index lo, Index hi) {
      for (Index i = lo; i < hi; ++i) {
        x[i] = plus_one_init(i);
        y[i] = 0;
      }
    });
  }
  void run() override { plus_one(*ex_, x_.data(), y_.data(), n_); }
  Validation validate() override { return validate_plus_one(y_.data(), n_); }
  WorkCount work() const override { return kernel_work("plus_one", Precision::i32, n_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::uint64_t n_;
  AlignedBuffer<std::int32_t> x_, y_;
};

// ---------------------------------------------------------------- add2d
class Add2dWorkload final : public Workload {
 public:
  Add2dWorkload(std::unique_ptr<Executor> ex, std::uint64_t nx, std::uint64_t ny)
      : ex_(std::move(ex)), nx_(nx), ny_(ny), a_(checked_area(nx, ny)), b_(nx * ny), r_(nx * ny) {
    float* a = a_.data();
    float* b = b_.data();
    float* r = r_.data();
    ex_->parallel_for(nx_ * ny_, kArrayGrain, [=](Index lo, Index hi) {
      for (Index i = lo; i < hi; ++i) {
        a[i] = basic_input(i, 0);
        b[i] = basic_input(i, 1);
        r[i] = 0.0f;
      }
    });
  }
  static std::uint64_t checked_area(std::uint64_t nx, std::uint64_t ny) {
    if (ny != 0 && nx > std::numeric_limits<std::uint64_t>::max() / ny) {
      throw UsageError("add2d grid " + std::to_string(nx) + "x" + std::to_string(ny) + " is too large");
    }
    return nx * ny;
  }
  void run() override { add2d(*ex_, a_.data(), b_.data(), r_.data(), nx_, ny_); }
  Validation validate() override { return validate_add2d(r_.data(), nx_, ny_); }
  WorkCount work() const override { return kernel_work("add2d", Precision::f32, nx_, ny_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::uint64_t nx_, ny_;
  AlignedBuffer<float> a_, b_, r_;
};

// ---------------------------------------------------------------- matmul
class MatmulWorkload final : public Workload {
 public:
  MatmulWorkload(std::unique_ptr<Executor> ex, std::uint64_t n)
      : ex_(std::move(ex)),
        n_(n),
        A_(Add2dWorkload::checked_area(n, n)),
        B_(n * n),
        C_(n * n),
        packed_(matmul_packed_floats(n)) {
    for (std::uint64_t i = 0; i < n_ * n_; ++i) {
      A_[i] = basic_input(i, 2);
      B_[i] = basic_input(i, 3);
      C_[i] = 0.0f;
    }
  }
  void run() override { matmul_blocked(*ex_, A_.data(), B_.data(), C_.data(), n_, packed_.data()); }
  Validation validate() override {
    // Every C element must equal the naive k-ascending sum bit for bit (see matmul_blocked).
    // Checking all n^2 of them costs O(n^3); a fixed sample of rows and columns costs O(n^2).
    Validation v;
    const std::uint64_t step = n_ <= 64 ? 1 : n_ / 61 + 1;
    double sum = 0;
    for (std::uint64_t i = 0; i < n_ && v.pass; i += step) {
      for (std::uint64_t j = 0; j < n_; j += step) {
        float expect = 0.0f;
        for (std::uint64_t k = 0; k < n_; ++k) expect += A_[i * n_ + k] * B_[k * n_ + j];
        if (C_[i * n_ + j] != expect) {
          v.pass = false;
          v.detail = "C[" + std::to_string(i) + "][" + std::to_string(j) + "] differs from the naive sum";
          break;
        }
        sum += expect;
      }
    }
    v.checksum = sum;
    if (v.pass) v.detail = "sampled elements equal the naive k-ascending sum";
    return v;
  }
  WorkCount work() const override { return kernel_work("matmul", Precision::f32, n_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::uint64_t n_;
  AlignedBuffer<float> A_, B_, C_, packed_;  // packed_: B by column bands (matmul_blocked)
};

// ---------------------------------------------------------------- race lab
// A race-lab kernel as data: one trial, the exact answer each trial is compared with, whether it
// is racy (it passes whatever it returns: observing the race is the point; its exact counterpart
// fails on any deviation) and whether it sums the values array.
struct RaceInputs {
  std::uint64_t n = 0, seed = 0;
  const double* x = nullptr;
  const double* ones = nullptr;
  double* partials = nullptr;
};

struct RaceKernel {
  double (*trial)(Executor&, const RaceInputs&);
  double (*exact)(const RaceInputs&);
  bool racy;
  bool summed;
};

double exact_count(const RaceInputs& in) { return static_cast<double>(in.n); }

// For the shared generator "exact" means the sequential draw order (what one thread gets).
double exact_rng_shared(const RaceInputs& in) {
  std::uint64_t s = in.seed | 1u, hits = 0;
  for (std::uint64_t i = 0; i < in.n; ++i) {
    s = lab::xorshift64_next(s);
    const std::uint64_t r = s * 0x2545F4914F6CDD1Dull;
    hits += pi_hit(static_cast<std::uint32_t>(r >> 32), static_cast<std::uint32_t>(r));
  }
  return static_cast<double>(hits);
}

// For sum_order, left-to-right summation.
double exact_sum_order(const RaceInputs& in) {
  double sum = 0;
  for (std::uint64_t i = 0; i < in.n; ++i) sum += in.x[i];
  return sum;
}

double exact_sum_canonical(const RaceInputs& in) {
  AlignedBuffer<double> partials(dot_block_count(in.n));
  for (std::uint64_t b = 0; b < dot_block_count(in.n); ++b) partials[b] = dot_block(in.x, in.ones, in.n, b);
  return dot_pairwise_inplace(partials.data(), dot_block_count(in.n));
}

constexpr RaceKernel kCountRacy{
    [](Executor& ex, const RaceInputs& in) { return static_cast<double>(lab::count_racy(ex, in.n)); }, exact_count, true, false};
constexpr RaceKernel kCountAtomic{
    [](Executor& ex, const RaceInputs& in) { return static_cast<double>(lab::count_atomic(ex, in.n)); }, exact_count, false, false};
constexpr RaceKernel kCountLocal{
    [](Executor& ex, const RaceInputs& in) { return static_cast<double>(lab::count_local(ex, in.n)); }, exact_count, false, false};
constexpr RaceKernel kRngShared{
    [](Executor& ex, const RaceInputs& in) { return static_cast<double>(lab::pi_hits_rng_shared(ex, in.seed, in.n)); },
    exact_rng_shared, true, false};
constexpr RaceKernel kRngCounter{
    [](Executor& ex, const RaceInputs& in) { return static_cast<double>(pi_hits(ex, in.seed, in.n)); },
    [](const RaceInputs& in) { return static_cast<double>(pi_hits_points(in.seed, 0, in.n)); }, false, false};
constexpr RaceKernel kSumOrder{
    [](Executor& ex, const RaceInputs& in) { return lab::sum_completion_order(ex, in.x, in.n); }, exact_sum_order, true, true};
constexpr RaceKernel kSumCanonical{
    [](Executor& ex, const RaceInputs& in) { return stream_dot(ex, in.x, in.ones, in.n, in.partials); }, exact_sum_canonical,
    false, true};

// Each run() is one trial; validate() reports how many trials differed from the exact answer
// and by how much.
class RaceWorkload final : public Workload {
 public:
  RaceWorkload(std::unique_ptr<Executor> ex, const Problem& p, const RaceKernel& k)
      : ex_(std::move(ex)), kernel_(p.kernel), k_(k) {
    in_.n = p.size;
    in_.seed = p.seed;
    if (k_.summed) {
      x_ = AlignedBuffer<double>(in_.n);
      ones_ = AlignedBuffer<double>(in_.n);
      partials_ = AlignedBuffer<double>(dot_block_count(in_.n));
      // Values spanning 40 binary orders of magnitude, so the order of addition shows.
      for (std::uint64_t i = 0; i < in_.n; ++i) {
        const auto r = philox4x32_10({{static_cast<std::uint32_t>(i), 0, 0, 0}}, {{0x5eed, 0}});
        x_[i] = std::ldexp(static_cast<double>(r.v[0]) / 4294967296.0 - 0.5, static_cast<int>(r.v[1] % 40) - 20);
        ones_[i] = 1.0;
      }
      in_.x = x_.data();
      in_.ones = ones_.data();
      in_.partials = partials_.data();
    }
    trials_.set_exact(k_.exact(in_));
  }

  void run() override { trials_.record(k_.trial(*ex_, in_)); }

  Validation validate() override { return trials_.validate(k_.racy); }

  WorkCount work() const override { return kernel_work(kernel_, spec_precision(kernel_), in_.n); }

 private:
  std::unique_ptr<Executor> ex_;
  std::string kernel_;
  const RaceKernel& k_;
  RaceInputs in_;
  AlignedBuffer<double> x_, ones_, partials_;
  RaceTrials trials_;
};

template <const RaceKernel& K>
std::unique_ptr<Workload> make_race(std::unique_ptr<Executor> ex, const Problem& p) {
  return std::make_unique<RaceWorkload>(std::move(ex), p, K);
}

// ---------------------------------------------------------------- overhead probes
// One probe's `regions` constructs; `sink` keeps a result the compiler must not drop, `wrong`
// marks a reduction that returned the wrong count.
using OverheadProbe = void (*)(Executor&, std::uint64_t regions, std::uint64_t& sink, bool& wrong);

class OverheadWorkload final : public Workload {
 public:
  static constexpr Index kItersPerThread = 64;
  OverheadWorkload(std::unique_ptr<Executor> ex, const Problem& p, OverheadProbe probe)
      : ex_(std::move(ex)), kernel_(p.kernel), regions_(p.size), probe_(probe) {}
  void run() override { probe_(*ex_, regions_, sink_, wrong_); }
  Validation validate() override {
    Validation v;
    v.pass = !wrong_;
    v.detail = wrong_ ? "a reduction returned the wrong count" : "constructs completed";
    v.checksum = static_cast<double>(sink_);
    return v;
  }
  // Constructs per run: time per construct = 1/rate.
  WorkCount work() const override { return kernel_work(kernel_, Precision::i32, regions_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::string kernel_;
  std::uint64_t regions_;
  OverheadProbe probe_;
  std::uint64_t sink_ = 0;
  bool wrong_ = false;
};

template <OverheadProbe Probe>
std::unique_ptr<Workload> make_overhead(std::unique_ptr<Executor> ex, const Problem& p) {
  return std::make_unique<OverheadWorkload>(std::move(ex), p, Probe);
}

void probe_empty(Executor& ex, std::uint64_t regions, std::uint64_t&, bool&) { lab::overhead_empty_regions(ex, regions); }
void probe_for(Executor& ex, std::uint64_t regions, std::uint64_t& sink, bool&) {
  sink += lab::overhead_parallel_for(ex, regions, OverheadWorkload::kItersPerThread);
}
void probe_reduce(Executor& ex, std::uint64_t regions, std::uint64_t&, bool& wrong) {
  if (lab::overhead_reduction(ex, regions) != regions * static_cast<std::uint64_t>(ex.threads())) wrong = true;
}

std::string accepted_precisions(const KernelSpec& spec) {
  std::string s;
  for (auto p : spec.precisions) s += std::string(s.empty() ? "" : ", ") + to_string(p);
  return s;
}

template <template <class> class W>
std::unique_ptr<Workload> make_stream(std::unique_ptr<Executor> ex, const Problem& p) {
  const StreamKernel k = *stream_kernel_from_name(p.kernel);
  if (p.precision == Precision::f32) return std::make_unique<W<float>>(std::move(ex), k, p.size);
  return std::make_unique<W<double>>(std::move(ex), k, p.size);
}

}  // namespace

// A CPU workload and the ledger of the executor it runs on: the workload's own behaviour, with
// worker_ledger() for the runner. PRECONDITION: the ledger belongs to the inner workload's executor.
class AccountedWorkload final : public Workload {
 public:
  AccountedWorkload(std::unique_ptr<Workload> inner, WorkerLedger& ledger) : inner_(std::move(inner)), ledger_(ledger) {}
  void run() override { inner_->run(); }
  Validation validate() override { return inner_->validate(); }
  WorkCount work() const override { return inner_->work(); }
  std::optional<SelfTiming> last_timing() const override { return inner_->last_timing(); }
  void warmed_up() override { inner_->warmed_up(); }
  std::optional<ProcessLayout> layout() const override { return inner_->layout(); }
  WorkerLedger* worker_ledger() override { return &ledger_; }

 private:
  std::unique_ptr<Workload> inner_;
  WorkerLedger& ledger_;
};

// The CPU wing's table: every family but the communication probes, which need MPI ranks (mpi/),
// and the kernels another project added (family own), whose setup and body are its own.
const KernelTable<CpuMaker>& cpu_kernel_table() {
  static const KernelTable<CpuMaker> table = [] {
    KernelTable<CpuMaker> t;
    t.family(KernelFamily::pi, [](std::unique_ptr<Executor> ex, const Problem& p) -> std::unique_ptr<Workload> {
       return std::make_unique<PiWorkload>(std::move(ex), p);
     })
        .family(KernelFamily::stream, make_stream<StreamWorkload>)
        .kernel("plus_one", [](std::unique_ptr<Executor> ex, const Problem& p) -> std::unique_ptr<Workload> {
          return std::make_unique<PlusOneWorkload>(std::move(ex), p.size);
        })
        .kernel("add2d", [](std::unique_ptr<Executor> ex, const Problem& p) -> std::unique_ptr<Workload> {
          return std::make_unique<Add2dWorkload>(std::move(ex), p.size, p.size_y ? p.size_y : p.size);
        })
        .kernel("matmul", [](std::unique_ptr<Executor> ex, const Problem& p) -> std::unique_ptr<Workload> {
          return std::make_unique<MatmulWorkload>(std::move(ex), p.size);
        })
        .kernel("count_racy", make_race<kCountRacy>)
        .kernel("count_atomic", make_race<kCountAtomic>)
        .kernel("count_local", make_race<kCountLocal>)
        .kernel("rng_shared", make_race<kRngShared>)
        .kernel("rng_counter", make_race<kRngCounter>)
        .kernel("sum_order", make_race<kSumOrder>)
        .kernel("sum_canonical", make_race<kSumCanonical>)
        .kernel("overhead_empty", make_overhead<probe_empty>)
        .kernel("overhead_for", make_overhead<probe_for>)
        .kernel("overhead_reduce", make_overhead<probe_reduce>)
        .family(KernelFamily::own, make_user_workload);
    return t;
  }();
  return table;
}

std::unique_ptr<Workload> make_cpu_workload(std::unique_ptr<Executor> executor, const Problem& p,
                                            std::string_view backend) {
  const KernelSpec* spec = find_kernel(p.kernel);
  if (spec == nullptr) throw UsageError("unknown kernel '" + p.kernel + "'");
  const CpuMaker make = cpu_kernel_table().at(p.kernel, backend);
  if (std::find(spec->precisions.begin(), spec->precisions.end(), p.precision) ==
      spec->precisions.end()) {
    throw UsageError("kernel '" + p.kernel + "' does not support precision " +
                     to_string(p.precision) + " (accepted: " + accepted_precisions(*spec) + ")");
  }
  // Every CPU workload's loops go through one accounted executor (core/worker_ledger.hpp): the
  // runner turns the accounting on where the runs are long enough to carry it.
  auto accounted = std::make_unique<AccountedExecutor>(std::move(executor));
  WorkerLedger& ledger = accounted->ledger();
  return std::make_unique<AccountedWorkload>(make(std::move(accounted), p), ledger);
}
}  // namespace parlab
