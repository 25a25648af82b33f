// Reading an enum back from the name its to_string writes, with no list of names to keep.
#pragma once

#include <optional>
#include <string_view>

namespace parlab {

// The enumerator of E whose to_string(E) is `name`; nullopt when none is. PRECONDITION: E's
// enumerators are 0, 1, 2, ... with no gaps, and to_string(E) (a switch with no default, so
// -Wswitch names a missing case) returns an empty name for a value past the last. A value added to
// E is then read back by this scan with nothing else to extend.
template <class E>
std::optional<E> enum_from_name(std::string_view name) {
  for (int i = 0;; ++i) {
    const auto e = static_cast<E>(i);
    const std::string_view n = to_string(e);
    if (n.empty()) return std::nullopt;
    if (n == name) return e;
  }
}

}  // namespace parlab
