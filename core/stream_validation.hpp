// STREAM validation and work counts shared by every backend's STREAM workloads (CPU, GPU), so a
// figure from any of them is checked by the same code.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "stream.hpp"
#include "stream_store.hpp"
#include "workload.hpp"

namespace parlab {

// The values of a workload's dot runs: the last one and whether any differed from the one
// before. The deterministic reduction gives the same bits every time, so a change is a failure.
// One per dot workload (CPU, GPU, MPI), which calls record() once per run.
template <class T>
class DotRuns {
 public:
  void record(T sum) {
    if (count_ > 0 && std::memcmp(&sum, &last_, sizeof(T)) != 0) changed_ = true;
    last_ = sum;
    ++count_;
  }
  T last() const { return last_; }

  // Why the recorded values fail, each reason on its own ("never ran"; the last value off the
  // gold value of n elements by more than dot_tolerance; "dot changed between repetitions");
  // empty when they pass.
  std::vector<std::string> failures(const StreamGold<T>& gold, std::uint64_t n) const {
    std::vector<std::string> why;
    if (count_ == 0) {
      why.emplace_back("never ran");
    } else {
      const double v = static_cast<double>(last_), g = static_cast<double>(gold.dot(n));
      const double err = g != 0 ? std::fabs((v - g) / g) : std::fabs(v);
      if (err > dot_tolerance<T>()) {
        std::ostringstream os;
        os.precision(17);
        os << "dot " << v << " differs from gold " << g << " by relative " << err;
        why.push_back(os.str());
      }
    }
    if (changed_) why.emplace_back("dot changed between repetitions");
    return why;
  }

 private:
  T last_{};
  std::uint64_t count_ = 0;
  bool changed_ = false;
};

// Joins reasons with "; " after `detail` (which may be empty).
inline std::string join_reasons(std::string detail, const std::vector<std::string>& why) {
  for (const std::string& w : why) detail += (detail.empty() ? "" : "; ") + w;
  return detail;
}

// The arrays against BabelStream's gold values after the kernels that ran (`gold`, `runs` of
// them); for dot also the recorded values (DotRuns::failures).
template <class T>
Validation validate_stream(StreamKernel kernel, const T* a, const T* b, const T* c, std::uint64_t n,
                           const StreamGold<T>& gold, std::uint64_t runs, const DotRuns<T>& dot) {
  Validation v;
  const auto check = check_stream_arrays(a, b, c, n, gold);
  std::vector<std::string> why;
  if (kernel == StreamKernel::dot) {
    v.checksum = static_cast<double>(dot.last());
    why = dot.failures(gold, n);
  } else {
    if (runs == 0) why.emplace_back("never ran");
    // A cheap fingerprint of the outputs: each array's first and last element.
    if (n > 0) {
      v.checksum = static_cast<double>(a[0]) + static_cast<double>(b[0]) + static_cast<double>(c[0]) +
                   static_cast<double>(a[n - 1]) + static_cast<double>(b[n - 1]) + static_cast<double>(c[n - 1]);
    }
  }
  v.pass = check.pass && why.empty();
  v.detail = join_reasons(check.detail, why);
  if (v.pass) v.detail = "matches BabelStream gold values";
  return v;
}

// Bytes and flops one run of `kernel` must move and do over n elements of T: the catalogue's work
// model (kernel_work), for the STREAM workloads that know their kernel by enum and T.
template <class T>
WorkCount stream_work(StreamKernel kernel, std::uint64_t n) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return kernel_work(info(kernel).name, std::is_same_v<T, float> ? Precision::f32 : Precision::f64, n);
}

// Says in a record which stores a CPU STREAM array kernel used (stream_store.hpp), chosen from
// the whole job's n elements; dot stores nothing and says nothing.
template <class T>
inline void note_stream_stores(Validation& v, StreamKernel k, std::uint64_t n) {
  if (k == StreamKernel::dot) return;
  v.metrics.emplace_back("streaming_stores", stream_stores_for<T>(k, n) == StreamStores::streaming ? 1.0 : 0.0);
}

}  // namespace parlab
