// Validation shared by every backend's workloads: the pi hit tracker, the race-lab trial
// tally and the basic kernels' element checks, so a CPU, GPU or MPI figure is checked by the
// same code.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernels.hpp"
#include "pi.hpp"
#include "workload.hpp"

namespace parlab {

Validation PiHitsTracker::validate(std::uint64_t samples, const std::string& where,
                                   std::optional<std::uint64_t> canonical) const {
  if (runs_ == 0) return Validation::never_ran();
  Validation v;
  const PiCheck c = pi_check(last_, samples);
  v.hits = last_;
  v.checksum = c.estimate;
  v.pass = c.pass && !changed_ && (!canonical || last_ == *canonical);
  std::ostringstream os;
  if (changed_) os << "hit count changed between repetitions (" << first_ << " then " << last_ << "); ";
  os << "hits " << last_ << " of " << samples << (where.empty() ? "" : " " + where);
  if (canonical) {
    if (last_ == *canonical) {
      os << " (the canonical count)";
    } else {
      os << " differ from the canonical count " << *canonical;
    }
  }
  os << ", " << c.sigmas << " sigma from N*pi/4";
  if (!c.pass) os << " (beyond 3 sigma)";
  v.detail = os.str();
  return v;
}

std::uint64_t canonical_pi_hits(std::uint64_t seed, std::uint64_t n) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned parts = n < (std::uint64_t{1} << 22) ? 1u : hw;
  std::vector<std::uint64_t> hits(parts, 0);
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < parts; ++t) {
    threads.emplace_back(
        [&, t] { hits[t] = pi_hits_points(seed, static_split(n, parts, t), static_split(n, parts, t + 1)); });
  }
  hits[0] = pi_hits_points(seed, 0, static_split(n, parts, 1));
  for (auto& th : threads) th.join();
  std::uint64_t total = 0;
  for (auto h : hits) total += h;
  return total;
}

void RaceTrials::record(double value) {
  ++trials_;
  last_ = value;
  if (value != exact_) {
    ++deviating_;
    max_dev_ = std::max(max_dev_, std::fabs(value - exact_));
  }
  const auto it = std::lower_bound(distinct_.begin(), distinct_.end(), value);
  if ((it == distinct_.end() || *it != value) && distinct_.size() < kMaxDistinct) distinct_.insert(it, value);
}

Validation RaceTrials::validate(bool racy) const {
  Validation v;
  v.checksum = last_;
  v.pass = racy || deviating_ == 0;
  std::ostringstream os;
  os.precision(17);
  os << deviating_ << " of " << trials_ << " trials differ from the exact " << exact_ << " (largest deviation "
     << max_dev_ << ", " << distinct_.size() << " distinct results)";
  if (racy) os << "; racy by design";
  v.detail = os.str();
  const double scale = exact_ != 0 ? std::fabs(exact_) : 1.0;
  v.metrics = {{"trials", static_cast<double>(trials_)},
               {"deviating_trials", static_cast<double>(deviating_)},
               {"deviating_share", trials_ ? static_cast<double>(deviating_) / static_cast<double>(trials_) : 0.0},
               {"max_abs_deviation", max_dev_},
               {"max_rel_deviation", max_dev_ / scale},
               {"distinct_results", static_cast<double>(distinct_.size())},
               {"exact", exact_}};
  return v;
}

Validation validate_plus_one(const std::int32_t* y, std::uint64_t n) {
  Validation v;
  double sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (y[i] != plus_one_init(i) + 1) {
      v.pass = false;
      v.detail = "y[" + std::to_string(i) + "] = " + std::to_string(y[i]) + ", expected " +
                 std::to_string(plus_one_init(i) + 1);
      break;
    }
    sum += y[i];
  }
  v.checksum = sum;
  if (v.pass) v.detail = "every y[i] == x[i] + 1";
  return v;
}

Validation validate_add2d(const float* res, std::uint64_t nx, std::uint64_t ny) {
  Validation v;
  double sum = 0;
  for (std::uint64_t i = 0; i < nx * ny; ++i) {
    if (res[i] != basic_input(i, 0) + basic_input(i, 1)) {
      v.pass = false;
      v.detail = "res at x=" + std::to_string(i % nx) + ", y=" + std::to_string(i / nx) + " differs from a+b";
      break;
    }
    sum += res[i];
  }
  v.checksum = sum;
  if (v.pass) v.detail = "every res == a + b";
  return v;
}
}  // namespace parlab
