#include "experiments/run/rank_sweep.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <vector>

#include "experiments/io/child_process.hpp"
#include "experiments/run/child_record.hpp"
#include "core/error.hpp"
#include "core/workload.hpp"
#include "experiments/io/interrupt.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/text.hpp"


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

// A hostfile is a few lines per host; a megabyte is far beyond any real one.
constexpr std::size_t kMaxHostfileBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxHostNameBytes = 253;  // RFC 1035's longest name

// A hostfile line's host: a DNS name, an IPv4 or an IPv6 address (RFC 1123's characters, plus
// '_' and ':'), at most 253 bytes.
bool is_host_name(const std::string& h) {
  if (h.empty() || h.size() > kMaxHostNameBytes) return false;
  for (const char c : h) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_' || c == ':';
    if (!ok) return false;
  }
  return true;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `text` names `host` as Open MPI names the host of a fault: "node HOST", "host: HOST",
// "hostname \"HOST\"" (any of node, host, Node, Host, hostname, then ':', ' ' or '"', then the
// host ending a word). Plain searches, linear in the text: no regular expression is built from a
// name the user gave.
bool names_host(const std::string& text, const std::string& host) {
  for (std::size_t at = text.find(host); at != std::string::npos; at = text.find(host, at + 1)) {
    const std::size_t end = at + host.size();
    if (end < text.size() && word_char(text[end]) && word_char(host.back())) continue;
    std::size_t k = at;
    while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == ':' || text[k - 1] == '"')) --k;
    if (k == at || text.substr(k, at - k).find_first_of(" :") == std::string::npos) continue;
    for (const std::string_view word : {"hostname", "node", "host", "Node", "Host"}) {
      if (k >= word.size() && std::string_view(text).substr(k - word.size(), word.size()) == word) return true;
    }
  }
  return false;
}

}  // namespace

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
    if (names_host(text, h)) named.push_back(h);
  }
  return named;
}

namespace {

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

// What `exe --version` said about the launcher: whether it is Open MPI's, or why it cannot be used.
struct LauncherAnswer {
  bool open_mpi = false;
  std::string fault;  // non-empty: the launcher did not answer in time
};

// `exe --version`, asked once per process and executable: a run asks before its plan starts and
// again for each MPI job, and a launcher that hangs must cost its limit once, not per job.
LauncherAnswer ask_launcher(const std::string& exe, double timeout_s) {
  static std::mutex lock;
  static std::map<std::string, LauncherAnswer> answers;
  {
    const std::lock_guard<std::mutex> held(lock);
    if (const auto it = answers.find(exe); it != answers.end()) return it->second;
  }
  SpawnOptions o;
  // A real launcher answers in well under a second; a run's --timeout bounds it further.
  o.timeout_s = timeout_s > 0 ? std::min(timeout_s, kLauncherProbeSeconds) : kLauncherProbeSeconds;
  o.term_grace_s = 1;
  o.interrupt_grace_s = 1;  // nothing of a run is at stake yet: an interruption ends it promptly
  o.own_process_group = true;  // the launcher's own children end with it
  o.after_exit_s = 1;
  o.max_stdout_bytes = std::size_t{1} << 20;
  o.interrupted = &g_interrupted;
  const ChildOutput v = run_child({exe, "--version"}, o);
  // An interruption is no answer: not kept, so a resumed run asks again.
  if (v.interrupted || g_interrupted.load()) throw LauncherProbeInterrupted{};
  LauncherAnswer a;
  if (v.timed_out) {
    std::ostringstream os;
    os << "--ranks: the MPI launcher '" << valid_utf8(exe) << "' did not answer '--version' within " << o.timeout_s
       << " s and was stopped (check PARLAB_MPIRUN, or that the launcher works)";
    a.fault = os.str();
  } else {
    a.open_mpi = v.out.find("Open MPI") != std::string::npos || v.out.find("OpenRTE") != std::string::npos;
  }
  const std::lock_guard<std::mutex> held(lock);
  answers[exe] = a;
  return a;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

}  // namespace

std::vector<std::string> hostfile_hosts(const std::string& path) {
  return parse_hostfile(read_regular_file(path, "--hostfile", kMaxHostfileBytes), path);
}

std::vector<std::string> parse_hostfile(const std::string& text, const std::string& path) {
  // Open MPI's hostfile grammar, the part parlab passes on: `HOST [slots=N] [max_slots=N]`, and
  // `#` comments. A line outside it is the user's to fix (exit 2), not an mpirun error record.
  std::vector<std::string> hosts;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::string where = "--hostfile '" + valid_utf8(path) + "', line " + std::to_string(number);
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;
    if (!is_host_name(host)) {
      throw UsageError(where + ": '" + quoted_value(host, 80) + "' is not a host name (letters, digits, '.', '-', '_', ':' up to 253)");
    }
    for (std::string option; words >> option;) {
      const auto eq = option.find('=');
      const std::string key = option.substr(0, eq);
      if (eq == std::string::npos || (key != "slots" && key != "max_slots" && key != "max-slots")) {
        throw UsageError(where + ": '" + quoted_value(option, 80) + "' is not slots=N or max_slots=N");
      }
      const std::string value = option.substr(eq + 1);
      if (value.empty() || value.size() > 6 || value.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(value) < 1) {
        throw UsageError(where + ": " + key + " must be a whole number from 1, got '" + quoted_value(value, 40) + "'");
      }
    }
    hosts.push_back(host);
  }
  if (hosts.empty()) throw UsageError("--hostfile: '" + valid_utf8(path) + "' names no host");
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

MpiLauncher find_mpi_launcher(double timeout_s) {
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
  const LauncherAnswer answer = ask_launcher(exe, timeout_s);
  if (!answer.fault.empty()) throw UsageError(answer.fault);
  l.open_mpi = answer.open_mpi;
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
      // Open MPI's daemons find a silent daemon by TCP keepalive on their control connection, by
      // default after 300 s idle + 9 probes x 20 s. These (2 s idle, 3 probes 1 s apart) end a
      // job that lost a host within ~5 s, well inside --timeout; the probes are a few bytes.
      l.command.insert(l.command.end(), {"--mca", "oob_tcp_keepalive_time", "2", "--mca", "oob_tcp_keepalive_intvl",
                                         "1", "--mca", "oob_tcp_keepalive_probes", "3"});
    }
  }
  l.command.insert(l.command.end(), extra.begin(), extra.end());
  return l;
}

std::optional<Record> measure_in_mpi_job(const MeasurementSpec& spec, int ranks, std::size_t index, double timeout_s) {
  ChildJob job;
  job.base.spec = spec;
  job.base.spec.ranks = 0;  // the job measures it as its own: ranks from its layout, not another launch
  job.base.id = index;
  job.base.kind = to_string(BackendKind::mpi);
  job.timeout_s = timeout_s;
  job.own_process_group = true;  // the launcher's daemons and ranks end with it
  Record planned = job.base;
  planned.spec.ranks = ranks;
  MpiLauncher launcher;
  try {
    launcher = find_mpi_launcher(timeout_s);
  } catch (const LauncherProbeInterrupted&) {
    return std::nullopt;  // this process's own interruption
  } catch (const Error& e) {
    return failed_record(planned, e.what());
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
  std::optional<Record> rec = measure_in_child_process(job);
  if (rec) rec->spec.ranks = ranks;  // as planned; the layout fields come from the job itself
  return rec;
}

}  // namespace parlab
