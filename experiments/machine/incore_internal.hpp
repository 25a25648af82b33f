// What the in-core bound's files share (incore.hpp is their API): the tools that read a compiled
// loop (objdump, llvm-mca; incore_loop.cpp), for the measurements that read one (incore.cpp).
// Only experiments/machine/incore*.cpp include it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "experiments/machine/incore.hpp"

namespace parlab::incore_detail {

// How long objdump, llvm-mca or cuobjdump may run, in seconds.
inline constexpr double kToolSeconds = 60;

// The disassembly of `symbol` in `binary`, or why there is none.
std::optional<std::string> disassemble(const std::string& binary, std::string_view symbol, std::string& why);

// The newest llvm-mca on PATH ($PARLAB_LLVM_MCA names one), with the CPU it models, or why none.
struct Mca {
  std::string tool, cpu;
};
std::optional<Mca> find_llvm_mca(std::string& why);

// llvm-mca's report on `loop` (200 iterations at the CPU `mca` models), or why there is none.
std::optional<McaReport> run_mca(const Mca& mca, const AsmLoop& loop, std::string& why);

// The lanes of a float vector register the loop's first `pattern` instruction names (zmm 16, ymm 8,
// xmm 4), 0 where none does.
int float_lanes(const AsmLoop& loop, std::string_view pattern);

}  // namespace parlab::incore_detail
