// Roofs by type, not by spelling (docs/ceilings.md): which roofs bound a kernel (RoofModel, a
// field of its catalogue row) and the keys the ceilings name their roofs by (RoofKey). The keys'
// strings are the ceilings' JSON and the records' `limit.roof`; they are written in to_string
// alone and read back by roof_key_from_name. Header-only types and declarations: core/stream.hpp
// includes it, and the device code includes that.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace parlab {

// The bandwidth roof of a kernel's access pattern: read-only, one stream read and one written, two
// or more read and one written.
enum class MemoryRoof { none, read, copy, triad };

// Which measured roofs bound a kernel (docs/ceilings.md, "Which roof"): the resources its work is
// held against. `memory`: the bandwidth roof of its access pattern; `flops`: the FMA roof of the
// record's precision; `imuls_per_sample`: 32x32->64-bit multiplies per sample (pi). A kernel held
// against none says why in `no_roof` (RoofModel::none): every catalogue row states one or the
// other, which tests/test_roof_model.cpp checks.
struct RoofModel {
  MemoryRoof memory = MemoryRoof::none;
  bool flops = false;
  double imuls_per_sample = 0;
  std::string_view no_roof;  // why no roof bounds the kernel; empty when one does

  static constexpr RoofModel bandwidth(MemoryRoof m) { return {m, false, 0, {}}; }
  static constexpr RoofModel fma() { return {MemoryRoof::none, true, 0, {}}; }
  static constexpr RoofModel multiplies(double per_sample) { return {MemoryRoof::none, false, per_sample, {}}; }
  // PRECONDITION: `why` is non-empty and outlives the model (a literal).
  static constexpr RoofModel none(std::string_view why) { return {MemoryRoof::none, false, 0, why}; }

  // Whether the model names a resource at all.
  constexpr bool bounded() const { return memory != MemoryRoof::none || flops || imuls_per_sample > 0; }
};

// A CPU roof's resource; with a ThreadScope it is one key (cpu_bw_triad + all = cpu_bw_triad_all).
enum class CpuRoof { bw_read, bw_copy_nt, bw_triad, fma_f64, imul };
// The threads a CPU roof was measured on: one core, or every hardware thread.
enum class ThreadScope { one, all };

inline constexpr std::array<CpuRoof, 5> kCpuRoofs = {CpuRoof::bw_read, CpuRoof::bw_copy_nt, CpuRoof::bw_triad,
                                                     CpuRoof::fma_f64, CpuRoof::imul};
inline constexpr std::array<ThreadScope, 2> kThreadScopes = {ThreadScope::all, ThreadScope::one};

// Every roof the ceilings name: the CPU's resources at both thread scopes, the CPU's last-level
// cache size, and one device's roofs (a GPU roof has no thread scope).
enum class RoofKey {
  cpu_bw_read_1, cpu_bw_read_all, cpu_bw_copy_nt_1, cpu_bw_copy_nt_all, cpu_bw_triad_1, cpu_bw_triad_all,
  cpu_fma_f64_1, cpu_fma_f64_all, cpu_imul_1, cpu_imul_all, cpu_llc_bytes,
  gpu_bw, gpu_fma_f64, gpu_fma_f32, gpu_imul, gpu_sm_count, gpu_clock_hz,
  // The GPU's theoretical peaks (method "theoretical", with their inputs): beside each measured
  // roof, what the hardware's own figures allow.
  gpu_bw_peak, gpu_fma_f64_peak, gpu_fma_f32_peak, gpu_imul_peak,
};

// Where a CPU working set of `footprint` bytes streams from, against a last-level cache of `llc`
// bytes: the one rule the bandwidth probe (which measures only at memory's working sets) and
// record_limit (which holds only memory's records against those roofs) share. Between the LLC and
// kMemoryResidentFactor times it, part of a sweep still hits the cache: a record of a 512 MiB copy
// beat a roof measured at 300 MiB on a node with a 300 MiB LLC.
inline constexpr double kMemoryResidentFactor = 4;
enum class Residency { cache, partly_cache, memory };
constexpr Residency residency(double footprint, double llc) noexcept {
  if (footprint <= llc) return Residency::cache;
  return footprint < kMemoryResidentFactor * llc ? Residency::partly_cache : Residency::memory;
}

// The GPU's keys, in the order `parlab ceilings` lists them.
inline constexpr std::array<RoofKey, 10> kGpuRoofKeys = {
    RoofKey::gpu_bw,       RoofKey::gpu_fma_f64,  RoofKey::gpu_fma_f32,      RoofKey::gpu_imul,
    RoofKey::gpu_sm_count, RoofKey::gpu_clock_hz, RoofKey::gpu_bw_peak,      RoofKey::gpu_fma_f64_peak,
    RoofKey::gpu_fma_f32_peak, RoofKey::gpu_imul_peak};

// The theoretical peak beside a measured GPU roof (gpu_bw -> gpu_bw_peak); nullopt for keys with none.
std::optional<RoofKey> gpu_peak_of(RoofKey measured) noexcept;

// The key's name in the ceilings and the records ("cpu_bw_triad_all", "gpu_bw", ...).
std::string_view to_string(RoofKey key) noexcept;
// The key named `name`; nullopt for any other string.
std::optional<RoofKey> roof_key_from_name(std::string_view name) noexcept;
// The key of a CPU resource at a thread scope.
RoofKey roof_key(CpuRoof roof, ThreadScope scope) noexcept;
// The CPU bandwidth roof of an access pattern; nullopt for MemoryRoof::none.
std::optional<CpuRoof> cpu_bandwidth_roof(MemoryRoof memory) noexcept;

}  // namespace parlab
