#include "cublas_library.hpp"

#include <dlfcn.h>

#include <string>

#include "core/error.hpp"

// The exported names behind cublas_v2.h's macros (cublasCreate is cublasCreate_v2): stringify
// after expansion.
#define PARLAB_CUBLAS_NAME_(f) #f
#define PARLAB_CUBLAS_NAME(f) PARLAB_CUBLAS_NAME_(f)
#define PARLAB_CUBLAS_SOVERSION_(v) #v
#define PARLAB_CUBLAS_SOVERSION(v) PARLAB_CUBLAS_SOVERSION_(v)

namespace parlab::cuda {
namespace {

template <typename F>
F resolve(void* library, const char* name) {
  void* f = dlsym(library, name);
  if (f == nullptr) {
    const char* why = dlerror();
    throw UnavailableError(std::string(cublas_soname()) + " has no " + name + (why ? std::string(": ") + why : ""));
  }
  return reinterpret_cast<F>(f);
}

CublasApi load() {
  // Kept for the life of the process, never dlclose'd: cuBLAS handles may outlive any scope here,
  // and the library registers exit-time cleanup of its own.
  void* library = dlopen(cublas_soname(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw UnavailableError(std::string("cuBLAS cannot be loaded (") + (why ? why : cublas_soname()) +
                           "); install the CUDA toolkit's cuBLAS, or put its directory on LD_LIBRARY_PATH");
  }
  CublasApi api{};
  api.create = resolve<decltype(api.create)>(library, PARLAB_CUBLAS_NAME(cublasCreate));
  api.destroy = resolve<decltype(api.destroy)>(library, PARLAB_CUBLAS_NAME(cublasDestroy));
  api.set_stream = resolve<decltype(api.set_stream)>(library, PARLAB_CUBLAS_NAME(cublasSetStream));
  api.set_math_mode = resolve<decltype(api.set_math_mode)>(library, PARLAB_CUBLAS_NAME(cublasSetMathMode));
  api.sgemm = resolve<decltype(api.sgemm)>(library, PARLAB_CUBLAS_NAME(cublasSgemm));
  api.status_name = resolve<decltype(api.status_name)>(library, PARLAB_CUBLAS_NAME(cublasGetStatusName));
  api.status_string = resolve<decltype(api.status_string)>(library, PARLAB_CUBLAS_NAME(cublasGetStatusString));
  return api;
}

}  // namespace

const char* cublas_soname() noexcept { return "libcublas.so." PARLAB_CUBLAS_SOVERSION(CUBLAS_VER_MAJOR); }

const CublasApi& cublas() {
  static const CublasApi api = load();  // a failed load throws, and the next call tries again
  return api;
}

}  // namespace parlab::cuda
