// Paths of this machine taken out of a results document (portable_paths.hpp).
#include "experiments/io/portable_paths.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <system_error>

namespace parlab {

namespace {

// Where a path names the same thing on every machine (the system's own files): kept whole, since
// "/usr/bin/mpirun" says which launcher ran where "…/mpirun" would not.
constexpr std::array<std::string_view, 10> kSystemPrefixes = {"usr", "bin", "sbin", "lib", "lib64",
                                                               "etc", "opt", "proc", "sys", "dev"};

// A path of this machine as a root: absolute, lexically normal, no trailing '/'; empty for none or "/".
std::string as_root(const std::filesystem::path& p) {
  if (p.empty()) return {};
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(p, ec);
  if (ec) return {};
  abs = abs.lexically_normal();
  std::string s = abs.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s == "/" ? std::string() : s;
}

// A path starts after these (or at the start of the text): "at /x/y", "(/x/y)", "PATH=/x/y",
// "a:/x/y", "'/x/y'". After anything else a '/' is a unit's or a ratio's ("GB/s", "1/2").
bool opens_path(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == '=' || c == ':' || c == '"' ||
         c == '\'';
}

bool ends_path(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ')' || c == ']' || c == ',' || c == ';' ||
         c == ':' || c == '"' || c == '\'';
}

// `path` under `root` (component-wise: /rootx is not under /root): the rest after it, "" for the
// root itself; nullopt when not under it.
std::optional<std::string_view> under(std::string_view path, std::string_view root) {
  if (root.empty() || path.substr(0, root.size()) != root) return std::nullopt;
  if (path.size() == root.size()) return std::string_view();
  if (path[root.size()] != '/') return std::nullopt;
  return path.substr(root.size() + 1);
}

// The portable form of one path token (starting with one '/'), or nullopt to keep it as it is.
std::optional<std::string> portable_path(std::string_view path, const PathRoots& roots) {
  std::string_view trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.remove_suffix(1);
  std::string_view first, last;
  int components = 0;
  for (std::size_t i = 0; i < trimmed.size();) {
    const std::size_t j = std::min(trimmed.find('/', i), trimmed.size());
    if (j > i) {
      (components++ == 0 ? first : last) = trimmed.substr(i, j - i);
    }
    i = j + 1;
  }
  if (components < 2) return std::nullopt;  // "/s", "/": not a path of anything
  if (const auto rest = under(trimmed, roots.results)) return rest->empty() ? std::string(".") : std::string(*rest);
  if (const auto rest = under(trimmed, roots.home)) return rest->empty() ? std::string("~") : "~/" + std::string(*rest);
  for (std::string_view system : kSystemPrefixes) {
    if (first == system) return std::nullopt;
  }
  return "\u2026/" + std::string(last);
}

}  // namespace

PathRoots PathRoots::of_run(const std::filesystem::path& run_dir) {
  PathRoots r;
  const std::string dir = as_root(run_dir);
  if (!dir.empty()) r.results = as_root(std::filesystem::path(dir).parent_path().parent_path());
  if (const char* home = std::getenv("HOME"); home != nullptr) r.home = as_root(home);
  return r;
}

std::string portable_text(std::string_view text, const PathRoots& roots, int& replaced) {
  std::string out;
  std::size_t copied = 0;  // text[0, copied) is in `out`
  for (std::size_t i = 0; i < text.size(); ++i) {
    // One '/' opens a path; "//" is a URL's host ("https://...") or a comment, not a file.
    if (text[i] != '/' || (i > 0 && !opens_path(text[i - 1])) || (i + 1 < text.size() && text[i + 1] == '/')) {
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !ends_path(text[end])) ++end;
    while (end > i + 1 && text[end - 1] == '.') --end;  // "... at /x/y." ends a sentence
    if (const auto p = portable_path(text.substr(i, end - i), roots)) {
      out.append(text.substr(copied, i - copied));
      out += *p;
      copied = end;
      ++replaced;
    }
    i = end - 1;  // past the token, whether kept or replaced (end > i: text[i] is '/')
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

int make_portable(nlohmann::json& doc, const PathRoots& roots) {
  int replaced = 0;
  if (doc.is_string()) {
    const std::string& s = doc.get_ref<const std::string&>();
    if (s.find('/') != std::string::npos) {
      int here = 0;
      std::string p = portable_text(s, roots, here);
      if (here > 0) {
        doc = std::move(p);
        replaced += here;
      }
    }
  } else if (doc.is_structured()) {
    for (auto& v : doc) replaced += make_portable(v, roots);
  }
  return replaced;
}

}  // namespace parlab
