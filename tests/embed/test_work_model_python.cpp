// The Python backends' work equals the catalogue's model (tests/work_model_check.hpp); here rather
// than in tests/test_work_model.cpp because the embedded interpreter's tests run one CPython per
// process with its LeakSanitizer suppressions (tests/embed/CMakeLists.txt).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "embed_test_support.hpp"
#include "work_model_check.hpp"

namespace parlab {
namespace {

// The Python backends that run a catalogue kernel (pi, triad) in this process, cheaply: not those
// that spawn processes or clusters, compile with Numba, or need a GPU.
TEST(WorkModel, CheapPythonBackendsWorkIsTheCatalogues) {
  const std::vector<std::string> costly = {"py-processes", "py-dask-distributed", "py-numba-prange", "py-numba-nogil",
                                           "py-cupy", "py-torch"};
  bool any = false;
  for (const auto& e : test::registry().entries()) any = any || (e.kind == BackendKind::python && e.available);
  if (!any) GTEST_SKIP() << "no Python backend in this build";
  EXPECT_GT(test::check_backends_of_kind(test::registry(), BackendKind::python, costly), 0);
}

}  // namespace
}  // namespace parlab
