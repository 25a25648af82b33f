// Error checking and RAII owners for CUDA resources (docs/design.md, "CUDA").
//
// Every runtime call goes through PARLAB_CUDA_CHECK, which throws parlab::FailureError naming
// the expression, file, line, error name and message. After each kernel launch call
// PARLAB_CUDA_CHECK(cudaPeekAtLastError()). Owners are unique_ptrs (or hold one) with deleters
// that never throw: a destructor that runs during unwinding must not terminate the process.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "core/error.hpp"

namespace parlab::cuda {

// Formats the error and throws FailureError. Clears the thread's last-error state first, so a
// recoverable error (an allocation that failed) is not reported again by the next
// cudaPeekAtLastError; sticky errors (a faulting kernel) stay, as CUDA defines.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

// "cudaErrorMemoryAllocation (out of memory)".
std::string describe(cudaError_t err);

}  // namespace parlab::cuda

#define PARLAB_CUDA_CHECK(expr)                                                      \
  do {                                                                               \
    const cudaError_t parlab_cuda_status_ = (expr);                                  \
    if (parlab_cuda_status_ != cudaSuccess) {                                        \
      ::parlab::cuda::throw_cuda_error(parlab_cuda_status_, #expr, __FILE__, __LINE__); \
    }                                                                                \
  } while (0)

namespace parlab::cuda {

// Makes `device` current for the calling thread and restores the previous device when it goes
// out of scope. Every method of a GPU workload opens one, so workloads on different devices can
// be used from one thread in any order.
// PRECONDITION: `device` is a valid index (check_device in device.hpp throws UsageError if not).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  int device_ = -1;
};

namespace detail {
// Allocates `bytes` on `device`. Throws UsageError for a request the device cannot hold
// ("cannot allocate ... out of memory, ... free of ..."), FailureError for other errors.
void* device_alloc(std::uint64_t bytes, int device, const char* what);
void device_free(void* p, int device) noexcept;
// Page-locked host memory, so copies run at full speed and asynchronously.
void* pinned_alloc(std::uint64_t bytes, const char* what);
void pinned_free(void* p) noexcept;
// Throws UsageError when n elements of `element_size` bytes overflow a 64-bit byte count.
std::uint64_t checked_bytes(std::uint64_t n, std::size_t element_size, const char* what);

// Deleters, at namespace scope so that they are complete (default-constructible) where the
// owners' unique_ptrs need them.
template <class T>
struct DeviceFree {
  int device = 0;
  void operator()(T* p) const noexcept { device_free(p, device); }
};
template <class T>
struct PinnedFree {
  void operator()(T* p) const noexcept { pinned_free(p); }
};
struct StreamDestroy {
  int device = 0;
  void operator()(cudaStream_t s) const noexcept;
};
struct EventDestroy {
  int device = 0;
  void operator()(cudaEvent_t e) const noexcept;
};
}  // namespace detail

// n elements of T in global memory of one device, uninitialised.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Allocates on `device` (made current only for the call). `what` names the buffer in errors.
  DeviceBuffer(std::uint64_t n, int device, const char* what = "device buffer")
      : size_(n), data_(n == 0 ? nullptr
                               : static_cast<T*>(detail::device_alloc(
                                     detail::checked_bytes(n, sizeof(T), what), device, what)),
                        detail::DeviceFree<T>{device}) {}

  T* get() const noexcept { return data_.get(); }
  std::uint64_t size() const noexcept { return size_; }
  std::uint64_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  std::uint64_t size_ = 0;
  std::unique_ptr<T, detail::DeviceFree<T>> data_;
};

// n elements of T in page-locked host memory, uninitialised.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::uint64_t n, const char* what = "pinned host buffer")
      : size_(n), data_(n == 0 ? nullptr
                               : static_cast<T*>(detail::pinned_alloc(
                                     detail::checked_bytes(n, sizeof(T), what), what))) {}

  T* get() const noexcept { return data_.get(); }
  T& operator[](std::uint64_t i) const noexcept { return data_.get()[i]; }
  std::uint64_t size() const noexcept { return size_; }
  std::uint64_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  std::uint64_t size_ = 0;
  std::unique_ptr<T, detail::PinnedFree<T>> data_;
};

// A non-blocking stream of one device (it does not synchronise with the legacy default stream).
class Stream {
 public:
  // PRECONDITION: the device it belongs to is current (DeviceGuard).
  Stream();
  cudaStream_t get() const noexcept { return stream_.get(); }
  void synchronize() const;

 private:
  std::unique_ptr<CUstream_st, detail::StreamDestroy> stream_;
};

// An event with timing enabled.
class Event {
 public:
  // PRECONDITION: the device it belongs to is current (DeviceGuard).
  Event();
  cudaEvent_t get() const noexcept { return event_.get(); }
  void record(const Stream& s) const;
  void synchronize() const;

 private:
  std::unique_ptr<CUevent_st, detail::EventDestroy> event_;
};

// Seconds between two completed events of one device.
// PRECONDITION: both were recorded on the same device and have completed (synchronize()).
double elapsed_seconds(const Event& start, const Event& stop);

}  // namespace parlab::cuda
