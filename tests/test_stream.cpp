// STREAM gold validation (BabelStream's method) for every backend, thread count and precision,
// through the same workloads the runner uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/kernels.hpp"
#include "core/stream.hpp"
#include "core/stream_store.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

struct StreamParam {
  test::BackendThreads bt;
  Precision precision;
};

// What ctest and gtest print for the parameter (else "48-byte object <...>").
void PrintTo(const StreamParam& p, std::ostream* os) {
  *os << p.bt.backend << " threads=" << p.bt.threads << " " << to_string(p.precision);
}

std::vector<StreamParam> stream_params() {
  std::vector<StreamParam> out;
  for (const auto& bt : test::backend_thread_params()) {
    for (Precision p : {Precision::f64, Precision::f32}) out.push_back({bt, p});
  }
  return out;
}

class StreamGoldTest : public ::testing::TestWithParam<StreamParam> {};

// 0, 1, odd, one grain (1024), not a multiple of any grain, more than one dot block (8192).
const std::uint64_t kSizes[] = {0, 1, 7, 1024, 1025, 3 * 8192 + 77};

TEST_P(StreamGoldTest, EveryKernelMatchesGold) {
  const auto& backend = test::registry().get(GetParam().bt.backend);
  for (const auto& k : kStreamKernels) {
    for (std::uint64_t n : kSizes) {
      Problem p;
      p.kernel = std::string(k.name);
      p.precision = GetParam().precision;
      p.size = n;
      p.threads = GetParam().bt.threads;
      auto w = backend.make(p);
      for (int rep = 0; rep < 3; ++rep) w->run();  // nstream grows: gold must follow the count
      const Validation v = w->validate();
      EXPECT_TRUE(v.pass) << k.name << " n=" << n << ": " << v.detail;
      // The record says which stores ran: these sizes fit in any cache, so the cached path.
      const auto said = std::find_if(v.metrics.begin(), v.metrics.end(), [](const auto& m) { return m.first == "streaming_stores"; });
      if (k.kernel == StreamKernel::dot) {
        EXPECT_EQ(said, v.metrics.end()) << "dot stores nothing";
      } else {
        ASSERT_NE(said, v.metrics.end()) << k.name;
        EXPECT_EQ(said->second, 0.0) << k.name << " n=" << n;
      }
    }
  }
}

TEST_P(StreamGoldTest, ValidationCatchesACorruptedArray) {
  // A validation that cannot fail proves nothing: run triad, then check the gold of a kernel
  // sequence that did not happen (an extra nstream) and expect a failure.
  const std::uint64_t n = 4097;
  std::vector<double> a(n, 0.1), b(n, 0.2), c(n, 0.0);
  StreamGold<double> gold;
  stream_range(StreamKernel::triad, a.data(), b.data(), c.data(), StreamInit<double>::scalar, 0, n);
  gold.apply(StreamKernel::triad);
  EXPECT_TRUE(check_stream_arrays(a.data(), b.data(), c.data(), n, gold).pass);
  gold.apply(StreamKernel::nstream);
  EXPECT_FALSE(check_stream_arrays(a.data(), b.data(), c.data(), n, gold).pass);
  a[n / 2] = 1e6;  // and one bad element among thousands of good ones
  StreamGold<double> g2;
  g2.apply(StreamKernel::triad);
  EXPECT_FALSE(check_stream_arrays(a.data(), b.data(), c.data(), n, g2).pass);
}

// The streaming-store path (core/stream_store.hpp) on every backend and thread count, through
// stream_run as the workloads call it, at the edge sizes: the gold values after three runs.
template <class T>
void expect_streaming_gold(Executor& ex) {
  for (const auto& k : kStreamKernels) {
    if (k.kernel == StreamKernel::dot) continue;
    for (std::uint64_t n : kSizes) {
      AlignedBuffer<T> a(n), b(n), c(n);
      for (std::uint64_t i = 0; i < n; ++i) {
        a[i] = StreamInit<T>::a;
        b[i] = StreamInit<T>::b;
        c[i] = StreamInit<T>::c;
      }
      StreamGold<T> gold;
      for (int rep = 0; rep < 3; ++rep) {
        stream_run(ex, k.kernel, a.data(), b.data(), c.data(), n, StreamStores::streaming);
        gold.apply(k.kernel);
      }
      const StreamCheck<T> r = check_stream_arrays(a.data(), b.data(), c.data(), n, gold);
      EXPECT_TRUE(r.pass) << k.name << " n=" << n << ": " << r.detail;
    }
  }
}

TEST_P(StreamGoldTest, EveryKernelMatchesGoldWithStreamingStores) {
  auto ex = test::make_executor(GetParam().bt.backend, GetParam().bt.threads);
  if (GetParam().precision == Precision::f64) {
    expect_streaming_gold<double>(*ex);
  } else {
    expect_streaming_gold<float>(*ex);
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, StreamGoldTest, ::testing::ValuesIn(stream_params()),
                         [](const auto& tp) {
                           return test::name_of(tp.param.bt) + "_" + to_string(tp.param.precision);
                         });

TEST(StreamKernelTable, BytesAndFlopsAreBabelStreams) {
  EXPECT_EQ(info(StreamKernel::copy).words, 2);
  EXPECT_EQ(info(StreamKernel::mul).words, 2);
  EXPECT_EQ(info(StreamKernel::add).words, 3);
  EXPECT_EQ(info(StreamKernel::triad).words, 3);
  EXPECT_EQ(info(StreamKernel::dot).words, 2);
  EXPECT_EQ(info(StreamKernel::nstream).words, 4);
  for (const auto& k : kStreamKernels) EXPECT_EQ(stream_kernel_from_name(k.name), k.kernel);
  EXPECT_FALSE(stream_kernel_from_name("triads").has_value());
}

}  // namespace
}  // namespace parlab

namespace parlab {
namespace {

// Streaming stores change how a value reaches memory, never the value: every element equals the
// cached path's bit for bit, for every kernel, precision, start (each alignment of the
// destination within a 16-byte vector and a cache line), length (0, 1, a partial vector, odd,
// more than a line), and sources misaligned against the destination, at each store width the CPU
// has; and nothing outside the range is written.
template <class T>
void expect_streaming_equals_cached(StreamStoreIsa isa) {
  const T s = StreamInit<T>::scalar;
  for (const auto& k : kStreamKernels) {
    if (k.kernel == StreamKernel::dot) continue;
    for (std::uint64_t begin = 0; begin < 24; ++begin) {
      for (std::uint64_t len : {0u, 1u, 2u, 3u, 5u, 16u, 17u, 131u}) {
        for (std::uint64_t skew : {0u, 1u}) {  // sources one element off the destination's alignment
          const std::uint64_t n = begin + len + 8;
          auto fill = [&](std::vector<T>& v, std::uint64_t salt) {
            for (std::uint64_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(1 + ((i * 2654435761u + salt) % 1000)) / T(7);
          };
          std::vector<T> a1(n + 1), b1(n + 1), c1(n + 1);
          fill(a1, 1), fill(b1, 2), fill(c1, 3);
          std::vector<T> a2 = a1, b2 = b1, c2 = c1;
          // Each kernel writes one array and reads others: offset the read-only ones by `skew`.
          const std::uint64_t sa = k.kernel == StreamKernel::triad || k.kernel == StreamKernel::nstream ? 0 : skew;
          const std::uint64_t sb = k.kernel == StreamKernel::mul ? 0 : skew;
          const std::uint64_t sc = k.kernel == StreamKernel::copy || k.kernel == StreamKernel::add ? 0 : skew;
          stream_range(k.kernel, a1.data() + sa, b1.data() + sb, c1.data() + sc, s, begin, begin + len);
          stream_range_streaming(k.kernel, a2.data() + sa, b2.data() + sb, c2.data() + sc, s, begin, begin + len, isa);
          const auto same = [](const std::vector<T>& x, const std::vector<T>& y) {
            return std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
          };
          EXPECT_TRUE(same(a1, a2) && same(b1, b2) && same(c1, c2))
              << k.name << " " << to_string(isa) << " " << sizeof(T) * 8 << "-bit begin=" << begin << " len=" << len << " skew=" << skew;
        }
      }
    }
  }
}

TEST(StreamingStores, BitIdenticalToCachedStores) {
  for (const StreamStoreIsa isa : {StreamStoreIsa::sse2, StreamStoreIsa::avx512}) {
    if (!stream_store_isa_supported(isa)) {
      // Said, not silent: a CPU without this width does not test it.
      std::printf("[   INFO   ] %s stores: not on this CPU, not tested here\n", std::string(to_string(isa)).c_str());
      continue;
    }
    expect_streaming_equals_cached<double>(isa);
    expect_streaming_equals_cached<float>(isa);
  }
}

TEST(StreamingStores, WidestWidthUnlessTheEnvironmentSaysOtherwise) {
  const char* forced = std::getenv("PARLAB_STREAM_ISA");
  const StreamStoreIsa widest =
      stream_store_isa_supported(StreamStoreIsa::avx512) ? StreamStoreIsa::avx512 : StreamStoreIsa::sse2;
  if (forced == nullptr || *forced == '\0') {
    EXPECT_EQ(stream_store_isa(), PARLAB_STREAMING_STORES ? widest : StreamStoreIsa::sse2);
  } else {
    EXPECT_EQ(to_string(stream_store_isa()), std::string(forced));
  }
}

TEST(StreamingStores, ChosenOnlyForArraysFarLargerThanTheCache) {
  const std::uint64_t llc = last_level_cache_bytes();
  ASSERT_GT(llc, 0u);
  EXPECT_EQ(stream_stores_for<double>(StreamKernel::copy, 0), StreamStores::cached);
  // The cache's size is the line: copy's footprint is 2 words per element.
  const std::uint64_t at_line = llc / (2 * sizeof(double));
  EXPECT_EQ(stream_stores_for<double>(StreamKernel::copy, at_line), StreamStores::cached);
  EXPECT_EQ(stream_stores_for<double>(StreamKernel::copy, at_line + 1),
            PARLAB_STREAMING_STORES ? StreamStores::streaming : StreamStores::cached);
}

}  // namespace
}  // namespace parlab
