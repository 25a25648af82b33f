#include "experiments/run/rank_sweep.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>
#include <vector>

#include "experiments/io/child_process.hpp"
#include "experiments/run/child_record.hpp"
#include "core/error.hpp"
#include "core/workload.hpp"


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

// The hostfile of `parlab run --hostfile` (absolute); empty: none given.
std::string& chosen_hostfile() {
  static std::string path;
  return path;
}

// The hosts of `hosts` that the launcher's messages name as a place: Open MPI says "on node H",
// "Remote daemon ... on node H", "node: H", and an rsh/ssh agent "connect to host H". The local
// "[H:pid]" prefix of every Open MPI line names nothing at fault, so bare mentions do not count.
std::vector<std::string> hosts_named(const std::vector<std::string>& hosts, const std::string& all) {
  // Lines that name the reporting side, not the lost one ("HNP daemon : ... on node sim0" beside
  // "Remote daemon: ... on node sim1"; "Local host: sim0") are left out.
  std::string text;
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("HNP daemon") == std::string::npos && line.find("Local host") == std::string::npos) text += line + "\n";
  }
  std::vector<std::string> named;
  for (const auto& h : hosts) {
    std::string quoted;
    for (char ch : h) {
      if (std::string("\\^$.|?*+()[]{}").find(ch) != std::string::npos) quoted += '\\';
      quoted += ch;
    }
    const std::regex place("(node|host|Node|Host|hostname)[: ]+\"?" + quoted + "(\\b|$)");
    if (std::regex_search(text, place)) named.push_back(h);
  }
  return named;
}

// What Open MPI's messages say happened to the host at fault, in a few words (" (...)"), or
// nothing where they match none of the known faults.
std::string lost_how(const std::string& err) {
  const std::pair<const char*, const char*> kinds[] = {
      {"lost communication with a remote daemon", "its daemon was lost mid-job"},
      {"No route to host", "unreachable: its daemon could not be started"},
      {"unable to reliably start one or more daemons", "unreachable: its daemon could not be started"},
      {"Peer host", "the connection to it was lost mid-job"},
  };
  for (const auto& [says, how] : kinds) {
    if (err.find(says) != std::string::npos) return std::string(" (") + how + ")";
  }
  return {};
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

}  // namespace

std::vector<std::string> hostfile_hosts(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--hostfile: cannot read '" + path + "'");
  std::vector<std::string> hosts;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (words >> host) hosts.push_back(host);
  }
  if (hosts.empty()) throw UsageError("--hostfile: '" + path + "' names no host");
  return hosts;
}

void set_mpi_hostfile(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  const std::string p = ec ? path : abs.string();
  hostfile_hosts(p);  // readable, and names a host
  chosen_hostfile() = p;
}

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
  // Read by every rank of the job (mpi/workloads.cpp); a typo is the user's, said before any job.
  if (const char* scheme = std::getenv("PARLAB_PI_SCHEME");
      scheme != nullptr && *scheme != '\0' && std::string_view(scheme) != "one-sided" &&
      std::string_view(scheme) != "two-sided") {
    throw UsageError(std::string("--ranks: PARLAB_PI_SCHEME='") + scheme + "': expected one-sided or two-sided");
  }
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
  // A hostfile from --hostfile, or one already in PARLAB_MPIRUN_ARGS (its hosts name faults).
  for (std::size_t i = 0; i < extra.size(); ++i) {
    for (const char* option : {"--hostfile", "-hostfile", "--machinefile", "-machinefile", "-f"}) {
      if (extra[i] == option && i + 1 < extra.size()) l.hostfile = extra[i + 1];
    }
  }
  if (!chosen_hostfile().empty()) {
    if (!l.hostfile.empty() && l.hostfile != chosen_hostfile()) {
      throw UsageError("--hostfile " + chosen_hostfile() + " and PARLAB_MPIRUN_ARGS' hostfile " + l.hostfile +
                       " disagree: give one");
    }
    if (l.hostfile.empty()) extra.insert(extra.begin(), {"--hostfile", chosen_hostfile()});
    l.hostfile = chosen_hostfile();
  }
  if (!l.hostfile.empty()) {
    l.hosts = hostfile_hosts(l.hostfile);
    bool keepalive_given = false;
    for (const auto& w : extra) keepalive_given = keepalive_given || w.find("oob_tcp_keepalive") != std::string::npos;
    if (l.open_mpi && !keepalive_given) {
      // Open MPI's daemons find a silent peer by TCP keepalive on their control connection, by
      // default after 300 s idle + 9 probes x 20 s. These (2 s idle, 3 probes 1 s apart) end a
      // job that lost a host within ~5 s, well inside --timeout; the probes are a few bytes.
      l.command.insert(l.command.end(), {"--mca", "oob_tcp_keepalive_time", "2", "--mca", "oob_tcp_keepalive_intvl",
                                         "1", "--mca", "oob_tcp_keepalive_probes", "3"});
    }
  }
  l.command.insert(l.command.end(), extra.begin(), extra.end());
  return l;
}

nlohmann::json measure_in_mpi_job(const nlohmann::json& spec, int ranks, std::size_t index, double timeout_s) {
  nlohmann::json s = spec;
  s.erase("ranks");  // the job measures it as its own: ranks from its layout, not another launch
  ChildJob job;
  job.fields = {{"kind", to_string(BackendKind::mpi)}, {"ranks", ranks}};
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
  if (!launcher.hosts.empty()) {
    // Across hosts the reason names the host at fault where the launcher's messages name one
    // (a daemon lost or not started), else every host of the job (a job stopped by --timeout).
    job.explain = [hosts = launcher.hosts](const std::string& err) {
      const auto named = hosts_named(hosts, err);
      if (!named.empty()) {
        return "; at fault: host" + std::string(named.size() > 1 ? "s " : " ") + joined(named) + lost_how(err);
      }
      return "; across hosts " + joined(hosts) + " (the launcher named none of them)";
    };
  }
  nlohmann::json rec = measure_in_child_process(job, s, index);
  if (rec.is_object()) rec["ranks"] = ranks;  // as planned; the layout fields come from the job itself
  return rec;
}

}  // namespace parlab
