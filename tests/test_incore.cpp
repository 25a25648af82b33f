// The in-core bound (experiments/machine/incore.hpp): the readers of objdump's, llvm-mca's and
// cuobjdump's text on pieces of their real output, the decision on given numbers, and, where
// objdump exists, the loop of this very binary. What the bound says of a record is
// test_ceilings.cpp's (record_limit).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/ceilings_cpu.hpp"
#include "core/error.hpp"
#include "core/incore_probe.hpp"
#include "core/kernels.hpp"
#include "core/matmul_tile.hpp"
#include "core/pi_simd.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/machine/incore.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

// objdump -d --no-show-raw-insn of a function with a loop of two vpmuludq, a forward branch
// inside it, alignment padding before it, and a second loop (the tail) with one.
constexpr const char* kObjdump = R"(
build/parlab:     file format elf64-x86-64

Disassembly of section .text:

0000000000220130 <parlab_pi_pairs_avx512>:
  220130:	push   %rbp
  220131:	mov    %rsp,%rbp
  220134:	nopw   0x0(%rax,%rax,1)
  220140:	vpbroadcastq %rax,%zmm9
  220146:	vpmuludq %zmm1,%zmm9,%zmm2
  22014c:	jne    220160 <parlab_pi_pairs_avx512+0x30>
  22014e:	vpsrlq $0x20,%zmm2,%zmm3
  220154:	vpmuludq %zmm3,%zmm9,%zmm4
  220160:	add    $0x20,%rax
  220164:	cmp    %rax,%rdx
  220167:	ja     220140 <parlab_pi_pairs_avx512+0x10>
  220169:	imul   %rcx,%rdx
  22016d:	vpmuludq %ymm1,%ymm2,%ymm3
  220173:	dec    %rcx
  220176:	jne    220169 <parlab_pi_pairs_avx512+0x39>
  220178:	ret
)";

TEST(IncoreObjdump, FindsTheLoopWithTheMostOfTheMnemonic) {
  const auto loop = hottest_loop(kObjdump, "vpmuludq", "%zmm");
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->counted, 2);
  EXPECT_EQ(loop->vector_instructions, 4);  // broadcast, two multiplies, the shift
  ASSERT_EQ(loop->instructions.size(), 8u);
  EXPECT_EQ(loop->instructions.front(), "vpbroadcastq %rax,%zmm9");
  EXPECT_EQ(loop->instructions[2], "jne .Lloop");  // a branch inside: its target is the label too
  EXPECT_EQ(loop->instructions.back(), "ja .Lloop");
}

// Moves, loads, stores, broadcasts from memory and zeroing idioms name a vector register but take
// no vector ALU port: counted apart, so the ports' bound does not charge them (the bound of a loop
// that spills registers read 1.14 of itself when it did).
TEST(IncoreObjdump, MovesAreCountedApartFromTheWorkOfThePorts) {
  constexpr const char* text = R"(
0000000000220130 <f>:
  220140:	vmovdqa64 0x40(%rsp),%zmm12
  220146:	vmovdqa64 %zmm4,0xc0(%rsp)
  22014c:	vmovdqa64 %zmm2,%zmm20
  220150:	vpbroadcastq 0x8(%rsp),%zmm7
  220154:	vpbroadcastq %rdx,%zmm3
  220158:	vpxord %zmm1,%zmm1,%zmm1
  22015c:	vpxord %zmm1,%zmm2,%zmm3
  220160:	vpmuludq %zmm3,%zmm9,%zmm4
  220166:	vpternlogq $0x96,0x40(%rsp),%zmm2,%zmm3
  22016c:	jne    220140 <f+0x10>
)";
  const auto loop = hottest_loop(text, "vpmuludq", "%zmm");
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->vector_instructions, 9);
  EXPECT_EQ(loop->moves, 5);  // three vmovdqa64, the broadcast from memory, the zeroing xor
  EXPECT_EQ(loop->port_instructions(), 4);  // a GPR broadcast, an xor, the multiply, a folded load's logic
  IncoreInputs in;
  in.loop_vector_instructions = loop->port_instructions();
  in.loop_moves = loop->moves;
  in.samples_per_iteration = 8;
  in.clock_hz = 3e9;
  in.probe_vector_instructions = 48;
  in.probe_cycles_measured = 24;
  const json j = decide_incore(in);
  EXPECT_DOUBLE_EQ(j["cycles_per_iteration"].get<double>(), 2);  // 4 at 2 per cycle
  EXPECT_NE(j["binds"].get<std::string>().find("4 vector ALU instructions per trip (and 5 moves"), std::string::npos)
      << j["binds"];
}

// matmul's shape: a k loop around a column loop, the column loop's epilogue inside the k loop. The
// innermost loop is the one read (the k loop would count the column loop's multiplies once, not per
// trip), and a mnemonic ending in '*' is a prefix (vfmadd* takes vfmadd231ps).
TEST(IncoreObjdump, OnlyTheInnermostLoopIsReadAndAStarIsAPrefix) {
  constexpr const char* text = R"(
0000000000255af0 <parlab_matmul_tile>:
  255b00:	vbroadcastss (%rsi),%zmm1
  255b06:	vmulps (%rdx,%rax,1),%zmm1,%zmm0
  255b0c:	vaddps (%rcx,%rax,1),%zmm0,%zmm0
  255b12:	vmovups %zmm0,(%rcx,%rax,1)
  255b18:	add    $0x40,%rax
  255b1c:	cmp    %rax,%rdi
  255b1f:	jne    255b06 <parlab_matmul_tile+0x16>
  255b21:	vmulps (%rdx,%rax,1),%ymm1,%ymm0
  255b27:	vmulps (%rdx,%rax,1),%ymm1,%ymm2
  255b2d:	vmulss (%rdx),%xmm1,%xmm0
  255b31:	dec    %r8
  255b34:	jne    255b00 <parlab_matmul_tile+0x10>
  255b36:	vfmadd231ps %zmm1,%zmm2,%zmm3
  255b3c:	dec    %r9
  255b3f:	jne    255b36 <parlab_matmul_tile+0x46>
  255b41:	ret
)";
  const auto loop = hottest_loop(text, "vmulps", "%zmm");
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->counted, 1);  // not the k loop's 3
  EXPECT_EQ(loop->instructions.size(), 6u);
  EXPECT_EQ(loop->vector_instructions, 3);
  EXPECT_EQ(loop->moves, 1);
  const auto fused = hottest_loop(text, "vfmadd*", "%zmm");
  ASSERT_TRUE(fused.has_value());
  EXPECT_EQ(fused->counted, 1);
  EXPECT_FALSE(hottest_loop(text, "vfmadd", "%zmm").has_value());  // no '*': the whole mnemonic
}

TEST(IncoreObjdump, NoLoopOrNoMnemonicIsNone) {
  EXPECT_FALSE(hottest_loop("", "vpmuludq", "%zmm").has_value());
  EXPECT_FALSE(hottest_loop(kObjdump, "vpmullq", "%zmm").has_value());
  const std::string straight = "  400000:\tvpmuludq %zmm1,%zmm2,%zmm3\n  400006:\tret\n";
  EXPECT_FALSE(hottest_loop(straight, "vpmuludq", "%zmm").has_value());
}

// llvm-mca 19's report on a loop (-mcpu=znver5), cut to the lines the reader takes.
constexpr const char* kMca = R"(Iterations:        200
Instructions:      61400
Total Cycles:      26611
Total uOps:        61400

Dispatch Width:    6
uOps Per Cycle:    2.31
IPC:               2.31
Block RThroughput: 92.0

Resources:
[0]   - Zn4AGU0
[1]   - Zn4FP0
[2]   - Zn4FP3
[12.0] - Zn4FP45
[12.1] - Zn4FP45


Resource pressure per iteration:
[0]    [1]    [2]    [12.0] [12.1]
1.00   129.99 132.02 16.50   -

Resource pressure by instruction:
)";

TEST(IncoreMca, ReadsTheSummaryAndThePressure) {
  const auto r = parse_llvm_mca(kMca);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->iterations, 200);
  EXPECT_DOUBLE_EQ(r->total_cycles, 26611);
  EXPECT_DOUBLE_EQ(r->block_rthroughput, 92);
  EXPECT_NEAR(r->cycles_per_iteration(), 133.055, 1e-9);
  ASSERT_EQ(r->pressure.size(), 5u);
  EXPECT_EQ(r->busiest().first, "Zn4FP3");
  EXPECT_DOUBLE_EQ(r->busiest().second, 132.02);
  EXPECT_EQ(r->pressure[3].first, "Zn4FP45[12.0]");  // one name, two units: told apart
  EXPECT_DOUBLE_EQ(r->pressure[4].second, 0);        // "-" is none
}

TEST(IncoreMca, AReportWithoutItsSummaryIsNone) {
  EXPECT_FALSE(parse_llvm_mca("").has_value());
  EXPECT_FALSE(parse_llvm_mca("error: found an unsupported instruction in the input assembly sequence.\n").has_value());
}

TEST(IncoreMca, HostCpuFromVersion) {
  EXPECT_EQ(llvm_host_cpu("Debian LLVM version 19.1.7\n  Optimized build.\n  Host CPU: znver5\n"), "znver5");
  EXPECT_EQ(llvm_host_cpu("Debian LLVM version 14.0.6\n  Host CPU: (unknown)\n"), "");
  EXPECT_EQ(llvm_host_cpu("no such line"), "");
}

IncoreInputs inputs() {
  IncoreInputs in;
  in.loop_vector_instructions = 300;
  in.samples_per_iteration = 64;
  in.clock_hz = 3e9;
  in.probe_vector_instructions = 48;
  in.probe_cycles_measured = 16;  // 3 vector instructions per cycle
  return in;
}

McaReport mca(double cycles, double rthroughput, double busiest) {
  McaReport r;
  r.iterations = 100;
  r.total_cycles = 100 * cycles;
  r.block_rthroughput = rthroughput;
  r.pressure = {{"Port0", busiest}, {"Port5", busiest / 2}};
  return r;
}

TEST(IncoreDecide, WithoutLlvmMcaTheMeasuredPortsBoundAndSaySo) {
  IncoreInputs in = inputs();
  in.mca_why_not = "no llvm-mca on PATH (apt-get install llvm-19)";
  const json j = decide_incore(in);
  EXPECT_EQ(j["model"], "measured ports");
  EXPECT_NE(j["model_why"].get<std::string>().find("no llvm-mca on PATH"), std::string::npos);
  EXPECT_DOUBLE_EQ(j["cycles_per_iteration"].get<double>(), 100);  // 300 at 3 per cycle
  EXPECT_DOUBLE_EQ(j["value"].get<double>(), 3e9 * 64 / 100);
  EXPECT_FALSE(j.contains("llvm_mca"));
  in.peak_clock_hz = 3.3e9;  // a core seen faster than the probe's: the bound takes its clock
  EXPECT_DOUBLE_EQ(decide_incore(in)["value"].get<double>(), 3.3e9 * 64 / 100);
}

TEST(IncoreDecide, AModelThatPredictsTheProbeIsUsedAndNamesTheBindingPort) {
  IncoreInputs in = inputs();
  in.mca_name = "llvm-mca-19 -mcpu=test";
  in.mca_probe = mca(16.5, 16, 16);      // within 10% of the measured 16
  in.mca_loop = mca(110, 105, 108);      // port 0 busy 108 of 110 cycles
  const json j = decide_incore(in);
  EXPECT_EQ(j["model"], "llvm-mca");
  EXPECT_TRUE(j["llvm_mca"]["agrees"].get<bool>());
  EXPECT_DOUBLE_EQ(j["cycles_per_iteration"].get<double>(), 110);
  EXPECT_EQ(j["binds"].get<std::string>().rfind("ports: Port0", 0), 0u) << j["binds"];
  in.mca_loop = mca(150, 105, 108);  // no port near busy: the chains bind
  EXPECT_EQ(decide_incore(in)["binds"].get<std::string>().rfind("dependency chains", 0), 0u);
}

TEST(IncoreDecide, AModelThatMissesTheProbeIsNotTrusted) {
  IncoreInputs in = inputs();
  in.mca_name = "llvm-mca-19 -mcpu=test";
  in.mca_probe = mca(23, 23, 23);  // 44% off the measured 16: its ports are not this CPU's
  in.mca_loop = mca(133, 92, 132);
  const json j = decide_incore(in);
  EXPECT_EQ(j["model"], "measured ports");
  EXPECT_FALSE(j["llvm_mca"]["agrees"].get<bool>());
  EXPECT_DOUBLE_EQ(j["cycles_per_iteration"].get<double>(), 100);
  EXPECT_NE(j["model_why"].get<std::string>().find("does not hold here"), std::string::npos);
}

TEST(IncoreDecide, MissingFiguresAreUnavailable) {
  IncoreInputs in = inputs();
  in.clock_hz = 0;
  EXPECT_TRUE(decide_incore(in).contains("unavailable"));
}

// cuobjdump -sass: the kernel's outer loop holds the hot inner one; another kernel comes after.
constexpr const char* kSass = R"sass(
	code for sm_90
		Function : _ZN6parlab4cuda12_GLOBAL__N_114pi_hits_kernelILj4ELi8EEEvNS_9pi_device15PhiloxRoundKeysEmmbPy
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                       /* 0x00000a00ff017b82 */
                                                                                /* 0x000fe40000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                           /* 0x0000000000007919 */
        /*0020*/                   IMAD.WIDE.U32 R2, R0, 0x4, RZ ;              /* 0x0000000400027825 */
        /*0030*/                   IMAD.WIDE.U32 R4, R2, -0x2d4f6d6b, RZ ;      /* 0x0000000000047825 */
        /*0040*/                   LOP3.LUT R6, R5, R3, R7, 0x96, !PT ;         /* 0x0000000000067212 */
        /*0050*/                   IMAD.WIDE.U32 R8, R6, -0x2d4f6d6b, RZ ;      /* 0x0000000000087825 */
        /*0060*/                   IADD3 R10, R10, -0x1, RZ ;                   /* 0x000000000a0a7810 */
        /*0070*/                   NOP ;                                        /* 0x0000000000007918 */
        /*0080*/                   ISETP.NE.AND P0, PT, R10, RZ, PT ;           /* 0x0000000000007c0c */
        /*0090*/               @P0 BRA 0x30 ;                                   /* 0xfffffffc00000947 */
        /*00a0*/                   IMAD.MOV.U32 R12, RZ, RZ, R4 ;              /* 0x0000000000007824 */
        /*00b0*/                   ISETP.NE.AND P1, PT, R12, RZ, PT ;           /* 0x0000000000007c0c */
        /*00c0*/              @!P1 BRA 0x20 ;                                   /* 0xfffffffc00000947 */
        /*00d0*/                   EXIT ;                                       /* 0x000000000000794d */
        /*00e0*/                   BRA 0xe0;                                    /* 0xfffffff000007947 */
		..........

		Function : _ZN6parlab12_GLOBAL__N_19imul_peakEmPj
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   IMAD.WIDE.U32 R2, R0, 0x4, RZ ;              /* 0x0000000400027825 */
        /*0010*/                   LOP3.LUT R6, R3, R2, RZ, 0x3c, !PT ;         /* 0x0000000000067212 */
        /*0020*/                   IADD3 R10, R10, -0x1, RZ ;                   /* 0x000000000a0a7810 */
        /*0030*/               @P0 BRA 0x0 ;                                    /* 0xfffffffc00000947 */
        /*0040*/                   EXIT ;                                       /* 0x000000000000794d */
)sass";

TEST(IncoreSass, FindsTheInnermostHotLoopOfTheNamedKernel) {
  const auto loop = sass_hot_loop(kSass, "pi_hits_kernelILj4ELi8EE");
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->function.find("_ZN6parlab4cuda"), 0u);
  EXPECT_EQ(loop->instructions, 6);  // 0x30..0x90 without the NOP
  EXPECT_EQ(loop->imad_wide, 2);
  EXPECT_EQ(loop->imad_other, 0);
  EXPECT_EQ(loop->alu, 3);  // LOP3, IADD3, ISETP
  const auto probe = sass_hot_loop(kSass, "9imul_peakEmPj");
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(probe->instructions, 4);
  EXPECT_EQ(probe->imad_wide, 1);
  EXPECT_FALSE(sass_hot_loop(kSass, "no_such_kernel").has_value());
}

json gpu_roofs() {
  return {{"gpu_sm_count", {{"value", 132}}},
          {"gpu_clock_hz", {{"value", 1.98e9}}},
          {"gpu_imul_peak", {{"value", 8.36e12}, {"inputs", {{"per_sm_per_clock", 32}}}}}};
}

TEST(IncoreSass, GpuBoundsAreEachResourceAloneAndTheSmallestBinds) {
  SassLoop loop;
  loop.function = "k";
  loop.instructions = 182;
  loop.imad_wide = 89;
  loop.alu = 82;
  const json j = decide_gpu_incore(loop, 4, std::nullopt, gpu_roofs());
  const double per_clock = 132 * 1.98e9;
  EXPECT_NEAR(j["bounds"]["issue slots"]["value"].get<double>(), per_clock * 128 * 8 / 182, 1);
  EXPECT_NEAR(j["bounds"]["FMA pipe (IMAD)"]["value"].get<double>(), per_clock * 64 * 8 / 178, 1);
  EXPECT_NEAR(j["bounds"]["ALU pipe"]["value"].get<double>(), per_clock * 64 * 8 / 82, 1);
  EXPECT_NEAR(j["value"].get<double>(), per_clock * 64 * 8 / 178, 1);
  EXPECT_EQ(j["binds"].get<std::string>().rfind("FMA pipe", 0), 0u);
  EXPECT_DOUBLE_EQ(j["loop"]["imuls_per_sample"].get<double>(), 89.0 / 8);
  EXPECT_FALSE(j.contains("imul_probe_bounds"));
}

TEST(IncoreSass, AProbeWithMoreInstructionsPerMultiplyDoesNotBoundPi) {
  SassLoop pi{"k", 182, 89, 0, 82}, probe{"p", 71, 32, 0, 32};
  EXPECT_FALSE(decide_gpu_incore(pi, 4, probe, gpu_roofs())["imul_probe_bounds"].get<bool>());
  probe.instructions = 64;  // 2.0 per multiply, below pi's 2.04
  EXPECT_TRUE(decide_gpu_incore(pi, 4, probe, gpu_roofs())["imul_probe_bounds"].get<bool>());
  EXPECT_TRUE(decide_gpu_incore(pi, 4, probe, json::object()).contains("unavailable"));
}

TEST(IncoreDecideMatmul, TheProbeOfTheLoopIsTheBoundAndAnAgreeingModelNamesWhatBinds) {
  MatmulIncoreInputs in;
  in.flops_per_trip = 512;
  in.clock_hz = 3e9;
  in.l1_flops_per_s = 150e9;  // 10.24 cycles per trip
  in.tile_flops_per_s = 120e9;
  in.mca_why_not = "no llvm-mca on PATH (apt-get install llvm-19)";
  json j = decide_matmul_incore(in);
  EXPECT_EQ(j["model"], "measured");
  EXPECT_EQ(j["unit"], "flops/s");
  EXPECT_DOUBLE_EQ(j["value"].get<double>(), 150e9);
  EXPECT_DOUBLE_EQ(j["loop_cycles_per_iteration"].get<double>(), 10.24);
  EXPECT_DOUBLE_EQ(j["tile"]["share"].get<double>(), 0.8);
  EXPECT_EQ(j["binds"].get<std::string>().rfind("the loop's instructions, measured: 10.24 cycles per trip", 0), 0u) << j["binds"];
  {  // A disturbed L1 probe (100e9) whose scan's rate (150e9) was taken: the tile, measured beside
     // the same neighbour, is held against the probe's own rate, the bound against the scan's.
    MatmulIncoreInputs d = in;
    d.l1_probe_flops_per_s = 100e9;
    d.tile_flops_per_s = 90e9;
    const json k = decide_matmul_incore(d);
    EXPECT_DOUBLE_EQ(k["value"].get<double>(), 150e9);
    EXPECT_DOUBLE_EQ(k["tile"]["share"].get<double>(), 0.9);
  }
  EXPECT_NE(j["model_why"].get<std::string>().find("no llvm-mca on PATH"), std::string::npos);
  in.peak_clock_hz = 3.3e9;  // a core seen faster than the probe's: the bound takes its clock
  EXPECT_DOUBLE_EQ(decide_matmul_incore(in)["value"].get<double>(), 165e9);
  in.peak_clock_hz = 0;
  in.mca_name = "llvm-mca-19 -mcpu=test";
  in.mca_loop = mca(10.5, 10, 10);  // within 10% of 10.24, port 0 busy: ports bind
  j = decide_matmul_incore(in);
  EXPECT_TRUE(j["llvm_mca"]["agrees"].get<bool>());
  EXPECT_EQ(j["binds"].get<std::string>().rfind("ports: Port0", 0), 0u) << j["binds"];
  EXPECT_DOUBLE_EQ(j["value"].get<double>(), 150e9);  // the measured loop stays the bound
  in.mca_loop = mca(10.5, 10, 6);  // no port near busy: the chains
  EXPECT_EQ(decide_matmul_incore(in)["binds"].get<std::string>().rfind("dependency chains", 0), 0u);
  in.mca_loop = mca(19, 19, 19);  // 86% off: its model is not this CPU's
  j = decide_matmul_incore(in);
  EXPECT_FALSE(j["llvm_mca"]["agrees"].get<bool>());
  EXPECT_EQ(j["binds"].get<std::string>().rfind("the loop's instructions, measured", 0), 0u) << j["binds"];
  EXPECT_NE(j["model_why"].get<std::string>().find("does not hold here"), std::string::npos);
  in.l1_flops_per_s = 0;
  EXPECT_TRUE(decide_matmul_incore(in).contains("unavailable"));
}

// This binary's matmul loop, read as `parlab ceilings` reads it: found in its symbol, with a
// multiply (fused or not) of at least 4 lanes, and its probes run and count their work.
TEST(IncoreBinary, ThisBinarysMatmulLoopIsFoundAndItsProbesRun) {
  SpawnOptions o;
  o.timeout_s = 60;
  const ChildOutput d = run_child({"objdump", "-d", "--no-show-raw-insn", "--disassemble=" + std::string(kMatmulTileSymbol),
                                   self_executable()}, o);
  ASSERT_EQ(d.exit_code, 0) << "objdump is needed (binutils): " << d.describe_end();
  int found = 0;
  for (const char* p : {"vfmadd*", "vmulps", "mulps"}) {
    if (const auto loop = hottest_loop(d.out, p, "%xmm")) found += loop->counted;
  }
  EXPECT_GT(found, 0) << "no loop with a float multiply in " << kMatmulTileSymbol << ":\n" << d.out.substr(0, 2000);
  const MatmulProbe l1 = measure_matmul_tile(MatmulShape::l1, 1);
  EXPECT_DOUBLE_EQ(l1.flops_per_call, 2.0 * kMatmulRowBlock * kMatmulKBlock * kTile2D);
  EXPECT_GT(l1.seconds_per_call, 0.0);
  EXPECT_EQ(l1.samples.size(), 1u);
  const MatmulProbe tile = measure_matmul_tile(MatmulShape::tile, 1);
  EXPECT_DOUBLE_EQ(tile.flops_per_call, 2.0 * kTile2D * kMatmulKBlock * kTile2D);
  EXPECT_NE(tile.how.find("from L2"), std::string::npos) << tile.how;
}

// This binary's own pi loop, read as `parlab ceilings` reads parlab's: found, and issuing no more
// multiplies than the algorithm needs (the compiler can only drop some).
TEST(IncoreBinary, ThisBinarysPiLoopIsFoundAndCounted) {
  const auto loop = pi_loop(pi_active_isa());
  if (!loop) GTEST_SKIP() << "NOT RUN: pi runs its scalar path on this CPU; no SIMD loop to read";
  SpawnOptions o;
  o.timeout_s = 60;
  const ChildOutput d = run_child({"objdump", "-d", "--no-show-raw-insn", "--disassemble=" + std::string(loop->symbol),
                                   self_executable()}, o);
  ASSERT_EQ(d.exit_code, 0) << "objdump is needed (binutils): " << d.describe_end();
  const auto found = hottest_loop(d.out, "vpmuludq", pi_active_isa() == PiIsa::avx512 ? "%zmm" : "%ymm");
  ASSERT_TRUE(found.has_value()) << "no loop with vpmuludq in " << loop->symbol;
  const double per_sample = found->counted * loop->lanes / (2.0 * loop->pairs_per_iteration);
  EXPECT_GT(per_sample, 10.0);
  EXPECT_LE(per_sample, 12.0);  // the algorithm's count: 24 per pair
}

// The mix probe's symbol holds its loop (not a jump to an out-of-line copy, which the in-core
// bound would report as "no loop in the mix probe"), and the chains probe runs beside it.
TEST(IncoreBinary, TheMixProbesLoopIsInItsSymbolAndTheChainsProbeRuns) {
  const PiIsa isa = pi_active_isa();
  const auto one = measure_round_mix(isa, 1);
  if (!one) GTEST_SKIP() << "NOT RUN: no mix probe for pi's " << to_string(isa) << " path on this CPU";
  SpawnOptions o;
  o.timeout_s = 60;
  const ChildOutput d = run_child({"objdump", "-d", "--no-show-raw-insn", "--disassemble=" + std::string(one->symbol),
                                   self_executable()}, o);
  ASSERT_EQ(d.exit_code, 0) << "objdump is needed (binutils): " << d.describe_end();
  const auto found = hottest_loop(d.out, "vpmuludq", isa == PiIsa::avx512 ? "%zmm" : "%ymm");
  ASSERT_TRUE(found.has_value()) << "no loop with vpmuludq in " << one->symbol << ":\n" << d.out.substr(0, 2000);
  EXPECT_GE(found->vector_instructions, one->instructions_per_iteration);
  const auto loop = pi_loop(isa);
  ASSERT_TRUE(loop.has_value());
  const auto chains = measure_round_mix(isa, 1, loop->chains);
  ASSERT_TRUE(chains.has_value());
  EXPECT_GT(chains->seconds_per_iteration, 0.0);
  EXPECT_TRUE(chains->symbol.empty());
  EXPECT_FALSE(measure_round_mix(isa, 1, 5).has_value());  // no body with 5 chains
}

// The mix probe on every allowed CPU at once: one rate per CPU, each a positive number of the
// order the probe reaches alone (its threads meet, run together and all stop; TSan checks the
// hand-over in its build).
TEST(IncoreProbe, TheMixProbeRunsOnEveryCpuAtOnce) {
  const PiIsa isa = pi_active_isa();
  const auto one = measure_round_mix(isa, 1);
  if (!one) GTEST_SKIP() << "NOT RUN: no mix probe for pi's " << to_string(isa) << " path on this CPU";
  std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) GTEST_SKIP() << "NOT RUN: the OS names no allowed CPU";
  if (cpus.size() > 4) cpus.resize(4);
  cpus.push_back(cpus.front());  // a CPU twice: its two threads share it, and both still finish
  const auto all = measure_round_mix_all(isa, cpus, 2);
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), cpus.size());
  const double alone = one->instructions_per_iteration / one->seconds_per_iteration;
  for (const double r : *all) {
    EXPECT_GT(r, 0.0);
    EXPECT_LT(r, 4 * alone);  // no CPU does four times what one did alone
  }
  EXPECT_THROW(measure_round_mix_all(isa, {-1}, 1), UsageError);  // no such CPU: refused, nothing hangs
}

// The matmul probe on every allowed CPU at once (each thread its own buffers), as the mix probe:
// one rate per CPU, each of the order one CPU reaches alone; a CPU that cannot be pinned is refused.
TEST(IncoreProbe, TheMatmulProbeRunsOnEveryCpuAtOnce) {
  std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) GTEST_SKIP() << "NOT RUN: the OS names no allowed CPU";
  if (cpus.size() > 4) cpus.resize(4);
  cpus.push_back(cpus.front());
  const MatmulProbe one = measure_matmul_tile(MatmulShape::l1, 1);
  const auto all = measure_matmul_tile_all(MatmulShape::l1, cpus, 2);
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), cpus.size());
  for (const double r : *all) {
    EXPECT_GT(r, 0.0);
    EXPECT_LT(r, 4 * one.flops_per_call / one.seconds_per_call);
  }
  EXPECT_FALSE(measure_matmul_tile_all(MatmulShape::tile, {}, 1).has_value());
  EXPECT_THROW(measure_matmul_tile_all(MatmulShape::l1, {-1}, 1), UsageError);
}

// A probe that reads below 0.9 of the same probe's rate on the same CPU in the scan was disturbed;
// the bound takes the higher of the two, and says which.
TEST(IncoreProbeRate, TheBoundTakesTheHigherOfTheProbeAndTheScan) {
  EXPECT_FALSE(probe_disturbed(1.0, 0.0));  // no scan
  EXPECT_FALSE(probe_disturbed(0.95, 1.0));
  EXPECT_TRUE(probe_disturbed(0.6, 1.0));
  const ProbeRate none = bound_probe_rate(5.0, 0.0, 1);
  EXPECT_DOUBLE_EQ(none.rate, 5.0);
  EXPECT_TRUE(none.note.is_null());
  const ProbeRate kept = bound_probe_rate(1.02e9, 1.0e9, 1);
  EXPECT_DOUBLE_EQ(kept.rate, 1.02e9);
  EXPECT_EQ(kept.note["taken"], "probe");
  EXPECT_EQ(kept.note["how"].get<std::string>().find("disturbed"), std::string::npos);
  const ProbeRate low = bound_probe_rate(0.64e9, 1.0e9, 3);
  EXPECT_DOUBLE_EQ(low.rate, 1.0e9);
  EXPECT_EQ(low.note["taken"], "scan");
  EXPECT_EQ(low.note["attempts"], 3);
  EXPECT_NE(low.note["how"].get<std::string>().find("the probe read 0.64 of the scan's rate after 3 attempt(s)"),
            std::string::npos)
      << low.note;
}

}  // namespace
}  // namespace parlab
