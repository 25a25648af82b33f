#include "experiments/machine/context.hpp"

#include "experiments/wiring/mpi_job.hpp"
#include "experiments/wiring/python_part.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "core/pi_simd.hpp"
#include "core/stream_store.hpp"
#include "parlab/build_commit.hpp"
#include "parlab/build_info.hpp"

namespace parlab {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in && std::getline(in, line)) return line;
  return {};
}

// What /proc/cpuinfo says of the CPUs: the first model name, the logical CPUs, and the distinct
// (physical id, core id) pairs, i.e. the cores.
struct CpuInfo {
  std::string model;
  int logical = 0;
  int cores = 0;
};
CpuInfo read_cpuinfo() {
  CpuInfo info;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string phys;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && info.model.empty()) info.model = value;
    if (key == "processor") ++info.logical;
    if (key == "physical id") phys = value;
    if (key == "core id") cores.insert({phys, value});
  }
  info.cores = static_cast<int>(cores.size());
  return info;
}

nlohmann::json cpu_facts() {
  nlohmann::json cpu;
  const CpuInfo info = read_cpuinfo();
  cpu["model"] = info.model.empty() ? nlohmann::json() : nlohmann::json(info.model);
  cpu["logical_cpus"] = hardware_threads();
  cpu["physical_cores"] = info.cores == 0 ? nlohmann::json() : nlohmann::json(info.cores);
  if (info.cores > 0) cpu["smt"] = info.cores < info.logical;
  const std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  cpu["governor"] = governor.empty() ? nlohmann::json() : nlohmann::json(governor);
  nlohmann::json caches = nlohmann::json::array();
  for (int i = 0; i < 8; ++i) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_first_line(base + "level");
    if (level.empty()) break;
    const std::string type = read_first_line(base + "type");
    const std::string size = read_first_line(base + "size");  // e.g. "48K"
    if (type == "Instruction") continue;
    std::uint64_t bytes = 0;
    try {
      bytes = std::stoull(size);
      if (!size.empty() && size.back() == 'K') bytes *= 1024;
      if (!size.empty() && size.back() == 'M') bytes *= 1024 * 1024;
    } catch (...) {
      continue;
    }
    caches.push_back({{"level", std::stoi(level)}, {"type", type}, {"bytes", bytes}});
  }
  cpu["caches"] = caches;
  return cpu;
}

}  // namespace

int hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

int physical_cores() {
  const int cores = read_cpuinfo().cores;
  return cores > 0 ? cores : hardware_threads();
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  std::string h(buf);
  for (char& c : h) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  }
  return h;
}

SourceCommit source_commit(const std::string& from_git, const char* declared) {
  // A declared commit wins: it is set by whoever copied the tree somewhere git cannot see it
  // properly (an offline GPU node gets a copy of the files, with either no .git or a stale one
  // from an older checkout: seen there, git named the session's first commit, "-dirty").
  // Nothing verifies it, so the record says it was declared and what git said, if anything.
  if (declared != nullptr && *declared != '\0') {
    std::string source = "declared by PARLAB_SOURCE_COMMIT";
    if (!from_git.empty() && from_git != declared) source += "; git at build time said " + from_git;
    return {declared, source};
  }
  if (!from_git.empty()) return {from_git, "git"};
  return {};
}

nlohmann::json collect_context(const Registry& registry, const ContextOptions& options) {
  nlohmann::json ctx;
  ctx["host"] = host_name();
  ctx["cpu"] = cpu_facts();
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  ctx["memory_bytes"] = (pages > 0 && page > 0) ? nlohmann::json(static_cast<std::uint64_t>(pages) * page) : nlohmann::json();
  // The run's one reading where the command took it (its plan's warning quotes the same).
  double load[1] = {options.load_1min.value_or(0)};
  const bool have_load = options.load_1min.has_value() || getloadavg(load, 1) == 1;
  ctx["load_average_1min"] = have_load ? nlohmann::json(load[0]) : nlohmann::json();

  ctx["build"] = {{"parlab_version", build_info::kVersion}, {"build_type", build_info::kBuildType},
                  {"compiler", build_info::kCompiler},     {"flags", build_info::kCxxFlags},
                  {"sanitizers", build_info::kSanitizers}};
  const SourceCommit sc = source_commit(build_info::kBuildCommit, std::getenv("PARLAB_SOURCE_COMMIT"));
  ctx["build"]["git_commit"] = sc.commit.empty() ? nlohmann::json() : nlohmann::json(sc.commit);
  ctx["build"]["git_commit_source"] = sc.source.empty() ? nlohmann::json() : nlohmann::json(sc.source);
  // The two views apart, each null where absent: the commit as declared (PARLAB_SOURCE_COMMIT) and
  // git's own at build time. A reader holding a quoted run to its commit compares the two without
  // parsing git_commit_source's sentence.
  const char* declared = std::getenv("PARLAB_SOURCE_COMMIT");
  ctx["build"]["git_commit_declared"] =
      declared != nullptr && *declared != '\0' ? nlohmann::json(declared) : nlohmann::json();
  ctx["build"]["git_commit_git"] =
      std::string(build_info::kBuildCommit).empty() ? nlohmann::json() : nlohmann::json(build_info::kBuildCommit);
  // Which SIMD path the CPU pi kernel runs here (core/pi_simd.hpp): it changes CPU pi rates
  // by up to 3.6x, so a figure must say which one it shows.
  ctx["build"]["pi_cpu_path"] = std::string(to_string(pi_active_isa()));
  // The width of the streaming stores (core/stream_store.hpp): it changed copy's rate 2.7x on
  // the H100 node. Read here too so a bad PARLAB_STREAM_ISA stops the run at its start.
  ctx["build"]["stream_store_path"] = std::string(to_string(stream_store_isa()));

  // Library versions come from the backends themselves (their `detail`), so the block says
  // what was actually linked and found at run time: TBB, OpenMP, CUDA and the GPU, Python.
  nlohmann::json backends = nlohmann::json::array();
  for (const auto& e : registry.entries()) {
    nlohmann::json b = {{"name", e.name}, {"kind", to_string(e.kind)}, {"available", e.available},
                        {"detail", e.available ? e.detail : e.reason}};
    if (e.processor) b["processor"] = to_string(*e.processor);
    backends.push_back(b);
  }
  ctx["backends"] = backends;
  ctx["python"] = python_context_or_reason();
  // MPI: the library, and when this process is a rank of a job, its layout and binding.
  const mpi_job::Facts mpi = mpi_facts();
  nlohmann::json mpi_block = {{"built", mpi.built}};
  if (!mpi.built) {
    mpi_block["reason"] = mpi.why;
  } else {
    mpi_block["library"] = mpi.library;
    mpi_block["in_job"] = mpi.in_job;
    if (mpi.in_job) {
      mpi_block["ranks"] = mpi.ranks;
      mpi_block["ranks_per_node"] = mpi.ranks_per_node;
      mpi_block["hosts"] = mpi.hosts;
      mpi_block["threads_per_rank"] = options.max_threads_requested;
      mpi_block["binding"] = mpi.binding;
    }
  }
  ctx["mpi"] = mpi_block;

  nlohmann::json warnings = nlohmann::json::array();
  const std::string bt = build_info::kBuildType;
  if (bt != "Release") warnings.push_back("not a Release build (" + bt + "): timings are not representative");
  if (std::string(build_info::kSanitizers) != "none") {
    warnings.push_back(std::string("sanitizer build (") + build_info::kSanitizers + "): timings are not representative");
  }
  if (have_load && load[0] > 0.5 * hardware_threads()) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << "machine busy at start: 1-minute load average " << load[0] << " on "
       << hardware_threads() << " hardware threads";
    warnings.push_back(os.str());
  }
  const auto& gov = ctx["cpu"]["governor"];
  if (gov.is_string() && gov.get<std::string>() != "performance") {
    warnings.push_back("CPU frequency governor is '" + gov.get<std::string>() + "', not 'performance'");
  }
  // More threads than the machine has, or than are free, is the plan's warning (plan/cpus.hpp),
  // said before the run and kept here with the plan's other warnings.
  if (mpi.in_job && mpi.ranks_per_node * options.max_threads_requested > hardware_threads()) {
    warnings.push_back(std::to_string(mpi.ranks_per_node) + " MPI ranks per host x " +
                       std::to_string(options.max_threads_requested) + " threads on " + std::to_string(hardware_threads()) +
                       " hardware threads: oversubscribed points measure time-slicing");
  }
  ctx["warnings"] = warnings;

  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream ts;
  ts << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  ctx["started_utc"] = ts.str();
  return ctx;
}

}  // namespace parlab
