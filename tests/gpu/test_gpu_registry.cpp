// Registration of the CUDA entries: always present, available exactly when a device is, with a
// reason when not. Runs on every machine, GPU or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gpu/backend_names.hpp"
#include "gpu/backends.hpp"
#include "gpu_test_support.hpp"

namespace parlab {
namespace {

// What a build without the CUDA part lists by name (gpu/backend_names.hpp): exactly what this one registers.
const auto& kEntries = cuda::kBackendNames;

TEST(GpuRegistry, RegistersExactlyTheNamesABuildWithoutCudaLists) {
  Registry r;
  add_cuda_backends(r);
  std::vector<std::string> registered;
  for (const auto& e : r.entries()) registered.push_back(e.name);
  EXPECT_EQ(registered, std::vector<std::string>(kEntries.begin(), kEntries.end()));
  for (const auto& e : r.entries()) EXPECT_EQ(e.in_default_set, cuda::in_default_set(e.name)) << e.name;
}

bool lists(const BackendEntry& e, const std::string& kernel) {
  return std::find(e.kernels.begin(), e.kernels.end(), kernel) != e.kernels.end();
}

TEST(GpuRegistry, EveryEntryIsAvailableExactlyWhenADeviceIs) {
  Registry r;
  ASSERT_NO_THROW(add_cuda_backends(r));
  const cuda::DeviceCount devices = cuda::device_count();
  for (const std::string_view name : kEntries) {
    const BackendEntry* e = r.find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->kind, BackendKind::gpu);
    if (devices.state == cuda::DeviceCount::State::driver_error) {
      ADD_FAILURE() << "the CUDA driver fails on this machine: " << devices.reason;
      EXPECT_TRUE(e->broken) << name;
      EXPECT_THROW(r.get(name), FailureError);
    } else if (devices.count == 0) {
      EXPECT_FALSE(e->available) << name;
      EXPECT_FALSE(e->broken) << name;
      EXPECT_EQ(e->reason, devices.reason) << name;
      EXPECT_TRUE(e->reason.rfind("no CUDA device", 0) == 0 || e->reason.rfind("no CUDA driver", 0) == 0) << e->reason;
      EXPECT_THROW(r.get(name), UnavailableError);
    } else {
      EXPECT_TRUE(e->available) << name << ": " << e->reason;
      EXPECT_TRUE(e->reason.empty());
      EXPECT_FALSE(e->detail.empty());
    }
  }
  EXPECT_FALSE(r.find("cuda-multi-seq")->in_default_set);
}

// What cudaGetDeviceCount and the loader say, and what parlab makes of it: "no CUDA device" only
// for cudaErrorNoDevice or a count of 0, "no CUDA driver" only when libcuda.so.1 is absent, and
// every other error a driver error with its name and message.
TEST(GpuRegistry, DeviceCountSaysWhatHappened) {
  using State = cuda::DeviceCount::State;
  const auto no_device = cuda::classify_device_count(cudaErrorNoDevice, 0, true);
  EXPECT_EQ(no_device.state, State::no_device);
  EXPECT_EQ(no_device.reason.rfind("no CUDA device", 0), 0u) << no_device.reason;
  EXPECT_EQ(cuda::classify_device_count(cudaSuccess, 0, true).state, State::no_device);
  const auto no_driver = cuda::classify_device_count(cudaErrorInsufficientDriver, 0, false);
  EXPECT_EQ(no_driver.state, State::no_driver);
  EXPECT_EQ(no_driver.reason.rfind("no CUDA driver", 0), 0u) << no_driver.reason;
  // The same runtime error with a driver library present: an old or broken driver.
  const auto old_driver = cuda::classify_device_count(cudaErrorInsufficientDriver, 0, true);
  EXPECT_EQ(old_driver.state, State::driver_error);
  EXPECT_NE(old_driver.reason.find("cudaErrorInsufficientDriver"), std::string::npos) << old_driver.reason;
  for (const cudaError_t err : {cudaErrorSystemDriverMismatch, cudaErrorInitializationError, cudaErrorDevicesUnavailable,
                                cudaErrorUnknown}) {
    const auto c = cuda::classify_device_count(err, 0, true);
    EXPECT_EQ(c.state, State::driver_error) << cudaGetErrorName(err);
    EXPECT_EQ(c.count, 0);
    EXPECT_EQ(c.reason.find("no CUDA"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find(cudaGetErrorName(err)), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find(cudaGetErrorString(err)), std::string::npos) << c.reason;
  }
  const auto ok = cuda::classify_device_count(cudaSuccess, 4, true);
  EXPECT_EQ(ok.state, State::ok);
  EXPECT_EQ(ok.count, 4);
  EXPECT_TRUE(ok.reason.empty());
}

TEST(GpuRegistry, NoDeviceMeansUnavailableWithAReason) {
  // On a machine without a GPU this is the contract of the issue; with one, the same entries
  // must be available and describe the device instead.
  const cuda::DeviceCount devices = cuda::device_count();
  Registry r;
  add_cuda_backends(r);
  const BackendEntry& e = *r.find("cuda");
  if (devices.count == 0) {
    EXPECT_FALSE(e.available);
    EXPECT_FALSE(e.reason.empty());
    EXPECT_FALSE(devices.reason.empty());
  } else {
    EXPECT_TRUE(e.available);
    EXPECT_NE(e.detail.find("compute capability"), std::string::npos) << e.detail;
  }
}

TEST(GpuRegistry, EntriesListTheirKernels) {
  Registry r;
  add_cuda_backends(r);
  const BackendEntry& single = *r.find("cuda");
  for (const char* k : {"pi", "copy", "mul", "add", "triad", "dot", "nstream", "plus_one", "add2d", "matmul",
                        "transfer_pageable", "transfer_pinned", "transfer_many_small", "transfer_one_large",
                        "logging_every_step", "logging_on_device"}) {
    EXPECT_TRUE(lists(single, k)) << k;
  }
  EXPECT_TRUE(lists(*r.find("cuda-cublas"), "matmul"));
  EXPECT_FALSE(lists(*r.find("cuda-cublas"), "pi"));
  EXPECT_TRUE(lists(*r.find("cuda-multi"), "pi"));
  EXPECT_TRUE(lists(*r.find("cuda-multi"), "triad"));
}

TEST(GpuRegistry, TheCliRegistryHoldsTheCudaEntries) {
  for (const std::string_view name : kEntries) EXPECT_NE(test::registry().find(name), nullptr) << name;
}

}  // namespace
}  // namespace parlab
