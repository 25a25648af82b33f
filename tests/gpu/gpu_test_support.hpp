// Shared by the CUDA suites: skipping without a device, and workloads from the registry.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/workload.hpp"
#include "gpu/device.hpp"
#include "test_support.hpp"

namespace parlab::test {

// Skips the calling test, with the reason, when this machine has no CUDA driver or no device;
// fails it when the driver is there and fails (a GPU machine gone wrong must not read as a skip).
#define PARLAB_REQUIRE_CUDA_DEVICE()                                                          \
  do {                                                                                        \
    const ::parlab::cuda::DeviceCount parlab_devices_ = ::parlab::cuda::device_count();       \
    if (parlab_devices_.state == ::parlab::cuda::DeviceCount::State::driver_error) {          \
      GTEST_FAIL() << parlab_devices_.reason;                                                 \
    }                                                                                         \
    if (parlab_devices_.count == 0) GTEST_SKIP() << parlab_devices_.reason;                   \
  } while (0)

inline Problem gpu_problem(std::string kernel, Precision precision, std::uint64_t size) {
  Problem p;
  p.kernel = std::move(kernel);
  p.precision = precision;
  p.size = size;
  return p;
}

// Builds the workload on `backend`, runs it `runs` times and returns its validation.
inline Validation run_and_validate(const std::string& backend, const Problem& p, int runs = 2) {
  auto w = registry().get(backend).make(p);
  for (int i = 0; i < runs; ++i) w->run();
  return w->validate();
}

}  // namespace parlab::test
