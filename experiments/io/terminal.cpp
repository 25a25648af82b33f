#include "experiments/io/terminal.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace parlab {

std::size_t terminal_width() {
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    char* end = nullptr;
    const long w = std::strtol(c, &end, 10);
    if (*end == '\0' && w >= 40 && w <= 1000) return static_cast<std::size_t>(w);
  }
  return 100;
}

std::string hanging(std::string_view lead, std::string_view text, std::size_t width) {
  const std::size_t indent = std::min(lead.size(), width / 2);
  std::string out(lead);
  std::size_t col = lead.size();
  bool first = true;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t end = std::min(text.find(' ', i), text.size());
    if (end == i) break;
    const std::string_view word = text.substr(i, end - i);
    const std::size_t need = word.size() + (first ? 0 : 1);
    if (!first && col + need > width) {
      out.push_back('\n');
      out.append(indent, ' ');
      col = indent;
    } else if (!first) {
      out += ' ';
      ++col;
    } else if (col > indent && col + word.size() > width) {  // the lead itself ran past: start below it
      out.push_back('\n');
      out.append(indent, ' ');
      col = indent;
    }
    out += word;
    col += word.size();
    first = false;
    i = end;
  }
  return out;
}

}  // namespace parlab
