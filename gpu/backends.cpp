#include "backends.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "backend_names.hpp"
#include "device.hpp"
#include "workloads.hpp"

namespace parlab {
namespace {

using Factory = std::function<std::unique_ptr<Workload>(const Problem&)>;

// The entry's factory, refusing kernels the entry does not list (the runner may ask any name).
Factory checked_factory(std::string backend, std::vector<std::string> kernels, Factory make) {
  return [backend = std::move(backend), kernels = std::move(kernels), make = std::move(make)](const Problem& p) {
    if (std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) {
      std::string accepted;
      for (const auto& k : kernels) accepted += (accepted.empty() ? "" : ", ") + k;
      throw UsageError("backend '" + backend + "' does not run kernel '" + p.kernel + "' (accepted: " + accepted + ")");
    }
    return make(p);
  };
}

// Fills the fields as cpu_entry (cpu/cpu_entry.cpp) does, and stays apart from it on purpose:
// each wing decides what its entries say (kind, processor, kernel table) and wings never include
// each other (docs/design.md, "The wings and what each may include").
BackendEntry gpu_entry(std::string name, std::vector<std::string> kernels, Factory make, std::string detail) {
  BackendEntry e;
  e.name = std::move(name);
  e.kind = BackendKind::gpu;
  e.processor = Processor::gpu;
  e.own_kernels = true;
  e.available = true;
  e.detail = std::move(detail);
  e.kernels = std::move(kernels);
  e.own_family = "practice";  // the GPU practices (transfer_*, logging_*): not in the catalogue
  e.make = checked_factory(e.name, e.kernels, std::move(make));
  return e;
}

BackendEntry unavailable_entry(std::string name, std::vector<std::string> kernels, const std::string& reason) {
  BackendEntry e;
  e.name = std::move(name);
  e.kind = BackendKind::gpu;
  e.processor = Processor::gpu;
  e.available = false;
  e.reason = reason;
  e.kernels = std::move(kernels);
  e.own_family = "practice";
  e.make = [reason](const Problem&) -> std::unique_ptr<Workload> { throw UnavailableError(reason); };
  return e;
}

}  // namespace

void add_cuda_backends(Registry& registry) {
  const auto& table = cuda::gpu_kernel_table();
  std::vector<std::string> single = table.names([](const cuda::GpuRow& r) { return r.single != nullptr; });
  for (auto& s : cuda::practice_kernels()) single.push_back(std::move(s));
  const std::vector<std::string> cublas = table.names([](const cuda::GpuRow& r) { return r.cublas; });
  const std::vector<std::string> multi = table.names([](const cuda::GpuRow& r) { return r.multi != nullptr; });
  const std::vector<std::string> driver_copy = table.names([](const cuda::GpuRow& r) { return r.driver_copy; });

  cuda::DeviceCount devices = cuda::device_count();
  std::string first, all, versions;
  if (devices.count > 0) {
    try {
      first = cuda::describe_device(0);
      versions = cuda::describe_versions();
      for (int d = 0; d < devices.count; ++d) all += (d ? "; " : "") + std::to_string(d) + ": " + cuda::describe_device(d);
    } catch (const std::exception& e) {
      devices.count = 0;
      devices.state = cuda::DeviceCount::State::driver_error;
      devices.reason = std::string("CUDA driver error: a device cannot be described (") + e.what() + ")";
    }
  }

  if (devices.count == 0) {
    // A driver that fails is a failure of the machine, not the absence of a GPU: its records
    // are errors (BackendEntry::broken), and `parlab list` says FAILED.
    const bool broken = devices.state == cuda::DeviceCount::State::driver_error;
    for (const std::string_view name : cuda::kBackendNames) {
      const auto& kernels = name == "cuda"          ? single
                            : name == "cuda-cublas" ? cublas
                            : name == "cuda-memcpy" ? driver_copy
                                                    : multi;
      BackendEntry e = unavailable_entry(std::string(name), kernels, devices.reason);
      e.broken = broken;
      e.in_default_set = cuda::in_default_set(name);
      registry.add(std::move(e));
    }
    return;
  }

  const std::string count = std::to_string(devices.count) + " device" + (devices.count == 1 ? "" : "s");
  registry.add(gpu_entry(
      "cuda", single,
      [](const Problem& p) { return cuda::make_single_device_workload(p, cuda::MatmulImpl::tiled, "cuda"); },
      first + "; " + versions + "; " + count + " (select with --device); matmul: own tiled kernel"));
  registry.add(gpu_entry(
      "cuda-cublas", cublas,
      [](const Problem& p) { return cuda::make_single_device_workload(p, cuda::MatmulImpl::cublas, "cuda-cublas"); },
      first + "; " + versions + "; matmul: cuBLAS sgemm, FP32 (no TF32)"));
  registry.add(gpu_entry(
      "cuda-multi", multi,
      [](const Problem& p) { return cuda::gpu_kernel_table().at(p.kernel, "cuda-multi", &cuda::GpuRow::multi).multi(p, true); },
      count + ", split evenly and run concurrently (" + all + "); " + versions));
  auto seq = gpu_entry(
      "cuda-multi-seq", multi,
      [](const Problem& p) { return cuda::gpu_kernel_table().at(p.kernel, "cuda-multi-seq", &cuda::GpuRow::multi).multi(p, false); },
      count + ", split evenly and run one after another (" + all + "); " + versions);
  seq.in_default_set = cuda::in_default_set(seq.name);
  registry.add(std::move(seq));
  // The driver's copy: what a program calls instead of a copy kernel, so the bar parlab's copy is
  // held to (docs/peers.md, "The driver's copy"). Not parlab's code.
  auto memcpy_entry = gpu_entry(
      "cuda-memcpy", driver_copy, [](const Problem& p) { return cuda::make_driver_copy_workload(p); },
      first + "; " + versions +
          "; copy: cudaMemcpyAsync device to device (c = a), the same arrays, work and check as cuda's copy");
  memcpy_entry.own_kernels = false;
  memcpy_entry.in_default_set = cuda::in_default_set(memcpy_entry.name);
  registry.add(std::move(memcpy_entry));
}

}  // namespace parlab
