// The CPU workloads: the CPU wing's kernel table (cpu_kernel_table), on any executor.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "aligned_buffer.hpp"
#include "kernel_table.hpp"
#include "kernels.hpp"
#include "lab.hpp"
#include "stream_validation.hpp"
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
      : ex_(std::move(ex)), n_(n), A_(Add2dWorkload::checked_area(n, n)), B_(n * n), C_(n * n) {
    for (std::uint64_t i = 0; i < n_ * n_; ++i) {
      A_[i] = basic_input(i, 2);
      B_[i] = basic_input(i, 3);
      C_[i] = 0.0f;
    }
  }
  void run() override { matmul_blocked(*ex_, A_.data(), B_.data(), C_.data(), n_); }
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
  AlignedBuffer<float> A_, B_, C_;
};

// ---------------------------------------------------------------- race lab
// Each run() is one trial; validate() reports how many trials differed from the exact answer
// and by how much. Racy kernels pass regardless (observing them is the point); their exact
// counterparts fail on any deviation.
class RaceWorkload final : public Workload {
 public:
  RaceWorkload(std::unique_ptr<Executor> ex, const Problem& p)
      : ex_(std::move(ex)), kernel_(p.kernel), n_(p.size), seed_(p.seed) {
    racy_ = kernel_ == "count_racy" || kernel_ == "rng_shared" || kernel_ == "sum_order";
    if (kernel_ == "sum_order" || kernel_ == "sum_canonical") {
      x_ = AlignedBuffer<double>(n_);
      ones_ = AlignedBuffer<double>(n_);
      partials_ = AlignedBuffer<double>(dot_block_count(n_));
      // Values spanning 40 binary orders of magnitude, so the order of addition shows.
      for (std::uint64_t i = 0; i < n_; ++i) {
        const auto r = philox4x32_10({{static_cast<std::uint32_t>(i), 0, 0, 0}}, {{0x5eed, 0}});
        x_[i] = std::ldexp(static_cast<double>(r.v[0]) / 4294967296.0 - 0.5, static_cast<int>(r.v[1] % 40) - 20);
        ones_[i] = 1.0;
      }
    }
    trials_.set_exact(reference());
  }

  void run() override {
    double v = 0;
    if (kernel_ == "count_racy") v = static_cast<double>(lab::count_racy(*ex_, n_));
    else if (kernel_ == "count_atomic") v = static_cast<double>(lab::count_atomic(*ex_, n_));
    else if (kernel_ == "count_local") v = static_cast<double>(lab::count_local(*ex_, n_));
    else if (kernel_ == "rng_shared") v = static_cast<double>(lab::pi_hits_rng_shared(*ex_, seed_, n_));
    else if (kernel_ == "rng_counter") v = static_cast<double>(pi_hits(*ex_, seed_, n_));
    else if (kernel_ == "sum_order") v = lab::sum_completion_order(*ex_, x_.data(), n_);
    else v = stream_dot(*ex_, x_.data(), ones_.data(), n_, partials_.data());
    trials_.record(v);
  }

  Validation validate() override { return trials_.validate(racy_); }

  WorkCount work() const override { return kernel_work(kernel_, spec_precision(kernel_), n_); }

 private:
  // The exact answer each trial is compared with. For the shared generator "exact" means the
  // sequential draw order (what one thread gets); for sum_order, left-to-right summation.
  double reference() const {
    if (kernel_.rfind("count_", 0) == 0) return static_cast<double>(n_);
    if (kernel_ == "rng_counter") return static_cast<double>(pi_hits_points(seed_, 0, n_));
    if (kernel_ == "rng_shared") {
      std::uint64_t s = seed_ | 1u, hits = 0;
      for (std::uint64_t i = 0; i < n_; ++i) {
        s = lab::xorshift64_next(s);
        const std::uint64_t r = s * 0x2545F4914F6CDD1Dull;
        hits += pi_hit(static_cast<std::uint32_t>(r >> 32), static_cast<std::uint32_t>(r));
      }
      return static_cast<double>(hits);
    }
    if (kernel_ == "sum_order") {
      double sum = 0;
      for (std::uint64_t i = 0; i < n_; ++i) sum += x_[i];
      return sum;
    }
    AlignedBuffer<double> partials(dot_block_count(n_));
    for (std::uint64_t b = 0; b < dot_block_count(n_); ++b) partials[b] = dot_block(x_.data(), ones_.data(), n_, b);
    return dot_pairwise_inplace(partials.data(), dot_block_count(n_));
  }

  std::unique_ptr<Executor> ex_;
  std::string kernel_;
  std::uint64_t n_, seed_;
  bool racy_ = false;
  AlignedBuffer<double> x_, ones_, partials_;
  RaceTrials trials_;
};

// ---------------------------------------------------------------- overhead probes
class OverheadWorkload final : public Workload {
 public:
  static constexpr Index kItersPerThread = 64;
  OverheadWorkload(std::unique_ptr<Executor> ex, const Problem& p) : ex_(std::move(ex)), kernel_(p.kernel), regions_(p.size) {}
  void run() override {
    if (kernel_ == "overhead_empty") {
      lab::overhead_empty_regions(*ex_, regions_);
    } else if (kernel_ == "overhead_for") {
      sink_ += lab::overhead_parallel_for(*ex_, regions_, kItersPerThread);
    } else {
      const std::uint64_t got = lab::overhead_reduction(*ex_, regions_);
      if (got != regions_ * static_cast<std::uint64_t>(ex_->threads())) wrong_ = true;
    }
  }
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
  std::uint64_t sink_ = 0;
  bool wrong_ = false;
};

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

// The CPU wing's table: every family but the communication probes, which need MPI ranks (mpi/).
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
        .family(KernelFamily::race, [](std::unique_ptr<Executor> ex, const Problem& p) -> std::unique_ptr<Workload> {
          return std::make_unique<RaceWorkload>(std::move(ex), p);
        })
        .family(KernelFamily::overhead, [](std::unique_ptr<Executor> ex, const Problem& p) -> std::unique_ptr<Workload> {
          return std::make_unique<OverheadWorkload>(std::move(ex), p);
        });
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
  return make(std::move(executor), p);
}
}  // namespace parlab
