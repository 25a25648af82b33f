// Which CUDA devices this process sees, described for `parlab list` and the results' context.
#pragma once

#include <string>

namespace parlab::cuda {

struct DeviceCount {
  // Why there is no device, as far as the driver says; a test may skip for no_driver and
  // no_device (a machine without a GPU), never for driver_error (a GPU machine gone wrong).
  enum class State { ok, no_driver, no_device, driver_error };
  State state = State::no_device;
  int count = 0;
  // Why count is 0: "no CUDA driver (libcuda.so.1 not found)", "no CUDA device (...)", or
  // "CUDA driver error: cudaErrorXxx (message)"; empty when count > 0.
  std::string reason;
};

// Never throws. "no CUDA device" only for cudaErrorNoDevice (or a count of 0); the runtime's
// cudaErrorInsufficientDriver is "no CUDA driver" only when libcuda.so.1 cannot be loaded at
// all; every other error is a driver error with its name and message.
DeviceCount device_count() noexcept;

// device_count()'s verdict from what the runtime and the loader said (tested without a GPU).
DeviceCount classify_device_count(int runtime_error, int count, bool driver_library_present) noexcept;

// Throws UsageError naming the valid range when `device` is not an index of a visible device,
// and UnavailableError when there is no device at all.
void check_device(int device);

// "NVIDIA H200, compute capability 9.0, 132 SMs, 139.8 GiB".
std::string describe_device(int device);

// "driver 13.0, runtime 13.0".
std::string describe_versions();

// Streaming multiprocessors of `device`, for grid sizes.
int multiprocessor_count(int device);

}  // namespace parlab::cuda
