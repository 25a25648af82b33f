// A named metric of a Validation, for race-lab tests (C++ and Python kernels alike): a missing
// metric is a test failure, not a crash, and reads as -1 so the assertion after it fails too.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/workload.hpp"

namespace parlab::test {

inline double metric(const Validation& v, const std::string& name) {
  const std::optional<double> x = v.metric(name);
  if (!x) ADD_FAILURE() << "no metric " << name;
  return x.value_or(-1);
}

}  // namespace parlab::test
