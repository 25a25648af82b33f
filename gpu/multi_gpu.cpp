// pi and triad split over every visible GPU (entries cuda-multi and cuda-multi-seq).
//
// One host thread drives all devices, each through its own stream: launches are asynchronous,
// so enqueueing on every device before waiting on any runs them concurrently; waiting on each
// device before launching on the next runs them one after another, the baseline the
// concurrent figure is compared with. CUDA events cannot time across devices, so these
// workloads time themselves on the host clock: kernel_s spans the first launch to the last
// device's completion, transfer_s the copies of the results that follow.
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/executor.hpp"
#include "core/pi.hpp"
#include "core/stream.hpp"
#include "core/stream_validation.hpp"
#include "device.hpp"
#include "launch.hpp"
#include "workloads.hpp"

namespace parlab::cuda {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int visible_devices() {
  const DeviceCount c = device_count();
  if (c.state == DeviceCount::State::driver_error) throw FailureError(c.reason);
  if (c.count == 0) throw UnavailableError(c.reason);
  return c.count;
}

// Enqueues work on every device, concurrently or one after another, and returns the host-clock
// seconds until all devices have finished. enqueue(d) runs with device d current.
template <class Enqueue, class Streams>
double run_on_devices(bool concurrent, const Streams& streams, Enqueue&& enqueue) {
  const int devices = static_cast<int>(streams.size());
  const Clock::time_point t0 = Clock::now();
  for (int d = 0; d < devices; ++d) {
    DeviceGuard guard(d);
    enqueue(d);
    if (!concurrent) streams[static_cast<std::size_t>(d)].synchronize();
  }
  if (concurrent) {
    for (int d = 0; d < devices; ++d) {
      DeviceGuard guard(d);
      streams[static_cast<std::size_t>(d)].synchronize();
    }
  }
  return seconds_since(t0);
}

std::vector<Stream> streams_for(int devices) {
  std::vector<Stream> streams;
  for (int d = 0; d < devices; ++d) streams.push_back(create_on<Stream>(d));
  return streams;
}

// ---------------------------------------------------------------- pi
class MultiPiWorkload final : public Workload {
 public:
  MultiPiWorkload(const Problem& p, bool concurrent)
      : concurrent_(concurrent), seed_(p.seed), samples_(p.size), devices_(visible_devices()),
        streams_(streams_for(devices_)), hits_host_(static_cast<std::uint64_t>(devices_), "pi hit counters") {
    const std::uint64_t pairs = samples_ / 2;
    const auto parts = static_cast<Index>(devices_);
    for (int d = 0; d < devices_; ++d) {
      hits_device_.emplace_back(1, d, "pi hit counter");
      begin_.push_back(static_split(pairs, parts, static_cast<Index>(d)));
      end_.push_back(static_split(pairs, parts, static_cast<Index>(d) + 1));
    }
  }

  void run() override {
    const double kernel_s = run_on_devices(concurrent_, streams_, [&](int d) {
      const auto i = static_cast<std::size_t>(d);
      cudaStream_t s = streams_[i].get();
      PARLAB_CUDA_CHECK(cudaMemsetAsync(hits_device_[i].get(), 0, sizeof(unsigned long long), s));
      const bool tail = d == devices_ - 1 && (samples_ & 1u) != 0;  // an odd N's last point
      launch_pi_hits(seed_, begin_[i], end_[i], tail, hits_device_[i].get(), d, s);
    });
    const Clock::time_point t0 = Clock::now();
    std::uint64_t hits = 0;
    for (int d = 0; d < devices_; ++d) {
      DeviceGuard guard(d);
      const auto i = static_cast<std::size_t>(d);
      PARLAB_CUDA_CHECK(cudaMemcpyAsync(hits_host_.get() + i, hits_device_[i].get(), sizeof(unsigned long long),
                                        cudaMemcpyDeviceToHost, streams_[i].get()));
      streams_[i].synchronize();
      hits += hits_host_[i];
    }
    timing_ = {kernel_s, seconds_since(t0)};
    hits_.record(hits);
  }

  Validation validate() override {
    Validation v = hits_.validate(samples_, "over " + std::to_string(devices_) + " device" + (devices_ == 1 ? "" : "s"));
    v.metrics.emplace_back("devices", devices_);  // the record's GPU count, for the multi-GPU figure
    return v;
  }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

  std::optional<SelfTiming> last_timing() const override { return timing_; }

 private:
  bool concurrent_;
  std::uint64_t seed_, samples_;
  int devices_;
  std::vector<Stream> streams_;
  std::vector<DeviceBuffer<unsigned long long>> hits_device_;
  PinnedBuffer<unsigned long long> hits_host_;
  std::vector<std::uint64_t> begin_, end_;  // pair ranges per device
  SelfTiming timing_;
  PiHitsTracker hits_;
};

// ---------------------------------------------------------------- triad
template <class T>
class MultiTriadWorkload final : public Workload {
 public:
  MultiTriadWorkload(const Problem& p, bool concurrent)
      : concurrent_(concurrent), n_(p.size), devices_(visible_devices()), streams_(streams_for(devices_)) {
    const auto parts = static_cast<Index>(devices_);
    for (int d = 0; d < devices_; ++d) {
      const std::uint64_t len = static_split(n_, parts, static_cast<Index>(d) + 1) - static_split(n_, parts, static_cast<Index>(d));
      Slice s{len, DeviceBuffer<T>(len, d, "triad array a"), DeviceBuffer<T>(len, d, "triad array b"),
              DeviceBuffer<T>(len, d, "triad array c")};
      DeviceGuard guard(d);
      launch_stream_init(s.a.get(), s.b.get(), s.c.get(), len, streams_[static_cast<std::size_t>(d)].get());
      slices_.push_back(std::move(s));
    }
    for (int d = 0; d < devices_; ++d) {
      DeviceGuard guard(d);
      streams_[static_cast<std::size_t>(d)].synchronize();
    }
  }

  void run() override {
    const double kernel_s = run_on_devices(concurrent_, streams_, [&](int d) {
      const auto i = static_cast<std::size_t>(d);
      Slice& s = slices_[i];
      launch_stream(StreamKernel::triad, s.a.get(), s.b.get(), s.c.get(), s.n, streams_[i].get());
    });
    timing_ = {kernel_s, 0.0};
    gold_.apply(StreamKernel::triad);
    ++runs_;
  }

  Validation validate() override {
    Validation v;
    double worst = 0;
    for (int d = 0; d < devices_ && v.pass; ++d) {
      DeviceGuard guard(d);
      const Slice& s = slices_[static_cast<std::size_t>(d)];
      AlignedBuffer<T> a(s.n), b(s.n), c(s.n);
      if (s.n > 0) {
        PARLAB_CUDA_CHECK(cudaMemcpy(a.data(), s.a.get(), s.n * sizeof(T), cudaMemcpyDeviceToHost));
        PARLAB_CUDA_CHECK(cudaMemcpy(b.data(), s.b.get(), s.n * sizeof(T), cudaMemcpyDeviceToHost));
        PARLAB_CUDA_CHECK(cudaMemcpy(c.data(), s.c.get(), s.n * sizeof(T), cudaMemcpyDeviceToHost));
      }
      const auto check = check_stream_arrays(a.data(), b.data(), c.data(), s.n, gold_);
      worst = std::max({worst, check.err_a, check.err_b, check.err_c});
      if (!check.pass) {
        v.pass = false;
        v.detail = "device " + std::to_string(d) + ": " + check.detail;
      }
      if (d == 0 && s.n > 0) v.checksum = static_cast<double>(a[0]) + static_cast<double>(b[0]) + static_cast<double>(c[0]);
    }
    if (v.pass) {
      v.detail = "matches BabelStream gold values on all " + std::to_string(devices_) + " device" +
                 (devices_ == 1 ? "" : "s") + " (worst mean relative error " + std::to_string(worst) + ")";
    }
    v.metrics.emplace_back("devices", devices_);
    return v;
  }

  WorkCount work() const override { return stream_work<T>(StreamKernel::triad, n_); }

  std::optional<SelfTiming> last_timing() const override { return timing_; }

 private:
  struct Slice {
    std::uint64_t n;
    DeviceBuffer<T> a, b, c;
  };
  bool concurrent_;
  std::uint64_t n_;
  int devices_;
  std::vector<Stream> streams_;
  std::vector<Slice> slices_;
  StreamGold<T> gold_;
  SelfTiming timing_;
  std::uint64_t runs_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_multi_pi_workload(const Problem& p, bool concurrent) {
  check_precision(p);
  return std::make_unique<MultiPiWorkload>(p, concurrent);
}

std::unique_ptr<Workload> make_multi_triad_workload(const Problem& p, bool concurrent) {
  check_precision(p);
  if (p.precision == Precision::f32) return std::make_unique<MultiTriadWorkload<float>>(p, concurrent);
  return std::make_unique<MultiTriadWorkload<double>>(p, concurrent);
}

}  // namespace parlab::cuda
