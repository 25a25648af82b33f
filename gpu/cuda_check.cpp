#include "cuda_check.hpp"

#include <dlfcn.h>

#include <sstream>

#include "device.hpp"

namespace parlab::cuda {

std::string describe(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  (void)cudaGetLastError();
  std::ostringstream os;
  os << "CUDA error " << describe(err) << " in `" << expr << "` at " << file << ":" << line;
  throw FailureError(os.str());
}

DeviceGuard::DeviceGuard(int device) : device_(device) {
  PARLAB_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device_) PARLAB_CUDA_CHECK(cudaSetDevice(device_));
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0 && previous_ != device_) (void)cudaSetDevice(previous_);
}

namespace detail {

namespace {

std::string gib(std::uint64_t bytes) {
  std::ostringstream os;
  os.precision(3);
  os << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return os.str();
}

}  // namespace

std::uint64_t checked_bytes(std::uint64_t n, std::size_t element_size, const char* what) {
  if (n > std::numeric_limits<std::uint64_t>::max() / element_size) {
    throw UsageError(std::string(what) + " of " + std::to_string(n) + " elements of " +
                     std::to_string(element_size) + " bytes is too large to allocate");
  }
  return n * element_size;
}

void* device_alloc(std::uint64_t bytes, int device, const char* what) {
  DeviceGuard guard(device);
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaSuccess) return p;
  (void)cudaGetLastError();  // an allocation failure is not sticky; do not let it linger
  if (err == cudaErrorMemoryAllocation) {
    std::size_t free_bytes = 0, total_bytes = 0;
    std::string room;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      room = " (" + gib(free_bytes) + " free of " + gib(total_bytes) + ")";
    }
    (void)cudaGetLastError();
    throw UsageError("cannot allocate " + std::to_string(bytes) + " bytes (" + gib(bytes) +
                     ") for the " + what + " on CUDA device " + std::to_string(device) +
                     ": out of device memory" + room);
  }
  throw FailureError("cudaMalloc of " + std::to_string(bytes) + " bytes for the " + what +
                     " on CUDA device " + std::to_string(device) + " failed: " + describe(err));
}

void device_free(void* p, int device) noexcept {
  if (p == nullptr) return;
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
  if (previous != device) (void)cudaSetDevice(device);
  if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
  if (previous >= 0 && previous != device) (void)cudaSetDevice(previous);
}

void* pinned_alloc(std::uint64_t bytes, const char* what) {
  void* p = nullptr;
  const cudaError_t err = cudaMallocHost(&p, bytes);
  if (err == cudaSuccess) return p;
  (void)cudaGetLastError();
  if (err == cudaErrorMemoryAllocation) {
    throw UsageError("cannot allocate " + std::to_string(bytes) + " bytes (" + gib(bytes) +
                     ") of page-locked host memory for the " + what);
  }
  throw FailureError("cudaMallocHost of " + std::to_string(bytes) + " bytes for the " + what +
                     " failed: " + describe(err));
}

void pinned_free(void* p) noexcept {
  if (p != nullptr && cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace detail

// ---------------------------------------------------------------- Stream, Event
Stream::Stream() {
  int device = 0;
  PARLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaStream_t s = nullptr;
  PARLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_ = std::unique_ptr<CUstream_st, detail::StreamDestroy>(s, detail::StreamDestroy{device});
}

void Stream::synchronize() const { PARLAB_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }

void detail::StreamDestroy::operator()(cudaStream_t s) const noexcept {
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
  if (previous != device) (void)cudaSetDevice(device);
  if (cudaStreamDestroy(s) != cudaSuccess) (void)cudaGetLastError();
  if (previous >= 0 && previous != device) (void)cudaSetDevice(previous);
}

Event::Event() {
  int device = 0;
  PARLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaEvent_t e = nullptr;
  PARLAB_CUDA_CHECK(cudaEventCreate(&e));
  event_ = std::unique_ptr<CUevent_st, detail::EventDestroy>(e, detail::EventDestroy{device});
}

void Event::record(const Stream& s) const { PARLAB_CUDA_CHECK(cudaEventRecord(event_.get(), s.get())); }

void Event::synchronize() const { PARLAB_CUDA_CHECK(cudaEventSynchronize(event_.get())); }

void detail::EventDestroy::operator()(cudaEvent_t e) const noexcept {
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
  if (previous != device) (void)cudaSetDevice(device);
  if (cudaEventDestroy(e) != cudaSuccess) (void)cudaGetLastError();
  if (previous >= 0 && previous != device) (void)cudaSetDevice(previous);
}

double elapsed_seconds(const Event& start, const Event& stop) {
  float ms = 0.0f;
  PARLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

// ---------------------------------------------------------------- devices
namespace {

// Whether the driver library exists on this machine (loaded and released at once; the runtime
// loads it itself when it is there).
bool driver_library_present() noexcept {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h == nullptr) return false;
  dlclose(h);
  return true;
}

}  // namespace

DeviceCount classify_device_count(int runtime_error, int count, bool driver_library_present) noexcept {
  DeviceCount c;
  const auto err = static_cast<cudaError_t>(runtime_error);
  if (err != cudaSuccess) {
    if (err == cudaErrorNoDevice) {
      c.state = DeviceCount::State::no_device;
      c.reason = "no CUDA device (cudaGetDeviceCount: " + describe(err) + ")";
    } else if (err == cudaErrorInsufficientDriver && !driver_library_present) {
      // The runtime says "insufficient driver" when there is no driver at all.
      c.state = DeviceCount::State::no_driver;
      c.reason = "no CUDA driver (libcuda.so.1 cannot be loaded; cudaGetDeviceCount: " + describe(err) + ")";
    } else {
      c.state = DeviceCount::State::driver_error;
      c.reason = "CUDA driver error: cudaGetDeviceCount failed with " + describe(err);
    }
    return c;
  }
  if (count <= 0) {
    c.state = DeviceCount::State::no_device;
    c.reason = "no CUDA device (the driver reports 0 devices)";
    return c;
  }
  c.state = DeviceCount::State::ok;
  c.count = count;
  return c;
}

DeviceCount device_count() noexcept {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) (void)cudaGetLastError();
  return classify_device_count(err, n, err == cudaErrorInsufficientDriver && driver_library_present());
}

void check_device(int device) {
  const DeviceCount c = device_count();
  if (c.state == DeviceCount::State::driver_error) throw FailureError(c.reason);
  if (c.count == 0) throw UnavailableError(c.reason);
  if (device < 0 || device >= c.count) {
    throw UsageError("--device " + std::to_string(device) + " is not a CUDA device of this machine " +
                     "(accepted: 0.." + std::to_string(c.count - 1) + ", " + std::to_string(c.count) +
                     " device" + (c.count == 1 ? "" : "s") + " visible)");
  }
}

std::string describe_device(int device) {
  cudaDeviceProp prop{};
  PARLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::ostringstream os;
  os.precision(4);
  os << prop.name << ", compute capability " << prop.major << "." << prop.minor << ", "
     << prop.multiProcessorCount << " SMs, "
     << static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return os.str();
}

std::string describe_versions() {
  int driver = 0, runtime = 0;
  PARLAB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  PARLAB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const auto v = [](int x) { return std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 10); };
  return "driver " + v(driver) + ", runtime " + v(runtime);
}

int multiprocessor_count(int device) {
  int sms = 0;
  PARLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

}  // namespace parlab::cuda
