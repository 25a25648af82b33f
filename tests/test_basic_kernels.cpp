// plus_one, add2d and matmul on every backend against straightforward loops.
#include <gtest/gtest.h>

#include <cstring>
#include <utility>
#include <vector>

#include "core/kernels.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

class BasicKernels : public ::testing::TestWithParam<test::BackendThreads> {};

TEST_P(BasicKernels, PlusOne) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (std::uint64_t n : {0ull, 1ull, 3ull, 1023ull, 1025ull, 100'003ull}) {
    std::vector<std::int32_t> x(n), y(n, -7);
    for (std::uint64_t i = 0; i < n; ++i) x[i] = plus_one_init(i);
    plus_one(*ex, x.data(), y.data(), n);
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] + 1) << "n=" << n << " i=" << i;
  }
}

TEST_P(BasicKernels, Add2dNonSquareOddSizes) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  const std::pair<std::uint64_t, std::uint64_t> shapes[] = {{0, 5}, {5, 0}, {1, 1}, {1, 97}, {97, 1},
                                                            {63, 65}, {130, 67}, {257, 31}};
  for (auto [nx, ny] : shapes) {
    std::vector<float> a(nx * ny), b(nx * ny), r(nx * ny, -1.0f);
    for (std::uint64_t i = 0; i < nx * ny; ++i) {
      a[i] = basic_input(i, 0);
      b[i] = basic_input(i, 1);
    }
    add2d(*ex, a.data(), b.data(), r.data(), nx, ny);
    for (std::uint64_t y = 0; y < ny; ++y) {
      for (std::uint64_t x = 0; x < nx; ++x) {
        ASSERT_EQ(r[y * nx + x], a[y * nx + x] + b[y * nx + x]) << nx << "x" << ny << " at " << x << "," << y;
      }
    }
  }
}

TEST_P(BasicKernels, MatmulBitIdenticalToNaive) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (std::uint64_t n : {0ull, 1ull, 2ull, 63ull, 64ull, 65ull, 128ull, 130ull, 300ull}) {
    std::vector<float> A(n * n), B(n * n), C(n * n, -1.0f), R(n * n);
    for (std::uint64_t i = 0; i < n * n; ++i) {
      // Inexact values (thirds), so a different summation order would show in the bits.
      A[i] = static_cast<float>(static_cast<int>(i % 23) - 11) / 3.0f;
      B[i] = static_cast<float>(static_cast<int>(i % 19) - 9) / 7.0f;
    }
    matmul_blocked(*ex, A.data(), B.data(), C.data(), n);
    matmul_naive(A.data(), B.data(), R.data(), n);
    if (n > 0) {  // memcmp on the null data() of an empty vector is undefined
      ASSERT_EQ(std::memcmp(C.data(), R.data(), n * n * sizeof(float)), 0) << "n=" << n;
    }
  }
}

// The tile update alone, at row counts around its block of kMatmulRowBlock rows (1 to 9), whole and
// narrow widths, a k-block that starts past 0, and ldb 0 (every k one B row, as the in-core probe
// runs it): every element the scalar k-ascending sum, bit for bit.
TEST(MatmulTile, EveryRowCountWidthAndStrideGivesTheScalarSum) {
  constexpr Index ld = 80, depth = 40;
  for (Index ldb : {Index{0}, ld}) {
    for (Index rows = 0; rows <= 9; ++rows) {
      for (const auto& [j0, j1] : {std::pair<Index, Index>{0, kTile2D}, {7, 7 + kTile2D}, {3, 40}, {5, 5}}) {
        std::vector<float> A(9 * depth), B(depth * ld), C(9 * ld), R;
        for (std::size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(static_cast<int>(i % 23) - 11) / 3.0f;
        for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(static_cast<int>(i % 19) - 9) / 7.0f;
        for (std::size_t i = 0; i < C.size(); ++i) C[i] = static_cast<float>(i % 5) / 9.0f;
        R = C;
        matmul_tile_update(C.data(), ld, A.data(), depth, B.data(), ldb, rows, 3, depth, j0, j1);
        for (Index r = 0; r < rows; ++r) {
          for (Index k = 3; k < depth; ++k) {
            for (Index j = j0; j < j1; ++j) R[r * ld + j] += A[r * depth + k] * B[k * ldb + j];
          }
        }
        ASSERT_EQ(std::memcmp(C.data(), R.data(), C.size() * sizeof(float)), 0)
            << "rows " << rows << " columns [" << j0 << ", " << j1 << ") ldb " << ldb;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BasicKernels, ::testing::ValuesIn(test::backend_thread_params()),
                         [](const auto& tp) { return test::name_of(tp.param); });

TEST(BasicWorkloads, ValidateThroughTheRunnerInterface) {
  for (const char* kernel : {"plus_one", "add2d", "matmul"}) {
    Problem p;
    p.kernel = kernel;
    p.precision = find_kernel(kernel)->precisions.front();
    p.size = 131;
    p.size_y = std::string(kernel) == "add2d" ? 77 : 0;
    p.threads = 3;
    auto w = test::registry().get("pool").make(p);
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << kernel << ": " << v.detail;
  }
}

TEST(BasicWorkloads, UnsupportedPrecisionIsAUsageError) {
  Problem p;
  p.kernel = "matmul";
  p.precision = Precision::f64;
  p.size = 4;
  EXPECT_THROW(test::registry().get("serial").make(p), UsageError);
  p.kernel = "no_such_kernel";
  EXPECT_THROW(test::registry().get("serial").make(p), UsageError);
}

}  // namespace
}  // namespace parlab
