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
#include "child_record.hpp"
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
  SpawnOptions version_options;
  version_options.timeout_s = 60;
  const ChildOutput v = run_child({exe, "--version"}, version_options);
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

nlohmann::json measure_in_mpi_job(const nlohmann::json& spec, int ranks, std::size_t index, double timeout_s) {
  nlohmann::json s = spec;
  s.erase("ranks");  // the job measures it as its own: ranks from its layout, not another launch
  ChildJob job;
  job.fields = {{"kind", "mpi"}, {"ranks", ranks}};
  job.timeout_s = timeout_s;
  MpiLauncher launcher;
  try {
    launcher = find_mpi_launcher();
  } catch (const Error& e) {
    return failed_record(spec, index, job.fields, e.what());
  }
  const std::string self = self_executable();
  job.argv = launcher.command;
  job.argv.insert(job.argv.end(), {"-np", std::to_string(ranks), self.empty() ? "parlab" : self, "measure-spec"});
  job.what = "the MPI job of " + std::to_string(ranks) + " ranks (" + launcher.describe() + ")";
  nlohmann::json rec = measure_in_child_process(job, s, index);
  if (rec.is_object()) rec["ranks"] = ranks;  // as planned; the layout fields come from the job itself
  return rec;
}

}  // namespace parlab
