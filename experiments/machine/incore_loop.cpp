// Reading a compiled loop (incore.hpp): objdump's disassembly and its hottest loop, llvm-mca's model
// of it, and a CUDA kernel's loop in cuobjdump's SASS. No measurement: incore.cpp measures, and
// incore_decide.cpp makes the bound of what both found.
#include "experiments/machine/incore.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/machine/incore_internal.hpp"

namespace parlab {
namespace {

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

}  // namespace

namespace incore_detail {

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

}  // namespace incore_detail

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

}  // namespace parlab
