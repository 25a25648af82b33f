#include "experiments/io/read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "experiments/io/text.hpp"

namespace parlab {

namespace {

// Closes a descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The deepest nesting of `text`'s arrays and objects, counted outside strings; stops counting
// once past `limit`.
int nesting_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c == ']' || c == '}') --depth;
  }
  return deepest;
}

// Line and column (from 1) of byte `offset` of `text`.
std::string position(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Reads a document's events only to find an integer nlohmann turned into a double because it does
// not fit 64 bits: its number_float event still carries the literal's text.
class IntegerCheck : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string fault;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t& literal) override {
    if (literal.find_first_of(".eE") == string_t::npos) {
      fault = (path().empty() ? std::string("the document") : path()) + ": the integer '" + quoted_value(literal, 40) +
              "' does not fit a 64-bit integer; refused rather than rounded to " + nlohmann::json(std::strtod(literal.c_str(), nullptr)).dump();
      return false;
    }
    return scalar();
  }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override {
    frames_.push_back({true, {}, 0});
    return true;
  }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override { return end(); }
  bool start_array(std::size_t) override {
    frames_.push_back({false, {}, 0});
    return true;
  }
  bool end_array() override { return end(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool object;
    std::string key;
    std::size_t index;
  };
  std::vector<Frame> frames_;

  bool scalar() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }
  bool end() {
    frames_.pop_back();
    return scalar();
  }
  std::string path() const {
    std::string p;
    for (const Frame& f : frames_) {
      // Appended piece by piece: GCC 12's -Wrestrict misreads a chain of string operator+.
      if (f.object) {
        if (!p.empty()) p.push_back('.');
        p.append(valid_utf8(f.key));
      } else {
        p.push_back('[');
        p.append(std::to_string(f.index));
        p.push_back(']');
      }
    }
    return p;
  }
};

}  // namespace

std::string inexact_integer(std::string_view text) {
  IntegerCheck check;
  nlohmann::json::sax_parse(text, &check, nlohmann::json::input_format_t::json, false);
  return check.fault;
}

std::string read_regular_file(const std::filesystem::path& path, const std::string& what, std::size_t max_bytes) {
  const std::string where = what + " '" + valid_utf8(path.string()) + "'";
  // O_NONBLOCK: opening a FIFO with no writer must not wait; a regular file ignores it.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw UsageError(where + ": cannot be read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw UsageError(where + ": cannot be read: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw UsageError(where + " is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw UsageError(where + " is not a regular file (a FIFO, socket or device); give a file");
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    throw UsageError(where + " is " + std::to_string(st.st_size) + " bytes, over the " + std::to_string(max_bytes) +
                     " this file may hold");
  }
  // Read to the end rather than to st_size: /proc and /sys files report 0 and still hold text.
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UsageError(where + ": cannot be read: " + std::strerror(errno));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      throw UsageError(where + " holds more than the " + std::to_string(max_bytes) + " bytes this file may hold");
    }
  }
  return text;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& where, int max_depth) {
  if (nesting_depth(text, max_depth) > max_depth) {
    throw UsageError(where + ": JSON nested deeper than " + std::to_string(max_depth) + " levels; not a parlab file");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string why = text.find_first_not_of(" \t\r\n") == std::string_view::npos ? "empty, not JSON"
                      : text.size() >= 2 && (static_cast<unsigned char>(text[0]) == 0xFF ||
                                             static_cast<unsigned char>(text[0]) == 0xFE)
                          ? "UTF-16 text; save it as UTF-8 JSON"
                          : "not valid JSON at " + position(text, e.byte > 0 ? e.byte - 1 : 0);
    throw UsageError(where + ": " + why);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("1e999") is nlohmann's out_of_range 406, not a parse_error: it
    // escaped this reader (exit 1, the library's text) until fuzz_suite found it
    // (tests/fuzz/regressions/suite/). Its message quotes the number; that is all we keep of it.
    const std::string what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    const std::string number = open < close ? what.substr(open + 1, close - open - 1) : std::string();
    throw UsageError(where + ": the number '" + quoted_value(number, 40) + "' is beyond the range of a double");
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& what, const ReadLimits& limits) {
  const std::string text = read_regular_file(path, what, limits.max_bytes);
  const std::string where = what + " '" + valid_utf8(path.string()) + "'";
  nlohmann::json doc = parse_json_text(text, where, limits.max_depth);
  if (limits.exact_integers) {
    if (const std::string fault = inexact_integer(text); !fault.empty()) throw UsageError(where + ": " + fault);
  }
  return doc;
}

std::string quoted_json(const nlohmann::json& value, std::size_t max_bytes) {
  return quoted_value(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), max_bytes);
}

}  // namespace parlab
