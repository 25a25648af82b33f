// Where a run is written: a run directory is never shared, whatever starts at the same
// second, and nothing a host name holds puts it outside --out. The terminal width rule too.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiments/io/files.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/run/runner.hpp"
#include "fresh_dir.hpp"

namespace fs = std::filesystem;
using parlab::host_slug;
using parlab::make_run_dir;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("parlab-run-dirs-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(RunDir, SameStampTwiceGivesTwoDirectories) {
  const fs::path parent = fresh_dir("twice");
  const fs::path a = make_run_dir(parent, "20260101T000000Z");
  const fs::path b = make_run_dir(parent, "20260101T000000Z");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.filename(), "20260101T000000Z");
  EXPECT_EQ(b.filename(), "20260101T000000Z-1");
  EXPECT_TRUE(fs::is_directory(a) && fs::is_directory(b));
  fs::remove_all(parent);
}

// Many writers at once with one stamp, as runs started in the same second: each gets its own.
TEST(RunDir, ConcurrentRunsOfOneSecondNeverShare) {
  const fs::path parent = fresh_dir("concurrent");
  constexpr int kRuns = 16;
  std::vector<fs::path> got(kRuns);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRuns; ++i) {
    threads.emplace_back([&, i] { got[static_cast<std::size_t>(i)] = make_run_dir(parent, "20260101T000000Z"); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(std::set<fs::path>(got.begin(), got.end()).size(), static_cast<std::size_t>(kRuns));
  fs::remove_all(parent);
}

TEST(RunDir, AnExistingFileOfTheNameIsSkippedNotReused) {
  const fs::path parent = fresh_dir("file");
  { std::ofstream(parent / "20260101T000000Z") << "not a run"; }
  EXPECT_EQ(make_run_dir(parent, "20260101T000000Z").filename(), "20260101T000000Z-1");
  fs::remove_all(parent);
}

TEST(RunDir, AnUnwritableParentIsAUsageErrorNamingIt) {
  EXPECT_THROW(make_run_dir("/proc/parlab-no-such-parent", "20260101T000000Z"), parlab::UsageError);
}

TEST(HostSlug, KeepsOrdinaryNames) {
  EXPECT_EQ(host_slug("h200-node-16core"), "h200-node-16core");
  EXPECT_EQ(host_slug("node.cluster_1"), "node.cluster_1");
}

TEST(HostSlug, NothingLeavesItsFolder) {
  for (const std::string name : {"..", ".", "...", "", "a/b", "../../etc", "/abs", "x\ny", "a b", "\x1b]0;t\x07"}) {
    const std::string s = host_slug(name);
    EXPECT_FALSE(s.empty()) << name;
    EXPECT_EQ(s.find('/'), std::string::npos) << name;
    EXPECT_NE(s.find_first_not_of('.'), std::string::npos) << name;  // never "." or ".."
    for (const char c : s) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') << name;
    EXPECT_EQ((fs::path("out") / s).lexically_normal().begin()->string(), "out") << name;
  }
  EXPECT_LE(host_slug(std::string(500, 'h')).size(), 64u);
}

TEST(TerminalWidth, ColumnsWithinBoundsWinsElseTheDefault) {
  const char* saved = std::getenv("COLUMNS");
  const std::string keep = saved ? saved : "";
  ::setenv("COLUMNS", "80", 1);
  EXPECT_EQ(parlab::terminal_width(), 80u);
  // Out of bounds or not a number: no width from COLUMNS; a test's stdout is no terminal, so 100.
  for (const char* bad : {"5", "39", "1001", "80x", "", "-80"}) {
    ::setenv("COLUMNS", bad, 1);
    if (::isatty(STDOUT_FILENO) == 0 && ::isatty(STDERR_FILENO) == 0) {
      EXPECT_EQ(parlab::terminal_width(), 100u) << bad;
    }
  }
  if (saved != nullptr) {
    ::setenv("COLUMNS", keep.c_str(), 1);
  } else {
    ::unsetenv("COLUMNS");
  }
}

// results.csv's text cells: a name that a spreadsheet would run as a formula is written inert.
// A hanging column keeps every line within the width; a path too long for the column starts its
// own line further left and stays whole (it is copied, not read); only a word wider than a whole
// line runs past it, where it would have gone.
TEST(Hanging, LongPathsStayWholeAndWithinTheWidth) {
  const std::string path = "/work/some-checkout/build/release-ft/experiments/parlab";  // 55 columns
  const std::string text = parlab::hanging(std::string(40, ' '), "found at " + path + " and " + path, 80);
  std::size_t lines = 0;
  for (std::size_t at = 0, end; at <= text.size(); at = end + 1, ++lines) {
    end = std::min(text.find('\n', at), text.size());
    EXPECT_LE(end - at, 80u) << text.substr(at, end - at);
  }
  EXPECT_GE(lines, 3u);
  EXPECT_NE(text.find(path), std::string::npos) << text;
  // Wider than the whole width: whole, under the column as before (no indent could make it fit),
  // and after the lead where it is the first word.
  const std::string wide(90, 'x');
  EXPECT_NE(parlab::hanging("  a  ", "b " + wide, 80).find("\n     " + wide), std::string::npos);
  EXPECT_EQ(parlab::hanging("lead: ", wide, 80), "lead: " + wide);
  // Ordinary prose keeps its indent.
  EXPECT_EQ(parlab::hanging("ab", "cc dd", 4), "abcc\n  dd");
}

// `parlab list` at 80 columns: a description that starts at column 46 wraps to column 46, not to
// column 40 where hanging() would move it; it starts below a lead that leaves too little room;
// it is cut to its first lines, whole words and a " ..." mark, where the listing asks.
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; at <= text.size(); at = end + 1) {
    end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
  }
  return lines;
}

std::string words_of(const std::string& text) {
  std::istringstream in(text);
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

TEST(ColumnText, EveryLineKeepsItsColumn) {
  const std::string lead = "  py-cupy                 python unavailable  ";  // 46 columns, as `list` pads it
  ASSERT_EQ(lead.size(), 46u);
  const std::string text =
      "cupy not importable by the embedded interpreter (CuPy): No module named 'cupy', "
      "and so on for several more lines of reason than one line holds";
  for (const std::size_t width : {std::size_t{80}, std::size_t{72}, std::size_t{100}}) {
    const auto lines = lines_of(parlab::column_text(lead, text, width));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0].substr(0, lead.size()), lead);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      EXPECT_LE(lines[i].size(), width) << lines[i];
      if (i > 0) {
        EXPECT_EQ(lines[i].find_first_not_of(' '), lead.size()) << "line " << i << ": " << lines[i];
      }
    }
    EXPECT_EQ(words_of(parlab::column_text(lead, text, width)), words_of(lead + text));
  }
  // A lead that leaves fewer than kListNarrowest columns: the text starts below it, indented.
  const std::string wide(70, 'x');
  EXPECT_EQ(parlab::column_text(wide + "  ", "a b c", 80), wide + "\n" + std::string(parlab::kListBelowIndent, ' ') + "a b c");
  // A word too long for the column beside the lead (a path) moves the whole text below it, so
  // every line still starts in one column and fits.
  const std::string path = "scripts/build-python-ft.sh,";
  const std::string low = parlab::column_text(std::string(55, ' '), "build with " + path + " then", 80);
  EXPECT_EQ(low, std::string(parlab::kListBelowIndent, ' ') + "build with " + path + " then") << low;
  EXPECT_EQ(parlab::column_text("  lead" + std::string(10, ' '), "a " + path, 40),
            "  lead\n" + std::string(parlab::kListBelowIndent, ' ') + "a " + path);
  // Edge texts: none, one word.
  EXPECT_EQ(parlab::column_text("ab ", "", 80), "ab ");
  EXPECT_EQ(parlab::column_text("ab ", "c", 80), "ab c");
}

TEST(ColumnText, CutToItsFirstLinesWithAMark) {
  const std::string lead(18, ' ');
  std::string text;
  for (int i = 0; i < 60; ++i) text += "word" + std::to_string(i) + " ";
  const auto cut = lines_of(parlab::column_text(lead, text, 80, 3));
  ASSERT_EQ(cut.size(), 3u);
  EXPECT_EQ(cut.back().substr(cut.back().size() - 4), " ...") << cut.back();
  for (const auto& l : cut) EXPECT_LE(l.size(), 80u) << l;
  // The words shown are the text's first, whole.
  const std::string shown = words_of(parlab::column_text(lead, text, 80, 3));
  EXPECT_EQ(words_of(text).rfind(shown.substr(0, shown.size() - 4), 0), 0u) << shown;
  // A text within the limit is left whole, unmarked; 0 keeps every line.
  EXPECT_EQ(parlab::column_text(lead, "short", 80, 3), lead + "short");
  EXPECT_EQ(parlab::column_text(lead, text, 80, 0), parlab::column_text(lead, text, 80));
  EXPECT_GT(lines_of(parlab::column_text(lead, text, 80, 1000)).size(), 3u);
}

TEST(ResultsCsv, FormulaCellsAreNeutralised) {
  const nlohmann::json records = nlohmann::json::parse(R"j([
    {"id": 0, "kernel": "=HYPERLINK(\"x\")", "backend": "+cmd", "status": "ok", "threads": 1, "size": 4},
    {"id": 1, "kernel": "@SUM(A1)", "backend": "-2", "status": "ok", "threads": 1, "size": 4},
    {"id": 2, "kernel": "pi", "backend": "serial", "status": "ok", "threads": 1, "size": 4}])j");
  const std::string csv = parlab::records_to_csv(records);
  EXPECT_NE(csv.find("\"'=HYPERLINK(\"\"x\"\")\""), std::string::npos) << csv;
  EXPECT_NE(csv.find(",'+cmd,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("'@SUM(A1)"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",'-2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",pi,serial,"), std::string::npos) << csv;
  for (const char* bad : {",=", ",+", ",@", ",-"}) EXPECT_EQ(csv.find(bad), std::string::npos) << bad << "\n" << csv;
}

// The folder a test makes (tests/fresh_dir.hpp) goes with everything in it, a link included, but
// not what the link names, nor a person's file beside the folder.
TEST(FreshDir, RemovesOnlyWhatItMade) {
  parlab::test::FreshDir person("parlab-fresh-dir-person");
  const fs::path theirs = person.path() / "theirs.txt";
  std::ofstream(theirs) << "a person's file";
  fs::path made, beside;
  {
    parlab::test::FreshDir d("parlab-fresh-dir");
    made = d.path();
    beside = made.parent_path() / (made.filename().string() + ".beside");
    std::ofstream(beside) << "beside it";
    std::ofstream(made / "own.txt") << "its own";
    fs::create_symlink(theirs, made / "link-to-theirs");
    fs::create_directory_symlink(person.path(), made / "link-to-their-folder");
  }
  EXPECT_FALSE(fs::exists(made));
  EXPECT_TRUE(fs::exists(theirs));
  EXPECT_TRUE(fs::exists(beside));
  fs::remove(beside);
}
