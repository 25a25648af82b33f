// Text from outside parlab (a child's output, MPI's, a peer's, a hostname, the environment, a
// file's value) made safe to put in a record or a message: valid UTF-8, and short where quoted.
// A record is JSON, and JSON text is UTF-8: one stray byte would make the whole results.json
// unwritable, and with it every record of the run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace parlab {

// `text` with every byte sequence that is not valid UTF-8 (a stray continuation byte, a truncated
// or overlong sequence, a surrogate, a code point above U+10FFFF) replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// valid_utf8(text), cut to at most about `max_bytes` bytes at a character boundary, with
// " … (N more bytes)" when cut: how a message quotes a value it did not make.
std::string quoted_value(std::string_view text, std::size_t max_bytes = 200);

// valid_utf8 over a stream that arrives in pieces (a child's stderr, passed on to ours as it
// comes): a character split between two pieces is held back until its end arrives.
class Utf8Stream {
 public:
  // The valid UTF-8 text of everything fed so far that is not held back.
  std::string feed(std::string_view piece);
  // What is still held back, at the end of the stream (replaced, when it never completed).
  std::string finish();

 private:
  std::string held_;
};

}  // namespace parlab
