// The STREAM set as BabelStream defines it, plus the deterministic reduction used by `dot`.
//
// Kernels are data (name, words moved per element, flops per element) so bandwidth and flop
// rates are computed from this table and never special-cased. The element bodies are
// __host__ __device__ so the GPU runs exactly the same arithmetic.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "philox.hpp"  // PARLAB_HD
#include "roof.hpp"

namespace parlab {

enum class StreamKernel { copy, mul, add, triad, dot, nstream };

// The arrays a kernel reads and writes, as bits of a row's `reads` and `writes`.
inline constexpr unsigned kStreamA = 1, kStreamB = 2, kStreamC = 4;

struct StreamKernelInfo {
  StreamKernel kernel;
  std::string_view name;
  int words;        // array elements read + written per index (BabelStream's byte count / sizeof(T))
  int flops;        // floating-point operations per index
  unsigned reads;   // the arrays its element body reads (kStreamA | kStreamB | kStreamC)
  unsigned writes;  // the one array it writes; 0 for dot, a reduction
  // The bandwidth roof it is held against (docs/ceilings.md, "Which roof"): its access pattern,
  // read-only, one array read and one written (copy), or two or more read and one written
  // (triad). Its flops never bind: at most 3 per 32 bytes, an eighth of any CPU's or GPU's balance.
  MemoryRoof roof;
};

// One row per kernel, in StreamKernel order; with its enumerator and its case in stream_element
// this is the whole of a STREAM kernel: the catalogue (its work and roof), the CPU loops (plain and
// streaming-store), the gold values and the GPU kernel all take it from here.
inline constexpr auto kStreamKernels = std::to_array<StreamKernelInfo>({
    {StreamKernel::copy, "copy", 2, 0, kStreamA, kStreamC, MemoryRoof::copy},                        // c = a
    {StreamKernel::mul, "mul", 2, 1, kStreamC, kStreamB, MemoryRoof::copy},                          // b = s*c
    {StreamKernel::add, "add", 3, 1, kStreamA | kStreamB, kStreamC, MemoryRoof::triad},              // c = a + b
    {StreamKernel::triad, "triad", 3, 2, kStreamB | kStreamC, kStreamA, MemoryRoof::triad},          // a = b + s*c
    {StreamKernel::dot, "dot", 2, 2, kStreamA | kStreamB, 0, MemoryRoof::read},                      // sum a*b
    {StreamKernel::nstream, "nstream", 4, 3, kStreamA | kStreamB | kStreamC, kStreamA, MemoryRoof::triad}  // a += b + s*c
});

// Rows in enum order, so a kernel's row is kStreamKernels[kernel].
static_assert([] {
  for (std::size_t i = 0; i < kStreamKernels.size(); ++i) {
    if (kStreamKernels[i].kernel != static_cast<StreamKernel>(i)) return false;
  }
  return true;
}(), "kStreamKernels must list the kernels in StreamKernel order");

// Calls f(std::integral_constant<StreamKernel, K>{}) for K == k: a loop written once inside f is
// compiled per kernel with the kernel a constant, so stream_element's switch folds away and each
// loop vectorises.
template <class F, std::size_t... I>
PARLAB_FORCE_INLINE void with_stream_kernel(StreamKernel k, F&& f, std::index_sequence<I...>) {
  ((k == static_cast<StreamKernel>(I) ? (f(std::integral_constant<StreamKernel, static_cast<StreamKernel>(I)>{}), 0) : 0),
   ...);
}
template <class F>
PARLAB_FORCE_INLINE void with_stream_kernel(StreamKernel k, F&& f) {
  with_stream_kernel(k, f, std::make_index_sequence<kStreamKernels.size()>{});
}

inline const StreamKernelInfo& info(StreamKernel k) {
  return kStreamKernels[static_cast<std::size_t>(k)];
}

inline std::optional<StreamKernel> stream_kernel_from_name(std::string_view name) {
  for (const auto& k : kStreamKernels) {
    if (k.name == name) return k.kernel;
  }
  return std::nullopt;
}

// BabelStream's initial values and scalar.
template <class T>
struct StreamInit {
  static constexpr T a = T(0.1);
  static constexpr T b = T(0.2);
  static constexpr T c = T(0.0);
  static constexpr T scalar = T(0.4);
};

// The element operations, one per array kernel (dot is below): the one body of each kernel, on
// the CPU (plain and vector types), the GPU and the gold scalars.
// s by reference: T may be a vector type whose passing by value depends on the target (the
// 64-byte path, core/stream_store.hpp).
template <class T>
PARLAB_HD PARLAB_FORCE_INLINE void stream_element(StreamKernel k, T* a, T* b, T* c, const T& s,
                                                  std::uint64_t i) {
  switch (k) {
    case StreamKernel::copy: c[i] = a[i]; break;
    case StreamKernel::mul: b[i] = s * c[i]; break;
    case StreamKernel::add: c[i] = a[i] + b[i]; break;
    case StreamKernel::triad: a[i] = b[i] + s * c[i]; break;
    case StreamKernel::nstream: a[i] += b[i] + s * c[i]; break;
    case StreamKernel::dot: break;
  }
}

// Applies kernel k to [begin, end): stream_element with k a constant, so each loop vectorises.
template <class T>
inline void stream_range(StreamKernel k, T* a, T* b, T* c, T s, std::uint64_t begin,
                         std::uint64_t end) {
  with_stream_kernel(k, [&](auto kernel) {
    for (std::uint64_t i = begin; i < end; ++i) stream_element(kernel(), a, b, c, s, i);
  });
}

// ---- Deterministic dot (docs/design.md, "Deterministic reduction") ----
//
// 1. [0, n) is cut into blocks of kDotBlock elements, independent of the thread count.
// 2. Within a block, element i goes to lane i % kDotLanes (counted from the block's start); each
//    lane sums its elements in index order, then the lanes combine as
//    ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)). Eight independent lanes let the compiler vectorise
//    without reassociating anything, and a GPU reproduces the order with eight threads per block.
// 3. Block partials combine by pairwise summation in index order (dot_pairwise_inplace).
// Built with -ffp-contract=off (CMake) so no compiler fuses a*b+acc differently in one place.
inline constexpr std::uint64_t kDotBlock = 8192;
inline constexpr int kDotLanes = 8;

inline std::uint64_t dot_block_count(std::uint64_t n) { return (n + kDotBlock - 1) / kDotBlock; }

template <class T>
PARLAB_HD inline T dot_combine_lanes(const T (&lane)[kDotLanes]) {
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// The partial of block `block` of a[0..n) . b[0..n).
template <class T>
inline T dot_block(const T* a, const T* b, std::uint64_t n, std::uint64_t block) {
  const std::uint64_t begin = block * kDotBlock;
  const std::uint64_t end = begin + kDotBlock < n ? begin + kDotBlock : n;
  T lane[kDotLanes] = {};
  std::uint64_t i = begin;
  for (; i + kDotLanes <= end; i += kDotLanes) {
    for (int l = 0; l < kDotLanes; ++l) lane[l] += a[i + l] * b[i + l];
  }
  for (int l = 0; i < end; ++i, ++l) lane[l] += a[i] * b[i];
  return dot_combine_lanes(lane);
}

// Pairwise sum of p[0..count) in index order, bottom-up: each level adds neighbours
// (p[0]+p[1], p[2]+p[3], ...) and carries an odd last element up unchanged, until one value is
// left. The same tree a GPU reduction builds level by level. Overwrites p.
template <class T>
PARLAB_HD inline T dot_pairwise_inplace(T* p, std::uint64_t count) {
  if (count == 0) return T(0);
  while (count > 1) {
    const std::uint64_t half = count / 2;
    for (std::uint64_t i = 0; i < half; ++i) p[i] = p[2 * i] + p[2 * i + 1];
    if (count & 1u) p[half] = p[count - 1];
    count = half + (count & 1u);
  }
  return p[0];
}

// ---- Validation, as BabelStream does: gold values from the same operations on scalars ----

template <class T>
struct StreamGold {
  T a = StreamInit<T>::a, b = StreamInit<T>::b, c = StreamInit<T>::c;

  // Applies kernel k once to the scalars, exactly as every element sees it: the element body itself.
  void apply(StreamKernel k) {
    const T s = StreamInit<T>::scalar;
    stream_element(k, &a, &b, &c, s, 0);
  }
  T dot(std::uint64_t n) const { return a * b * static_cast<T>(n); }
};

template <class T>
struct StreamCheck {
  bool pass = true;
  double err_a = 0, err_b = 0, err_c = 0;  // mean relative error per array
  std::string detail;
};

// Mean relative error of x[0..n) against gold (absolute where gold is 0).
template <class T>
inline double mean_rel_error(const T* x, std::uint64_t n, T gold) {
  if (n == 0) return 0.0;
  double sum = 0.0;
  for (std::uint64_t i = 0; i < n; ++i) sum += std::fabs(static_cast<double>(x[i]) - gold);
  const double mean = sum / static_cast<double>(n);
  return gold != T(0) ? mean / std::fabs(static_cast<double>(gold)) : mean;
}

template <class T>
inline StreamCheck<T> check_stream_arrays(const T* a, const T* b, const T* c, std::uint64_t n,
                                          const StreamGold<T>& gold) {
  StreamCheck<T> r;
  const double eps = std::numeric_limits<T>::epsilon() * 100.0;
  r.err_a = mean_rel_error(a, n, gold.a);
  r.err_b = mean_rel_error(b, n, gold.b);
  r.err_c = mean_rel_error(c, n, gold.c);
  r.pass = r.err_a <= eps && r.err_b <= eps && r.err_c <= eps;
  if (!r.pass) {
    r.detail = "array error beyond " + std::to_string(eps) + ": a " + std::to_string(r.err_a) +
               ", b " + std::to_string(r.err_b) + ", c " + std::to_string(r.err_c);
  }
  return r;
}

// Tolerance on dot's relative error: BabelStream's 1e-8 for double; float's 24-bit mantissa
// cannot meet that over 1024-term lane sums, so 1e-4 there.
template <class T>
inline double dot_tolerance() {
  return sizeof(T) == 4 ? 1e-4 : 1e-8;
}

}  // namespace parlab
