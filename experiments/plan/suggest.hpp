// "Did you mean": the accepted name closest to a mistyped one, for the messages of bad input
// (backends, kernels, suites, precisions, commands, options). One rule for all of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace parlab {

// The edit distance of a and b, case-insensitively: insertions, deletions, substitutions and
// swaps of two neighbouring characters each count 1 ("opnmp" is 1 from "openmp", "tirad" 1 from
// "triad").
std::size_t edit_distance(std::string_view a, std::string_view b);

// "; did you mean 'openmp'?" for the candidate closest to `given` when it is near enough (at most
// 1 edit for names of up to 4 characters, 2 up to 8, else 3) to be a typing mistake; "" otherwise.
// The first of equally close candidates wins.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

}  // namespace parlab
