#include "rank_sweep.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <vector>

#include "child_process.hpp"
#include "core/error.hpp"


namespace parlab {

namespace {

std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string candidate = (d.empty() ? "." : d) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

std::string MpiLauncher::describe() const {
  std::string s;
  for (const auto& w : command) s += (s.empty() ? "" : " ") + w;
  return s;
}

MpiLauncher find_mpi_launcher() {
  MpiLauncher l;
  std::string exe;
  if (const char* env = std::getenv("PARLAB_MPIRUN"); env != nullptr && *env != '\0') {
    exe = on_path(env);
    if (exe.empty()) throw UsageError(std::string("--ranks: PARLAB_MPIRUN='") + env + "' is not an executable MPI launcher");
  } else {
    for (const char* name : {"mpirun", "mpiexec"}) {
      if (exe.empty()) exe = on_path(name);
    }
    if (exe.empty()) {
      throw UsageError("--ranks: no MPI launcher found (mpirun or mpiexec on PATH; set PARLAB_MPIRUN, or install openmpi-bin)");
    }
  }
  l.command = {exe};
  std::vector<std::string> extra;
  if (const char* env = std::getenv("PARLAB_MPIRUN_ARGS"); env != nullptr) {
    std::istringstream words(env);
    for (std::string w; words >> w;) extra.push_back(w);
  }
  const auto given = [&](std::string_view option) {
    for (const auto& w : extra) {
      if (w.rfind(option, 0) == 0) return true;
    }
    return false;
  };
  const ChildOutput v = run_capturing({exe, "--version"});
  l.open_mpi = v.out.find("Open MPI") != std::string::npos || v.out.find("OpenRTE") != std::string::npos;
  if (l.open_mpi) {
    // Unbound by default: a rank's executor threads must be free to use more than one core, and
    // on a small machine the job is oversubscribed. A --bind-to in PARLAB_MPIRUN_ARGS replaces
    // this one rather than contradict it (a --map-by alone keeps it: ranks still go unbound).
    l.command.emplace_back("--oversubscribe");
    if (!given("--bind-to")) l.command.insert(l.command.end(), {"--bind-to", "none"});
    if (geteuid() == 0) l.command.emplace_back("--allow-run-as-root");
  }
  l.command.insert(l.command.end(), extra.begin(), extra.end());
  return l;
}

nlohmann::json measure_in_mpi_job(const nlohmann::json& spec, int ranks, std::size_t index) {
  nlohmann::json s = spec;
  s["id"] = index;
  s.erase("ranks");  // the job measures it as its own: ranks from its layout, not another launch
  const auto fail = [&](const std::string& why) {
    nlohmann::json e = spec;
    e["id"] = index;
    e["kind"] = "mpi";
    e["status"] = "error";
    e["reason"] = why;
    e["validation"] = {{"pass", false}, {"detail", "error: " + why}};
    return e;
  };
  MpiLauncher launcher;
  try {
    launcher = find_mpi_launcher();
  } catch (const Error& e) {
    return fail(e.what());
  }
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return fail("cannot find this parlab binary (/proc/self/exe): " + ec.message());
  std::vector<std::string> argv = launcher.command;
  argv.insert(argv.end(), {"-np", std::to_string(ranks), self, "measure-spec", s.dump()});
  const ChildOutput c = run_capturing(argv);
  // Rank 0 prints the record as the last line; the other ranks print nothing.
  std::string last;
  std::istringstream lines(c.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) last = line;
  }
  nlohmann::json rec;
  try {
    rec = nlohmann::json::parse(last);
  } catch (const nlohmann::json::exception&) {
    rec = nlohmann::json();
  }
  if (c.exit_code == 0 && (rec.is_object() || rec.is_null())) {
    if (rec.is_object()) {
      rec["id"] = index;
      rec["ranks"] = ranks;  // as planned; the record's layout fields come from the job itself
    }
    return rec;
  }
  return fail("the MPI job of " + std::to_string(ranks) + " ranks (" + launcher.describe() + ") exited with " +
              std::to_string(c.exit_code) + (c.exit_code == -1 ? ": " + c.out : std::string()));
}

}  // namespace parlab
