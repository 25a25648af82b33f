#include "rank_sweep.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"

extern char** environ;

namespace parlab {

namespace {

struct Child {
  int exit_code = -1;  // -1: could not start
  std::string out;     // stdout (stderr passes through to the user)
};

// posix_spawnp, not fork: this process may run threads (a thread pool, Python).
Child run(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (auto& s : copy) args.push_back(s.data());
  args.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) throw FailureError(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  Child c;
  if (rc != 0) {
    close(fds[0]);
    c.out = std::strerror(rc);
    return c;
  }
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      c.out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return c;
}

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
  const Child v = run({exe, "--version"});
  l.open_mpi = v.out.find("Open MPI") != std::string::npos || v.out.find("OpenRTE") != std::string::npos;
  if (l.open_mpi) {
    l.command.insert(l.command.end(), {"--oversubscribe", "--bind-to", "none"});
    if (geteuid() == 0) l.command.emplace_back("--allow-run-as-root");
  }
  if (const char* extra = std::getenv("PARLAB_MPIRUN_ARGS"); extra != nullptr) {
    std::istringstream words(extra);
    for (std::string w; words >> w;) l.command.push_back(w);
  }
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
  const Child c = run(argv);
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
