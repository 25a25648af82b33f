// The CUDA backends (kind "gpu"), registered by experiments/wiring/make_registry.cpp.
//
// Entries:
//   cuda                   one GPU (Problem::device): pi, the STREAM set (float, double),
//                          plus_one, add2d, matmul with parlab's own tiled kernel, and the practices
//   cuda-cublas            one GPU: matmul through cuBLAS sgemm (FP32, no TF32)
//   cuda-multi             every visible GPU, concurrently: pi and triad, the work split evenly
//   cuda-multi-seq  the same split, one GPU after another (the baseline of the
//                          concurrency study; not in the default set)
//   cuda-memcpy            one GPU: copy through cudaMemcpyAsync device to device, the driver's
//                          copy beside parlab's kernel (a peer; not in the default set)
//
// Practices (kernel names of the `cuda` entry; `size` as stated; precision ignored):
//   transfer_pageable    H2D then D2H of `size` bytes from pageable host memory
//   transfer_pinned      the same from page-locked host memory
//   transfer_many_small  the same bytes (pinned) as 1024 separate copies each way
//                        (as many as there are bytes, when size < 1024)
//   transfer_one_large   the same bytes (pinned) as one copy each way
//   logging_every_step   `size` steps (1000 in the study) of X := A*X on 100x100 floats, A
//                        orthogonal, recording ||X||_F each step and reading it back every step
//   logging_on_device    the same steps, the norms kept on the device and read back once
// WorkCount::bytes of a transfer is the bytes moved (2 * size). Kernel time and transfer time
// are always apart in Workload::last_timing(): transfers report only transfer_s; logging
// reports the kernels as kernel_s and everything else (the copies and the waits they force on
// the host) as transfer_s.
//
// When cudaGetDeviceCount fails or finds no device, every entry is registered unavailable with
// the reason ("no CUDA device (...)"); registration never throws and never aborts.
#pragma once

#include "core/workload.hpp"

namespace parlab {

void add_cuda_backends(Registry& registry);

}  // namespace parlab
