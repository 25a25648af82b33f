// The in-core bound of CPU pi's compiled loop (incore.hpp, docs/ceilings.md "In-core bound").
#include "experiments/machine/incore.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "core/ceilings_cpu.hpp"
#include "core/error.hpp"
#include "core/incore_probe.hpp"
#include "core/kernels.hpp"
#include "core/matmul_tile.hpp"
#include "core/pi_simd.hpp"
#include "core/spread.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/io/spread_json.hpp"
#include "experiments/machine/context.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const auto end = nl == std::string_view::npos ? text.size() : nl;
    out.push_back(text.substr(start, end - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

// One instruction line of objdump's output: "  220130:\tvpaddq %zmm30,%zmm9,%zmm9".
struct AsmLine {
  std::uint64_t address = 0;
  std::string text;       // the instruction, without its address
  std::string mnemonic;
  std::optional<std::uint64_t> branch_target;  // a direct jump's target
};

std::optional<AsmLine> parse_line(std::string_view line) {
  const auto colon = line.find(":\t");
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string addr = trim(line.substr(0, colon));
  if (addr.empty() || addr.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  AsmLine a;
  a.address = std::stoull(addr, nullptr, 16);
  a.text = trim(line.substr(colon + 2));
  if (a.text.empty()) return std::nullopt;
  std::istringstream words(a.text);
  words >> a.mnemonic;
  if (a.mnemonic.size() > 1 && a.mnemonic[0] == 'j') {
    std::string target;
    words >> target;
    if (!target.empty() && target.find_first_not_of("0123456789abcdef") == std::string::npos) {
      a.branch_target = std::stoull(target, nullptr, 16);
      a.text = a.mnemonic + " .Lloop";  // llvm-mca's assembler needs a label, and follows no branch
    }
  }
  return a;
}

// An instruction no vector ALU port takes (AsmLoop::moves): vmov* (a load, a store, or a register
// copy), a broadcast from memory, or a zeroing xor of a register with itself.
bool is_move(const AsmLine& a) {
  const std::string& m = a.mnemonic;
  if (m.rfind("vmov", 0) == 0) return true;
  if ((m.rfind("vpbroadcast", 0) == 0 || m.rfind("vbroadcast", 0) == 0) && a.text.find('(') != std::string::npos) return true;
  if (m == "vpxor" || m == "vpxord" || m == "vpxorq" || m == "vxorps" || m == "vxorpd") {
    const std::string ops = trim(std::string_view(a.text).substr(m.size()));
    const auto c1 = ops.find(','), c2 = ops.find(',', c1 == std::string::npos ? ops.size() : c1 + 1);
    return c1 != std::string::npos && c2 != std::string::npos && ops.substr(0, c1) == ops.substr(c1 + 1, c2 - c1 - 1);
  }
  return false;
}

// `pattern` is a mnemonic, or a prefix of one ending in '*' (vfmadd* takes vfmadd231ps and its kin).
bool mnemonic_matches(std::string_view mnemonic, std::string_view pattern) {
  if (!pattern.empty() && pattern.back() == '*') return mnemonic.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
  return mnemonic == pattern;
}

// A file of text that is removed when it goes (RAII), for llvm-mca's input.
class TempText {
 public:
  explicit TempText(const std::string& text) {
    std::string pattern = (std::filesystem::temp_directory_path() / "parlab-incore-XXXXXX.s").string();
    const int fd = mkstemps(pattern.data(), 2);
    if (fd < 0) throw FailureError("in-core bound: cannot make a temporary file under " + pattern);
    path_ = pattern;
    const ssize_t n = ::write(fd, text.data(), text.size());
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size())) throw FailureError("in-core bound: cannot write " + path_);
  }
  ~TempText() { std::remove(path_.c_str()); }
  TempText(const TempText&) = delete;
  TempText& operator=(const TempText&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr double kToolSeconds = 60;

// The disassembly of `symbol` in `binary`, or why there is none.
std::optional<std::string> disassemble(const std::string& binary, std::string_view symbol, std::string& why) {
  SpawnOptions o;
  o.timeout_s = kToolSeconds;
  const ChildOutput d = run_child({"objdump", "-d", "--no-show-raw-insn", "--disassemble=" + std::string(symbol), binary}, o);
  if (d.exit_code != 0) {
    why = "objdump: " + d.describe_end() + (d.exit_code == -1 ? " (apt-get install binutils)" : "");
    return std::nullopt;
  }
  return d.out;
}

// The newest llvm-mca on PATH ($PARLAB_LLVM_MCA names one), with the CPU it models, or why none.
struct Mca {
  std::string tool, cpu;
};
std::optional<Mca> find_llvm_mca(std::string& why) {
  std::vector<std::string> names;
  if (const char* e = std::getenv("PARLAB_LLVM_MCA"); e != nullptr && *e != '\0') {
    names.emplace_back(e);
  } else {
    for (int v = 21; v >= 14; --v) names.push_back("llvm-mca-" + std::to_string(v));
    names.emplace_back("llvm-mca");
  }
  std::string unknown;
  for (const auto& n : names) {
    SpawnOptions o;
    o.timeout_s = kToolSeconds;
    const ChildOutput v = run_child({n, "--version"}, o);
    if (v.exit_code != 0) continue;
    const std::string cpu = llvm_host_cpu(v.out);
    if (!cpu.empty()) return Mca{n, cpu};
    if (unknown.empty()) unknown = n;
  }
  why = unknown.empty() ? "no llvm-mca on PATH (apt-get install llvm-19)"
                        : unknown + " does not know this CPU (its --version says \"Host CPU: (unknown)\"; llvm-19 models newer cores)";
  return std::nullopt;
}

std::optional<McaReport> run_mca(const Mca& mca, const AsmLoop& loop, std::string& why) {
  std::string text = ".Lloop:\n";
  for (const auto& i : loop.instructions) text += i + "\n";
  TempText file(text);
  SpawnOptions o;
  o.timeout_s = kToolSeconds;
  const ChildOutput r = run_child({mca.tool, "-mcpu=" + mca.cpu, "-iterations=200", file.path()}, o);
  if (r.exit_code != 0) {
    why = mca.tool + ": " + r.describe_end() + ": " + last_line(r.err_tail);
    return std::nullopt;
  }
  auto report = parse_llvm_mca(r.out);
  if (!report) why = mca.tool + " printed no summary (Iterations, Total Cycles, Block RThroughput)";
  return report;
}

// The clock of the core this thread runs on once it has settled: a core that was idle (while
// objdump ran) climbs to its clock over tens of milliseconds, so two readings in a row must agree
// within 1% (at most 10 pairs; then the larger of the last pair).
double stable_clock_hz() {
  double a = 0, b = 0;
  for (int i = 0; i < 10; ++i) {
    a = measure_core_clock_hz(3).value_or(0);
    b = measure_core_clock_hz(3).value_or(0);
    if (std::abs(a - b) <= 0.01 * std::max(a, b)) break;
  }
  return std::max(a, b);
}

// The CPUs the clocks and the all-CPU probe are measured on: the allowed ones, at most 64 (bounded
// time; a larger machine's first 64 stand for it).
std::vector<int> probe_cpus() {
  std::vector<int> cpus = allowed_cpus();
  if (cpus.size() > 64) cpus.resize(64);
  return cpus;
}

// The allowed CPU with the fastest clock (a VM's vCPUs differ: 3.35 against 3.51 GHz on the
// 2-core EPYC): the bound is an upper bound for a record whichever CPU ran it. -1 when the
// process cannot pin (then the clock of wherever it runs, and `pi.pinning` says so).
struct FastCore {
  int cpu = -1;
  double hz = 0;
  std::vector<double> clocks;  // every pinned CPU's, fastest first
};
FastCore fastest_core(json& pi) {  // `pi`: gets `pinning` where pinning is refused
  FastCore best;
  std::vector<double> clocks;
  const std::vector<int> cpus = probe_cpus();
  try {
    for (const int cpu : cpus) {
      CpuPin pin(cpu);
      const double hz = stable_clock_hz();
      clocks.push_back(hz);
      if (hz > best.hz) best = {cpu, hz, {}};
    }
    std::sort(clocks.begin(), clocks.end(), std::greater<>());
    best.clocks = clocks;
  } catch (const UnavailableError& e) {
    pi["pinning"] = std::string("unpinned: ") + e.what();
    best = {};
  }
  return best;
}

// The CPU a block's probes are measured on: of the pinnable CPUs, the one where `rate` (the
// probe's rate, run pinned there: best of 3 windows) is highest; `fallback` (the fastest clock)
// where pinning fails or the probe cannot run. Not the fastest scalar clock: a core whose SMT
// sibling is busy (another tenant's vCPU) or whose clock drops under 512-bit work runs a vector
// probe slower than its add chain shows, and a bound taken there is no upper bound. On the H200
// node the CPU with the fastest add chain reached 4.1e9 vector instructions per second at pi's mix
// where another reached 5.1e9, and records later ran at 1.12 of the bound taken from it; matmul's
// probe on pi's CPU read 61 Gflop/s where the same node's CPUs together averaged 73 each. Each
// kernel's block is chosen by its own probe, and `probe_cpu` says how (keys `fastest_<per_s>`).
template <class Rate>
int fastest_cpu_for(json& block, Rate rate, int fallback, const std::string& probe, const std::string& per_s) {
  const std::vector<int> cpus = probe_cpus();
  int best = fallback;
  double best_rate = 0;
  std::vector<double> rates;  // every CPU's, fastest first: a floating record's bound on the slow ones
  json by_cpu = {{"cpus", json::array()}, {"rates", json::array()}};  // in CPU order: where a record ran
  try {
    for (const int cpu : cpus) {
      CpuPin pin(cpu);
      const double r = rate();
      if (!(r > 0)) return fallback;
      if (r > best_rate) {
        best_rate = r;
        best = cpu;
      }
      rates.push_back(r);
      by_cpu["cpus"].push_back(cpu);
      by_cpu["rates"].push_back(r);
    }
  } catch (const UnavailableError&) {
    return fallback;  // fastest_core has said so in `pinning`
  }
  std::sort(rates.begin(), rates.end(), std::greater<>());
  const double slowest = rates.empty() ? 0 : rates.back();
  block["probe_cpu"] = {{"cpus", cpus.size()},
                        {"fastest_" + per_s, best_rate},
                        {"slowest_" + per_s, slowest},
                        {"rates_" + per_s, rates},
                        {"by_cpu", by_cpu},
                        {"how", "the CPU that ran " + probe + " fastest, of " + std::to_string(cpus.size()) +
                                    " pinned in turn (best of 3 windows each; the slowest reached " +
                                    fixed(best_rate > 0 ? slowest / best_rate : 0, 2) + " of it)"}};
  return best;
}

// A mix probe's rate in vector instructions per second, 0 for none.
double mix_rate(const std::optional<MixProbe>& m) {
  return m && m->seconds_per_iteration > 0 ? m->instructions_per_iteration / m->seconds_per_iteration : 0.0;
}

int fastest_vector_cpu(json& pi, PiIsa isa, int fallback) {
  return fastest_cpu_for(
      pi, [isa] { return mix_rate(measure_round_mix(isa, 3)); }, fallback, "the mix probe", "instructions_per_s");
}

// The scan's rate of a block's probe on the CPU it chose (fastest_cpu_for), 0 where there was none
// or where the probes could not be pinned there (an unpinned probe is no match for it).
double scan_rate_of(const json& block, const std::string& per_s) {
  if (block.contains("pinning")) return 0;
  return block.value("probe_cpu", json::object()).value("fastest_" + per_s, 0.0);
}

// On `cpu` (-1: wherever the thread runs), the ports probe with the clock read on each side of it
// (its cycles are its seconds times the clock; a probe the clock moved under is measured again, at
// most 4 times, then the last kept), all of it again where the probe read below kProbeAgreement
// of the scan's rate (kProbeAttempts in all, the best kept), its rate raised to the scan's where
// that is higher (bound_probe_rate: `pi.probe_vs_scan`); then the chains probe at the loop's
// `chains` where that is fewer than the ports probe's: `pi.chains` gets its rate against the ports
// probe's (against the probe's own rate where it was disturbed: both ran beside the same
// neighbour), what latency leaves of the ports to a loop that keeps that many chains in flight.
std::optional<MixProbe> measure_pinned_probes(json& pi, PiIsa isa, int cpu, int chains, double& clock_hz) {
  std::optional<CpuPin> pin;
  try {
    if (cpu >= 0) pin.emplace(cpu);
  } catch (const UnavailableError& e) {
    pi["pinning"] = std::string("unpinned: ") + e.what();
  }
  const double scan = scan_rate_of(pi, "instructions_per_s");
  std::optional<MixProbe> mix;
  int attempts = 0;
  for (; attempts < kProbeAttempts; ++attempts) {  // again where a neighbour disturbed it
    std::optional<MixProbe> m;
    double hz = 0;
    for (int tries = 0; tries < 4; ++tries) {  // again where the clock moved under it
      const double before = stable_clock_hz();
      m = measure_round_mix(isa, 7);
      const double after = stable_clock_hz();
      hz = std::max(before, after);
      if (std::abs(before - after) <= 0.02 * hz) break;
    }
    if (mix_rate(m) > mix_rate(mix)) {
      mix = m;
      clock_hz = hz;
    }
    if (!mix || !probe_disturbed(mix_rate(mix), scan)) break;
  }
  if (!mix || !(mix->seconds_per_iteration > 0)) return mix;
  // The bound's rate: the scan's where it is higher (the cycles per trip follow from it).
  const double own = mix_rate(mix);
  const ProbeRate taken = bound_probe_rate(own, scan, std::min(attempts + 1, kProbeAttempts));
  if (!taken.note.is_null()) pi["probe_vs_scan"] = taken.note;
  mix->seconds_per_iteration = mix->instructions_per_iteration / taken.rate;
  if (const auto c = measure_round_mix(isa, 7, chains)) {
    const double ports = probe_disturbed(own, scan) ? own : taken.rate;
    const double rate = mix_rate(c);
    pi["chains"] = {{"chains", chains},
                    {"share", rate / ports},
                    {"instructions_per_cycle", clock_hz > 0 ? rate / clock_hz : 0.0},
                    {"how", c->how + ", against the ports probe on the same CPU"}};
  }
  return mix;
}

// The bound with every allowed CPU busy (`all_cpus`): the block's probe run on all of them at once
// (`rates`, each CPU's, in the block's unit per second for its probe's work) against the one-CPU
// probe's `single` rate. Where cores share ports (SMT) or clocks drop under load, a record on every
// core is held against this, not against the one-CPU bound times the cores.
void add_all_cpus(json& block, const std::optional<std::vector<double>>& rates, double single, std::size_t cpus,
                  const std::string& probe) {
  if (!rates || !(single > 0)) return;
  double sum = 0;
  for (const double r : *rates) sum += r;
  if (!(sum > 0)) return;
  block["all_cpus"] = {{"cpus", cpus},
                       {"share", sum / (static_cast<double>(cpus) * single)},
                       {"value", block["value"].get<double>() * sum / single},
                       {"how", probe + " on all " + std::to_string(cpus) +
                                   " allowed CPUs at once, one pinned thread each, each CPU's best of at least 7 windows "
                                   "while every other ran; the sum against the one-CPU probe's rate"}};
}

// add_all_cpus with the probe `measure` runs on every allowed CPU (at least 2), or why it cannot.
template <class Measure>
void measure_all_cpus(json& block, Measure measure, double single, const std::string& probe) {
  const std::vector<int> cpus = probe_cpus();
  if (cpus.size() < 2 || !block.contains("value")) return;
  try {
    add_all_cpus(block, measure(cpus), single, cpus.size(), probe);
  } catch (const UnavailableError& e) {
    block["all_cpus"] = {{"unavailable", std::string("unpinned: ") + e.what()}};
  }
}

json mca_json(const McaReport& r) {
  const auto [name, pressure] = r.busiest();
  return {{"cycles_per_iteration", r.cycles_per_iteration()},
          {"block_rthroughput", r.block_rthroughput},
          {"busiest_resource", name},
          {"busiest_pressure", pressure}};
}

}  // namespace

std::optional<AsmLoop> hottest_loop(std::string_view objdump_text, std::string_view mnemonic,
                                    std::string_view vector_register) {
  std::vector<AsmLine> lines;
  for (const auto l : lines_of(objdump_text)) {
    if (auto a = parse_line(l)) lines.push_back(std::move(*a));
  }
  std::optional<AsmLoop> best;
  for (std::size_t end = 0; end < lines.size(); ++end) {
    const auto& br = lines[end];
    if (!br.branch_target || *br.branch_target > br.address) continue;
    // Innermost only: a loop around another one (matmul's k loop around its column loop) would
    // count the inner loop's instructions once, not per trip.
    if (std::any_of(lines.begin(), lines.end(), [&](const AsmLine& a) {
          return &a != &br && a.address >= *br.branch_target && a.address < br.address && a.branch_target &&
                 *a.branch_target <= a.address && *a.branch_target >= *br.branch_target;
        })) {
      continue;
    }
    AsmLoop loop;
    for (const auto& a : lines) {
      if (a.address < *br.branch_target || a.address > br.address) continue;
      // Padding no trip runs through (alignment nops inside the range) is left out.
      if (a.mnemonic.rfind("nop", 0) == 0 || a.mnemonic == "data16" || a.mnemonic == "cs") continue;
      if (a.branch_target && &a != &br) {
        loop.instructions.push_back(a.mnemonic + " .Lloop");
      } else {
        loop.instructions.push_back(a.text);
      }
      if (mnemonic_matches(a.mnemonic, mnemonic)) ++loop.counted;
      if (a.text.find(vector_register) != std::string::npos) {
        ++loop.vector_instructions;
        if (is_move(a)) ++loop.moves;
      }
    }
    if (loop.counted > 0 && (!best || loop.counted > best->counted)) best = std::move(loop);
  }
  return best;
}

std::pair<std::string, double> McaReport::busiest() const {
  std::pair<std::string, double> b{"", 0};
  for (const auto& p : pressure) {
    if (p.second > b.second) b = p;
  }
  return b;
}

std::optional<McaReport> parse_llvm_mca(std::string_view text) {
  McaReport r;
  const auto lines = lines_of(text);
  std::vector<std::pair<std::string, std::string>> resources;  // ("[12.0]", "Zn4FP45")
  bool have_iter = false, have_cycles = false, have_rt = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string l = trim(lines[i]);
    const auto value_after = [&](std::string_view key) { return std::strtod(l.c_str() + key.size(), nullptr); };
    if (l.rfind("Iterations:", 0) == 0) {
      r.iterations = value_after("Iterations:");
      have_iter = true;
    } else if (l.rfind("Total Cycles:", 0) == 0) {
      r.total_cycles = value_after("Total Cycles:");
      have_cycles = true;
    } else if (l.rfind("Block RThroughput:", 0) == 0) {
      r.block_rthroughput = value_after("Block RThroughput:");
      have_rt = true;
    } else if (l == "Resources:") {
      for (std::size_t j = i + 1; j < lines.size(); ++j) {
        const std::string rl = trim(lines[j]);
        const auto dash = rl.find(" - ");
        if (rl.empty() || rl[0] != '[' || dash == std::string::npos) break;
        resources.emplace_back(trim(rl.substr(0, dash)), trim(rl.substr(dash + 3)));
      }
    } else if (l == "Resource pressure per iteration:" && i + 2 < lines.size()) {
      std::istringstream head{std::string(lines[i + 1])}, vals{std::string(lines[i + 2])};
      std::string h, v;
      while (head >> h && vals >> v) {
        const auto it = std::find_if(resources.begin(), resources.end(), [&](const auto& p) { return p.first == h; });
        if (it == resources.end()) continue;
        r.pressure.emplace_back(it->second + (std::count_if(resources.begin(), resources.end(),
                                                             [&](const auto& p) { return p.second == it->second; }) > 1
                                                  ? h
                                                  : ""),
                                v == "-" ? 0.0 : std::strtod(v.c_str(), nullptr));
      }
    }
  }
  if (!have_iter || !have_cycles || !have_rt || !(r.iterations > 0) || !(r.total_cycles > 0)) return std::nullopt;
  return r;
}

std::string llvm_host_cpu(std::string_view version_text) {
  for (const auto l : lines_of(version_text)) {
    const std::string t = trim(l);
    if (t.rfind("Host CPU:", 0) != 0) continue;
    const std::string cpu = trim(std::string_view(t).substr(9));
    return cpu.empty() || cpu[0] == '(' ? std::string() : cpu;
  }
  return {};
}

json decide_incore(const IncoreInputs& in) {
  json j;
  if (!(in.clock_hz > 0) || !(in.probe_cycles_measured > 0) || !(in.probe_vector_instructions > 0) ||
      !(in.loop_vector_instructions > 0) || !(in.samples_per_iteration > 0)) {
    j["unavailable"] = "the clock, the probe or the loop's counts are missing";
    return j;
  }
  // The measured ports: the vector instructions per cycle the probe reached with pi's round mix.
  const double ipc = in.probe_vector_instructions / in.probe_cycles_measured;
  const double ports_cycles = in.loop_vector_instructions / ipc;
  j["ports"] = {{"instructions_per_cycle", ipc}, {"cycles_per_iteration", ports_cycles}};
  double cycles = ports_cycles;
  std::string model = "measured ports", why, binds;
  binds = "vector ports: " + fixed(in.loop_vector_instructions, 0) + " vector ALU instructions per trip" +
          (in.loop_moves > 0 ? " (and " + fixed(in.loop_moves, 0) + " moves, loads and stores left out)" : "") +
          " at the " + fixed(ipc, 2) + " per cycle the probe reached";
  if (in.mca_loop && in.mca_probe) {
    const double predicted = in.mca_probe->cycles_per_iteration();
    const bool agrees = std::abs(predicted - in.probe_cycles_measured) <= kMcaAgreement * in.probe_cycles_measured;
    json m = mca_json(*in.mca_loop);
    m["tool"] = in.mca_name;
    m["probe_cycles_predicted"] = predicted;
    m["probe_cycles_measured"] = in.probe_cycles_measured;
    m["agrees"] = agrees;
    j["llvm_mca"] = m;
    const std::string check = in.mca_name + " predicts the mix probe at " + fixed(predicted, 1) +
                              " cycles per trip; measured " + fixed(in.probe_cycles_measured, 1);
    if (agrees) {
      model = "llvm-mca";
      why = check + ": its port model holds here";
      cycles = in.mca_loop->cycles_per_iteration();
      const auto [name, pressure] = in.mca_loop->busiest();
      if (pressure >= 0.9 * cycles) {
        binds = "ports: " + name + " busy " + fixed(pressure, 1) + " of " + fixed(cycles, 1) + " cycles per trip";
      } else {
        binds = "dependency chains: " + fixed(cycles, 1) + " cycles per trip, the busiest port (" + name + ") busy " +
                fixed(pressure, 1);
      }
    } else {
      why = check + ": its port model does not hold here, so the measured ports bound the loop";
    }
  } else {
    why = in.mca_why_not.empty() ? "llvm-mca did not run" : in.mca_why_not;
    why += "; the measured ports alone bound the loop";
  }
  j["cycles_per_iteration"] = cycles;
  j["model"] = model;
  j["model_why"] = why;
  j["binds"] = binds;
  // Cycles per trip are a property of the core; the bound takes them at the fastest clock any core
  // was seen at, so that a record whose core ran faster than the probe's does not pass it.
  const double clock = std::max(in.clock_hz, in.peak_clock_hz);
  j["value"] = clock * in.samples_per_iteration / cycles;
  j["value_clock_hz"] = clock;
  j["unit"] = "samples/s";
  return j;
}

json decide_matmul_incore(const MatmulIncoreInputs& in) {
  json j;
  if (!(in.clock_hz > 0) || !(in.flops_per_trip > 0) || !(in.l1_flops_per_s > 0)) {
    j["unavailable"] = "the clock, the probe or the loop's counts are missing";
    return j;
  }
  // The hot loop's cycles per trip with every operand in L1 (a call's setup is one in 64 k-pairs'
  // worth, so the loop's own): what llvm-mca's model of the loop must predict.
  const double measured = in.clock_hz * in.flops_per_trip / in.l1_flops_per_s;
  std::string binds, why;
  if (in.mca_loop) {
    const double predicted = in.mca_loop->cycles_per_iteration();
    const bool agrees = std::abs(predicted - measured) <= kMcaAgreement * measured;
    json m = mca_json(*in.mca_loop);
    m["tool"] = in.mca_name;
    m["loop_cycles_predicted"] = predicted;
    m["loop_cycles_measured"] = measured;
    m["agrees"] = agrees;
    j["llvm_mca"] = m;
    const std::string check = in.mca_name + " predicts the loop at " + fixed(predicted, 2) + " cycles per trip; measured " +
                              fixed(measured, 2);
    if (agrees) {
      const auto [name, pressure] = in.mca_loop->busiest();
      binds = pressure >= 0.9 * predicted
                  ? "ports: " + name + " busy " + fixed(pressure, 2) + " of " + fixed(predicted, 2) + " cycles per trip"
                  : "dependency chains: " + fixed(predicted, 2) + " cycles per trip, the busiest port (" + name +
                        ") busy " + fixed(pressure, 2);
      why = check + ": its model holds here, and names what binds";
    } else {
      why = check + ": its model does not hold here, so it names nothing";
    }
  } else {
    why = in.mca_why_not.empty() ? "llvm-mca did not run" : in.mca_why_not;
  }
  if (binds.empty()) {
    binds = "the loop's instructions, measured: " + fixed(measured, 2) + " cycles per trip of " +
            fixed(in.flops_per_trip, 0) + " flops with every operand in L1 (no model names the resource)";
  }
  j["loop_cycles_per_iteration"] = measured;
  j["model"] = "measured";
  j["model_why"] = "the kernel's own tile update timed with every operand in L1 (the probe is the loop: no instruction "
                   "mix assumed); " + why;
  j["binds"] = binds;
  if (in.tile_flops_per_s > 0) {
    const double against = in.l1_probe_flops_per_s > 0 ? in.l1_probe_flops_per_s : in.l1_flops_per_s;
    j["tile"] = {{"share", in.tile_flops_per_s / against}, {"flops_per_s", in.tile_flops_per_s}};
  }
  // At the fastest clock any core was seen at, so that a record whose core ran faster than the
  // probe's does not pass the bound (as pi's).
  const double clock = std::max(in.clock_hz, in.peak_clock_hz);
  j["value"] = in.l1_flops_per_s * clock / in.clock_hz;
  j["value_clock_hz"] = clock;
  j["unit"] = "flops/s";
  return j;
}

std::optional<SassLoop> sass_hot_loop(std::string_view sass_text, std::string_view function_fragment) {
  struct Sass {
    std::uint64_t address;
    std::string opcode;  // with its modifiers: IMAD.WIDE.U32
    std::optional<std::uint64_t> target;
  };
  std::vector<Sass> code;
  bool in_function = false;
  std::string function;
  for (const auto raw : lines_of(sass_text)) {
    const std::string l = trim(raw);
    if (l.rfind("Function :", 0) == 0) {
      if (in_function) break;  // the function asked for has ended
      function = trim(std::string_view(l).substr(10));
      in_function = function.find(function_fragment) != std::string::npos;
      continue;
    }
    // "/*0450*/   @!P0 BRA 0x230 ;   /* 0x... */"
    if (!in_function || l.rfind("/*", 0) != 0) continue;
    const auto close = l.find("*/");
    const std::string addr = close == std::string::npos ? "" : l.substr(2, close - 2);
    if (addr.empty() || addr.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    const auto semi = l.find(';', close);
    if (semi == std::string::npos) continue;
    std::istringstream words(l.substr(close + 2, semi - close - 2));
    std::string w;
    words >> w;
    if (!w.empty() && w[0] == '@') words >> w;  // a predicate
    if (w.empty()) continue;
    Sass s{std::stoull(addr, nullptr, 16), w, std::nullopt};
    if (w.rfind("BRA", 0) == 0) {
      std::string t;
      while (words >> t) {
        if (t.rfind("0x", 0) == 0) s.target = std::stoull(t.substr(2), nullptr, 16);
      }
    }
    code.push_back(std::move(s));
  }
  std::optional<SassLoop> best;
  for (const auto& br : code) {
    if (!br.target || *br.target >= br.address) continue;
    const auto inside = [&](const Sass& s) { return s.address >= *br.target && s.address <= br.address; };
    // Innermost only: a loop around another one counts the inner loop's instructions once, not per trip.
    if (std::any_of(code.begin(), code.end(), [&](const Sass& s) {
          return &s != &br && inside(s) && s.target && *s.target < s.address && *s.target >= *br.target;
        })) {
      continue;
    }
    SassLoop loop;
    loop.function = function;
    for (const auto& s : code) {
      if (!inside(s) || s.opcode == "NOP") continue;
      ++loop.instructions;
      const std::string base = s.opcode.substr(0, s.opcode.find('.'));
      if (s.opcode.rfind("IMAD.WIDE", 0) == 0) {
        ++loop.imad_wide;
      } else if (base == "IMAD") {
        ++loop.imad_other;
      } else if (base == "LOP3" || base == "IADD3" || base == "ISETP" || base == "SHF" || base == "LEA" ||
                 base == "SEL" || base == "PRMT" || base == "MOV" || base == "IMNMX" || base == "PLOP3" ||
                 base == "IABS" || base == "POPC" || base == "FLO" || base == "VIADD" || base == "IADD") {
        ++loop.alu;
      }
    }
    if (loop.imad_wide > 0 && (!best || loop.imad_wide > best->imad_wide)) best = std::move(loop);
  }
  return best;
}

json decide_gpu_incore(const SassLoop& loop, int pairs_per_trip, const std::optional<SassLoop>& probe,
                       const json& roofs) {
  json j;
  const auto number = [&](const char* roof, const char* input) -> double {
    if (!roofs.contains(roof)) return 0;
    const json& r = roofs[roof];
    if (input == nullptr) return r.value("value", 0.0);
    return r.contains("inputs") ? r["inputs"].value(input, 0.0) : 0.0;
  };
  const double sms = number("gpu_sm_count", nullptr), clock = number("gpu_clock_hz", nullptr);
  // gpu_imul_peak's per-SM rate is half the guide's 32-bit multiply-add rate (the assumption it names).
  const double imad_rate = 2 * number("gpu_imul_peak", "per_sm_per_clock");
  if (!(sms > 0) || !(clock > 0) || !(imad_rate > 0) || pairs_per_trip <= 0) {
    j["unavailable"] = "needs gpu_sm_count, gpu_clock_hz and gpu_imul_peak (a compute capability in kSmRates)";
    return j;
  }
  const double samples = 2.0 * pairs_per_trip;
  const double per_clock = sms * clock;
  // Each bound: samples per second were that resource alone the limit.
  struct Bound {
    const char* name;
    double slots_per_trip;
    double slots_per_sm_clock;
    std::string what;
  };
  const std::vector<Bound> bounds = {
      {"issue slots", static_cast<double>(loop.instructions), 128,
       "4 schedulers x 32 threads per SM and clock, " + std::to_string(loop.instructions) + " instructions per trip"},
      {"FMA pipe (IMAD)", 2.0 * loop.imad_wide + loop.imad_other, imad_rate,
       std::to_string(loop.imad_wide) + " IMAD.WIDE (2 slots each: ASSUMED, as gpu_imul_peak) + " +
           std::to_string(loop.imad_other) + " other IMAD per trip at the guide's " + fixed(imad_rate, 0) +
           " multiply-adds per SM and clock"},
      {"ALU pipe", static_cast<double>(loop.alu), imad_rate,
       std::to_string(loop.alu) + " LOP3, IADD3, ISETP, ... per trip at " + fixed(imad_rate, 0) +
           " per SM and clock (ASSUMED: the guide's 32-bit add and logic rate, equal to its multiply-add rate)"},
  };
  json each = json::object();
  const Bound* bind = nullptr;
  double best = 0;
  for (const auto& b : bounds) {
    if (!(b.slots_per_trip > 0)) continue;
    const double v = per_clock * b.slots_per_sm_clock * samples / b.slots_per_trip;
    each[b.name] = {{"value", v}, {"how", b.what}};
    if (bind == nullptr || v < best) {
      bind = &b;
      best = v;
    }
  }
  j["loop"] = {{"function", loop.function},
               {"instructions", loop.instructions},
               {"multiply_instructions", loop.imad_wide},
               {"imad_other", loop.imad_other},
               {"alu", loop.alu},
               {"lanes", 1},
               {"samples_per_iteration", samples},
               {"imuls_per_sample", loop.imad_wide / samples}};
  j["bounds"] = each;
  if (probe && probe->imad_wide > 0 && loop.imad_wide > 0) {
    const double pi_ipm = static_cast<double>(loop.instructions) / loop.imad_wide;
    const double probe_ipm = static_cast<double>(probe->instructions) / probe->imad_wide;
    j["imul_probe"] = {{"instructions", probe->instructions},
                       {"multiply_instructions", probe->imad_wide},
                       {"instructions_per_multiply", probe_ipm},
                       {"pi_instructions_per_multiply", pi_ipm}};
    j["imul_probe_bounds"] = probe_ipm <= pi_ipm;
  }
  j["value"] = best;
  j["unit"] = "samples/s";
  j["model"] = "theoretical";
  j["model_why"] = "SASS counts (cuobjdump) x the guide's per-SM rates x gpu_sm_count x gpu_clock_hz";
  j["binds"] = std::string(bind->name) + ": " + bind->what;
  j["cores"] = 1;  // the whole GPU
  return j;
}

json measure_gpu_incore(const std::string& function_fragment, int pairs_per_trip, const std::string& imul_probe_fragment,
                        const json& roofs) {
  SpawnOptions o;
  o.timeout_s = kToolSeconds;
  const ChildOutput d = run_child({"cuobjdump", "-sass", self_executable()}, o);
  if (d.exit_code != 0) {
    return {{"unavailable", "cuobjdump: " + d.describe_end() + (d.exit_code == -1 ? " (it comes with the CUDA Toolkit)" : "")}};
  }
  const auto loop = sass_hot_loop(d.out, function_fragment);
  if (!loop) return {{"unavailable", "no loop with IMAD.WIDE in a kernel named *" + function_fragment + "* in cuobjdump's SASS"}};
  return decide_gpu_incore(*loop, pairs_per_trip, sass_hot_loop(d.out, imul_probe_fragment), roofs);
}

// CPU pi's block: its loop, the probes on `fast`'s CPUs, the decision.
namespace {

json measure_pi_incore(std::ostream& log, const FastCore& fast, const json& pinning) {
  json pi = json::object();
  if (!pinning.is_null()) pi["pinning"] = pinning;
  const PiIsa isa = pi_active_isa();
  pi["isa"] = std::string(to_string(isa));
  const std::optional<PiLoop> loop = pi_loop(isa);
  if (!loop) {
    pi["unavailable"] = "pi runs its scalar path here (" + std::string(to_string(isa)) +
                        "), the compiler's loop, which parlab does not read";
    return pi;
  }
  const std::string reg = isa == PiIsa::avx512 ? "%zmm" : "%ymm";
  const std::string binary = self_executable();
  std::string why;
  const auto text = disassemble(binary, loop->symbol, why);
  const auto found = text ? hottest_loop(*text, "vpmuludq", reg) : std::nullopt;
  if (!found) {
    pi["unavailable"] = text ? "no loop with vpmuludq in " + std::string(loop->symbol) + " (a stripped binary?)" : why;
    return pi;
  }
  const double samples = 2.0 * loop->pairs_per_iteration;
  pi["loop"] = {{"symbol", loop->symbol},
                {"instructions", found->instructions.size()},
                {"vector_instructions", found->vector_instructions},
                {"moves", found->moves},
                {"multiply_instructions", found->counted},
                {"lanes", loop->lanes},
                {"samples_per_iteration", samples},
                {"imuls_per_sample", found->counted * loop->lanes / samples}};

  IncoreInputs in;
  in.loop_vector_instructions = found->port_instructions();
  in.loop_moves = found->moves;
  in.samples_per_iteration = samples;
  const int cpu = fast.cpu >= 0 ? fastest_vector_cpu(pi, isa, fast.cpu) : -1;
  const std::optional<MixProbe> mix = measure_pinned_probes(pi, isa, cpu, loop->chains, in.clock_hz);
  if (cpu >= 0) pi["cpu"] = cpu;
  // Each CPU's clock, fastest first: a record on c cores is bounded by the c fastest (limit.cpp).
  if (!fast.clocks.empty()) pi["clocks_hz"] = fast.clocks;
  pi["clock_hz"] = in.clock_hz;
  in.peak_clock_hz = fast.hz;
  if (mix) {
    std::string pwhy;
    const auto ptext = disassemble(binary, mix->symbol, pwhy);
    const auto ploop = ptext ? hottest_loop(*ptext, "vpmuludq", reg) : std::nullopt;
    if (!ploop) {
      pi["unavailable"] = ptext ? "no loop in the mix probe " + std::string(mix->symbol) : pwhy;
      return pi;
    }
    // A trip of the compiled probe may hold more than one source iteration.
    in.probe_vector_instructions = ploop->port_instructions();
    in.probe_cycles_measured =
        mix->seconds_per_iteration * in.clock_hz * ploop->vector_instructions / mix->instructions_per_iteration;
    json probe = {{"symbol", mix->symbol},
                  {"how", mix->how},
                  {"vector_instructions_per_trip", ploop->vector_instructions},
                  {"cycles_per_trip", in.probe_cycles_measured}};
    if (const auto s = spread_of(mix->samples)) probe["spread"] = spread_json(*s);
    pi["probe"] = probe;
    if (const auto mca = find_llvm_mca(in.mca_why_not)) {
      in.mca_name = mca->tool + " -mcpu=" + mca->cpu;
      in.mca_loop = run_mca(*mca, *found, in.mca_why_not);
      if (in.mca_loop) in.mca_probe = run_mca(*mca, *ploop, in.mca_why_not);
    }
  }
  const json d = decide_incore(in);
  pi.update(d);
  pi["cores"] = physical_cores();
  if (mix && mix->seconds_per_iteration > 0) {
    measure_all_cpus(
        pi, [isa](const std::vector<int>& cpus) { return measure_round_mix_all(isa, cpus, 7); },
        mix_rate(mix), "the mix probe");
  }
  if (pi.contains("value")) {
    log << hanging("parlab: ceilings: ",
                   "in-core bound of pi's " + pi["isa"].get<std::string>() + " loop = " +
                       fixed(pi["value"].get<double>() / 1e9, 2) + " Gsamples/s per core (" +
                       pi["model"].get<std::string>() + "; " + pi["binds"].get<std::string>() + ")",
                   terminal_width())
        << "\n";
  }
  return pi;
}

// The lanes of a float vector register the loop's first `pattern` instruction names (zmm 16, ymm 8,
// xmm 4), 0 where none does.
int float_lanes(const AsmLoop& loop, std::string_view pattern) {
  for (const auto& i : loop.instructions) {
    const std::string m = i.substr(0, i.find(' '));
    if (!mnemonic_matches(m, pattern)) continue;
    if (i.find("%zmm") != std::string::npos) return 16;
    if (i.find("%ymm") != std::string::npos) return 8;
    if (i.find("%xmm") != std::string::npos) return 4;
  }
  return 0;
}

// matmul's block: its tile update's hot loop (the one with the most fused multiply-adds, or
// multiplies where the build keeps them apart: -ffp-contract=off), its two probes on `cpu`,
// llvm-mca's model of the loop, and the decision.
json measure_matmul_incore(std::ostream& log, const FastCore& fast, const json& pinning) {
  json mm = json::object();
  if (!pinning.is_null()) mm["pinning"] = pinning;
  const std::string binary = self_executable();
  std::string why;
  const auto text = disassemble(binary, kMatmulTileSymbol, why);
  if (!text) return {{"unavailable", why}};
  std::optional<AsmLoop> loop;
  std::string pattern;
  int lanes = 0;
  // The loop with the most multiplies is the whole-width path's (kMatmulRowBlock rows at once).
  for (const char* p : {"vfmadd*", "vmulps", "mulps"}) {
    loop = hottest_loop(*text, p, "%xmm");
    if (loop && (lanes = float_lanes(*loop, p)) > 0) {
      pattern = p;
      break;
    }
  }
  if (!loop || lanes == 0) {
    return {{"unavailable", "no loop with vfmadd*, vmulps or mulps in " + std::string(kMatmulTileSymbol) + " (a stripped binary?)"}};
  }
  // Again with the width found, so that its vector instructions and moves are counted.
  const std::optional<AsmLoop> wide = hottest_loop(*text, pattern, lanes == 16 ? "%zmm" : lanes == 8 ? "%ymm" : "%xmm");
  if (!wide) return {{"unavailable", "the loop of " + std::string(kMatmulTileSymbol) + " was lost on a second reading"}};
  const AsmLoop& found = *wide;
  MatmulIncoreInputs in;
  // A fused multiply-add is 2 flops a lane; an unfused multiply has its add beside it (the loop
  // is crow[j] += aik * brow[j]), so 2 flops a lane either way.
  in.flops_per_trip = 2.0 * lanes * found.counted;
  mm["loop"] = {{"symbol", kMatmulTileSymbol},
                {"instructions", found.instructions.size()},
                {"vector_instructions", found.vector_instructions},
                {"moves", found.moves},
                {"multiply_instructions", found.counted},
                {"multiply", pattern == "vfmadd*" ? "fused multiply-add" : pattern + " (and its add)"},
                {"lanes", lanes},
                {"flops_per_iteration", in.flops_per_trip}};
  const int cpu = fast.cpu >= 0 ? fastest_cpu_for(
                                      mm,
                                      [] { return measure_matmul_tile(MatmulShape::l1, 3).flops_per_s(); },
                                      fast.cpu, "the matmul probe (operands in L1)", "flops_per_s")
                                : -1;
  {
    std::optional<CpuPin> pin;
    try {
      if (cpu >= 0) pin.emplace(cpu);
    } catch (const UnavailableError& e) {
      mm["pinning"] = std::string("unpinned: ") + e.what();
    }
    const double before = stable_clock_hz();
    // Again where a neighbour disturbed it (kProbeAgreement), the best kept.
    const double scan = scan_rate_of(mm, "flops_per_s");
    MatmulProbe l1 = measure_matmul_tile(MatmulShape::l1, 7);
    int attempts = 1;
    for (; attempts < kProbeAttempts && probe_disturbed(l1.flops_per_s(), scan); ++attempts) {
      MatmulProbe again = measure_matmul_tile(MatmulShape::l1, 7);
      if (again.flops_per_s() > l1.flops_per_s()) l1 = std::move(again);
    }
    const MatmulProbe tile = measure_matmul_tile(MatmulShape::tile, 7);
    const double after = stable_clock_hz();
    in.clock_hz = std::max(before, after);
    const ProbeRate taken = bound_probe_rate(l1.flops_per_s(), scan, attempts);
    if (!taken.note.is_null()) mm["probe_vs_scan"] = taken.note;
    in.l1_flops_per_s = taken.rate;
    // The tile probe ran beside the same neighbour as a disturbed L1 probe: its share against that.
    in.l1_probe_flops_per_s = probe_disturbed(l1.flops_per_s(), scan) ? l1.flops_per_s() : 0;
    in.tile_flops_per_s = tile.flops_per_s();
    const auto probe_json = [](const MatmulProbe& p) {
      json j = {{"flops_per_s", p.flops_per_s()}, {"how", p.how}};
      if (const auto sp = spread_of(p.samples)) j["spread"] = spread_json(*sp);
      return j;
    };
    // `probe`: the bound's own (its spread is what limit.incore.above weighs, as pi's); `tile`'s
    // probe is reported beside its share (decide_matmul_incore).
    mm["probe"] = probe_json(l1);
    mm["tile_probe"] = probe_json(tile);
  }
  if (cpu >= 0) mm["cpu"] = cpu;
  if (!fast.clocks.empty()) mm["clocks_hz"] = fast.clocks;
  mm["clock_hz"] = in.clock_hz;
  in.peak_clock_hz = fast.hz;
  if (const auto mca = find_llvm_mca(in.mca_why_not)) {
    in.mca_name = mca->tool + " -mcpu=" + mca->cpu;
    in.mca_loop = run_mca(*mca, found, in.mca_why_not);
  }
  mm.update(decide_matmul_incore(in));
  mm["cores"] = physical_cores();
  measure_all_cpus(
      mm, [](const std::vector<int>& cpus) { return measure_matmul_tile_all(MatmulShape::l1, cpus, 7); },
      in.l1_flops_per_s, "the matmul probe (operands in L1)");
  if (mm.contains("value")) {
    log << hanging("parlab: ceilings: ",
                   "in-core bound of matmul's loop = " + fixed(mm["value"].get<double>() / 1e9, 1) +
                       " Gflop/s per core (" + mm["binds"].get<std::string>() + ")",
                   terminal_width())
        << "\n";
  }
  return mm;
}

}  // namespace

json measure_incore(std::ostream& log) {
  json note = json::object();
  const FastCore fast = fastest_core(note);
  const json pinning = note.value("pinning", json());
  // Each block's probes run on the CPU its own probe found fastest.
  json pi = measure_pi_incore(log, fast, pinning);
  json mm;
  try {
    mm = measure_matmul_incore(log, fast, pinning);
  } catch (const Error& e) {  // pi's block stands whatever befalls matmul's
    mm = {{"unavailable", e.what()}};
  }
  return {{"pi", pi}, {"matmul", mm}};
}

bool probe_disturbed(double probe_rate, double scan_rate) {
  return scan_rate > 0 && probe_rate < kProbeAgreement * scan_rate;
}

ProbeRate bound_probe_rate(double probe_rate, double scan_rate, int attempts) {
  ProbeRate out{probe_rate, nullptr};
  if (!(scan_rate > 0)) return out;
  const bool scan = scan_rate > probe_rate;
  out.rate = std::max(probe_rate, scan_rate);
  out.note = {{"probe", probe_rate},
              {"scan", scan_rate},
              {"attempts", attempts},
              {"taken", scan ? "scan" : "probe"},
              {"how", std::string("the probe's best window against its rate on the same CPU in the scan (best of 3 "
                                  "windows); the bound takes the higher") +
                          (probe_disturbed(probe_rate, scan_rate)
                               ? ": the probe read " + fixed(probe_rate / scan_rate, 2) + " of the scan's rate after " +
                                     std::to_string(attempts) + " attempt(s) (disturbed: another tenant on the CPU?)"
                               : "")}};
  return out;
}

}  // namespace parlab
