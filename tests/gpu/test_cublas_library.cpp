// cuBLAS is loaded at first use, never linked (gpu/cublas_library.hpp): a process that makes no
// cuda-cublas workload must not map it, and loading it needs the toolkit only, no device.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "gpu/cublas_library.hpp"

namespace parlab::cuda {
namespace {

bool mapped(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(library) != std::string::npos) return true;
  }
  return false;
}

TEST(CublasLibrary, IsNotMappedUntilFirstUseThenResolvesEveryFunction) {
  // Each case runs in a process of its own (gtest_discover_tests), so nothing loaded it before.
  EXPECT_FALSE(mapped("libcublas")) << "cuBLAS is linked again: every parlab process pays its start-up";
  const CublasApi& api = cublas();
  EXPECT_TRUE(mapped(cublas_soname()));
  EXPECT_STREQ(api.status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_NE(api.status_string(CUBLAS_STATUS_NOT_INITIALIZED), nullptr);
  for (const void* f : {reinterpret_cast<const void*>(api.create), reinterpret_cast<const void*>(api.destroy),
                        reinterpret_cast<const void*>(api.set_stream), reinterpret_cast<const void*>(api.set_math_mode),
                        reinterpret_cast<const void*>(api.sgemm)}) {
    EXPECT_NE(f, nullptr);
  }
}

}  // namespace
}  // namespace parlab::cuda
