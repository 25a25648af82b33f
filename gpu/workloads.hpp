// GPU workloads: what the registry entries of backends.cpp construct.
//
// Every workload allocates and initialises its device memory in the constructor (untimed),
// times run() with CUDA events on its own stream, keeps kernel time and transfer time apart in
// last_timing(), and validates in validate() by copying results back and applying the same
// checks as the CPU workloads of core/workload.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/function_ref.hpp"
#include "core/kernel_table.hpp"
#include "core/workload.hpp"
#include "cuda_check.hpp"

namespace parlab::cuda {

// Streams and events belong to the device current when they are created: this creates one on
// `device` whatever is current.
template <class T>
T create_on(int device) {
  DeviceGuard guard(device);
  return T();
}

// Shared by every single-device workload: the device, a stream and the events that time it.
class DeviceWorkload : public Workload {
 public:
  std::optional<SelfTiming> last_timing() const override { return timing_; }

 protected:
  // PRECONDITION: check_device(device) passed.
  explicit DeviceWorkload(int device);

  // Ends a constructor: waits for every setup copy and memset. Those run on the legacy default
  // stream, which does not order with the workload's non-blocking stream, and a copy from
  // pageable memory may return before its DMA lands. PRECONDITION: device_ is current.
  static void finish_setup() { PARLAB_CUDA_CHECK(cudaDeviceSynchronize()); }

  // One timed run of kernels that `launch` puts on stream_, with no result to copy back: the
  // events around them, then a wait for the last; timing_ holds the kernels' time.
  void run_timed(FunctionRef<void()> launch);

  int device_;
  Stream stream_;
  Event start_, stop_, copied_;  // kernel region [start_, stop_], result copy [stop_, copied_]
  SelfTiming timing_;
};

enum class MatmulImpl { tiled, cublas };

// A catalogue kernel's GPU makers: on one device (the `cuda` entry; matmul's impl picks the
// kernel), whether `cuda-cublas` runs it, split over every device (`cuda-multi`, its bool says
// concurrently), and whether `cuda-memcpy` runs it (copy: the driver's cudaMemcpyAsync). A null
// maker: that entry does not implement the kernel.
struct GpuRow {
  std::unique_ptr<Workload> (*single)(const Problem&, MatmulImpl) = nullptr;
  bool cublas = false;
  std::unique_ptr<Workload> (*multi)(const Problem&, bool concurrent) = nullptr;
  bool driver_copy = false;
};

// The GPU wing's kernel table (workloads.cpp), keyed by the catalogue (core/kernel_table.hpp).
const KernelTable<GpuRow>& gpu_kernel_table();

// The practices, GPU-only kernels outside the catalogue (practices.cpp).
std::vector<std::string> practice_kernels();

// A catalogue kernel (from the table) or a practice on p.device, for the entry `backend`. Throws
// UsageError for an unknown kernel or precision, a bad device index or a size the device cannot
// hold, and UnavailableError "not implemented by <backend>" for a kernel the table leaves out.
std::unique_ptr<Workload> make_single_device_workload(const Problem& p, MatmulImpl matmul, std::string_view backend);

// copy through cudaMemcpyAsync device to device on p.device (the `cuda-memcpy` entry): the
// STREAM copy's arrays, work and validation, the driver's copy instead of parlab's kernel. Throws
// as make_single_device_workload, and UnavailableError for a kernel the table does not mark.
std::unique_ptr<Workload> make_driver_copy_workload(const Problem& p);

// The practices of backends.hpp on p.device (practices.cpp).
std::unique_ptr<Workload> make_practice_workload(const Problem& p);

// pi and triad split over every visible device, run concurrently or one device after another
// (multi_gpu.cpp): the table's `multi` makers.
std::unique_ptr<Workload> make_multi_pi_workload(const Problem& p, bool concurrent);
std::unique_ptr<Workload> make_multi_triad_workload(const Problem& p, bool concurrent);

// Throws UsageError unless p.precision is one the kernel spec accepts.
void check_precision(const Problem& p);

}  // namespace parlab::cuda
