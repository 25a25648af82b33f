#include "experiments/io/text.hpp"

namespace parlab {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence that starts at text[i], or 0 when none does
// (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
std::size_t valid_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
  else if (b0 == 0xE0) n = 3, lo = 0xA0;
  else if (b0 == 0xED) n = 3, hi = 0x9F;
  else if (b0 >= 0xE1 && b0 <= 0xEF) n = 3;
  else if (b0 == 0xF0) n = 4, lo = 0x90;
  else if (b0 == 0xF4) n = 4, hi = 0x8F;
  else if (b0 >= 0xF1 && b0 <= 0xF3) n = 4;
  else return 0;
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = valid_sequence(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

std::string Utf8Stream::feed(std::string_view piece) {
  held_.append(piece);
  // Hold back the last up to 3 bytes when they start a sequence that the next piece may complete.
  std::size_t keep = 0;
  for (std::size_t back = 1; back <= 3 && back <= held_.size(); ++back) {
    const auto b = static_cast<unsigned char>(held_[held_.size() - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back for its lead
    const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (need > back) keep = back;
    break;
  }
  std::string out = valid_utf8(std::string_view(held_).substr(0, held_.size() - keep));
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string Utf8Stream::finish() {
  std::string out = valid_utf8(held_);
  held_.clear();
  return out;
}

std::string quoted_value(std::string_view text, std::size_t max_bytes) {
  std::string s = valid_utf8(text);
  if (s.size() <= max_bytes) return s;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // a character's start
  const std::size_t more = s.size() - cut;
  s.resize(cut);
  return s + " \xE2\x80\xA6 (" + std::to_string(more) + " more bytes)";
}

}  // namespace parlab
