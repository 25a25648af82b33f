// The in-core bound of a compiled loop (docs/ceilings.md, "In-core bound"): what the CPU's cores
// can do with the instructions the compiler actually emitted, beside the roofs of one resource.
// CPU pi reads about a third of cpu_imul_*: its loop issues about three vector instructions per
// multiply, and the vector ports, not the multiplier, bind it. This file finds that loop in the
// built binary (objdump), counts what it issues, asks llvm-mca how many cycles a trip takes on
// this CPU, checks llvm-mca's port model against a measured probe of the same instruction mix
// (core/incore_probe.hpp), and says which resource binds.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlab {

// The innermost loop of one function's disassembly that holds the most instructions of a mnemonic
// (or of a prefix ending in '*': vfmadd*): the
// instructions from a backward branch's target up to that branch, in AT&T syntax as objdump
// prints them, with every branch target replaced by the label ".Lloop" so that llvm-mca's
// assembler takes the text.
struct AsmLoop {
  std::vector<std::string> instructions;
  int counted = 0;              // instructions whose mnemonic is the one asked for
  int vector_instructions = 0;  // instructions that name a register of the width asked for
  // Of those, the ones no vector ALU port takes: moves (vmov*: loads, stores, and register copies,
  // which the renamer may eliminate), broadcasts from memory (a load port's), and zeroing idioms
  // (vpxor of a register with itself). Left out of the ports' count, so the bound stays an upper
  // bound whatever the core does with them.
  int moves = 0;
  int port_instructions() const { return vector_instructions - moves; }
};

// `objdump_text`: `objdump -d --no-show-raw-insn --disassemble=SYMBOL` of one function.
// `mnemonic`: what to count (vpmuludq); `vector_register`: the width's register prefix (%zmm,
// %ymm). nullopt when the text holds no backward branch, or no loop with the mnemonic.
std::optional<AsmLoop> hottest_loop(std::string_view objdump_text, std::string_view mnemonic,
                                    std::string_view vector_register);

// What llvm-mca's default report says of a block it ran `iterations` times.
struct McaReport {
  double iterations = 0;
  double total_cycles = 0;
  double block_rthroughput = 0;                            // the port-pressure bound of one trip
  std::vector<std::pair<std::string, double>> pressure;    // per resource, per iteration
  double cycles_per_iteration() const { return iterations > 0 ? total_cycles / iterations : 0; }
  // The resource under the most pressure per iteration, and that pressure.
  std::pair<std::string, double> busiest() const;
};

// Parses llvm-mca's text report (its summary and "Resource pressure per iteration"); nullopt when
// the summary lines are missing.
std::optional<McaReport> parse_llvm_mca(std::string_view text);

// "Host CPU: znver5" from `llvm-mca --version`; empty when it names none or says "(unknown)".
std::string llvm_host_cpu(std::string_view version_text);

// The figures the in-core bound is made of, measured or read elsewhere, and the decision made of
// them: kept apart from the tools so that tests can hold the decision on given numbers.
struct IncoreInputs {
  double loop_vector_instructions = 0;  // vector ALU instructions of one trip of the kernel's loop
  double loop_moves = 0;                // its vector instructions left out of that (AsmLoop::moves)
  double samples_per_iteration = 0;     // samples one trip makes
  double clock_hz = 0;                  // measured around the probe (core/incore_probe.hpp)
  double peak_clock_hz = 0;             // the fastest any core was seen at; 0: clock_hz
  double probe_vector_instructions = 0; // vector ALU instructions of one trip of the mix probe
  double probe_cycles_measured = 0;     // one trip of the mix probe, measured (seconds x clock)
  std::optional<McaReport> mca_loop;    // llvm-mca on the kernel's loop, when it ran
  std::optional<McaReport> mca_probe;   // llvm-mca on the probe's loop, when it ran
  std::string mca_why_not;              // why llvm-mca did not run, when it did not
  std::string mca_name;                 // e.g. "llvm-mca-19 -mcpu=znver5"
};

// llvm-mca's port model agrees with the probe when it predicts the probe's trip within this share
// of the measured cycles.
inline constexpr double kMcaAgreement = 0.10;

// A block's probe runs pinned on the CPU where the scan (each CPU in turn, the same probe, best of
// 3 windows: `probe_cpu`) found it fastest. A probe that then reads below kProbeAgreement of the
// scan's rate there was disturbed (another tenant woke on the CPU's SMT sibling: on the H200 node
// the mix probe once read 1.22 vector instructions per cycle where it reads 1.92, and records
// passed that bound by up to 22%): it is measured again, kProbeAttempts times at most in all, and
// the bound takes the higher of its best window and the scan's rate, both rates of the same code
// on the same CPU, so that it stays an upper bound whatever the neighbours did.
inline constexpr double kProbeAgreement = 0.90;
inline constexpr int kProbeAttempts = 3;

// What the bound takes of a probe at `probe_rate` on the CPU where the scan read `scan_rate` (0:
// no scan): the higher of the two, and `probe_vs_scan` for the block ({probe, scan, attempts,
// taken: "probe" | "scan"}, absent without a scan).
struct ProbeRate {
  double rate = 0;
  nlohmann::json note;  // null without a scan
};
ProbeRate bound_probe_rate(double probe_rate, double scan_rate, int attempts);

// True where a probe at `probe_rate` reads below kProbeAgreement of the scan's `scan_rate` (> 0).
bool probe_disturbed(double probe_rate, double scan_rate);

// The bound of one core, as the `incore.pi` block of the ceilings (docs/ceilings.md): cycles per
// trip, samples/s per core, the model used and why, and what binds.
nlohmann::json decide_incore(const IncoreInputs& in);

// The figures matmul's in-core bound is made of (docs/ceilings.md, "In-core bound"): its
// tile update's hot loop as compiled, and the two probes of that very code (core/incore_probe.hpp,
// MatmulShape), kept apart from the tools so that tests hold the decision on given numbers.
struct MatmulIncoreInputs {
  double flops_per_trip = 0;          // the hot loop's: 2 per lane of each multiply (fused or with its add)
  double clock_hz = 0;                // measured around the probes
  double peak_clock_hz = 0;           // the fastest any core was seen at; 0: clock_hz
  double l1_flops_per_s = 0;          // the probes' best windows: every operand in L1 (the bound),
  double tile_flops_per_s = 0;        // one tile with B's slab from L2 (a cause, where a record falls short)
  double l1_probe_flops_per_s = 0;    // the L1 probe's own rate where it was disturbed and the scan's was
                                      // taken (0: l1_flops_per_s): the tile's share is held against it
  std::optional<McaReport> mca_loop;  // llvm-mca on the hot loop, when it ran
  std::string mca_why_not;
  std::string mca_name;
};

// matmul's `incore.matmul` block: the bound (the kernel's code with every operand in L1, in flop/s
// per core at the fastest clock), the model (measured: the probe is the loop), what binds where
// llvm-mca's model of the loop agrees with the probe within kMcaAgreement, and `tile` (the L2
// probe's share of the bound) for record_limit's causes.
nlohmann::json decide_matmul_incore(const MatmulIncoreInputs& in);

// The hot loop of a CUDA kernel in `cuobjdump -sass` output: in the first function whose
// (mangled) name contains `function_fragment`, the innermost backward branch's body with the most
// IMAD.WIDE, its instructions counted by the pipe that issues them (an assumption per opcode
// family, docs/ceilings.md): IMAD.WIDE (the multiply pi needs), other IMADs (the same FMA pipe),
// and the integer ALU's (LOP3, IADD3, ISETP, SHF, LEA, SEL, PRMT, MOV, ...).
struct SassLoop {
  std::string function;
  int instructions = 0;  // all but NOP
  int imad_wide = 0;
  int imad_other = 0;
  int alu = 0;
};
std::optional<SassLoop> sass_hot_loop(std::string_view sass_text, std::string_view function_fragment);

// GPU pi's in-core block from its loop (`pairs_per_trip` pairs per thread and trip) and the GPU's
// roofs in the ceilings (`roofs`: gpu_sm_count, gpu_clock_hz, gpu_imul_peak's inputs): the
// theoretical bound of each resource the loop uses (issue slots, 128 per SM and clock; the FMA
// pipe; the ALU pipe), the smallest binding. Unavailable, with why, when a roof is missing.
// `probe`: the gpu_imul probe's loop, when found: it bounds pi's multiplies only if it spends no
// more instructions per multiply than pi (else issue slots cap the probe below what pi reaches),
// which `imul_probe_bounds` says.
nlohmann::json decide_gpu_incore(const SassLoop& loop, int pairs_per_trip, const std::optional<SassLoop>& probe,
                                 const nlohmann::json& roofs);

// Measures and computes the ceilings' `incore` blocks for CPU pi and matmul on this machine, each
// on one thread pinned to the CPU whose vector ports ran fastest; every step that cannot run says
// why in its block (never a silent fallback). `log` gets one line per block. Each probe times
// windows of `window_s` (core/incore_probe.hpp: kProbeWindowSeconds, or the test mode's
// kQuickProbeWindowSeconds).
nlohmann::json measure_incore(std::ostream& log, double window_s);

// GPU pi's block (`incore.pi_gpu`): `cuobjdump -sass` of this binary, read for the kernel named by
// `function_fragment`, against `roofs` (the GPU's, just measured). Says why where cuobjdump is
// missing or the kernel is not found.
nlohmann::json measure_gpu_incore(const std::string& function_fragment, int pairs_per_trip,
                                  const std::string& imul_probe_fragment, const nlohmann::json& roofs);

}  // namespace parlab
