#include "core/spread.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace parlab {

namespace {

double quantile(const std::vector<double>& v, double q) {
  const double pos = static_cast<double>(v.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// P(B = i) for B ~ Binomial(n, 1/2), in log space so that n in the millions stays finite.
double binomial_pmf_half(std::size_t n, std::size_t i) {
  if (i > n) return 0.0;
  const double log_choose = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                            std::lgamma(static_cast<double>(n - i) + 1);
  return std::exp(log_choose - static_cast<double>(n) * std::log(2.0));
}

}  // namespace

std::optional<Spread> spread_of(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  Spread s;
  s.n = n;
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.q1 = quantile(v, 0.25);
  s.q3 = quantile(v, 0.75);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double x : v) var += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0.0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  // The narrowest symmetric pair [x_(j), x_(n+1-j)] whose coverage 1 - 2 P(B <= j-1) reaches the
  // level. The CDF is carried along as j grows, each term added once in the order a fresh sum would
  // add it (so the figures are those of summing anew), which keeps a million repetitions linear.
  std::size_t j = 1;
  double cdf_below = binomial_pmf_half(n, 0);          // P(B <= j - 1)
  double cdf_at = cdf_below + binomial_pmf_half(n, 1);  // P(B <= j)
  while (j + 1 <= (n + 1) / 2 && 1 - 2 * cdf_at >= kSpreadCiLevel) {
    ++j;
    cdf_below = cdf_at;
    cdf_at += binomial_pmf_half(n, j);
  }
  s.median_ci = {v[j - 1], v[n - j]};
  s.ci_level = 1 - 2 * cdf_below;
  return s;
}

std::string unstable_reason(const Spread& s) {
  if (!(s.cv > kUnstableCv)) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "CV %.0f%% over %.0f%%", 100 * s.cv, 100 * kUnstableCv);
  return buf;
}

}  // namespace parlab
