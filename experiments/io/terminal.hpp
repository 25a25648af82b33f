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

// The narrowest column a listing's last column is wrapped in; where the lead leaves less, the
// text starts on the next line, under kListBelowIndent spaces.
inline constexpr std::size_t kListNarrowest = 24, kListBelowIndent = 6;

// A listing's row (`parlab list`): `lead` then `text` wrapped so that every line of it starts in
// the column where it began, however wide the lead (hanging() moves it left of a lead wider than
// half the line). Where fewer than kListNarrowest columns are left, or too few for its longest
// word (a path), text starts below the lead.
// `max_lines` > 0 keeps that many lines of text, the last ending in " ..." where some were left
// out. No trailing newline.
std::string column_text(std::string_view lead, std::string_view text, std::size_t width, std::size_t max_lines = 0);

}  // namespace parlab
