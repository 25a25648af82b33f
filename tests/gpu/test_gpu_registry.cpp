// Registration of the CUDA entries: always present, available exactly when a device is, with a
// reason when not. Runs on every machine, GPU or not.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu/register.hpp"
#include "gpu_test_support.hpp"

namespace parlab {
namespace {

const char* const kEntries[] = {"cuda", "cuda-cublas", "cuda-multi", "cuda-multi-seq"};

bool lists(const BackendEntry& e, const std::string& kernel) {
  return std::find(e.kernels.begin(), e.kernels.end(), kernel) != e.kernels.end();
}

TEST(GpuRegistry, EveryEntryIsAvailableExactlyWhenADeviceIs) {
  Registry r;
  ASSERT_NO_THROW(register_cuda(r));
  const cuda::DeviceCount devices = cuda::device_count();
  for (const char* name : kEntries) {
    const BackendEntry* e = r.find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->kind, "gpu");
    if (devices.count == 0) {
      EXPECT_FALSE(e->available) << name;
      EXPECT_FALSE(e->reason.empty()) << name;
      EXPECT_NE(e->reason.find("no CUDA device"), std::string::npos) << e->reason;
      EXPECT_THROW(r.get(name), UnavailableError);
    } else {
      EXPECT_TRUE(e->available) << name << ": " << e->reason;
      EXPECT_TRUE(e->reason.empty());
      EXPECT_FALSE(e->detail.empty());
    }
  }
  EXPECT_FALSE(r.find("cuda-multi-seq")->in_default_set);
}

TEST(GpuRegistry, NoDeviceMeansUnavailableWithAReason) {
  // On a machine without a GPU this is the contract of the issue; with one, the same entries
  // must be available and describe the device instead.
  const cuda::DeviceCount devices = cuda::device_count();
  Registry r;
  register_cuda(r);
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
  register_cuda(r);
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
  for (const char* name : kEntries) EXPECT_NE(test::registry().find(name), nullptr) << name;
}

}  // namespace
}  // namespace parlab
