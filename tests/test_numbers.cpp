// The one way parlab writes a rate and a size (experiments/io/numbers.hpp), held to the cases
// the analysis's formatters are held to as well (tests/number-formats.json).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "experiments/io/numbers.hpp"

#ifndef PARLAB_SOURCE_DIR
#error "PARLAB_SOURCE_DIR names the source tree (tests/CMakeLists.txt)"
#endif

namespace {

nlohmann::json cases() {
  std::ifstream in(std::string(PARLAB_SOURCE_DIR) + "/tests/number-formats.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST(NumberFormats, RatesAsTheSharedCasesSay) {
  const nlohmann::json c = cases();
  ASSERT_FALSE(c["rates"].empty());
  for (const auto& row : c["rates"]) {
    EXPECT_EQ(parlab::format_rate(row[0].get<double>(), row[1].get<std::string>()), row[2].get<std::string>()) << row;
  }
}

TEST(NumberFormats, SizesAsTheSharedCasesSay) {
  const nlohmann::json c = cases();
  ASSERT_FALSE(c["bytes"].empty());
  for (const auto& row : c["bytes"]) EXPECT_EQ(parlab::format_bytes(row[0].get<double>()), row[1].get<std::string>()) << row;
}

TEST(NumberFormats, NeverAnExponent) {
  for (double v = 1e-3; v < 1e18; v *= 3.7) {
    EXPECT_EQ(parlab::format_rate(v, "B/s").find('e'), std::string::npos) << v;
    EXPECT_EQ(parlab::format_bytes(v).find('e'), std::string::npos) << v;
  }
}
