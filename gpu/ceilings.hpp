// The GPU roofs of docs/ceilings.md (gpu/ceilings.cu): DRAM bandwidth, measured by parlab's own
// STREAM kernels (gpu/stream_kernels.cu); FP64 and FP32 FMA peaks, the rate of 32x32->64-bit multiplies; the SM count and the
// peak clock as the driver reports them. Plain C++: experiments/ calls it without CUDA headers.
#pragma once

#include "core/ceilings_cpu.hpp"

namespace parlab {

// The roofs of `device`. Never throws: without a device, or when a CUDA call fails, every roof it
// could not give is in `unavailable` with the reason. `quick` (tests only) shrinks every probe to a
// few milliseconds; its numbers are no roofs and their `how` says so.
RoofSet measure_gpu_ceilings(int device, bool quick);

}  // namespace parlab
