#include "experiments/machine/interpreters.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <sstream>

#include "experiments/wiring/python_part.hpp"
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiments/io/data_dir.hpp"
#include "experiments/io/child_process.hpp"
#include "experiments/io/terminal.hpp"


namespace parlab {
namespace {

using nlohmann::json;

// How long `parlab interpreter-info` may take: it starts an interpreter and answers.
constexpr double kInfoTimeoutSeconds = 60;

std::vector<std::string> other_binaries() {
  const char* env = std::getenv("PARLAB_INTERPRETERS");
  if (env == nullptr) return default_interpreter_binaries();
  std::vector<std::string> paths;
  std::stringstream ss(env);
  for (std::string p; std::getline(ss, p, ':');) {
    if (!p.empty()) paths.push_back(p);
  }
  return paths;
}

// The modes one interpreter gives: a free-threaded one runs with the GIL disabled and, for the
// comparison, re-enabled; a GIL build has the one mode.
void add_modes(std::vector<InterpreterMode>& out, InterpreterMode m, const std::string& gil_host) {
  if (m.python_build == "free-threaded") {
    m.python_gil = "0";
    out.push_back(m);
    m.python_gil = "1";
    if (m.parlab.empty()) m.parlab = gil_host;  // this process cannot re-enable its own GIL
    out.push_back(m);
  } else {
    out.push_back(m);
  }
}

std::vector<InterpreterMode> discover() {
  std::vector<InterpreterMode> out;
  const std::string self = self_executable();
  if (const auto f = python_interpreter_fields()) {
    InterpreterMode m;
    m.interpreter = f->interpreter;
    m.python_build = f->python_build;
    add_modes(out, m, self);
    // This process's own free-threaded mode follows its environment's PYTHON_GIL.
    if (m.python_build == "free-threaded") out.front().python_gil = "";
  }
  std::error_code ec;
  for (const std::string& path : other_binaries()) {
    InterpreterMode m;
    m.parlab = path;
    m.interpreter = path;
    if (!self.empty() && std::filesystem::equivalent(path, self, ec)) continue;
    if (!std::filesystem::exists(path)) {
      m.available = false;
      m.reason = "no such file (build a free-threaded CPython with scripts/build-python-ft.sh, then the release-ft "
                 "preset; or list binaries in PARLAB_INTERPRETERS)";
      out.push_back(m);
      continue;
    }
    SpawnOptions info_options;
    info_options.timeout_s = kInfoTimeoutSeconds;
    const ChildOutput r = run_child({path, "interpreter-info"}, info_options);
    json info;
    try {
      info = json::parse(r.out);
    } catch (const json::exception&) {
    }
    if (r.exit_code != 0 || r.timed_out || !info.is_object()) {
      m.available = false;
      m.reason = path + " interpreter-info " +
                 (r.exit_code == 0 && !r.timed_out ? std::string("printed no JSON object") : r.describe_end());
      out.push_back(m);
      continue;
    }
    if (!info.value("available", false)) {
      m.available = false;
      m.reason = path + ": " + info.value("reason", std::string("no Python part"));
      out.push_back(m);
      continue;
    }
    m.interpreter = info.value("interpreter", path);
    m.python_build = info.value("python_build", std::string());
    // Two binaries of the same interpreter would measure the same thing twice.
    bool seen = false;
    for (const auto& o : out) seen = seen || (o.available && o.interpreter == m.interpreter);
    if (seen) continue;
    add_modes(out, m, path);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gil_env(const std::string& python_gil) {
  if (python_gil.empty()) return {};  // the inherited PYTHON_GIL
  return {{"PYTHON_GIL", python_gil}};
}


std::string InterpreterMode::describe() const {
  std::string s = interpreter;
  if (!python_gil.empty()) s += ", PYTHON_GIL=" + python_gil;
  // An interpreter not yet asked (its binary missing) is named by the binary's path alone.
  if (parlab.empty()) {
    s += " (this process)";
  } else if (parlab != interpreter) {
    s += " (" + parlab + ")";
  }
  return s;
}

const std::vector<InterpreterMode>& interpreter_modes() {
  static const std::vector<InterpreterMode> modes = discover();
  return modes;
}

const InterpreterMode* find_interpreter_mode(const std::string& interpreter, const std::string& python_gil) {
  for (const auto& m : interpreter_modes()) {
    if (m.available && m.interpreter == interpreter && m.python_gil == python_gil) return &m;
  }
  return nullptr;
}

int cmd_interpreter_info(std::ostream& out) {
  json j;
  if (const auto f = python_interpreter_fields()) {
    j = {{"available", true}, {"interpreter", f->interpreter}, {"python_build", f->python_build}};
  } else {
    j = {{"available", false}, {"reason", python_context_or_reason()}};
  }
  out << j.dump() << "\n";
  return 0;
}

void list_interpreters(std::ostream& out, std::size_t width) {
  out << hanging("", "interpreters (Python records are measured in each; PARLAB_INTERPRETERS lists other builds):",
                 width)
      << "\n";
  if (interpreter_modes().empty()) out << column_text("  none: ", python_context_or_reason(), width) << "\n";
  for (const auto& m : interpreter_modes()) {
    std::string name = m.interpreter;
    if (!m.python_gil.empty()) name += m.python_gil == "0" ? " (GIL disabled)" : " (PYTHON_GIL=1)";
    // A long name (another build's path) gets a line of its own, its state below it.
    if (name.size() >= 40) out << "  " << name << "\n";
    const std::string lead = "  " + (name.size() < 40 ? name + std::string(40 - name.size(), ' ') : std::string(40, ' ')) +
                             (m.available ? "available    " : "unavailable  ");
    out << column_text(lead, m.available ? (m.parlab.empty() ? std::string("this process") : m.parlab) : m.reason,
                       width)
        << "\n";
  }
}

}  // namespace parlab
