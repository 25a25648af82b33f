// The STREAM set on the GPU: BabelStream's gold values in both precisions, and dot with the same
// bits as the CPU's deterministic reduction.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "core/kernels.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/launch.hpp"
#include "gpu_test_support.hpp"
#include "mixed_vectors.hpp"

namespace parlab {
namespace {

// Sizes around the vector width (4 floats, 2 doubles), the grid and the dot block.
const std::uint64_t kSizes[] = {1, 2, 3, 5, 8191, 8193, 1000003};

void expect_gold(Precision precision) {
  for (const auto& k : kStreamKernels) {
    for (std::uint64_t n : kSizes) {
      const Validation v = test::run_and_validate("cuda", test::gpu_problem(std::string(k.name), precision, n), 3);
      EXPECT_TRUE(v.pass) << k.name << " " << to_string(precision) << " n = " << n << ": " << v.detail;
    }
  }
}

TEST(GpuStream, EveryKernelMatchesGoldDouble) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  expect_gold(Precision::f64);
}

TEST(GpuStream, EveryKernelMatchesGoldFloat) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  expect_gold(Precision::f32);
}

TEST(GpuStream, ReportsKernelTimeApartFromTransfers) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  auto w = test::registry().get("cuda").make(test::gpu_problem("triad", Precision::f64, 1 << 20));
  w->run();
  const auto t = w->last_timing();
  ASSERT_TRUE(t.has_value());
  EXPECT_GT(t->kernel_s, 0.0);
  EXPECT_GE(t->transfer_s, 0.0);
}

using test::mixed_magnitude_vector;

// The GPU dot, launched twice on one scratch: first into device memory, then straight into
// page-locked host memory (as the workload does); the second launch also relies on the first
// having left the tree's arrival counters at zero. Both results are returned.
template <class T>
std::pair<T, T> gpu_dot_twice(const std::vector<T>& a, const std::vector<T>& b) {
  const std::uint64_t n = a.size();
  cuda::DeviceGuard guard(0);
  cuda::Stream stream;
  cuda::DeviceBuffer<T> da(n, 0), db(n, 0), result(1, 0);
  cuda::PinnedBuffer<T> host(2);
  cuda::DotScratch<T> scratch(n, 0);
  if (n > 0) {
    PARLAB_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    PARLAB_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  host[0] = host[1] = T(-1);  // neither is the dot of any test's vectors
  // The copies ran on the legacy default stream, which does not order with `stream`.
  PARLAB_CUDA_CHECK(cudaDeviceSynchronize());
  cuda::launch_dot(da.get(), db.get(), n, scratch, result.get(), stream.get());
  PARLAB_CUDA_CHECK(cudaMemcpyAsync(host.get(), result.get(), sizeof(T), cudaMemcpyDeviceToHost, stream.get()));
  cuda::launch_dot(da.get(), db.get(), n, scratch, host.get() + 1, stream.get());
  stream.synchronize();
  return {host[0], host[1]};
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

// No block, a partial block, exact blocks, a last block of whole chunks (1024 doubles, 2048
// floats: gpu/stream_kernels.cu's DotChunk) and one element short of that, and more than 512
// partials, so the tree has two levels (the first with a partial last group); a third level
// would need more than 512 * 512 partials (2^31 elements), beyond a test.
const std::uint64_t kDotSizes[] = {0, 1, 7, 8, 9, 8191, 8192, 8193, 2 * 8192 + 2048, 2 * 8192 + 2047, 5 * 8192 + 3,
                                   37 * 8192 + 1001, 513 * 8192 + 17, 1100 * 8192 + 4097};

template <class T>
void expect_dot_bits_equal_cpu() {
  auto serial = test::make_executor("serial", 1);
  for (std::uint64_t n : kDotSizes) {
    const auto a = mixed_magnitude_vector<T>(n, 11), b = mixed_magnitude_vector<T>(n, 12);
    std::vector<T> partials(dot_block_count(n) + 1);
    const T cpu = stream_dot(*serial, a.data(), b.data(), n, partials.data());
    const auto [gpu, again] = gpu_dot_twice(a, b);
    EXPECT_TRUE(same_bits(cpu, gpu)) << "n = " << n << ": CPU " << cpu << ", GPU " << gpu;
    EXPECT_TRUE(same_bits(gpu, again)) << "n = " << n << ": into device memory " << gpu << ", into host memory "
                                        << again;
  }
}

TEST(GpuStream, DotBitsEqualCpuDouble) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  expect_dot_bits_equal_cpu<double>();
}

TEST(GpuStream, DotBitsEqualCpuFloat) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  expect_dot_bits_equal_cpu<float>();
}

TEST(GpuStream, DotWorkloadEqualsCpuWorkloadBits) {
  // Through the registry, with BabelStream's initial values, as the runner would compare them.
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (Precision precision : {Precision::f64, Precision::f32}) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{8193}, std::uint64_t{3000017}}) {
      const Problem p = test::gpu_problem("dot", precision, n);
      const Validation gpu = test::run_and_validate("cuda", p, 3);
      const Validation cpu = test::run_and_validate("serial", p, 1);
      EXPECT_TRUE(gpu.pass) << gpu.detail;
      EXPECT_TRUE(same_bits(gpu.checksum, cpu.checksum))
          << to_string(precision) << " n = " << n << ": GPU " << gpu.checksum << ", CPU " << cpu.checksum;
    }
  }
}

}  // namespace
}  // namespace parlab
