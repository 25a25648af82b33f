// The roof keys' names (core/roof.hpp): the one place each is spelt.
#include "roof.hpp"

#include "enum_names.hpp"

namespace parlab {

std::string_view to_string(RoofKey key) noexcept {
  switch (key) {
    case RoofKey::cpu_bw_read_1: return "cpu_bw_read_1";
    case RoofKey::cpu_bw_read_all: return "cpu_bw_read_all";
    case RoofKey::cpu_bw_copy_nt_1: return "cpu_bw_copy_nt_1";
    case RoofKey::cpu_bw_copy_nt_all: return "cpu_bw_copy_nt_all";
    case RoofKey::cpu_bw_triad_1: return "cpu_bw_triad_1";
    case RoofKey::cpu_bw_triad_all: return "cpu_bw_triad_all";
    case RoofKey::cpu_fma_f64_1: return "cpu_fma_f64_1";
    case RoofKey::cpu_fma_f64_all: return "cpu_fma_f64_all";
    case RoofKey::cpu_imul_1: return "cpu_imul_1";
    case RoofKey::cpu_imul_all: return "cpu_imul_all";
    case RoofKey::cpu_llc_bytes: return "cpu_llc_bytes";
    case RoofKey::gpu_bw: return "gpu_bw";
    case RoofKey::gpu_fma_f64: return "gpu_fma_f64";
    case RoofKey::gpu_fma_f32: return "gpu_fma_f32";
    case RoofKey::gpu_imul: return "gpu_imul";
    case RoofKey::gpu_sm_count: return "gpu_sm_count";
    case RoofKey::gpu_clock_hz: return "gpu_clock_hz";
    case RoofKey::gpu_bw_peak: return "gpu_bw_peak";
    case RoofKey::gpu_fma_f64_peak: return "gpu_fma_f64_peak";
    case RoofKey::gpu_fma_f32_peak: return "gpu_fma_f32_peak";
    case RoofKey::gpu_imul_peak: return "gpu_imul_peak";
  }
  return {};  // past the last key: enum_from_name's scan ends here
}

std::optional<RoofKey> roof_key_from_name(std::string_view name) noexcept { return enum_from_name<RoofKey>(name); }

RoofKey roof_key(CpuRoof roof, ThreadScope scope) noexcept {
  const bool all = scope == ThreadScope::all;
  switch (roof) {
    case CpuRoof::bw_read: return all ? RoofKey::cpu_bw_read_all : RoofKey::cpu_bw_read_1;
    case CpuRoof::bw_copy_nt: return all ? RoofKey::cpu_bw_copy_nt_all : RoofKey::cpu_bw_copy_nt_1;
    case CpuRoof::bw_triad: return all ? RoofKey::cpu_bw_triad_all : RoofKey::cpu_bw_triad_1;
    case CpuRoof::fma_f64: return all ? RoofKey::cpu_fma_f64_all : RoofKey::cpu_fma_f64_1;
    case CpuRoof::imul: return all ? RoofKey::cpu_imul_all : RoofKey::cpu_imul_1;
  }
  return RoofKey::cpu_bw_read_1;
}

std::optional<RoofKey> gpu_peak_of(RoofKey measured) noexcept {
  switch (measured) {
    case RoofKey::gpu_bw: return RoofKey::gpu_bw_peak;
    case RoofKey::gpu_fma_f64: return RoofKey::gpu_fma_f64_peak;
    case RoofKey::gpu_fma_f32: return RoofKey::gpu_fma_f32_peak;
    case RoofKey::gpu_imul: return RoofKey::gpu_imul_peak;
    default: return std::nullopt;
  }
}

std::optional<CpuRoof> cpu_bandwidth_roof(MemoryRoof memory) noexcept {
  switch (memory) {
    case MemoryRoof::none: return std::nullopt;
    case MemoryRoof::read: return CpuRoof::bw_read;
    // One stream read, one written: measured with non-temporal stores, as parlab's STREAM kernels
    // store past the last-level cache (core/stream_store.hpp).
    case MemoryRoof::copy: return CpuRoof::bw_copy_nt;
    case MemoryRoof::triad: return CpuRoof::bw_triad;
  }
  return std::nullopt;
}

}  // namespace parlab
