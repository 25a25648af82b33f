// The GPU pi count equals the CPU's for every (seed, N): edge sizes, odd N, and pair indices
// beyond 2^32 (the counter's high word), for the kernel launch_pi_hits uses and for every A/B
// variant (pi_kernel_variants): windows that start just below a change of the high word (N near
// 2^33, 2^40 and the end of the 64-bit counter), and lengths around the kernel's grid stride
// times its streams per thread, so every remainder of the unrolled loop runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/kernels.hpp"
#include "core/pi.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/launch.hpp"
#include "gpu_test_support.hpp"

namespace parlab {
namespace {

const std::uint64_t kSeeds[] = {0, 42, 0x243F6A8885A308D3ull, 0xFFFFFFFFFFFFFFFFull};
const std::uint64_t kSizes[] = {0, 1, 2, 3, 5, 17, 1001, 8193, (std::uint64_t{1} << 20) + 7};

std::uint64_t gpu_hits(const std::string& backend, std::uint64_t seed, std::uint64_t n) {
  Problem p = test::gpu_problem("pi", Precision::i32, n);
  p.seed = seed;
  auto w = test::registry().get(backend).make(p);
  w->run();
  w->run();
  const Validation v = w->validate();
  EXPECT_TRUE(v.hits.has_value());
  EXPECT_EQ(v.detail.find("changed"), std::string::npos) << v.detail;
  return v.hits.value_or(~std::uint64_t{0});
}

TEST(GpuPi, HitCountEqualsCpuAtEdgeSizes) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (std::uint64_t seed : kSeeds) {
    for (std::uint64_t n : kSizes) {
      EXPECT_EQ(gpu_hits("cuda", seed, n), pi_hits_points(seed, 0, n)) << "seed " << seed << ", N = " << n;
    }
  }
}

TEST(GpuPi, MultiDeviceHitCountEqualsCpu) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (const char* backend : {"cuda-multi", "cuda-multi-seq"}) {
    for (std::uint64_t n : kSizes) {
      EXPECT_EQ(gpu_hits(backend, 42, n), pi_hits_points(42, 0, n)) << backend << ", N = " << n;
    }
  }
}

// Hits of pairs [pair_begin, pair_end) (plus the first point of pair_end) counted by one launch
// of `variant` (empty: launch_pi_hits itself).
std::uint64_t launch_hits(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end, bool tail,
                          const std::string& variant = {}) {
  cuda::DeviceGuard guard(0);
  cuda::Stream stream;
  cuda::DeviceBuffer<unsigned long long> hits(1, 0);
  PARLAB_CUDA_CHECK(cudaMemsetAsync(hits.get(), 0, sizeof(unsigned long long), stream.get()));
  if (variant.empty()) {
    cuda::launch_pi_hits(seed, pair_begin, pair_end, tail, hits.get(), 0, stream.get());
  } else {
    cuda::launch_pi_hits_variant(variant, seed, pair_begin, pair_end, tail, hits.get(), 0, stream.get());
  }
  unsigned long long host = 0;
  PARLAB_CUDA_CHECK(cudaMemcpyAsync(&host, hits.get(), sizeof host, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return host;
}

// The CPU oracle for a window of pairs, written on pairs so that it holds up to the last pair
// index 2^64 - 1 (point indices 2j would overflow there).
std::uint64_t cpu_window_hits(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end, bool tail) {
  std::uint64_t hits = pi_hits_pairs(seed, pair_begin, pair_end);
  if (tail) {
    std::uint32_t x0 = static_cast<std::uint32_t>(pair_end), x1 = static_cast<std::uint32_t>(pair_end >> 32);
    std::uint32_t x2 = 0, x3 = 0;
    philox4x32_10_inplace(x0, x1, x2, x3, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
    hits += pi_hit(x0, x1);
  }
  return hits;
}

TEST(GpuPi, WindowsAcrossHighWordChangesEqualCpuForEveryVariant) {
  // Pair windows [b, e) (+ the tail point) that start just below a change of the counter's high
  // word: pair 2^32 (N near 2^33), 2^39 (N near 2^40) and the last high word of the 64-bit
  // counter (its last pair, 2^64 - 1, as the tail point). Odd and even lengths.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const std::uint64_t k32 = std::uint64_t{1} << 32, k39 = std::uint64_t{1} << 39, top = ~std::uint64_t{0};
  struct Window {
    std::uint64_t begin, end;
  };
  const Window windows[] = {{k32 - 4097, k32 + 4096}, {k32 - 1, k32 + 1},     {k39 - 3001, k39 + 5002},
                            {k39 - 2, k39 + 3},       {top - 70001, top - 1}, {top - 2, top}};
  std::vector<std::string> variants = cuda::pi_kernel_variants();
  variants.insert(variants.begin(), std::string{});  // launch_pi_hits itself
  for (const std::string& variant : variants) {
    for (std::uint64_t seed : {std::uint64_t{42}, std::uint64_t{0xFFFFFFFFFFFFFFFFull}}) {
      for (const Window& w : windows) {
        for (bool tail : {false, true}) {
          EXPECT_EQ(launch_hits(seed, w.begin, w.end, tail, variant), cpu_window_hits(seed, w.begin, w.end, tail))
              << (variant.empty() ? "launch_pi_hits" : variant) << ", seed " << seed << ", pairs [" << w.begin
              << ", " << w.end << ")" << (tail ? " + tail" : "");
        }
      }
    }
  }
}

TEST(GpuPi, LengthsAroundTheGridStrideEqualCpuForEveryVariant) {
  // Every remainder of the per-thread loop (pairs per thread = k * streams + r) and threads
  // with no pair at all, at an odd start.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const std::uint64_t begin = (std::uint64_t{1} << 32) * 3 + 12345;
  for (const std::string& variant : cuda::pi_kernel_variants()) {
    const std::uint64_t lengths[] = {1, 2, 3, 7, 255, 257, 4099};
    for (std::uint64_t len : lengths) {
      const bool tail = len % 2 != 0;
      EXPECT_EQ(launch_hits(5, begin, begin + len, tail, variant), cpu_window_hits(5, begin, begin + len, tail))
          << variant << ", " << len << " pairs";
    }
    // A grid sized for many pairs: lengths of stride * {1..9} +- 1, 2.
    const std::uint64_t probe = std::uint64_t{1} << 26;
    const std::uint64_t stride =
        static_cast<std::uint64_t>(cuda::pi_variant_grid_blocks(variant, 0, probe)) * 256;
    for (std::uint64_t k : {std::uint64_t{1}, std::uint64_t{4}, std::uint64_t{9}}) {
      for (std::int64_t r : {-2, -1, 0, 1, 2, 3}) {
        const std::uint64_t len = static_cast<std::uint64_t>(static_cast<std::int64_t>(k * stride) + r);
        EXPECT_EQ(launch_hits(11, begin, begin + len, false, variant), cpu_window_hits(11, begin, begin + len, false))
            << variant << ", " << len << " pairs (" << k << " x stride " << stride << " + " << r << ")";
      }
    }
  }
}

TEST(GpuPi, UnknownVariantIsAUsageError) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  cuda::DeviceBuffer<unsigned long long> hits(1, 0);
  EXPECT_THROW(cuda::launch_pi_hits_variant("no-such-kernel", 1, 0, 10, false, hits.get(), 0, nullptr), UsageError);
}

TEST(GpuPi, PairIndicesBeyond2To32EqualCpu) {
  // Windows of the stream of an N > 2^33: the pair counter's high word is 1, 2 and 256 here.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const std::uint64_t k32 = std::uint64_t{1} << 32;
  struct Window {
    std::uint64_t begin, end;
  };
  const Window windows[] = {{k32 - 1000, k32 + 3001}, {2 * k32 + 12345, 2 * k32 + 112346}, {256 * k32 - 7, 256 * k32 + 5}};
  for (std::uint64_t seed : kSeeds) {
    for (const Window& w : windows) {
      for (bool tail : {false, true}) {
        EXPECT_EQ(launch_hits(seed, w.begin, w.end, tail), pi_hits_points(seed, 2 * w.begin, 2 * w.end + (tail ? 1 : 0)))
            << "seed " << seed << ", pairs [" << w.begin << ", " << w.end << ")" << (tail ? " + tail" : "");
      }
    }
  }
}

TEST(GpuPi, HitCountEqualsCpuBeyond2To33) {
  // The whole stream of N = 2^33 + 3 (2^32 + 1 pairs, odd N): the GPU against every CPU core.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const std::uint64_t n = (std::uint64_t{1} << 33) + 3;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto ex = test::make_executor("threads", threads);
  EXPECT_EQ(gpu_hits("cuda", 7, n), pi_hits(*ex, 7, n));
}

TEST(GpuPi, GridShapeDoesNotChangeTheCount) {
  // The same pairs in one launch and in uneven pieces (different grids, different thread-to-pair
  // maps), straddling 2^32.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const std::uint64_t begin = (std::uint64_t{1} << 32) - 5000000, end = (std::uint64_t{1} << 32) + 7000001;
  const std::uint64_t whole = launch_hits(3, begin, end, true);
  const std::uint64_t cuts[] = {begin, begin + 1, begin + 777, (std::uint64_t{1} << 32), end - 300, end};
  std::uint64_t pieces = 0;
  for (std::size_t i = 0; i + 1 < std::size(cuts); ++i) pieces += launch_hits(3, cuts[i], cuts[i + 1], false);
  pieces += launch_hits(3, end, end, true);
  EXPECT_EQ(whole, pieces);
}

}  // namespace
}  // namespace parlab
