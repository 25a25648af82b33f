// Kernels of the GPU practices (see backends.hpp): the logging study's Frobenius norm.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.hpp"
#include "launch.hpp"

namespace parlab::cuda {
namespace {

constexpr int kNormThreads = 256;

// One block: the matrices of the logging study are small (100x100), and a single block keeps
// the sum's order fixed, so every run records the same bits.
__global__ void __launch_bounds__(kNormThreads)
    frobenius_norm_kernel(const float* __restrict__ x, std::uint64_t count, float* __restrict__ norm) {
  __shared__ double partial[kNormThreads];
  double sum = 0.0;
  for (std::uint64_t i = threadIdx.x; i < count; i += kNormThreads) {
    const double v = x[i];
    sum = __dadd_rn(sum, __dmul_rn(v, v));
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int width = kNormThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) partial[threadIdx.x] = __dadd_rn(partial[threadIdx.x], partial[threadIdx.x + width]);
    __syncthreads();
  }
  if (threadIdx.x == 0) *norm = static_cast<float>(sqrt(partial[0]));
}

}  // namespace

void launch_frobenius_norm(const float* x, std::uint64_t count, float* norm, cudaStream_t stream) {
  frobenius_norm_kernel<<<1, kNormThreads, 0, stream>>>(x, count, norm);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

}  // namespace parlab::cuda
