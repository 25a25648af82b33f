// Positive control for compute-sanitizer racecheck: a shared-memory write-write and
// read-after-write hazard with no __syncthreads(). Every thread of a block writes its index to
// the same shared word, then reads a neighbour's slot that nothing has fenced. racecheck must
// report it; tools/node/gpu/device-run.sh runs this and fails if it does not (the converse, that
// the canonical kernels are clean, is the racecheck run over parlab_gpu_tests).
//
// Exit codes: 0 ran (whatever racecheck says), 1 a CUDA error, 77 no device (skipped).
#include <cuda_runtime.h>

#include <cstdio>

namespace {

__global__ void planted_race(int* out) {
  __shared__ int word;
  __shared__ int slots[256];
  word = static_cast<int>(threadIdx.x);                   // RACE: every thread writes one word
  slots[threadIdx.x] = static_cast<int>(threadIdx.x) * 2;
  // RACE: no barrier between the writes above and the reads below.
  out[blockIdx.x * blockDim.x + threadIdx.x] = word + slots[(threadIdx.x + 32) % blockDim.x];
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("planted_race_cuda: no CUDA device, skipped\n");
    return 77;
  }
  int* out = nullptr;
  if (cudaMalloc(&out, 4 * 256 * sizeof(int)) != cudaSuccess) return 1;
  planted_race<<<4, 256>>>(out);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  cudaFree(out);
  if (launch != cudaSuccess || sync != cudaSuccess) {
    std::printf("planted_race_cuda: %s\n", cudaGetErrorString(launch != cudaSuccess ? launch : sync));
    return 1;
  }
  std::printf("planted_race_cuda: kernel ran\n");
  return 0;
}
