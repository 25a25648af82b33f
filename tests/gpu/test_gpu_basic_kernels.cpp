// plus_one, add2d and matmul on the GPU: exact results, and the tiled matmul bit-identical to the
// naive k-ascending sum on inputs where summation order matters.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/kernels.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/launch.hpp"
#include "gpu_test_support.hpp"

namespace parlab {
namespace {

TEST(GpuBasicKernels, PlusOneIsExact) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, (std::uint64_t{1} << 20) + 3}) {
    const Validation v = test::run_and_validate("cuda", test::gpu_problem("plus_one", Precision::i32, n));
    EXPECT_TRUE(v.pass) << "n = " << n << ": " << v.detail;
  }
}

TEST(GpuBasicKernels, Add2dIsExactOnEveryShape) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  struct Shape {
    std::uint64_t nx, ny;
  };
  for (const Shape s : {Shape{1, 1}, Shape{33, 7}, Shape{1000, 3}, Shape{3, 1000}, Shape{257, 129}, Shape{1, 600000}}) {
    Problem p = test::gpu_problem("add2d", Precision::f32, s.nx);
    p.size_y = s.ny;
    const Validation v = test::run_and_validate("cuda", p);
    EXPECT_TRUE(v.pass) << s.nx << "x" << s.ny << ": " << v.detail;
  }
}

const std::uint64_t kMatmulSizes[] = {1, 2, 17, 64, 127, 128, 129, 200, 257};

TEST(GpuBasicKernels, TiledMatmulMatchesTheNaiveSum) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (std::uint64_t n : kMatmulSizes) {
    const Validation v = test::run_and_validate("cuda", test::gpu_problem("matmul", Precision::f32, n));
    EXPECT_TRUE(v.pass) << "n = " << n << ": " << v.detail;
  }
}

TEST(GpuBasicKernels, CublasMatmulMatchesTheNaiveSum) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (std::uint64_t n : kMatmulSizes) {
    const Validation v = test::run_and_validate("cuda-cublas", test::gpu_problem("matmul", Precision::f32, n));
    EXPECT_TRUE(v.pass) << "n = " << n << ": " << v.detail;
  }
}

TEST(GpuBasicKernels, TiledMatmulIsBitIdenticalToNaiveOnRandomInputs) {
  // The workload's inputs (multiples of 1/8) make every summation order exact; random values of
  // mixed magnitude do not, so this checks the k-ascending order and the absence of FMA.
  PARLAB_REQUIRE_CUDA_DEVICE();
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::uniform_int_distribution<int> expo(-8, 8);
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{5}, std::uint64_t{67}, std::uint64_t{128}, std::uint64_t{130},
                          std::uint64_t{255}}) {
    std::vector<float> A(n * n), B(n * n), expect(n * n), got(n * n);
    for (auto& x : A) x = std::ldexp(value(gen), expo(gen));
    for (auto& x : B) x = std::ldexp(value(gen), expo(gen));
    matmul_naive(A.data(), B.data(), expect.data(), n);

    cuda::DeviceGuard guard(0);
    cuda::Stream stream;
    cuda::DeviceBuffer<float> dA(n * n, 0), dB(n * n, 0), dC(n * n, 0);
    PARLAB_CUDA_CHECK(cudaMemcpy(dA.get(), A.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
    PARLAB_CUDA_CHECK(cudaMemcpy(dB.get(), B.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
    PARLAB_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream does not order with `stream`
    cuda::launch_matmul_tiled(dA.get(), dB.get(), dC.get(), n, stream.get());
    stream.synchronize();
    PARLAB_CUDA_CHECK(cudaMemcpy(got.data(), dC.get(), n * n * sizeof(float), cudaMemcpyDeviceToHost));
    std::uint64_t differ = 0;
    for (std::uint64_t i = 0; i < n * n; ++i) differ += std::memcmp(&got[i], &expect[i], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u) << "n = " << n;
  }
}

}  // namespace
}  // namespace parlab
