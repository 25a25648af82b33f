// Text for a person at a terminal: every line parlab prints fits the terminal's width ($COLUMNS,
// else the terminal's own, else 100 columns), long texts wrapped under their column rather than
// cut, so nothing is lost.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace parlab {

// The widths parlab lays text out in, and its width where nothing says one (analysis/terminal.py
// keeps the same three numbers).
inline constexpr std::size_t kNarrowest = 40, kWidest = 1000, kDefaultWidth = 100;

// $COLUMNS when it holds a width from kNarrowest to kWidest; else the width of the terminal that
// stdout, or else stderr, is (TIOCGWINSZ), clamped to those bounds; else kDefaultWidth.
std::size_t terminal_width();

// `lead` then `text` wrapped at spaces to `width` columns, each further line indented to where
// text began (to width / 2 at most): a table row whose last column is long prose. A word too long
// for that column but not for a line (a path) stays whole on a line of its own, indented less so
// that it ends within the width; a word longer than a whole line stays whole where it would
// have gone, past the width. No trailing newline.
std::string hanging(std::string_view lead, std::string_view text, std::size_t width);

}  // namespace parlab
