// Roofs and kinds by type: every catalogue kernel states its roofs (or none, and why) in its row,
// and the enums' names are the strings records and ceilings have always carried.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/roof.hpp"
#include "core/stream.hpp"
#include "core/workload.hpp"

namespace parlab {
namespace {

const KernelSpec& spec(std::string_view name) {
  const KernelSpec* k = find_kernel(name);
  if (k == nullptr) throw std::runtime_error("kernel " + std::string(name) + " not in the catalogue");
  return *k;
}

// A kernel added without its roof is a test failure, never a silent "no roof" in every record.
TEST(KernelRoofModel, EveryCatalogueKernelHasARoofOrSaysWhyNot) {
  for (const KernelSpec& k : kernel_specs()) {
    if (k.roof.bounded()) {
      EXPECT_TRUE(k.roof.no_roof.empty()) << k.name << ": a roof and a reason for none";
    } else {
      EXPECT_FALSE(k.roof.no_roof.empty()) << k.name << ": no roof, and no reason given";
    }
  }
}

TEST(KernelRoofModel, StreamAndBasicArrayKernelsHaveAMemoryRoof) {
  for (const KernelSpec& k : kernel_specs()) {
    if (k.family == KernelFamily::stream) {
      EXPECT_NE(k.roof.memory, MemoryRoof::none) << k.name;
    }
  }
  // Every row of kStreamKernels carries its own: a STREAM kernel added there has it with no other file.
  for (const StreamKernelInfo& row : kStreamKernels) EXPECT_EQ(spec(row.name).roof.memory, row.roof) << row.name;
  EXPECT_EQ(spec("copy").roof.memory, MemoryRoof::copy);
  EXPECT_EQ(spec("dot").roof.memory, MemoryRoof::read);
  EXPECT_EQ(spec("triad").roof.memory, MemoryRoof::triad);
  EXPECT_EQ(spec("plus_one").roof.memory, MemoryRoof::copy);
  EXPECT_EQ(spec("add2d").roof.memory, MemoryRoof::triad);
}

TEST(KernelRoofModel, PiHasItsMultipliesAndMatmulItsFlops) {
  // Philox4x32-10: 10 multiplies per point, and 2 squares in the hit test.
  EXPECT_EQ(spec("pi").roof.imuls_per_sample, 12);
  EXPECT_EQ(spec("pi").roof.memory, MemoryRoof::none);
  EXPECT_TRUE(spec("matmul").roof.flops);
  EXPECT_EQ(spec("matmul").roof.memory, MemoryRoof::none);
}

TEST(KernelRoofModel, LabKernelsSayWhyTheyHaveNone) {
  for (const KernelSpec& k : kernel_specs()) {
    const bool probe = k.family == KernelFamily::race || k.family == KernelFamily::overhead || k.family == KernelFamily::comm;
    if (probe) {
      EXPECT_FALSE(k.roof.bounded()) << k.name;
    }
  }
  EXPECT_EQ(spec("count_racy").roof.no_roof, "a lab kernel: its rate is not the point");
}

// The strings are the ceilings' JSON (docs/ceilings.md): the enum must not move them.
TEST(CeilingRoofKeys, NamesAreTheCeilingsStringsAndReadBack) {
  EXPECT_EQ(to_string(roof_key(CpuRoof::bw_triad, ThreadScope::one)), "cpu_bw_triad_1");
  EXPECT_EQ(to_string(roof_key(CpuRoof::bw_copy_nt, ThreadScope::all)), "cpu_bw_copy_nt_all");
  EXPECT_EQ(to_string(roof_key(CpuRoof::bw_read, ThreadScope::all)), "cpu_bw_read_all");
  EXPECT_EQ(to_string(roof_key(CpuRoof::fma_f64, ThreadScope::one)), "cpu_fma_f64_1");
  EXPECT_EQ(to_string(roof_key(CpuRoof::imul, ThreadScope::all)), "cpu_imul_all");
  EXPECT_EQ(to_string(RoofKey::cpu_llc_bytes), "cpu_llc_bytes");
  EXPECT_EQ(to_string(RoofKey::gpu_imul), "gpu_imul");
  EXPECT_EQ(to_string(RoofKey::gpu_bw), "gpu_bw");
  // Every CPU resource x scope a distinct key, and every key read back from its name.
  std::set<std::string_view> names;
  for (const CpuRoof r : kCpuRoofs) {
    for (const ThreadScope s : kThreadScopes) {
      const RoofKey k = roof_key(r, s);
      EXPECT_TRUE(names.insert(to_string(k)).second) << to_string(k);
      EXPECT_EQ(roof_key_from_name(to_string(k)), k);
    }
  }
  for (const RoofKey k : kGpuRoofKeys) EXPECT_EQ(roof_key_from_name(to_string(k)), k);
  EXPECT_EQ(roof_key_from_name("cpu_llc_bytes"), RoofKey::cpu_llc_bytes);
  EXPECT_EQ(roof_key_from_name("cpu_bw_triad"), std::nullopt);
  EXPECT_EQ(roof_key_from_name(""), std::nullopt);
  EXPECT_EQ(cpu_bandwidth_roof(MemoryRoof::none), std::nullopt);
  EXPECT_EQ(cpu_bandwidth_roof(MemoryRoof::copy), CpuRoof::bw_copy_nt);
}

TEST(RegistryKinds, NamesAreTheRecordsStringsAndReadBack) {
  for (const char* n : {"cpu", "gpu", "python", "peer", "mpi"}) {
    const auto k = backend_kind_from_name(n);
    ASSERT_TRUE(k.has_value()) << n;
    EXPECT_STREQ(to_string(*k), n);
  }
  EXPECT_EQ(backend_kind_from_name("all"), std::nullopt);
  EXPECT_EQ(backend_kind_from_name("pool"), std::nullopt);
  EXPECT_EQ(processor_from_name("gpu"), Processor::gpu);
  EXPECT_EQ(processor_from_name("cpu"), Processor::cpu);
  EXPECT_EQ(processor_from_name("cuda"), std::nullopt);
  EXPECT_FALSE(runs_in_this_process(BackendKind::peer));
  EXPECT_FALSE(runs_in_this_process(BackendKind::mpi));
  EXPECT_TRUE(runs_in_this_process(BackendKind::python));
}

}  // namespace
}  // namespace parlab

namespace parlab {
namespace {

// One rule for where a CPU working set streams from, shared by the bandwidth probe and
// record_limit: at the LLC and below, the cache; below kMemoryResidentFactor times it, partly the
// cache; from there on, memory.
TEST(Residency, TheCacheThePartlyCachedBandAndMemory) {
  const double llc = 300.0 * (1 << 20);
  EXPECT_EQ(residency(1, llc), Residency::cache);
  EXPECT_EQ(residency(llc, llc), Residency::cache);
  EXPECT_EQ(residency(llc + 1, llc), Residency::partly_cache);
  EXPECT_EQ(residency(512.0 * (1 << 20), llc), Residency::partly_cache);  // the copy that beat the old roof
  EXPECT_EQ(residency(kMemoryResidentFactor * llc - 1, llc), Residency::partly_cache);
  EXPECT_EQ(residency(kMemoryResidentFactor * llc, llc), Residency::memory);
}

TEST(GpuPeaks, EachMeasuredGpuRoofHasItsTheoreticalPeak) {
  EXPECT_EQ(gpu_peak_of(RoofKey::gpu_bw), RoofKey::gpu_bw_peak);
  EXPECT_EQ(gpu_peak_of(RoofKey::gpu_fma_f64), RoofKey::gpu_fma_f64_peak);
  EXPECT_EQ(gpu_peak_of(RoofKey::gpu_fma_f32), RoofKey::gpu_fma_f32_peak);
  EXPECT_EQ(gpu_peak_of(RoofKey::gpu_imul), RoofKey::gpu_imul_peak);
  EXPECT_EQ(gpu_peak_of(RoofKey::gpu_sm_count), std::nullopt);
  EXPECT_EQ(gpu_peak_of(RoofKey::cpu_bw_read_1), std::nullopt);
}

}  // namespace
}  // namespace parlab
