// Which CUDA devices this process sees, described for `parlab list` and the results' context.
#pragma once

#include <string>

namespace parlab::cuda {

struct DeviceCount {
  int count = 0;
  std::string reason;  // why count is 0: "no CUDA device (...)"; empty when count > 0
};

// Never throws: no driver, no device or any CUDA error gives count 0 and a reason.
DeviceCount device_count() noexcept;

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
