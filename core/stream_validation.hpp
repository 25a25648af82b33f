// STREAM validation and work counts shared by every backend's STREAM workloads (CPU, GPU), so a
// figure from any of them is checked by the same code.
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <type_traits>

#include "stream.hpp"
#include "workload.hpp"

namespace parlab {

// The arrays against BabelStream's gold values after the kernels that ran (`gold`); for dot
// also the last value against gold within dot_tolerance, and that it never changed between
// runs (the deterministic reduction gives the same bits every time).
template <class T>
Validation validate_stream(StreamKernel kernel, const T* a, const T* b, const T* c, std::uint64_t n,
                           const StreamGold<T>& gold, std::uint64_t runs, T last_dot, bool dot_changed) {
  Validation v;
  const auto check = check_stream_arrays(a, b, c, n, gold);
  v.pass = check.pass;
  v.detail = check.detail;
  std::ostringstream os;
  os.precision(17);
  if (runs == 0) {
    v.pass = false;
    os << "never ran";
  }
  if (kernel == StreamKernel::dot) {
    v.checksum = static_cast<double>(last_dot);
    const double g = static_cast<double>(gold.dot(n));
    const double err = g != 0 ? std::fabs((v.checksum - g) / g) : std::fabs(v.checksum);
    if (runs > 0 && err > dot_tolerance<T>()) {
      v.pass = false;
      os << "dot " << v.checksum << " differs from gold " << g << " by relative " << err;
    }
    if (dot_changed) {
      v.pass = false;
      os << (os.tellp() > 0 ? "; " : "") << "dot changed between repetitions";
    }
  } else if (n > 0) {
    // A cheap fingerprint of the outputs: each array's first and last element.
    v.checksum = static_cast<double>(a[0]) + static_cast<double>(b[0]) + static_cast<double>(c[0]) +
                 static_cast<double>(a[n - 1]) + static_cast<double>(b[n - 1]) + static_cast<double>(c[n - 1]);
  }
  if (!os.str().empty()) v.detail += (v.detail.empty() ? "" : "; ") + os.str();
  if (v.pass && v.detail.empty()) v.detail = "matches BabelStream gold values";
  return v;
}

// Bytes and flops one run of `kernel` must move and do over n elements of T: the catalogue's work
// model (kernel_work), for the STREAM workloads that know their kernel by enum and T.
template <class T>
WorkCount stream_work(StreamKernel kernel, std::uint64_t n) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return kernel_work(info(kernel).name, std::is_same_v<T, float> ? Precision::f32 : Precision::f64, n);
}

}  // namespace parlab
