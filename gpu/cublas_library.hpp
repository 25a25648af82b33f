#pragma once
// cuBLAS, loaded when the first cuda-cublas workload is made instead of linked. Linking it made
// every parlab process run cuBLASLt's static initialisers at start: about 0.35 s and 200 MB per
// process, with or without a GPU, on every command, child process and test. Only `cuda-cublas`
// uses it (matmul's sgemm), so only it pays.
#include <cublas_v2.h>

namespace parlab::cuda {

// The cuBLAS functions parlab calls, resolved from the library of the toolkit it was built with.
struct CublasApi {
  decltype(&cublasCreate) create;
  decltype(&cublasDestroy) destroy;
  decltype(&cublasSetStream) set_stream;
  decltype(&cublasSetMathMode) set_math_mode;
  decltype(&cublasSgemm) sgemm;
  decltype(&cublasGetStatusName) status_name;
  decltype(&cublasGetStatusString) status_string;
};

// The soname loaded: libcublas.so.<the major version of the headers built against>.
const char* cublas_soname() noexcept;

// Loads the library and resolves every function once per process (thread-safe). Throws
// UnavailableError naming the library and dlerror()'s reason where it cannot be loaded or lacks
// a function: the record is then unavailable, as a missing GPU makes it.
const CublasApi& cublas();

}  // namespace parlab::cuda
