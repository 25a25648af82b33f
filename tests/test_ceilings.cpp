// The roof choice (experiments/machine/limit.cpp) on synthetic records and ceilings, the ceilings cache,
// and the CPU probes' plumbing (not their speed: speed is shown by measurement, not by tests).
// The energy meters' tests are test_energy.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ceilings_cpu.hpp"
#include "core/error.hpp"
#include "experiments/machine/ceilings.hpp"
#include "experiments/machine/limit.hpp"
#include "record_fields.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

json roof(double value, const char* unit, int threads, const char* device = "cpu", const char* method = "measured") {
  return {{"value", value}, {"unit", unit},         {"method", method}, {"how", "synthetic"},
          {"threads", threads}, {"device", device}, {"measured_utc", "2026-01-01T00:00:00Z"}};
}

// A 4-core machine: 40 GB/s triad at 4 threads, 15 GB/s on one; 10 Gmul/s per core, 40 at 4.
json ceilings() {
  json c = {{"measured_utc", "2026-01-01T00:00:00Z"}, {"cache", nullptr}, {"roofs", json::object()},
            {"unavailable", {{"gpu_bw", "no CUDA device"}, {"gpu_imul", "no CUDA device"}}}};
  c["roofs"]["cpu_bw_triad_all"] = roof(40e9, "bytes/s", 4);
  c["roofs"]["cpu_bw_triad_1"] = roof(15e9, "bytes/s", 1);
  c["roofs"]["cpu_bw_read_all"] = roof(50e9, "bytes/s", 4);
  c["roofs"]["cpu_bw_read_1"] = roof(20e9, "bytes/s", 1);
  c["roofs"]["cpu_imul_all"] = roof(40e9, "muls/s", 4);
  c["roofs"]["cpu_imul_1"] = roof(10e9, "muls/s", 1);
  c["roofs"]["cpu_fma_f64_all"] = roof(200e9, "flops/s", 4);
  c["roofs"]["cpu_fma_f64_1"] = roof(50e9, "flops/s", 1);
  return c;
}

json ok_record(const std::string& kernel, int threads, const std::string& precision, double seconds,
               const std::string& kind = "cpu", const std::string& backend = "pool") {
  const std::uint64_t n = 1 << 20;
  const WorkCount w = kernel_work(kernel, *precision_from_name(precision), n);
  json rate = json::object();
  if (w.samples > 0) rate["samples_per_s"] = w.samples / seconds;
  if (w.bytes > 0) rate["bytes_per_s"] = w.bytes / seconds;
  if (w.flops > 0) rate["flops_per_s"] = w.flops / seconds;
  return {{"kernel", kernel}, {"backend", backend}, {"kind", kind},       {"threads", threads},
          {"size", n},        {"precision", precision}, {"status", "ok"}, {"rate", rate},
          {"work", {{"samples", w.samples}, {"bytes", w.bytes}, {"flops", w.flops}}}};
}

TEST(RecordLimit, TriadIsHeldAgainstTheTriadBandwidthRoof) {
  const json r = ok_record("triad", 4, "double", 1e-3);
  const json l = test::limit_of(r, ceilings());
  ASSERT_TRUE(l["roof"].is_string()) << l.dump();
  EXPECT_EQ(l["roof"], "cpu_bw_triad_all");
  EXPECT_EQ(l["unit"], "bytes/s");
  EXPECT_DOUBLE_EQ(l["value"].get<double>(), 40e9);
  EXPECT_DOUBLE_EQ(l["attained"].get<double>(), r["rate"]["bytes_per_s"].get<double>());
  EXPECT_DOUBLE_EQ(l["fraction"].get<double>(), r["rate"]["bytes_per_s"].get<double>() / 40e9);
}

// Arrays within the last-level cache stream from the cache, whose bandwidth no probe measures:
// "no roof", never memory's (a 24 MiB triad on a 32 MiB cache read as 4.5 of its roof). Just past
// the cache the memory roof applies again.
TEST(RecordLimit, ArraysThatFitTheLastLevelCacheHaveNoMeasuredRoof) {
  json c = ceilings();
  c["roofs"]["cpu_llc_bytes"] = roof(32.0 * (1 << 20), "bytes", 1);
  json r = ok_record("triad", 4, "double", 1e-3);
  r["work"]["footprint_bytes"] = 24.0 * (1 << 20);
  const json l = test::limit_of(r, c);
  EXPECT_TRUE(l["roof"].is_null()) << l.dump();
  EXPECT_NE(l.value("reason", "").find("fit the last-level cache"), std::string::npos) << l.dump();
  r["work"]["footprint_bytes"] = 33.0 * (1 << 20);
  EXPECT_EQ(test::limit_of(r, c)["roof"], "cpu_bw_triad_all");
  json pi = ok_record("pi", 4, "int32", 1e-3);  // no arrays: the multiply roof as before
  EXPECT_EQ(test::limit_of(pi, c)["roof"], "cpu_imul_all");
}

TEST(RecordLimit, DotIsHeldAgainstTheReadRoof) {
  const json l = test::limit_of(ok_record("dot", 1, "double", 1e-3), ceilings());
  EXPECT_EQ(l["roof"], "cpu_bw_read_1") << l.dump();
}

TEST(RecordLimit, PiIsHeldAgainstTheIntegerMultiplyRoofAt12MultipliesPerSample) {
  const json r = ok_record("pi", 1, "int32", 0.01);
  const json l = test::limit_of(r, ceilings());
  ASSERT_EQ(l["roof"], "cpu_imul_1") << l.dump();
  EXPECT_EQ(l["unit"], "muls/s");
  const double samples_per_s = r["rate"]["samples_per_s"].get<double>();
  EXPECT_DOUBLE_EQ(l["attained"].get<double>(), 12 * samples_per_s);
  EXPECT_DOUBLE_EQ(l["fraction"].get<double>(), 12 * samples_per_s / 10e9);
}

TEST(RecordLimit, AFractionAboveOneIsNotClamped) {
  const json r = ok_record("pi", 1, "int32", 1e-4);  // 1.05e10 samples/s: 12.6x the roof
  EXPECT_GT(test::limit_of(r, ceilings())["fraction"].get<double>(), 1.0);
}

TEST(RecordLimit, CpuRoofScalesWithTheThreadCount) {
  const json c = ceilings();
  // 2 threads: min(40, 2 x 15) = 30 GB/s, from the one-core roof.
  json l = test::limit_of(ok_record("triad", 2, "double", 1e-3), c);
  EXPECT_EQ(l["roof"], "cpu_bw_triad_1") << l.dump();
  EXPECT_DOUBLE_EQ(l["value"].get<double>(), 30e9);
  EXPECT_TRUE(l.contains("basis"));
  // 3 threads: min(40, 45) = 40, the all-cores roof.
  l = test::limit_of(ok_record("triad", 3, "double", 1e-3), c);
  EXPECT_EQ(l["roof"], "cpu_bw_triad_all");
  EXPECT_DOUBLE_EQ(l["value"].get<double>(), 40e9);
  // At and above the all-cores roof's thread count: the all-cores roof.
  for (int t : {4, 8}) EXPECT_DOUBLE_EQ(test::limit_of(ok_record("triad", t, "double", 1e-3), c)["value"].get<double>(), 40e9);
  // Compute scales too: 3 threads of 10 Gmul/s is below the all-cores 40.
  EXPECT_DOUBLE_EQ(test::limit_of(ok_record("pi", 3, "int32", 1e-2), c)["value"].get<double>(), 30e9);
}

TEST(RecordLimit, AKernelWithNoMeasuredRoofSaysNoRoof) {
  const json c = ceilings();
  // The race lab names no bound resource.
  json l = test::limit_of(ok_record("count_atomic", 2, "int32", 1e-3), c);
  EXPECT_TRUE(l["roof"].is_null());
  EXPECT_EQ(l["reason"].get<std::string>().rfind("no roof: ", 0), 0u) << l.dump();
  // matmul is bound by fp32 flops, and the CPU has no measured fp32 roof.
  l = test::limit_of(ok_record("matmul", 1, "float", 1.0), c);
  EXPECT_TRUE(l["roof"].is_null()) << l.dump();
  // A GPU record where the GPU roofs are unavailable: the reason says why.
  l = test::limit_of(ok_record("triad", 1, "double", 1e-3, "gpu", "cuda"), c);
  EXPECT_TRUE(l["roof"].is_null());
  EXPECT_NE(l["reason"].get<std::string>().find("no CUDA device"), std::string::npos) << l.dump();
  // A kernel outside the catalogue (a wing's study).
  json r = ok_record("triad", 1, "double", 1e-3);
  r["kernel"] = "transfer_pinned";
  EXPECT_TRUE(test::limit_of(r, c)["roof"].is_null());
}

TEST(RecordLimit, ATheoreticalRoofIsNotUsed) {
  json c = ceilings();
  c["roofs"]["cpu_bw_triad_all"]["method"] = "theoretical";
  c["roofs"]["cpu_bw_triad_all"]["inputs"] = {{"channels", 8}};
  const json l = test::limit_of(ok_record("triad", 4, "double", 1e-3), c);
  EXPECT_TRUE(l["roof"].is_null()) << l.dump();
}

TEST(RecordLimit, GpuRecordsAreHeldAgainstGpuRoofs) {
  json c = ceilings();
  c["roofs"]["gpu_bw"] = roof(3e12, "bytes/s", 1, "gpu0");
  c["roofs"]["gpu_imul"] = roof(2e13, "muls/s", 1, "gpu0");
  EXPECT_EQ(test::limit_of(ok_record("triad", 1, "double", 1e-5, "gpu", "cuda"), c)["roof"], "gpu_bw");
  EXPECT_EQ(test::limit_of(ok_record("triad", 1, "double", 1e-5, "peer", "babelstream-cuda"), c)["roof"], "gpu_bw");
  EXPECT_EQ(test::limit_of(ok_record("pi", 1, "int32", 1e-5, "gpu", "cuda"), c)["roof"], "gpu_imul");
}

// The in-core block of pi's compiled loop (experiments/machine/incore.hpp) as the ceilings hold it:
// 92 vpmuludq of 8 lanes per 64 samples (11.5 per sample), 2.8e9 samples/s per core at the
// fastest CPU's clock, 4 cores of which the second runs at half that clock.
json with_incore(json c) {
  c["incore"]["pi"] = {{"isa", "avx512"},
                       {"loop", {{"imuls_per_sample", 11.5}, {"multiply_instructions", 92}, {"lanes", 8},
                                 {"samples_per_iteration", 64}}},
                       {"value", 2.8e9}, {"unit", "samples/s"}, {"cores", 4},
                       {"clocks_hz", {3e9, 1.5e9, 1.5e9, 1.5e9}},
                       {"model", "measured ports"}, {"binds", "vector ports: test"}};
  return c;
}

json own(json r) {
  r["own_kernels"] = true;
  return r;
}

TEST(RecordLimit, PiOfParlabsOwnLoopIsHeldAgainstTheMultipliesItIssues) {
  const json r = own(ok_record("pi", 1, "int32", 0.01));
  const json l = test::limit_of(r, with_incore(ceilings()));
  const double samples_per_s = r["rate"]["samples_per_s"].get<double>();
  ASSERT_EQ(l["roof"], "cpu_imul_1") << l.dump();
  EXPECT_DOUBLE_EQ(l["attained"].get<double>(), 11.5 * samples_per_s);
  EXPECT_NE(l["counted"].get<std::string>().find("issued: 11.50 multiplies per sample"), std::string::npos) << l["counted"];
  EXPECT_NE(l["counted"].get<std::string>().find("the algorithm's 12"), std::string::npos);
  // A backend of another's code (Python, a peer) keeps the algorithm's count and has no in-core bound.
  const json other = test::limit_of(ok_record("pi", 1, "int32", 0.01), with_incore(ceilings()));
  EXPECT_DOUBLE_EQ(other["attained"].get<double>(), 12 * samples_per_s);
  EXPECT_FALSE(other.contains("counted"));
  EXPECT_FALSE(other.contains("incore"));
}

TEST(RecordLimit, PiGetsItsShareOfTheInCoreBoundOfTheCoresItUses) {
  const json c = with_incore(ceilings());
  const json one = test::limit_of(own(ok_record("pi", 1, "int32", 1.0)), c);  // 2^20 samples/s
  ASSERT_TRUE(one.contains("incore")) << one.dump();
  EXPECT_DOUBLE_EQ(one["incore"]["value"].get<double>(), 2.8e9);
  EXPECT_DOUBLE_EQ(one["incore"]["fraction"].get<double>(), (1 << 20) / 2.8e9);
  EXPECT_EQ(one["incore"]["binds"], "vector ports: test");
  // Far below the bound, and nothing in the record explains it: it says so.
  EXPECT_EQ(one["incore"]["below"].get<std::string>().rfind("no cause measured", 0), 0u) << one["incore"];
  // Two threads: the fastest core plus one at half its clock, 1.5 cores' worth.
  const json two = test::limit_of(own(ok_record("pi", 2, "int32", 1.0)), c);
  EXPECT_DOUBLE_EQ(two["incore"]["value"].get<double>(), 2.8e9 * 4.5e9 / 3e9);
  EXPECT_EQ(two["incore"]["cores"], 2);
  // More threads than cores: the cores bound it, and the record says why it falls short.
  const json eight = test::limit_of(own(ok_record("pi", 8, "int32", 1.0)), c);
  EXPECT_EQ(eight["incore"]["cores"], 4);
  EXPECT_NE(eight["incore"]["below"].get<std::string>().find("more threads than cores"), std::string::npos);
  // Near the bound: no cause asked for.
  const json near = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / 2.7e9)), c);
  EXPECT_FALSE(near["incore"].contains("below")) << near["incore"];
  EXPECT_FALSE(near["incore"].contains("above")) << near["incore"];
}

// A record above its in-core bound says so, by how much, and whether the ports probe's own spread
// (its best window over its median, 5% here) covers it.
// matmul's block (incore.hpp, decide_matmul_incore): 100 Gflop/s per core with every operand in
// L1, and one tile with B from L2 at 0.5 of it. A CPU matmul record (fp32) has no one-resource roof
// (no measured fp32 FMA roof) and is still held against the bound of the loop it ran.
json with_matmul_incore(json c) {
  c["incore"]["matmul"] = {{"loop", {{"multiply_instructions", 16}, {"lanes", 16}, {"flops_per_iteration", 512}}},
                           {"value", 100e9}, {"unit", "flops/s"}, {"cores", 4},
                           {"clocks_hz", {3e9, 3e9, 3e9, 3e9}}, {"tile", {{"share", 0.5}, {"flops_per_s", 50e9}}},
                           {"model", "measured"}, {"binds", "the loop's instructions, measured: test"}};
  return c;
}

TEST(RecordLimit, MatmulOfParlabsOwnLoopIsHeldAgainstItsInCoreBoundWithoutARoof) {
  const json c = with_matmul_incore(ceilings());
  const double flops = 2.0 * (1 << 20) * (1 << 20) * double(1 << 20);  // ok_record's n = 2^20
  const json near = test::limit_of(own(ok_record("matmul", 1, "float", flops / 90e9)), c);
  EXPECT_TRUE(near["roof"].is_null()) << near.dump();
  EXPECT_EQ(near["reason"].get<std::string>().rfind("no roof: ", 0), 0u);
  ASSERT_TRUE(near.contains("incore")) << near.dump();
  EXPECT_EQ(near["incore"]["unit"], "flops/s");
  EXPECT_NEAR(near["incore"]["fraction"].get<double>(), 0.9, 1e-9);
  EXPECT_FALSE(near["incore"].contains("below"));
  // At 0.45 of the bound, 0.9 of the tile probe: its operands from L2 are the cause named.
  const json l2 = test::limit_of(own(ok_record("matmul", 1, "float", flops / 45e9)), c);
  EXPECT_EQ(l2["incore"].value("below", "").rfind("its operands come from L2", 0), 0u) << l2["incore"];
  EXPECT_NE(l2["incore"]["below"].get<std::string>().find("reached 0.50 of the bound"), std::string::npos);
  // Far below even that: no cause measured.
  const json far = test::limit_of(own(ok_record("matmul", 1, "float", flops / 20e9)), c);
  EXPECT_EQ(far["incore"].value("below", "").rfind("no cause measured", 0), 0u) << far["incore"];
  // Two threads: two cores' worth; another's code (numpy, a peer) has no in-core bound.
  EXPECT_DOUBLE_EQ(test::limit_of(own(ok_record("matmul", 2, "float", 1.0)), c)["incore"]["value"].get<double>(), 200e9);
  EXPECT_FALSE(test::limit_of(ok_record("matmul", 1, "float", 1.0), c).contains("incore"));
  // pi's block does not apply to matmul, nor matmul's to pi.
  EXPECT_FALSE(test::limit_of(own(ok_record("matmul", 1, "float", 1.0)), with_incore(ceilings())).contains("incore"));
  EXPECT_FALSE(test::limit_of(own(ok_record("pi", 1, "int32", 0.01)), c).contains("incore"));
}

// Equal clocks, unequal CPUs: matmul's probe pinned on each CPU in turn ran at 100, 90, 50 and 40
// Gflop/s (a busy SMT sibling slows a vCPU without lowering its clock). A floating record that the
// slowest CPUs account for names them; one they do not account for names no cause.
TEST(RecordLimit, MatmulBelowTheBoundOnFloatingThreadsNamesTheSlowerCpusItsProbeFound) {
  json c = with_matmul_incore(ceilings());
  c["incore"]["matmul"]["tile"] = {{"share", 0.95}, {"flops_per_s", 95e9}};
  c["incore"]["matmul"]["probe_cpu"] = {{"cpus", 4}, {"fastest_flops_per_s", 100e9}, {"slowest_flops_per_s", 40e9},
                                        {"rates_flops_per_s", {90e9, 100e9, 40e9, 50e9}}};  // any order
  EXPECT_EQ(cache_problem(c), "");
  const double flops = 2.0 * (1 << 20) * (1 << 20) * double(1 << 20);
  const auto below = [&](int threads, double share) {
    const json l = test::limit_of(own(ok_record("matmul", threads, "float", flops / (share * threads * 100e9))), c);
    EXPECT_NEAR(l["incore"]["fraction"].get<double>(), share, 1e-9) << l["incore"];
    return l["incore"].value("below", std::string());
  };
  // One thread at 0.45: the slowest CPU ran the probe at 0.40 of the fastest.
  EXPECT_EQ(below(1, 0.45), "its threads are not pinned, and the CPUs differ: pinned in turn, the 1 slowest ran its "
                            "probe at 0.400 of the 1 fastest, and the record reads 1.12 of that");
  // Two at 0.45: the two slowest, (50 + 40) / (100 + 90) = 0.474; the record 0.95 of that.
  EXPECT_NE(below(2, 0.45).find("the 2 slowest ran its probe at 0.474 of the 2 fastest, and the record reads 0.95"),
            std::string::npos);
  // Two at 0.30: 0.63 of that, which does not account for it.
  EXPECT_EQ(below(2, 0.30).rfind("no cause measured", 0), 0u);
  // Fewer rates than the record's cores (a cache of another shape): the clocks (equal here) decide.
  json few = c;
  few["incore"]["matmul"]["probe_cpu"]["rates_flops_per_s"] = {100e9, 40e9};
  EXPECT_EQ(test::limit_of(own(ok_record("matmul", 4, "float", flops / (0.45 * 4 * 100e9))), few)["incore"]
                .value("below", "")
                .rfind("no cause measured", 0),
            0u);
  // A record on every CPU is held against the all-CPU probe, which ran on the slow ones: they are
  // not its cause a second time.
  json all = c;  // 8 CPUs' rates (4 slow), 4 allowed to the record's threads
  all["incore"]["matmul"]["probe_cpu"]["rates_flops_per_s"] = {100e9, 100e9, 100e9, 100e9, 40e9, 40e9, 40e9, 40e9};
  all["incore"]["matmul"]["all_cpus"] = {{"cpus", 4}, {"value", 4 * 100e9}, {"share", 1.0}};
  const json on_all = test::limit_of(own(ok_record("matmul", 4, "float", flops / (0.6 * 4 * 100e9))), all);
  EXPECT_EQ(on_all["incore"].value("below", "").rfind("no cause measured", 0), 0u) << on_all["incore"];
  json bad = c;
  bad["incore"]["matmul"]["probe_cpu"]["rates_flops_per_s"] = {100e9, 0};
  EXPECT_NE(cache_problem(bad).find("probe_cpu.rates_flops_per_s"), std::string::npos) << cache_problem(bad);
}

TEST(RecordLimit, PiAboveItsInCoreBoundIsNeverSilent) {
  json c = with_incore(ceilings());
  c["incore"]["pi"]["probe"]["spread"] = {{"median", 1.0}, {"max", 1.05}};
  const json within = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / (2.8e9 * 1.03))), c);
  EXPECT_NEAR(within["incore"]["fraction"].get<double>(), 1.03, 1e-9);
  EXPECT_EQ(within["incore"].value("above", "").rfind("above its in-core bound by 3.0%, within its probe's spread", 0),
            0u)
      << within["incore"];
  const json beyond = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / (2.8e9 * 1.12))), c);
  EXPECT_EQ(beyond["incore"].value("above", "").rfind("above its in-core bound by 12.0%, beyond", 0), 0u)
      << beyond["incore"];
  EXPECT_NE(beyond["incore"]["above"].get<std::string>().find("parlab ceilings --remeasure"), std::string::npos);
}

TEST(RecordLimit, PiOnEveryCpuIsHeldAgainstTheProbeRunOnAllOfThemAtOnce) {
  json c = with_incore(ceilings());
  // Alone, the 4 CPUs give 2.8e9 x (3 + 1.5 x 3) / 3 = 7e9; all busy at once, 4e9.
  c["incore"]["pi"]["all_cpus"] = {{"cpus", 4}, {"value", 4e9}, {"share", 0.4}, {"instructions_per_s", 1.0}};
  EXPECT_EQ(cache_problem(c), "");
  const json four = test::limit_of(own(ok_record("pi", 4, "int32", (1 << 20) / 3.6e9)), c);  // 3.6e9 samples/s
  ASSERT_TRUE(four.contains("incore")) << four.dump();
  EXPECT_DOUBLE_EQ(four["incore"]["value"].get<double>(), 4e9);
  EXPECT_NEAR(four["incore"]["fraction"].get<double>(), 0.9, 1e-9);
  EXPECT_NE(four["incore"]["basis"].get<std::string>().find("its probe on all 4 CPUs at once"), std::string::npos)
      << four["incore"];
  EXPECT_FALSE(four["incore"].contains("below"));
  // Fewer threads than CPUs: the clocks each reached alone (an upper bound whatever the others do).
  const json two = test::limit_of(own(ok_record("pi", 2, "int32", 1.0)), c);
  EXPECT_DOUBLE_EQ(two["incore"]["value"].get<double>(), 2.8e9 * 4.5e9 / 3e9);
  EXPECT_NE(two["incore"]["basis"].get<std::string>().find("at the clocks each reached alone"), std::string::npos);
  // An all-CPU figure above the sum of the clocks is no tighter bound: the clocks stay.
  c["incore"]["pi"]["all_cpus"]["value"] = 9e9;
  EXPECT_DOUBLE_EQ(test::limit_of(own(ok_record("pi", 4, "int32", 1.0)), c)["incore"]["value"].get<double>(), 7e9);
  json bad = c;
  bad["incore"]["pi"]["all_cpus"]["cpus"] = 0;
  EXPECT_NE(cache_problem(bad).find("'all_cpus'"), std::string::npos);
}

// Fewer threads than CPUs, equal clocks: the all-CPU probe (each CPU at 0.85 of its rate alone with
// all 4 busy) says nothing of 2 CPUs busy together, so it is never quoted for a 2-thread record;
// the chains probe, measured on one core, still is.
TEST(RecordLimit, PiBelowTheBoundQuotesNoProbeOfAnotherCpuCount) {
  json c = with_incore(ceilings());
  c["incore"]["pi"]["clocks_hz"] = {3e9, 3e9, 3e9, 3e9};
  c["incore"]["pi"]["all_cpus"] = {{"cpus", 4}, {"value", 4 * 0.85 * 2.8e9}, {"share", 0.85}, {"instructions_per_s", 1.0}};
  const auto below = [&](int threads, double share) {
    const json l = test::limit_of(own(ok_record("pi", threads, "int32", (1 << 20) / (share * threads * 2.8e9))), c);
    EXPECT_NEAR(l["incore"]["fraction"].get<double>(), share, 1e-9) << l["incore"];
    return l["incore"].value("below", std::string());
  };
  EXPECT_EQ(below(2, 0.70).rfind("no cause measured", 0), 0u) << below(2, 0.70);
  EXPECT_EQ(below(2, 0.70).find("busy together"), std::string::npos);
  // Latency (0.90) explains 0.75 of the bound at 2 threads: 0.75 / 0.90 = 0.83.
  c["incore"]["pi"]["chains"] = {{"chains", 12}, {"share", 0.90}};
  const std::string chains = below(2, 0.75);
  EXPECT_EQ(chains.rfind("latency: the loop keeps 12 dependency chains", 0), 0u) << chains;
  EXPECT_EQ(chains.find("busy together"), std::string::npos) << chains;
}

// Noise comes last, and says what the record measured of the machine: "not quiet" only where its
// own figures say so (then disturbance is named first), never from the spread alone.
TEST(RecordLimit, RepetitionsThatDisagreeAreNoiseUnlessTheRecordMeasuredOtherWork) {
  json c = with_incore(ceilings());
  c["incore"]["pi"]["clocks_hz"] = {3e9, 3e9, 3e9, 3e9};
  // One worker: no computation scaling to name before the noise.
  json r = own(ok_record("pi", 1, "int32", (1 << 20) / (0.5 * 2.8e9)));
  r["unstable"] = "CV 35% over 10%";
  EXPECT_EQ(test::limit_of(r, c)["incore"]["below"],
            "its repetitions disagree (CV 35% over 10%): noise; the record did not measure the machine's other work");
  r["workers"] = {{"accounting", "on"}, {"count", 1}, {"cpu_s", {0.1}}, {"busy_s", {0.1}},
                  {"pop", {{"load_balance", 1.0}, {"communication", 0.97}, {"parallel", 0.97}}},
                  {"disturbance", {{"runnable_share", 0.001}, {"others", 0.02}}}};
  const std::string quiet = test::limit_of(r, c)["incore"]["below"];
  EXPECT_NE(quiet.find("noise, though by its own figures the machine was quiet (other processes used 0.02 CPUs"),
            std::string::npos)
      << quiet;
  r["workers"]["disturbance"]["others"] = 1.3;
  EXPECT_EQ(test::limit_of(r, c)["incore"]["below"].get<std::string>().rfind(
                "disturbed: other processes used 1.30 CPUs' worth of time while it ran", 0),
            0u);
}

TEST(RecordLimit, PiBelowTheBoundOnFloatingThreadsNamesTheSlowerClocks) {
  json c = with_incore(ceilings());
  c["incore"]["pi"]["clocks_hz"] = {3e9, 2.7e9, 2.7e9, 2.7e9};
  // One thread at 0.75 of the fastest CPU's bound: on the slowest (0.9 of its clock) 0.83.
  const json one = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / (0.75 * 2.8e9))), c);
  ASSERT_TRUE(one["incore"].contains("below")) << one["incore"];
  EXPECT_NE(one["incore"]["below"].get<std::string>().find("not pinned, and the CPUs' clocks differ"), std::string::npos)
      << one["incore"];
  EXPECT_NE(one["incore"]["below"].get<std::string>().find("0.900 of this, and the record 0.83 of that"),
            std::string::npos)
      << one["incore"];
  // The chains probe: 8 chains reached 0.72 of the ports' rate, which covers 0.75 of the bound.
  c["incore"]["pi"]["chains"] = {{"chains", 8}, {"share", 0.72}};
  EXPECT_EQ(cache_problem(c), "");
  const json lat = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / (0.75 * 2.8e9))), c);
  EXPECT_EQ(lat["incore"]["below"].get<std::string>().rfind("latency: the loop keeps 8 dependency chains", 0), 0u)
      << lat["incore"];
  // Latency and the slower clocks together: 0.52 / (0.72 x 0.9) = 0.80.
  const json both = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / (0.52 * 2.8e9))), c);
  EXPECT_NE(both["incore"]["below"].get<std::string>().find("; and its threads are not pinned"), std::string::npos)
      << both["incore"];
  c["incore"]["pi"].erase("chains");
  json bad = c;
  bad["incore"]["pi"]["chains"] = {{"chains", 8}, {"share", 0}};
  EXPECT_NE(cache_problem(bad).find("'chains'"), std::string::npos);
  // Further below than the clocks explain: no cause measured.
  const json far = test::limit_of(own(ok_record("pi", 1, "int32", (1 << 20) / (0.5 * 2.8e9))), c);
  EXPECT_EQ(far["incore"]["below"].get<std::string>().rfind("no cause measured", 0), 0u) << far["incore"];
}

TEST(RecordLimit, GpuPiIsHeldAgainstTheTheoreticalRateWhenTheProbeDoesNotBoundIt) {
  json c = ceilings();
  c["roofs"]["gpu_imul"] = roof(7.9e12, "muls/s", 1, "gpu0");
  c["roofs"]["gpu_imul_peak"] = roof(8.36e12, "muls/s", 1, "gpu0", "theoretical");
  c["incore"]["pi_gpu"] = {{"loop", {{"imuls_per_sample", 89.0 / 8}, {"multiply_instructions", 89}, {"lanes", 1},
                                     {"samples_per_iteration", 8}}},
                           {"value", 7.5e11}, {"unit", "samples/s"}, {"cores", 1},
                           {"model", "theoretical"}, {"binds", "FMA pipe (IMAD): test"},
                           {"imul_probe_bounds", false},
                           {"imul_probe", {{"instructions_per_multiply", 2.22}, {"pi_instructions_per_multiply", 2.04}}}};
  const json r = own(ok_record("pi", 1, "int32", 1e-4, "gpu", "cuda"));
  const json l = test::limit_of(r, c);
  ASSERT_EQ(l["roof"], "gpu_imul_peak") << l.dump();
  EXPECT_NE(l["basis"].get<std::string>().find("issues 2.22 instructions per multiply, pi 2.04"), std::string::npos);
  EXPECT_DOUBLE_EQ(l["attained"].get<double>(), 89.0 / 8 * r["rate"]["samples_per_s"].get<double>());
  EXPECT_NE(l["counted"].get<std::string>().find("IMAD.WIDE"), std::string::npos);
  EXPECT_DOUBLE_EQ(l["incore"]["value"].get<double>(), 7.5e11);
  EXPECT_EQ(l["incore"]["basis"], "the whole GPU");
  // Where the probe does bound it, gpu_imul stays the roof.
  c["incore"]["pi_gpu"]["imul_probe_bounds"] = true;
  EXPECT_EQ(test::limit_of(r, c)["roof"], "gpu_imul");
}

// An in-core bound is warned about as a roof is: its probe's windows spread over 10%, or CPUs so
// unequal at its probe that floating records read far below the bound for where they ran.
TEST(Ceilings, InCoreBlocksWarnOfTheirProbesSpreadAndOfUnequalCpus) {
  json c = with_matmul_incore(with_incore(ceilings()));
  EXPECT_TRUE(incore_warnings(c["incore"]).empty());
  c["incore"]["matmul"]["probe"]["spread"] = {{"n", 7}, {"min", 80e9}, {"median", 90e9}, {"max", 95e9}};
  c["incore"]["pi"]["probe_cpu"] = {{"cpus", 16}, {"fastest_instructions_per_s", 5e9},
                                    {"slowest_instructions_per_s", 1.9e9}};
  const auto w = incore_warnings(c["incore"]);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "incore.matmul: its probe's 7 windows spread 17% of their median; the bound takes the best. "
                  "Remeasure on a quiet machine (parlab ceilings --remeasure)");
  EXPECT_EQ(w[1].rfind("incore.pi: pinned in turn, the slowest of 16 CPUs ran its probe at 0.38 of the fastest", 0), 0u)
      << w[1];
  // Within 10%, and a block without a bound (unavailable): nothing said.
  c["incore"]["matmul"]["probe"]["spread"]["min"] = 88e9;
  c["incore"]["pi"]["probe_cpu"]["slowest_instructions_per_s"] = 4.6e9;
  c["incore"]["pi_gpu"] = {{"unavailable", "no GPU"}};
  EXPECT_TRUE(incore_warnings(c["incore"]).empty());
}

TEST(CeilingsCache, AnInCoreBlockThatCannotBeTrustedIsRefused) {
  json c = with_incore(ceilings());
  EXPECT_EQ(cache_problem(c), "");
  json bad = c;
  bad["incore"]["pi"]["value"] = -1;
  EXPECT_NE(cache_problem(bad).find("value is not a rate"), std::string::npos);
  bad = c;
  bad["incore"]["pi"]["loop"]["lanes"] = "8";
  EXPECT_NE(cache_problem(bad).find("'lanes'"), std::string::npos);
  bad = c;
  bad["incore"]["pi"]["clocks_hz"] = {3e9, 0};
  EXPECT_NE(cache_problem(bad).find("clocks_hz"), std::string::npos);
  bad = c;
  bad["incore"]["pi"].erase("value");  // a loop without a bound is still read: still checked
  bad["incore"]["pi"]["loop"]["imuls_per_sample"] = nullptr;
  EXPECT_NE(cache_problem(bad).find("imuls_per_sample"), std::string::npos);
  bad = c;
  bad["incore"]["pi"]["imul_probe_bounds"] = false;  // without the probe's figures
  EXPECT_NE(cache_problem(bad).find("imul_probe"), std::string::npos);
  bad = c;
  bad["incore"] = json::array();
  EXPECT_NE(cache_problem(bad).find("'incore' is not an object"), std::string::npos);
}

// Where a record ran is its `processor` field, never its backend's name.
TEST(RecordLimit, TheProcessorFieldPicksTheRoofs) {
  json c = ceilings();
  c["roofs"]["gpu_bw"] = roof(3e12, "bytes/s", 1, "gpu0");
  c["roofs"]["gpu_imul"] = roof(2e13, "muls/s", 1, "gpu0");
  // A py-cupy-like record: kind python, no "cuda" in its name, ran on the GPU.
  json cupy = ok_record("triad", 1, "double", 1e-5, "python", "py-cupy");
  cupy["processor"] = "gpu";
  EXPECT_TRUE(record_on_gpu(test::record_from(cupy)));
  EXPECT_EQ(test::limit_of(cupy, c)["roof"], "gpu_bw");
  json torch = ok_record("pi", 1, "int32", 1e-5, "python", "py-torch");
  torch["processor"] = "gpu";
  EXPECT_EQ(test::limit_of(torch, c)["roof"], "gpu_imul");
  // The field wins over the name: a CPU record whose backend name says "cuda" is on the CPU.
  json named = ok_record("triad", 1, "double", 1e-3, "mpi", "mpi+cuda-like");
  named["processor"] = "cpu";
  EXPECT_FALSE(record_on_gpu(test::record_from(named)));
  EXPECT_EQ(test::limit_of(named, c)["roof"], "cpu_bw_triad_1");
}

// Records written before the field existed keep the old rule (kind "gpu" or "cuda" in the name).
TEST(RecordLimit, ARecordWithoutTheProcessorFieldFallsBackToTheOldRule) {
  json c = ceilings();
  c["roofs"]["gpu_bw"] = roof(3e12, "bytes/s", 1, "gpu0");
  EXPECT_TRUE(record_on_gpu(test::record_from(ok_record("triad", 1, "double", 1e-5, "gpu", "cuda"))));
  EXPECT_TRUE(record_on_gpu(test::record_from(ok_record("triad", 1, "double", 1e-5, "mpi", "mpi+cuda"))));
  EXPECT_FALSE(record_on_gpu(test::record_from(ok_record("triad", 1, "double", 1e-5, "python", "py-cupy"))));
  EXPECT_EQ(test::limit_of(ok_record("triad", 1, "double", 1e-5, "peer", "babelstream-cuda"), c)["roof"], "gpu_bw");
  EXPECT_EQ(test::limit_of(ok_record("triad", 1, "double", 1e-3, "cpu", "pool"), c)["roof"], "cpu_bw_triad_1");
}

TEST(RecordLimit, ARecordThatDidNotRunOkGetsNoLimit) {
  for (const char* status : {"failed-validation", "error", "unavailable"}) {
    json r = ok_record("triad", 2, "double", 1e-3);
    r["status"] = status;
    EXPECT_TRUE(test::limit_of(r, ceilings()).is_null()) << status;
  }
}

using test::ScopedEnv;

TEST(CeilingsCache, WritesReadsAndRemeasures) {
  const auto dir = std::filesystem::temp_directory_path() / ("parlab-ceilings-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ScopedEnv cache("PARLAB_CEILINGS_CACHE", dir.string());
  ScopedEnv quick("PARLAB_CEILINGS_QUICK", "1");
  std::ostringstream log;
  const json first = load_or_measure_ceilings(test::registry(), false, log);
  const auto file = ceilings_cache_file();
  ASSERT_TRUE(file.has_value());
  ASSERT_TRUE(std::filesystem::exists(*file));
  EXPECT_EQ(file->parent_path(), dir);
  EXPECT_EQ(first["cache"], file->string());
  EXPECT_NE(log.str().find("measuring"), std::string::npos);
  for (const char* name : {"cpu_bw_triad_all", "cpu_bw_triad_1", "cpu_fma_f64_1", "cpu_imul_all"}) {
    ASSERT_TRUE(first["roofs"].contains(name)) << name;
    EXPECT_GT(first["roofs"][name]["value"].get<double>(), 0) << name;
    EXPECT_EQ(first["roofs"][name]["method"], "measured");
  }
  // Read back: a value planted in the file comes back, and nothing is measured.
  json planted = first;
  planted["roofs"]["cpu_bw_triad_all"]["value"] = 1.0;
  std::ofstream(*file) << planted.dump();
  std::ostringstream log2;
  const json second = load_or_measure_ceilings(test::registry(), false, log2);
  EXPECT_DOUBLE_EQ(second["roofs"]["cpu_bw_triad_all"]["value"].get<double>(), 1.0);
  EXPECT_EQ(log2.str(), "");
  // --remeasure measures again and replaces the file.
  std::ostringstream log3;
  const json third = load_or_measure_ceilings(test::registry(), true, log3);
  EXPECT_GT(third["roofs"]["cpu_bw_triad_all"]["value"].get<double>(), 1.0);
  std::ifstream in(*file);
  EXPECT_GT(json::parse(in)["roofs"]["cpu_bw_triad_all"]["value"].get<double>(), 1.0);
  // A garbled cache is measured again, not trusted.
  std::ofstream(*file) << "{not json";
  std::ostringstream log4;
  EXPECT_TRUE(load_or_measure_ceilings(test::registry(), false, log4)["roofs"].contains("cpu_imul_1"));
  EXPECT_NE(log4.str().find("not valid JSON"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CeilingsProbes, ABandwidthRoofIsTheLargestOfItsCandidates) {
  // Synthetic figures: the roof is the best candidate wherever it is in the list, and `how`
  // gives every candidate's figure and names the winner.
  const ProbeResult r = best_bandwidth_candidate(
      "copy", {{"150 MiB", 150e9, {}}, {"300 MiB", 160e9, {}}, {"600 MiB", 120e9, {}}, {"1200 MiB", 110e9, {}}});
  EXPECT_EQ(r.value, 160e9);
  // The winner's measurements come with it, for the roof's spread.
  const ProbeResult with_samples =
      best_bandwidth_candidate("copy", {{"a", 2.0, {1.0, 2.0}}, {"b", 3.0, {2.5, 3.0, 2.9}}});
  EXPECT_EQ(with_samples.samples, (std::vector<double>{2.5, 3.0, 2.9}));
  EXPECT_NE(r.how.find("150 MiB 150 GB/s"), std::string::npos) << r.how;
  EXPECT_NE(r.how.find("1200 MiB 110 GB/s"), std::string::npos) << r.how;
  EXPECT_NE(r.how.find("the roof is 300 MiB's"), std::string::npos) << r.how;
  EXPECT_EQ(best_bandwidth_candidate("gpu", {{"copy", 3.05e12, {}}, {"triad", 3.08e12, {}}}).value, 3.08e12);
  EXPECT_EQ(best_bandwidth_candidate("one", {{"only", 1.0, {}}}).value, 1.0);
  // No candidate, or one that measured nothing, is an error and never a roof.
  const auto category_of = [](const std::vector<RoofCandidate>& c) {
    try {
      best_bandwidth_candidate("x", c);
    } catch (const Error& e) {
      return std::optional<ErrorCategory>(e.category());
    }
    return std::optional<ErrorCategory>();
  };
  EXPECT_EQ(category_of({}), ErrorCategory::failure);
  EXPECT_EQ(category_of({{"a", 1e9, {}}, {"b", 0.0, {}}}), ErrorCategory::failure);
  EXPECT_EQ(category_of({{"a", std::numeric_limits<double>::quiet_NaN(), {}}}), ErrorCategory::failure);
}

TEST(CeilingsProbes, CpuPinPinsTheThreadAndRestoresItsAffinity) {
  const std::vector<int> before = allowed_cpus();
  ASSERT_FALSE(before.empty()) << "sched_getaffinity names no CPU";
  {
    CpuPin pin(before.back());
    EXPECT_EQ(allowed_cpus(), std::vector<int>{before.back()});
  }
  EXPECT_EQ(allowed_cpus(), before);
  // On a thread of its own too: the guard restores that thread's mask, not the process's.
  std::thread([&] {
    {
      CpuPin pin(before.front());
      EXPECT_EQ(allowed_cpus(), std::vector<int>{before.front()});
    }
    EXPECT_EQ(allowed_cpus(), before);
  }).join();
  // A CPU outside the process's set: an error with a category, and the mask unchanged.
  try {
    CpuPin bad(-1);
    ADD_FAILURE() << "pinned to CPU -1";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::usage);
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(CeilingsProbes, BandwidthProbeMeasuresEveryWorkingSetOnPinnedThreadsAndLeavesTheCallerAsItWas) {
  const std::vector<int> before = allowed_cpus();
  const std::uint64_t small = 768 << 10, large = 3 << 20;  // in cache: plumbing, not a roof
  BandwidthProbe probe(2, large);
  EXPECT_EQ(probe.threads(), 2);
  for (const BandwidthKernel k : {BandwidthKernel::read, BandwidthKernel::copy_nt, BandwidthKernel::triad_nt}) {
    const ProbeResult r = probe.measure(k, {small, large}, 1);
    EXPECT_GT(r.value, 0);
    EXPECT_NE(r.how.find("0.75 MiB"), std::string::npos) << r.how;
    EXPECT_NE(r.how.find("3 MiB"), std::string::npos) << r.how;
    EXPECT_NE(r.how.find("pinned"), std::string::npos) << r.how;
    EXPECT_NE(r.how.find("the roof is"), std::string::npos) << r.how;
  }
  EXPECT_NE(probe.measure(BandwidthKernel::triad_nt, {large}, 1).how.find("(3 x 1 MiB)"), std::string::npos);
  EXPECT_EQ(allowed_cpus(), before);
  try {
    probe.measure(BandwidthKernel::read, {large + 4096}, 1);
    ADD_FAILURE() << "a working set past the arrays was measured";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::usage);
  }
}

TEST(CeilingsProbes, LastLevelCacheIsTheHighestLevelInSysfs) {
  const auto dir = std::filesystem::temp_directory_path() / ("parlab-llc-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const auto put = [&](int i, const char* level, const char* type, const char* size) {
    const auto d = dir / ("index" + std::to_string(i));
    std::filesystem::create_directories(d);
    std::ofstream(d / "level") << level << "\n";
    std::ofstream(d / "type") << type << "\n";
    std::ofstream(d / "size") << size << "\n";
  };
  put(0, "1", "Data", "48K");
  put(1, "1", "Instruction", "32K");
  put(2, "2", "Unified", "2048K");
  put(3, "3", "Unified", "36M");
  EXPECT_EQ(last_level_cache_sysfs(dir.string()), std::uint64_t{36} << 20);
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(last_level_cache_sysfs(dir.string()).has_value());
}
}  // namespace
}  // namespace parlab

namespace parlab {
namespace {

// A roof set measured beside other work is judged so from its own evidence, and never cached.
TEST(Ceilings, ARoofSetFromABusyMachineIsNamedByItsOwnEvidence) {
  json c = ceilings();
  EXPECT_EQ(busy_roofs(c), "");
  c["others"] = 0.3;  // under half a CPU of other work: quiet enough
  EXPECT_EQ(busy_roofs(c), "");
  c["others"] = 1.35;
  EXPECT_EQ(busy_roofs(c), "other processes used 1.35 CPUs' worth of time while the probes ran");
  c["others"] = 0.0;
  // Two CPUs that computed no more than one: the others were busy.
  c["roofs"]["cpu_imul_all"]["value"] = 9.9e9;
  EXPECT_NE(busy_roofs(c).find("cpu_imul_all (9.90 Gmul/s) no higher than cpu_imul_1 (10.0 Gmul/s)"), std::string::npos)
      << busy_roofs(c);
  c["roofs"]["cpu_imul_all"]["value"] = 40e9;
  // Bandwidth is left out: on a VM one CPU can draw what all of them do.
  c["roofs"]["cpu_bw_triad_all"]["value"] = 15e9;
  EXPECT_EQ(busy_roofs(c), "");
  // A roof whose measurements spread 125% of their median.
  c["roofs"]["cpu_bw_triad_all"]["spread"] = {{"n", 5}, {"min", 10e9}, {"median", 40e9}, {"max", 60e9}};
  EXPECT_EQ(busy_roofs(c), "cpu_bw_triad_all's measurements spread 125%");
}

}  // namespace
}  // namespace parlab
