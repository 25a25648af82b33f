// The basic array kernels on the GPU: plus_one, add2d on a 2-D grid, and the tiled matmul.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.hpp"
#include "launch.hpp"

namespace parlab::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    plus_one_kernel(const std::int32_t* __restrict__ x, std::int32_t* __restrict__ y, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = x[i] + 1;
  }
}

// ---------------------------------------------------------------- add2d
constexpr int kAddBlockX = 32;  // a warp spans 32 consecutive x: coalesced rows
constexpr int kAddBlockY = 8;
constexpr unsigned kMaxGridY = 65535;  // CUDA's largest gridDim.y; larger grids stride in y

__global__ void __launch_bounds__(kAddBlockX * kAddBlockY)
    add2d_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ res,
                 std::uint64_t nx, std::uint64_t ny) {
  const std::uint64_t stride_x = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t stride_y = static_cast<std::uint64_t>(gridDim.y) * blockDim.y;
  for (std::uint64_t y = static_cast<std::uint64_t>(blockIdx.y) * blockDim.y + threadIdx.y; y < ny; y += stride_y) {
    const std::uint64_t row = y * nx;
    for (std::uint64_t x = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < nx; x += stride_x) {
      res[row + x] = a[row + x] + b[row + x];
    }
  }
}

// ---------------------------------------------------------------- matmul
// A 128x128 tile of C per block of 256 threads, 8x8 elements per thread (rows ty*4+{0..3} and
// 64+ty*4+{0..3}, columns likewise with tx, so the shared-memory float4 reads are conflict-free),
// k in steps of 8 through shared memory, the next step's global loads issued before the current
// step's arithmetic. Out-of-range elements load as +0: a padded product is +0*+0 = +0, and adding
// +0 leaves any sum that is not -0 unchanged; a sum that starts at +0 never becomes -0 under
// round-to-nearest, so padding does not change a bit.
constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 8;
constexpr int kMatmulThreads = 256;
constexpr int kAPad = 4;  // As rows of 132 floats: the transposing stores spread over all banks

__device__ __forceinline__ void load4(const float* __restrict__ m, std::uint64_t n, std::uint64_t r,
                                      std::uint64_t c, bool rows_are_16b_aligned, float (&out)[4]) {
  if (r < n && rows_are_16b_aligned && c + 3 < n) {
    const float4 v = *reinterpret_cast<const float4*>(m + r * n + c);
    out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
    return;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) out[q] = (r < n && c + q < n) ? m[r * n + c + q] : 0.0f;
}

__global__ void __launch_bounds__(kMatmulThreads, 2)
    matmul_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                        std::uint64_t n) {
  __shared__ __align__(16) float As[kTileK][kTileM + kAPad];  // A tile transposed: As[k][row]
  __shared__ __align__(16) float Bs[kTileK][kTileN];

  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const std::uint64_t row0 = static_cast<std::uint64_t>(blockIdx.y) * kTileM;
  const std::uint64_t col0 = static_cast<std::uint64_t>(blockIdx.x) * kTileN;
  const bool aligned = n % 4 == 0;

  // Global-to-shared mapping: A as 128 rows x two 4-wide k groups, B as 8 k rows x 32 4-wide
  // column groups; both coalesced.
  const int a_row = tid / 2, a_k = (tid % 2) * 4;
  const int b_k = tid / 32, b_col = (tid % 32) * 4;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  }

  float a_next[4], b_next[4];
  load4(A, n, row0 + a_row, a_k, aligned, a_next);
  load4(B, n, b_k, col0 + b_col, aligned, b_next);
  for (std::uint64_t k0 = 0; k0 < n; k0 += kTileK) {
#pragma unroll
    for (int q = 0; q < 4; ++q) As[a_k + q][a_row] = a_next[q];
    *reinterpret_cast<float4*>(&Bs[b_k][b_col]) = make_float4(b_next[0], b_next[1], b_next[2], b_next[3]);
    __syncthreads();
    if (k0 + kTileK < n) {
      load4(A, n, row0 + a_row, k0 + kTileK + a_k, aligned, a_next);
      load4(B, n, k0 + kTileK + b_k, col0 + b_col, aligned, b_next);
    }
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&As[kk][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&As[kk][64 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[kk][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[kk][64 + tx * 4]);
      const float ra[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float rb[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = __fadd_rn(acc[i][j], __fmul_rn(ra[i], rb[j]));
      }
    }
    __syncthreads();  // every thread is done reading before the next step overwrites the tiles
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (r >= n) continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const std::uint64_t c = col0 + half * 64 + tx * 4;
      float* out = C + r * n + c;
      if (aligned && c + 3 < n) {
        *reinterpret_cast<float4*>(out) =
            make_float4(acc[i][half * 4], acc[i][half * 4 + 1], acc[i][half * 4 + 2], acc[i][half * 4 + 3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          if (c + q < n) out[q] = acc[i][half * 4 + q];
        }
      }
    }
  }
}

}  // namespace

void launch_plus_one(const std::int32_t* x, std::int32_t* y, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return;
  // One element per thread over the whole array, as the STREAM kernels (stream_kernels.cu).
  const std::uint64_t blocks = std::min<std::uint64_t>((n + kThreads - 1) / kThreads, 0x7fffffff);
  plus_one_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, y, n);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

void launch_add2d(const float* a, const float* b, float* res, std::uint64_t nx, std::uint64_t ny,
                  cudaStream_t stream) {
  if (nx == 0 || ny == 0) return;
  const std::uint64_t gx = std::min<std::uint64_t>((nx + kAddBlockX - 1) / kAddBlockX, 1u << 20);
  const std::uint64_t gy = std::min<std::uint64_t>((ny + kAddBlockY - 1) / kAddBlockY, kMaxGridY);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  add2d_kernel<<<grid, dim3(kAddBlockX, kAddBlockY), 0, stream>>>(a, b, res, nx, ny);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

void launch_matmul_tiled(const float* A, const float* B, float* C, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::uint64_t tiles = (n + kTileM - 1) / kTileM;
  if (tiles > kMaxGridY) throw UsageError("matmul n = " + std::to_string(n) + " exceeds the tiled kernel's grid");
  matmul_tiled_kernel<<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(tiles)), kMatmulThreads, 0, stream>>>(
      A, B, C, n);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

}  // namespace parlab::cuda
