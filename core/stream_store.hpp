// The STREAM array kernels with non-temporal ("streaming") stores, for arrays far larger than
// the caches (docs/design.md, "Kernels and their work model").
//
// Why. An ordinary store to a line that is not in the cache first reads the line from memory
// (a read for ownership), so copy moves three words per element through the memory bus where
// BabelStream's byte count, which parlab uses, counts two; add and triad move four for three. A
// non-temporal store writes the whole line without reading it, so the memory traffic is the
// counted traffic. It pays only when the arrays do not fit in the caches (the stores bypass them,
// so the next kernel reads from memory what it could have found in a cache): stream_stores_for()
// decides from the kernel's footprint. The values stored are the same IEEE operations on the same
// operands as stream_range's (vector lanes are elementwise; fp contraction is off project-wide),
// so results are bit-identical to the ordinary path; tests/test_stream.cpp checks this for every
// kernel, precision, alignment and length.
//
// Two store widths. SSE2's 16-byte stores, which every x86-64 CPU has, fill a line in four
// stores, each partial in the write-combining buffer until the fourth; AVX-512F's 64-byte stores
// write a whole line at once. The wider path is taken where the CPU has it (likwid-bench's
// copy_mem_avx512 and stream_mem_avx512 store this way; docs/peers.md); PARLAB_STREAM_ISA=sse2
// or avx512 forces one (studies, tests). Host only; elsewhere streaming falls back to
// stream_range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "stream.hpp"

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <immintrin.h>  // SSE2 (_mm_stream_pd, _mm_sfence) and AVX-512F (_mm512_stream_pd)
#define PARLAB_STREAMING_STORES 1
#else
#define PARLAB_STREAMING_STORES 0
#endif

#include <cstdlib>
#include <string>
#include <string_view>

#include "error.hpp"

#if defined(__linux__)
#include <unistd.h>
#endif

namespace parlab {

enum class StreamStores { cached, streaming };

// The cache size that a kernel's arrays must exceed before streaming stores pay: the last-level
// cache as the C library reports it (glibc reads CPUID), and 32 MiB where it reports none.
inline std::uint64_t last_level_cache_bytes() {
  static const std::uint64_t bytes = [] {
    long l3 = -1;
#if defined(__linux__) && defined(_SC_LEVEL3_CACHE_SIZE)
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return l3 > 0 ? static_cast<std::uint64_t>(l3) : std::uint64_t{32} << 20;
  }();
  return bytes;
}

// Streaming when the kernel's arrays (words per element x n x element size) are larger than the
// last-level cache: a kernel sweeping them in order then evicts each line before it comes round
// again, so an ordinary store finds nothing cached to keep. Below that, the cached path (a kernel
// repeated over arrays that fit is the cache's figure, and streaming stores would throw it away).
template <class T>
inline StreamStores stream_stores_for(StreamKernel k, std::uint64_t n) {
  const std::uint64_t footprint = static_cast<std::uint64_t>(info(k).words) * sizeof(T) * n;
  return PARLAB_STREAMING_STORES && footprint > last_level_cache_bytes() ? StreamStores::streaming
                                                                             : StreamStores::cached;
}

#if PARLAB_STREAMING_STORES
namespace stream_detail {

// 16-byte vectors of T (two doubles, four floats). GCC's and Clang's vector types: + and * are
// elementwise IEEE operations, the same as the scalar ones.
template <class T>
struct VecOf;
template <>
struct VecOf<double> {
  using type = __m128d;
  static type load(const double* p) { return _mm_loadu_pd(p); }  // sources may be unaligned
  static type splat(double s) { return _mm_set1_pd(s); }
  static void store_nt(double* p, type v) { _mm_stream_pd(p, v); }  // PRECONDITION: p 16-byte aligned
};
template <>
struct VecOf<float> {
  using type = __m128;
  static type load(const float* p) { return _mm_loadu_ps(p); }
  static type splat(float s) { return _mm_set1_ps(s); }
  static void store_nt(float* p, type v) { _mm_stream_ps(p, v); }
};

template <class T>
struct Vec512Of;
template <>
struct Vec512Of<double> {
  using type = __m512d;
};
template <>
struct Vec512Of<float> {
  using type = __m512;
};

// The 64-byte path of kernel K over [i, end), dst 64-byte aligned at i; returns where it stopped
// (the last whole vector's end). A function of its own: only a function compiled for AVX-512F
// may hold its vectors, and stream_element, always inlined, takes that target here.
template <class T, StreamKernel K>
__attribute__((target("avx512f"))) std::uint64_t stream_avx512(T* a, T* b, T* c, T s, T* dst, std::uint64_t i,
                                                               std::uint64_t end) {
  using V = typename Vec512Of<T>::type;
  constexpr std::uint64_t kLanes = sizeof(V) / sizeof(T);
  constexpr StreamKernelInfo r = kStreamKernels[static_cast<std::size_t>(K)];
  V sv;
  if constexpr (std::is_same_v<T, double>) {
    sv = _mm512_set1_pd(s);
  } else {
    sv = _mm512_set1_ps(s);
  }
  const std::uint64_t vec_end = i + (end - i) / kLanes * kLanes;
  for (; i < vec_end; i += kLanes) {
    V va{}, vb{}, vc{};
    if constexpr (std::is_same_v<T, double>) {  // sources may be unaligned
      if constexpr ((r.reads & kStreamA) != 0) va = _mm512_loadu_pd(a + i);
      if constexpr ((r.reads & kStreamB) != 0) vb = _mm512_loadu_pd(b + i);
      if constexpr ((r.reads & kStreamC) != 0) vc = _mm512_loadu_pd(c + i);
    } else {
      if constexpr ((r.reads & kStreamA) != 0) va = _mm512_loadu_ps(a + i);
      if constexpr ((r.reads & kStreamB) != 0) vb = _mm512_loadu_ps(b + i);
      if constexpr ((r.reads & kStreamC) != 0) vc = _mm512_loadu_ps(c + i);
    }
    stream_element<V>(K, &va, &vb, &vc, sv, 0);
    const V out = r.writes == kStreamA ? va : r.writes == kStreamB ? vb : vc;
    if constexpr (std::is_same_v<T, double>) {
      _mm512_stream_pd(dst + i, out);
    } else {
      _mm512_stream_ps(dst + i, out);
    }
  }
  return i;
}

}  // namespace stream_detail
#endif

enum class StreamStoreIsa { sse2, avx512 };

inline std::string_view to_string(StreamStoreIsa isa) noexcept {
  return isa == StreamStoreIsa::avx512 ? "avx512" : "sse2";
}

inline bool stream_store_isa_supported(StreamStoreIsa isa) noexcept {
#if PARLAB_STREAMING_STORES
  // __builtin_cpu_supports also checks that the OS saves the vector state (XCR0).
  return isa == StreamStoreIsa::sse2 || __builtin_cpu_supports("avx512f");
#else
  (void)isa;
  return false;
#endif
}

// The store width streaming takes: PARLAB_STREAM_ISA if set, else the widest the CPU has.
// Decided once; a bad value throws on every call rather than being half-applied.
inline StreamStoreIsa stream_store_isa() {
  static const StreamStoreIsa isa = [] {
    const StreamStoreIsa widest =
        stream_store_isa_supported(StreamStoreIsa::avx512) ? StreamStoreIsa::avx512 : StreamStoreIsa::sse2;
    const char* v = std::getenv("PARLAB_STREAM_ISA");
    if (v == nullptr || *v == '\0') return widest;
    const std::string s(v);
    if (s != "sse2" && s != "avx512") throw UsageError("PARLAB_STREAM_ISA='" + s + "' is not one of sse2, avx512");
    const StreamStoreIsa want = s == "avx512" ? StreamStoreIsa::avx512 : StreamStoreIsa::sse2;
    if (!stream_store_isa_supported(want)) {
      throw UsageError("PARLAB_STREAM_ISA=" + s + " but this CPU cannot run it (widest supported: " +
                       std::string(to_string(widest)) + ")");
    }
    return want;
  }();
  return isa;
}

// Kernel k over [begin, end) with streaming stores to its destination array: the elements before
// the first 16-byte boundary of the destination and after the last whole vector take ordinary
// stores. Ends with a store fence: streaming stores are weakly ordered, and the fork-join that
// follows (a release on x86) does not order them for the threads that read the arrays next.
template <class T>
// isa: the store width (tests pass each one the CPU has).
inline void stream_range_streaming(StreamKernel k, T* a, T* b, T* c, T s, std::uint64_t begin, std::uint64_t end,
                                   StreamStoreIsa isa = stream_store_isa()) {
#if PARLAB_STREAMING_STORES
  using Ops = stream_detail::VecOf<T>;
  using V = typename Ops::type;
  constexpr std::uint64_t kLanes = sizeof(V) / sizeof(T);
  const auto load = Ops::load;
  const auto store_nt = Ops::store_nt;
  const StreamKernelInfo& row = info(k);
  if (row.writes == 0) return;  // dot: a reduction, nothing stored
  T* dst = row.writes == kStreamA ? a : row.writes == kStreamB ? b : c;
  const bool wide = isa == StreamStoreIsa::avx512;
  const std::uintptr_t align = wide ? 64 : sizeof(V);
  std::uint64_t i = begin;
  for (; i < end && reinterpret_cast<std::uintptr_t>(dst + i) % align != 0; ++i) stream_element(k, a, b, c, s, i);
  const V sv = Ops::splat(s);
  // The element body on vectors: elementwise IEEE operations, so the stored values are the
  // scalar path's bits.
  with_stream_kernel(k, [&](auto kernel) {
    constexpr StreamKernel K = decltype(kernel)::value;
    constexpr StreamKernelInfo r = kStreamKernels[static_cast<std::size_t>(K)];
    if (wide) i = stream_detail::stream_avx512<T, K>(a, b, c, s, dst, i, end);
    // The 16-byte path, and after the 64-byte one the last whole 16-byte vectors.
    for (; i + kLanes <= end; i += kLanes) {
      V va{}, vb{}, vc{};
      if constexpr ((r.reads & kStreamA) != 0) va = load(a + i);
      if constexpr ((r.reads & kStreamB) != 0) vb = load(b + i);
      if constexpr ((r.reads & kStreamC) != 0) vc = load(c + i);
      stream_element<V>(kernel(), &va, &vb, &vc, sv, 0);
      store_nt(dst + i, r.writes == kStreamA ? va : r.writes == kStreamB ? vb : vc);
    }
  });
  for (; i < end; ++i) stream_element(k, a, b, c, s, i);
  _mm_sfence();
#else
  (void)isa;
  stream_range(k, a, b, c, s, begin, end);
#endif
}

}  // namespace parlab
