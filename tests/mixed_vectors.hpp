// Test data for summation-order checks, shared by the CPU and GPU dot tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace parlab::test {

// n values of mixed magnitude (mantissa in (-1, 1), exponent in [-20, 20]), so that summing them
// in a different order gives different bits; the same (n, seed) gives the same vector.
template <class T>
std::vector<T> mixed_magnitude_vector(std::uint64_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> expo(-20, 20);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(std::ldexp(mant(gen), expo(gen)));
  return v;
}

}  // namespace parlab::test
