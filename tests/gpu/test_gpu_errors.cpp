// Error paths: a bad device index, an allocation the device cannot hold, kernels and precisions
// an entry does not take. Each is a parlab exception with a clear message, and the process
// (and the device) keep working afterwards.
#include <gtest/gtest.h>

#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu_test_support.hpp"

namespace parlab {
namespace {

TEST(GpuErrors, CheckMacroNamesTheErrorAndTheExpression) {
  // No device needed: the macro only formats what it is given.
  try {
    PARLAB_CUDA_CHECK(cudaErrorMemoryAllocation);
    FAIL() << "PARLAB_CUDA_CHECK did not throw";
  } catch (const FailureError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos) << what;
    EXPECT_NE(what.find("test_gpu_errors.cpp"), std::string::npos) << what;
  }
}

TEST(GpuErrors, InvalidDeviceIndexIsAUsageErrorNamingTheRange) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (int device : {99, -1}) {
    Problem p = test::gpu_problem("triad", Precision::f64, 1024);
    p.device = device;
    try {
      (void)test::registry().get("cuda").make(p);
      FAIL() << "device " << device << " accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("accepted: 0.."), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(device)), std::string::npos) << what;
    }
  }
}

TEST(GpuErrors, HugeAllocationFailsClearlyAndTheDeviceKeepsWorking) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  const std::uint64_t kPebibyte = std::uint64_t{1} << 50;
  try {
    cuda::DeviceBuffer<unsigned char> huge(kPebibyte, 0, "test buffer");
    FAIL() << "allocated 2^50 bytes";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out of device memory"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(kPebibyte)), std::string::npos) << what;
  }
  // The same through a workload: 2^47 doubles per STREAM array.
  EXPECT_THROW((void)test::registry().get("cuda").make(test::gpu_problem("copy", Precision::f64, kPebibyte / 8)),
               UsageError);
  // An element count whose byte size overflows 64 bits.
  EXPECT_THROW(cuda::DeviceBuffer<double>(std::uint64_t{1} << 62, 0), UsageError);

  // The next allocation, launch and check work.
  cuda::DeviceBuffer<float> small(1024, 0);
  EXPECT_NE(small.get(), nullptr);
  const Validation v = test::run_and_validate("cuda", test::gpu_problem("triad", Precision::f64, 1 << 20));
  EXPECT_TRUE(v.pass) << v.detail;
}

// A catalogue kernel a GPU backend leaves out is unavailable there, "not implemented by <backend>"
// (core/kernel_table.hpp: an unavailable record, as on the CPU); a kernel no catalogue has, or a
// precision the kernel does not take, is the user's error.
TEST(GpuErrors, AKernelLeftOutIsUnavailableAndBadInputIsAUsageError) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  const auto unavailable_because = [](const char* backend, const char* kernel, Precision p) {
    try {
      (void)test::registry().get(backend).make(test::gpu_problem(kernel, p, 10));
    } catch (const UnavailableError& e) {
      return std::string(e.what());
    }
    return std::string("no UnavailableError");
  };
  EXPECT_EQ(unavailable_because("cuda-cublas", "pi", Precision::i32), "not implemented by cuda-cublas");
  EXPECT_EQ(unavailable_because("cuda-multi", "copy", Precision::f64), "not implemented by cuda-multi");
  EXPECT_THROW((void)test::registry().get("cuda").make(test::gpu_problem("no_such_kernel", Precision::f64, 10)),
               UsageError);
  EXPECT_THROW((void)test::registry().get("cuda").make(test::gpu_problem("matmul", Precision::f64, 10)), UsageError);
}

}  // namespace
}  // namespace parlab
