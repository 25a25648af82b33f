#include "experiments/plan/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace parlab {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  // Optimal string alignment over three rows (the swap looks two rows back).
  std::vector<std::size_t> two(b.size() + 1), one(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) one[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({one[j] + 1, cur[j - 1] + 1, one[j - 1] + cost});
      if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1])) {
        cur[j] = std::min(cur[j], two[j - 2] + 1);
      }
    }
    std::swap(two, one);
    std::swap(one, cur);
  }
  return one[b.size()];
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  // Long inputs are not names anyone mistyped; the distance is quadratic in the length.
  if (given.empty() || given.size() > 256) return "";
  const std::size_t limit = given.size() <= 4 ? 1 : given.size() <= 8 ? 2 : 3;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  const std::string* choice = nullptr;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(given, c);
    if (d < best) {
      best = d;
      choice = &c;
    }
  }
  if (choice == nullptr || best > limit) return "";  // 0: it differs only in case
  return "; did you mean '" + *choice + "'?";
}

}  // namespace parlab
