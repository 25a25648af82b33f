// The GPU practices of backends.hpp: host-device transfers and logging inside a device loop.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/kernels.hpp"
#include "device.hpp"
#include "launch.hpp"
#include "workloads.hpp"

namespace parlab::cuda {

namespace {

// ---------------------------------------------------------------- transfers
enum class TransferMode { pageable, pinned, many_small, one_large };

constexpr std::uint64_t kManySmallCopies = 1024;

class TransferWorkload final : public DeviceWorkload {
 public:
  TransferWorkload(const Problem& p, TransferMode mode)
      : DeviceWorkload(p.device), mode_(mode), bytes_(p.size), device_buffer_(bytes_, device_, "transfer buffer") {
    if (mode_ == TransferMode::pageable) {
      pageable_src_.emplace(bytes_);
      pageable_dst_.emplace(bytes_);
      src_ = pageable_src_->data();
      dst_ = pageable_dst_->data();
    } else {
      pinned_src_.emplace(bytes_, "transfer source");
      pinned_dst_.emplace(bytes_, "transfer destination");
      src_ = pinned_src_->get();
      dst_ = pinned_dst_->get();
    }
    for (std::uint64_t i = 0; i < bytes_; ++i) src_[i] = static_cast<unsigned char>((i * 131 + 7) & 0xffu);
    if (bytes_ > 0) std::memset(dst_, 0, bytes_);
    // Every copy count and size is fixed here, so run() only enqueues copies.
    copies_ = mode_ == TransferMode::many_small ? std::min(kManySmallCopies, bytes_) : (bytes_ > 0 ? 1 : 0);
  }

  void run() override {
    DeviceGuard guard(device_);
    // Cleared outside the timed region, so the copy back must carry this run's upload.
    if (bytes_ > 0) PARLAB_CUDA_CHECK(cudaMemsetAsync(device_buffer_.get(), 0, bytes_, stream_.get()));
    start_.record(stream_);
    copy(cudaMemcpyHostToDevice);
    copy(cudaMemcpyDeviceToHost);
    stop_.record(stream_);
    stop_.synchronize();
    timing_ = {0.0, elapsed_seconds(start_, stop_)};
    ++runs_;
  }

  Validation validate() override {
    if (runs_ == 0) return Validation::never_ran();
    Validation v;
    v.pass = bytes_ == 0 || std::memcmp(src_, dst_, bytes_) == 0;
    std::ostringstream os;
    os << (v.pass ? "the copy back equals the source" : "the copy back differs from the source") << " ("
       << bytes_ << " bytes each way in " << copies_ << " cop" << (copies_ == 1 ? "y" : "ies") << ")";
    v.detail = os.str();
    v.checksum = static_cast<double>(bytes_);
    return v;
  }

  WorkCount work() const override {
    WorkCount w;
    w.bytes = 2.0 * static_cast<double>(bytes_);
    return w;
  }

 private:
  void copy(cudaMemcpyKind kind) {
    if (copies_ == 0) return;
    const std::uint64_t chunk = (bytes_ + copies_ - 1) / copies_;
    unsigned char* device = device_buffer_.get();
    for (std::uint64_t offset = 0; offset < bytes_; offset += chunk) {
      const std::uint64_t len = std::min(chunk, bytes_ - offset);
      if (kind == cudaMemcpyHostToDevice) {
        PARLAB_CUDA_CHECK(cudaMemcpyAsync(device + offset, src_ + offset, len, kind, stream_.get()));
      } else {
        PARLAB_CUDA_CHECK(cudaMemcpyAsync(dst_ + offset, device + offset, len, kind, stream_.get()));
      }
    }
  }

  TransferMode mode_;
  std::uint64_t bytes_;
  std::uint64_t copies_ = 0;
  DeviceBuffer<unsigned char> device_buffer_;
  std::optional<AlignedBuffer<unsigned char>> pageable_src_, pageable_dst_;
  std::optional<PinnedBuffer<unsigned char>> pinned_src_, pinned_dst_;
  unsigned char* src_ = nullptr;
  unsigned char* dst_ = nullptr;
  std::uint64_t runs_ = 0;
};

// ---------------------------------------------------------------- logging
// X := A*X for `steps` steps on 100x100 floats with the tiled matmul, the Frobenius norm of X
// recorded after each step. A is the orthonormal DCT-II matrix, so in exact arithmetic every
// norm equals ||X0||_F; in floats they drift by rounding only, which validate() bounds.
constexpr std::uint64_t kLogDim = 100;
constexpr std::uint64_t kLogArea = kLogDim * kLogDim;
constexpr double kLogTolerance = 1e-3;  // relative; float rounding over 1000 steps is ~1e-5

class LoggingWorkload final : public DeviceWorkload {
 public:
  LoggingWorkload(const Problem& p, bool every_step)
      : DeviceWorkload(p.device), every_step_(every_step), steps_(p.size),
        A_(kLogArea, device_, "logging matrix A"), X0_(kLogArea, device_, "logging initial X"),
        X_(kLogArea, device_, "logging X"), Y_(kLogArea, device_, "logging X'"),
        norms_device_(steps_, device_, "logging norms"), norms_host_(steps_, "logging norms") {
    DeviceGuard guard(device_);
    std::vector<float> a(kLogArea), x(kLogArea);
    const double pi = 3.14159265358979323846;
    const double n = static_cast<double>(kLogDim);
    for (std::uint64_t i = 0; i < kLogDim; ++i) {
      const double scale = std::sqrt((i == 0 ? 1.0 : 2.0) / n);
      for (std::uint64_t k = 0; k < kLogDim; ++k) {
        a[i * kLogDim + k] = static_cast<float>(scale * std::cos(pi * (2.0 * k + 1.0) * i / (2.0 * n)));
      }
    }
    double sum_squares = 0;
    for (std::uint64_t i = 0; i < kLogArea; ++i) {
      x[i] = basic_input(i, 4);
      sum_squares += static_cast<double>(x[i]) * x[i];
    }
    initial_norm_ = std::sqrt(sum_squares);
    PARLAB_CUDA_CHECK(cudaMemcpy(A_.get(), a.data(), kLogArea * sizeof(float), cudaMemcpyHostToDevice));
    PARLAB_CUDA_CHECK(cudaMemcpy(X0_.get(), x.data(), kLogArea * sizeof(float), cudaMemcpyHostToDevice));
    finish_setup();
  }

  void run() override {
    DeviceGuard guard(device_);
    cudaStream_t s = stream_.get();
    PARLAB_CUDA_CHECK(cudaMemcpyAsync(X_.get(), X0_.get(), kLogArea * sizeof(float), cudaMemcpyDeviceToDevice, s));
    float* x = X_.get();
    float* y = Y_.get();
    start_.record(stream_);
    double kernel_s = 0.0;
    for (std::uint64_t t = 0; t < steps_; ++t) {
      if (every_step_) step_start_.record(stream_);
      launch_matmul_tiled(A_.get(), x, y, kLogDim, s);
      launch_frobenius_norm(y, kLogArea, norms_device_.get() + t, s);
      std::swap(x, y);
      if (every_step_) {
        step_done_.record(stream_);
        PARLAB_CUDA_CHECK(cudaMemcpyAsync(norms_host_.get() + t, norms_device_.get() + t, sizeof(float),
                                          cudaMemcpyDeviceToHost, s));
        stream_.synchronize();  // the host needs the value now: that wait is what the study measures
        kernel_s += elapsed_seconds(step_start_, step_done_);
      }
    }
    stop_.record(stream_);
    if (!every_step_ && steps_ > 0) {
      PARLAB_CUDA_CHECK(cudaMemcpyAsync(norms_host_.get(), norms_device_.get(), steps_ * sizeof(float),
                                        cudaMemcpyDeviceToHost, s));
    }
    copied_.record(stream_);
    copied_.synchronize();
    if (every_step_) {
      timing_ = {kernel_s, std::max(0.0, elapsed_seconds(start_, copied_) - kernel_s)};
    } else {
      timing_ = {elapsed_seconds(start_, stop_), elapsed_seconds(stop_, copied_)};
    }
    ++runs_;
  }

  Validation validate() override {
    if (runs_ == 0) return Validation::never_ran();
    Validation v;
    double sum = 0, worst = 0;
    std::uint64_t worst_step = 0;
    for (std::uint64_t t = 0; t < steps_; ++t) {
      const double norm = norms_host_[t];
      const double err = std::isfinite(norm) ? std::fabs(norm - initial_norm_) / initial_norm_ : std::numeric_limits<double>::infinity();
      if (!(err <= worst)) {
        worst = err;
        worst_step = t;
      }
      sum += norm;
    }
    v.checksum = sum;
    v.pass = worst <= kLogTolerance;
    std::ostringstream os;
    os << steps_ << " norms recorded; the largest relative drift from ||X0||_F = " << initial_norm_ << " is "
       << worst << (steps_ > 0 ? " at step " + std::to_string(worst_step) : std::string()) << " (limit "
       << kLogTolerance << ")";
    v.detail = os.str();
    return v;
  }

  WorkCount work() const override {
    WorkCount w;
    const double n = static_cast<double>(kLogDim);
    w.flops = static_cast<double>(steps_) * (2.0 * n * n * n + 2.0 * n * n);
    w.bytes = static_cast<double>(steps_) * sizeof(float);  // the log read back
    return w;
  }

 private:
  bool every_step_;
  std::uint64_t steps_;
  DeviceBuffer<float> A_, X0_, X_, Y_, norms_device_;
  PinnedBuffer<float> norms_host_;
  Event step_start_ = create_on<Event>(device_), step_done_ = create_on<Event>(device_);
  double initial_norm_ = 0;
  std::uint64_t runs_ = 0;
};

// The practices' table: the GPU wing's own kernels (not in the catalogue), each with its maker.
struct PracticeRow {
  std::string_view name;
  std::unique_ptr<Workload> (*make)(const Problem&);
};

template <TransferMode M>
std::unique_ptr<Workload> make_transfer(const Problem& p) {
  return std::make_unique<TransferWorkload>(p, M);
}

template <bool EveryStep>
std::unique_ptr<Workload> make_logging(const Problem& p) {
  return std::make_unique<LoggingWorkload>(p, EveryStep);
}

constexpr PracticeRow kPractices[] = {
    {"transfer_pageable", make_transfer<TransferMode::pageable>},
    {"transfer_pinned", make_transfer<TransferMode::pinned>},
    {"transfer_many_small", make_transfer<TransferMode::many_small>},
    {"transfer_one_large", make_transfer<TransferMode::one_large>},
    {"logging_every_step", make_logging<true>},
    {"logging_on_device", make_logging<false>},
};

}  // namespace

std::vector<std::string> practice_kernels() {
  std::vector<std::string> names;
  for (const PracticeRow& r : kPractices) names.emplace_back(r.name);
  return names;
}

std::unique_ptr<Workload> make_practice_workload(const Problem& p) {
  check_device(p.device);
  for (const PracticeRow& r : kPractices) {
    if (r.name == p.kernel) return r.make(p);
  }
  std::string accepted;
  for (const auto& k : practice_kernels()) accepted += (accepted.empty() ? "" : ", ") + k;
  throw UsageError("unknown GPU kernel '" + p.kernel + "' (accepted: catalogue kernels, " + accepted + ")");
}

}  // namespace parlab::cuda
