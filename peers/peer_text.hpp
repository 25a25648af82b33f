#pragma once
// Reading what an external peer's binary wrote: the text helpers every peer's parser shares
// (BabelStream's CSV, likwid-bench's report), so a reason quotes a binary's output the same way
// whichever peer it was.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parlab::peer_text {

// The lines of `text`, each without its trailing '\r', spaces and tabs; a final line without a
// newline counts (an empty text is one empty line).
std::vector<std::string_view> lines_of(std::string_view text);

// A short, printable excerpt of what a binary wrote, for a reason: newlines as '|', other
// unprintable bytes as '?', "..." where it was cut at `at_most` characters.
std::string excerpt(std::string_view text, std::size_t at_most = 160);

// "; its stderr ends: <the last three non-blank lines>" (or "; nothing on its stderr"), appended
// to a failed invocation's reason.
std::string stderr_note(const std::string& tail);

// The command as messages show it: the `shown` environment settings (NAME=value), the binary's
// file name (not its path) and its arguments. PRECONDITION: argv is not empty.
std::string command_text(const std::vector<std::pair<std::string, std::string>>& shown,
                         const std::vector<std::string>& argv);

}  // namespace parlab::peer_text
