#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

#include "core/aligned_buffer.hpp"
#include "core/stream_validation.hpp"
#include "core/kernel_table.hpp"
#include "core/kernels.hpp"
#include "cublas_library.hpp"
#include "device.hpp"
#include "launch.hpp"

namespace parlab::cuda {

DeviceWorkload::DeviceWorkload(int device)
    : device_(device),
      stream_(create_on<Stream>(device)),
      start_(create_on<Event>(device)),
      stop_(create_on<Event>(device)),
      copied_(create_on<Event>(device)) {}

void DeviceWorkload::run_timed(FunctionRef<void()> launch) {
  DeviceGuard guard(device_);
  start_.record(stream_);
  launch();
  stop_.record(stream_);
  stop_.synchronize();
  timing_ = {elapsed_seconds(start_, stop_), 0.0};
}

void check_precision(const Problem& p) {
  const KernelSpec* spec = find_kernel(p.kernel);
  if (spec == nullptr) return;  // the practices take no precision
  if (std::find(spec->precisions.begin(), spec->precisions.end(), p.precision) != spec->precisions.end()) {
    return;
  }
  std::string accepted;
  for (auto q : spec->precisions) accepted += std::string(accepted.empty() ? "" : ", ") + to_string(q);
  throw UsageError("kernel '" + p.kernel + "' does not support precision " + to_string(p.precision) +
                   " (accepted: " + accepted + ")");
}

namespace {

// Copies n elements from device to a new host array (untimed: validation only).
template <class T>
AlignedBuffer<T> to_host(const T* device_ptr, std::uint64_t n) {
  AlignedBuffer<T> host(n);
  if (n > 0) PARLAB_CUDA_CHECK(cudaMemcpy(host.data(), device_ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

template <class T>
void to_device(T* device_ptr, const T* host, std::uint64_t n) {
  if (n > 0) PARLAB_CUDA_CHECK(cudaMemcpy(device_ptr, host, n * sizeof(T), cudaMemcpyHostToDevice));
}

std::uint64_t checked_area(std::uint64_t nx, std::uint64_t ny, const char* kernel) {
  if (ny != 0 && nx > std::numeric_limits<std::uint64_t>::max() / ny) {
    throw UsageError(std::string(kernel) + " grid " + std::to_string(nx) + "x" + std::to_string(ny) +
                     " is too large");
  }
  return nx * ny;
}

// ---------------------------------------------------------------- pi
class PiWorkload final : public DeviceWorkload {
 public:
  explicit PiWorkload(const Problem& p)
      : DeviceWorkload(p.device), seed_(p.seed), first_pair_(p.first / 2), samples_(p.size),
        hits_device_(1, p.device, "pi hit counter"), hits_host_(1, "pi hit counter") {
    // A part of the stream (an MPI rank's share) starts on a pair, as the MPI wing splits it.
    if (p.first % 2 != 0) throw UsageError("pi on the GPU: the first sample of a part must be even");
  }

  void run() override {
    DeviceGuard guard(device_);
    PARLAB_CUDA_CHECK(cudaMemsetAsync(hits_device_.get(), 0, sizeof(unsigned long long), stream_.get()));
    start_.record(stream_);
    launch_pi_hits(seed_, first_pair_, first_pair_ + samples_ / 2, (samples_ & 1u) != 0, hits_device_.get(), device_,
                   stream_.get());
    stop_.record(stream_);
    PARLAB_CUDA_CHECK(cudaMemcpyAsync(hits_host_.get(), hits_device_.get(), sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, stream_.get()));
    copied_.record(stream_);
    copied_.synchronize();
    timing_ = {elapsed_seconds(start_, stop_), elapsed_seconds(stop_, copied_)};

    hits_.record(hits_host_[0]);
  }

  Validation validate() override { return hits_.validate(samples_); }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

 private:
  std::uint64_t seed_, first_pair_, samples_;
  DeviceBuffer<unsigned long long> hits_device_;
  PinnedBuffer<unsigned long long> hits_host_;
  PiHitsTracker hits_;
};

// ---------------------------------------------------------------- STREAM
// Who runs copy: parlab's kernel, or the driver's cudaMemcpyAsync (the `cuda-memcpy` entry).
enum class CopyBy { kernel, driver };

template <class T>
class StreamWorkload final : public DeviceWorkload {
 public:
  StreamWorkload(const Problem& p, StreamKernel k, CopyBy copy_by = CopyBy::kernel)
      : DeviceWorkload(p.device), kernel_(k), copy_by_(copy_by), n_(p.size),
        a_(n_, device_, "STREAM array a"), b_(n_, device_, "STREAM array b"), c_(n_, device_, "STREAM array c"),
        scratch_(k == StreamKernel::dot ? n_ : 0, device_),
        dot_host_(k == StreamKernel::dot ? 1 : 0, "dot result") {
    DeviceGuard guard(device_);
    launch_stream_init(a_.get(), b_.get(), c_.get(), n_, stream_.get());
    finish_setup();
  }

  void run() override {
    // The dot's kernel writes its result straight into page-locked host memory (as BabelStream's
    // writes its partial sums), so the timed region ends with the value on the host and there
    // is no copy to time apart.
    if (kernel_ == StreamKernel::dot) {
      run_timed([&] { launch_dot(a_.get(), b_.get(), n_, scratch_, dot_host_.get(), stream_.get()); });
      dot_.record(dot_host_[0]);
    } else if (copy_by_ == CopyBy::driver) {
      // c = a by the driver: what a program calls instead of writing a copy kernel. Nothing to
      // call for no elements (the buffers are null then), as launch_stream launches nothing.
      run_timed([&] {
        if (n_ == 0) return;
        PARLAB_CUDA_CHECK(cudaMemcpyAsync(c_.get(), a_.get(), c_.bytes(), cudaMemcpyDeviceToDevice, stream_.get()));
      });
    } else {
      run_timed([&] { launch_stream(kernel_, a_.get(), b_.get(), c_.get(), n_, stream_.get()); });
    }
    gold_.apply(kernel_);
    ++runs_;
  }

  Validation validate() override {
    DeviceGuard guard(device_);
    stream_.synchronize();
    const auto a = to_host(a_.get(), n_), b = to_host(b_.get(), n_), c = to_host(c_.get(), n_);
    return validate_stream(kernel_, a.data(), b.data(), c.data(), n_, gold_, runs_, dot_);
  }

  WorkCount work() const override { return stream_work<T>(kernel_, n_); }

 private:
  StreamKernel kernel_;
  CopyBy copy_by_;
  std::uint64_t n_;
  DeviceBuffer<T> a_, b_, c_;
  DotScratch<T> scratch_;
  PinnedBuffer<T> dot_host_;
  StreamGold<T> gold_;
  DotRuns<T> dot_;
  std::uint64_t runs_ = 0;
};

// ---------------------------------------------------------------- plus_one
class PlusOneWorkload final : public DeviceWorkload {
 public:
  explicit PlusOneWorkload(const Problem& p)
      : DeviceWorkload(p.device), n_(p.size), x_(n_, device_, "plus_one input"), y_(n_, device_, "plus_one output") {
    DeviceGuard guard(device_);
    AlignedBuffer<std::int32_t> x(n_);
    for (std::uint64_t i = 0; i < n_; ++i) x[i] = plus_one_init(i);
    to_device(x_.get(), x.data(), n_);
    if (n_ > 0) PARLAB_CUDA_CHECK(cudaMemset(y_.get(), 0, y_.bytes()));
    finish_setup();
  }

  void run() override {
    run_timed([&] { launch_plus_one(x_.get(), y_.get(), n_, stream_.get()); });
  }

  Validation validate() override {
    DeviceGuard guard(device_);
    const auto y = to_host(y_.get(), n_);
    return validate_plus_one(y.data(), n_);
  }

  WorkCount work() const override { return kernel_work("plus_one", Precision::i32, n_); }

 private:
  std::uint64_t n_;
  DeviceBuffer<std::int32_t> x_, y_;
};

// ---------------------------------------------------------------- add2d
class Add2dWorkload final : public DeviceWorkload {
 public:
  Add2dWorkload(const Problem& p, std::uint64_t nx, std::uint64_t ny)
      : DeviceWorkload(p.device), nx_(nx), ny_(ny), area_(checked_area(nx, ny, "add2d")),
        a_(area_, device_, "add2d input a"), b_(area_, device_, "add2d input b"), r_(area_, device_, "add2d result") {
    DeviceGuard guard(device_);
    AlignedBuffer<float> a(area_), b(area_);
    for (std::uint64_t i = 0; i < area_; ++i) {
      a[i] = basic_input(i, 0);
      b[i] = basic_input(i, 1);
    }
    to_device(a_.get(), a.data(), area_);
    to_device(b_.get(), b.data(), area_);
    if (area_ > 0) PARLAB_CUDA_CHECK(cudaMemset(r_.get(), 0, r_.bytes()));
    finish_setup();
  }

  void run() override {
    run_timed([&] { launch_add2d(a_.get(), b_.get(), r_.get(), nx_, ny_, stream_.get()); });
  }

  Validation validate() override {
    DeviceGuard guard(device_);
    const auto r = to_host(r_.get(), area_);
    return validate_add2d(r.data(), nx_, ny_);
  }

  WorkCount work() const override { return kernel_work("add2d", Precision::f32, nx_, ny_); }

 private:
  std::uint64_t nx_, ny_, area_;
  DeviceBuffer<float> a_, b_, r_;
};

// ---------------------------------------------------------------- matmul
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* expr, const char* file, int line) {
  std::ostringstream os;
  os << "cuBLAS error " << cublas().status_name(status) << " (" << cublas().status_string(status) << ") in `"
     << expr << "` at " << file << ":" << line;
  throw FailureError(os.str());
}

#define PARLAB_CUBLAS_CHECK(expr)                                                   \
  do {                                                                              \
    const cublasStatus_t parlab_cublas_status_ = (expr);                            \
    if (parlab_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                           \
      throw_cublas_error(parlab_cublas_status_, #expr, __FILE__, __LINE__);         \
    }                                                                               \
  } while (0)

// A cuBLAS handle bound to one stream. PRECONDITION: its device is current when constructed.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    cublasHandle_t h = nullptr;
    PARLAB_CUBLAS_CHECK(cublas().create(&h));
    handle_.reset(h);
    PARLAB_CUBLAS_CHECK(cublas().set_stream(h, stream));
    // FP32 arithmetic (no TF32 tensor cores), as torch.matmul does with allow_tf32 = False.
    PARLAB_CUBLAS_CHECK(cublas().set_math_mode(h, CUBLAS_DEFAULT_MATH));
  }
  cublasHandle_t get() const noexcept { return handle_.get(); }

 private:
  struct Destroy {
    void operator()(cublasHandle_t h) const noexcept { (void)cublas().destroy(h); }
  };
  std::unique_ptr<cublasContext, Destroy> handle_;
};

class MatmulWorkload final : public DeviceWorkload {
 public:
  MatmulWorkload(const Problem& p, MatmulImpl impl)
      : DeviceWorkload(p.device), impl_(impl), n_(p.size), area_(checked_area(n_, n_, "matmul")),
        A_(area_), B_(area_), dA_(area_, device_, "matmul A"), dB_(area_, device_, "matmul B"),
        dC_(area_, device_, "matmul C") {
    if (impl_ == MatmulImpl::cublas && n_ > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      throw UsageError("matmul n = " + std::to_string(n_) + " exceeds cuBLAS's int dimensions");
    }
    DeviceGuard guard(device_);
    for (std::uint64_t i = 0; i < area_; ++i) {
      A_[i] = basic_input(i, 2);
      B_[i] = basic_input(i, 3);
    }
    to_device(dA_.get(), A_.data(), area_);
    to_device(dB_.get(), B_.data(), area_);
    if (area_ > 0) PARLAB_CUDA_CHECK(cudaMemset(dC_.get(), 0, dC_.bytes()));
    if (impl_ == MatmulImpl::cublas) cublas_.emplace(stream_.get());
    finish_setup();
  }

  void run() override {
    run_timed([&] {
      if (impl_ == MatmulImpl::tiled) {
        launch_matmul_tiled(dA_.get(), dB_.get(), dC_.get(), n_, stream_.get());
      } else if (n_ > 0) {
        // cuBLAS is column-major: row-major C = A*B is column-major C^T = B^T * A^T, and a
        // row-major matrix read column-major is its transpose, so pass B first, untransposed.
        const int n = static_cast<int>(n_);
        const float alpha = 1.0f, beta = 0.0f;
        PARLAB_CUBLAS_CHECK(cublas().sgemm(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dB_.get(), n,
                                           dA_.get(), n, &beta, dC_.get(), n));
      }
    });
  }

  Validation validate() override {
    // The tiled kernel must equal the naive k-ascending sum bit for bit (see launch.hpp). cuBLAS
    // sums in its own order, with FMA: it is held to the rounding-error bound of any order,
    // |c - ref| <= 2 n eps sum_k |a_ik b_kj|. (The inputs are multiples of 1/8 in [-1, 1], so
    // for n up to 2^12 every order is exact and the bound is rarely needed.)
    DeviceGuard guard(device_);
    const auto C = to_host(dC_.get(), area_);
    Validation v;
    const std::uint64_t step = n_ <= 64 ? 1 : n_ / 61 + 1;
    const double eps = std::numeric_limits<float>::epsilon();
    double sum = 0;
    for (std::uint64_t i = 0; i < n_ && v.pass; i += step) {
      for (std::uint64_t j = 0; j < n_; j += step) {
        float expect = 0.0f;
        double magnitude = 0.0;
        for (std::uint64_t k = 0; k < n_; ++k) {
          expect += A_[i * n_ + k] * B_[k * n_ + j];
          magnitude += std::fabs(static_cast<double>(A_[i * n_ + k]) * B_[k * n_ + j]);
        }
        const float got = C[i * n_ + j];
        const bool ok = impl_ == MatmulImpl::tiled
                            ? got == expect
                            : std::fabs(static_cast<double>(got) - expect) <= 2.0 * static_cast<double>(n_) * eps * magnitude;
        if (!ok) {
          std::ostringstream os;
          os.precision(9);
          os << "C[" << i << "][" << j << "] = " << got << " differs from the naive sum " << expect
             << (impl_ == MatmulImpl::tiled ? " (bit-exact required)" : " beyond the rounding bound");
          v.pass = false;
          v.detail = os.str();
          break;
        }
        sum += expect;
      }
    }
    v.checksum = sum;
    if (v.pass) {
      v.detail = impl_ == MatmulImpl::tiled ? "sampled elements equal the naive k-ascending sum"
                                            : "sampled elements within the rounding bound of the naive sum";
    }
    return v;
  }

  WorkCount work() const override { return kernel_work("matmul", Precision::f32, n_); }

 private:
  MatmulImpl impl_;
  std::uint64_t n_, area_;
  AlignedBuffer<float> A_, B_;  // host copies of the inputs, for validation
  DeviceBuffer<float> dA_, dB_, dC_;
  std::optional<CublasHandle> cublas_;
};

template <template <class> class W>
std::unique_ptr<Workload> make_stream(const Problem& p, MatmulImpl) {
  const StreamKernel k = *stream_kernel_from_name(p.kernel);
  if (p.precision == Precision::f32) return std::make_unique<W<float>>(p, k);
  return std::make_unique<W<double>>(p, k);
}

}  // namespace

// The GPU wing's table: pi, STREAM and the basic kernels on one device; matmul also through
// cuBLAS; pi and triad also split over every device. The CPU race lab and overhead probes have
// no GPU form, and the communication probes need MPI ranks.
const KernelTable<GpuRow>& gpu_kernel_table() {
  static const KernelTable<GpuRow> table = [] {
    KernelTable<GpuRow> t;
    t.family(KernelFamily::pi, {[](const Problem& p, MatmulImpl) -> std::unique_ptr<Workload> {
                                  return std::make_unique<PiWorkload>(p);
                                },
                                false, make_multi_pi_workload})
        .family(KernelFamily::stream, {make_stream<StreamWorkload>})
        .kernel("copy", {make_stream<StreamWorkload>, false, nullptr, true})
        .kernel("triad", {make_stream<StreamWorkload>, false, make_multi_triad_workload})
        .kernel("plus_one", {[](const Problem& p, MatmulImpl) -> std::unique_ptr<Workload> {
                  return std::make_unique<PlusOneWorkload>(p);
                }})
        .kernel("add2d", {[](const Problem& p, MatmulImpl) -> std::unique_ptr<Workload> {
                  return std::make_unique<Add2dWorkload>(p, p.size, p.size_y ? p.size_y : p.size);
                }})
        .kernel("matmul", {[](const Problem& p, MatmulImpl impl) -> std::unique_ptr<Workload> {
                             return std::make_unique<MatmulWorkload>(p, impl);
                           },
                           true});
    return t;
  }();
  return table;
}

std::unique_ptr<Workload> make_single_device_workload(const Problem& p, MatmulImpl matmul, std::string_view backend) {
  check_device(p.device);
  if (!find_kernel(p.kernel)) return make_practice_workload(p);
  const GpuRow& row = gpu_kernel_table().at(p.kernel, backend, &GpuRow::single);
  check_precision(p);
  return row.single(p, matmul);
}

std::unique_ptr<Workload> make_driver_copy_workload(const Problem& p) {
  check_device(p.device);
  gpu_kernel_table().at(p.kernel, "cuda-memcpy", &GpuRow::driver_copy);
  check_precision(p);
  const StreamKernel k = *stream_kernel_from_name(p.kernel);
  if (p.precision == Precision::f32) return std::make_unique<StreamWorkload<float>>(p, k, CopyBy::driver);
  return std::make_unique<StreamWorkload<double>>(p, k, CopyBy::driver);
}

}  // namespace parlab::cuda
