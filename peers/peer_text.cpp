#include "peer_text.hpp"

#include <filesystem>

namespace parlab::peer_text {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find('\n', start);
    std::string_view l = text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    lines.push_back(l);
    if (at == std::string_view::npos) return lines;
    start = at + 1;
  }
}

std::string excerpt(std::string_view text, std::size_t at_most) {
  std::string s;
  for (char c : text.substr(0, at_most)) s += (c == '\n' ? '|' : (c >= 32 && c < 127) ? c : '?');
  if (text.size() > at_most) s += "...";
  return s;
}

std::string stderr_note(const std::string& tail) {
  std::vector<std::string_view> lines;
  for (std::string_view l : lines_of(tail)) {
    if (l.find_first_not_of(" \t") != std::string_view::npos) lines.push_back(l);
  }
  if (lines.empty()) return "; nothing on its stderr";
  std::string s;
  for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) {
    s += (s.empty() ? "" : " | ") + excerpt(lines[i], 300);
  }
  return "; its stderr ends: " + s;
}

std::string command_text(const std::vector<std::pair<std::string, std::string>>& shown,
                         const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& [name, value] : shown) cmd += name + '=' + value + ' ';
  cmd += std::filesystem::path(argv.at(0)).filename().string();
  for (std::size_t i = 1; i < argv.size(); ++i) cmd += ' ' + argv[i];
  return cmd;
}

}  // namespace parlab::peer_text
