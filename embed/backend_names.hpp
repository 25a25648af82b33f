// The name of every Python backend, whether or not this build has the embedded interpreter. A
// build without embed/ (no python3-dev) registers each as unavailable with the reason
// (experiments/wiring/make_registry.cpp), so a suite that names them, such as quick, loads everywhere and its
// records say why they did not run. Plain C++: it is included where libpython is absent.
// tests/embed checks that the embed/ part registers exactly these.
#pragma once

#include <array>
#include <string_view>

namespace parlab::embed {

inline constexpr std::array<std::string_view, 20> kPythonBackendNames = {
    "py-pure-threads",   "py-pure-private",      "py-parlab-gil-held",     "py-parlab-gil-released",
    "py-parlab-call-overhead", "py-subinterp",   "py-free-threaded",       "py-numpy",
    "py-numpy-threads",  "py-numba-prange",      "py-numba-nogil",         "py-cupy",
    "py-torch",          "py-threads-race",      "py-thread-pool",         "py-processes",
    "py-dask-delayed",   "py-thread-pool-parlab", "py-dask-delayed-parlab", "py-dask-distributed",
};

}  // namespace parlab::embed
