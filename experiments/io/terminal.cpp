#include "experiments/io/terminal.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>

namespace parlab {

std::size_t terminal_width() {
  // $COLUMNS when it holds a width in bounds (a script's choice wins); else the terminal's own
  // width, asked of stdout and then stderr (an interactive shell does not export COLUMNS, so
  // without asking, an 80-column terminal got 100-column lines); else 100. One clamp for both:
  // analysis/terminal.py applies the same rule, so the C++ and Python commands agree.
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    char* end = nullptr;
    const long w = std::strtol(c, &end, 10);
    if (*end == '\0' && w >= static_cast<long>(kNarrowest) && w <= static_cast<long>(kWidest)) {
      return static_cast<std::size_t>(w);
    }
  }
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    winsize ws{};
    if (::isatty(fd) == 1 && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
      return std::clamp<std::size_t>(ws.ws_col, kNarrowest, kWidest);
    }
  }
  return kDefaultWidth;
}

std::string column_text(std::string_view lead, std::string_view text, std::size_t width, std::size_t max_lines) {
  // Beside the lead where the column is wide enough for every word (a path included), else below.
  std::size_t longest = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    longest = std::max(longest, end - at);
    at = end + 1;
  }
  const bool beside = lead.size() + std::max(kListNarrowest, longest) <= width;
  const std::size_t column = beside ? lead.size() : kListBelowIndent;
  const std::size_t room = width - column;  // width >= kNarrowest > kListBelowIndent + kListNarrowest
  std::vector<std::string> lines;
  std::string line;
  const std::string wrapped = hanging("", text, room);
  for (std::size_t at = 0; at <= wrapped.size();) {
    const std::size_t end = std::min(wrapped.find('\n', at), wrapped.size());
    lines.emplace_back(wrapped.substr(at, end - at));
    at = end + 1;
  }
  if (max_lines > 0 && lines.size() > max_lines) {
    lines.resize(max_lines);
    std::string& last = lines.back();
    static constexpr std::string_view kMore = " ...";
    // Whole words only: drop words until the mark fits the column.
    while (!last.empty() && last.size() + kMore.size() > room) {
      const std::size_t space = last.rfind(' ');
      last.resize(space == std::string::npos ? 0 : space);
    }
    last += last.empty() ? kMore.substr(1) : kMore;
  }
  std::string out(beside ? lead : lead.substr(0, lead.find_last_not_of(' ') + 1));
  const std::string pad(column, ' ');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0 || !beside) out += (i > 0 || !out.empty() ? "\n" : "") + pad;  // a blank lead: no blank line
    out += lines[i];
  }
  return out;
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
    // A word too long for the indented column but not for a line (a path) starts a line of its
    // own further left, as far as it needs to end within the width, so it stays whole and
    // copyable and still fits. A word wider than any line keeps the column: it cannot fit anyway.
    const std::size_t at = indent + word.size() > width && word.size() <= width ? width - word.size() : indent;
    if (!first && col + need > width) {
      out.push_back('\n');
      out.append(at, ' ');
      col = at;
    } else if (!first) {
      out += ' ';
      ++col;
    } else if (col > at && col + word.size() > width) {  // the lead itself ran past: start below it
      out.push_back('\n');
      out.append(at, ' ');
      col = at;
    }
    out += word;
    col += word.size();
    first = false;
    i = end;
  }
  return out;
}

}  // namespace parlab
