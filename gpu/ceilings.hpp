// The GPU roofs of docs/ceilings.md (gpu/ceilings.cu): DRAM bandwidth, measured by parlab's own
// STREAM kernels (gpu/stream_kernels.cu); FP64 and FP32 FMA peaks, the rate of 32x32->64-bit multiplies; the SM count and the
// peak clock as the driver reports them. Plain C++: experiments/ calls it without CUDA headers.
#pragma once

#include <string>

#include "core/ceilings_cpu.hpp"

namespace parlab {

// The roofs of `device`. Never throws: without a device, or when a CUDA call fails, every roof it
// could not give is in `unavailable` with the reason. `quick` (tests only) shrinks every probe to a
// few milliseconds; its numbers are no roofs and their `how` says so.
RoofSet measure_gpu_ceilings(int device, bool quick);

// The pi kernel launch_pi_hits runs, for `parlab ceilings` to find in `cuobjdump -sass` output
// (experiments/machine/incore.hpp): a part of its mangled name, and the pairs each thread takes
// per trip of its hot loop.
struct GpuPiLoop {
  std::string function_fragment;
  int pairs_per_trip = 0;
};
GpuPiLoop gpu_pi_loop();

// A part of the gpu_imul probe kernel's mangled name, for the same reader: whether that probe
// bounds pi depends on its instructions per multiply against pi's.
std::string gpu_imul_probe_function();

}  // namespace parlab
