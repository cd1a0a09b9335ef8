#include "racepred/trace/printable.hpp"

#include <cstdint>

namespace racepred {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void hex_byte(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

// The code point of a valid 2- or 3-byte UTF-8 sequence at text[i] (its length in `length`),
// or 0 when there is none.
uint32_t utf8_at(std::string_view text, size_t i, size_t& length) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const auto cont = [&](size_t k) { return i + k < text.size() && (byte(k) & 0xC0) == 0x80; };
  const unsigned char c = byte(0);
  if (c >= 0xC2 && c <= 0xDF && cont(1)) {
    length = 2;
    return uint32_t{c & 0x1Fu} << 6 | (byte(1) & 0x3Fu);
  }
  if (c >= 0xE0 && c <= 0xEF && cont(1) && cont(2)) {
    const uint32_t cp =
        uint32_t{c & 0x0Fu} << 12 | uint32_t{byte(1) & 0x3Fu} << 6 | (byte(2) & 0x3Fu);
    if (cp < 0x800) return 0;  // overlong
    length = 3;
    return cp;
  }
  return 0;
}

// C1 controls (a terminal may take U+009B for CSI) and the bidirectional embeddings, overrides
// and isolates (they reorder what follows on the line).
bool hidden_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// Escapes the control characters of `text` (its first `keep` bytes) into `out`.
void escape(std::string& out, std::string_view text, size_t keep, bool keep_newlines = false) {
  // Most names are plain ASCII: appended at once, not byte by byte.
  size_t plain = 0;
  while (plain < keep && static_cast<unsigned char>(text[plain]) - 0x20u < 0x5Fu) ++plain;
  out.append(text.data(), plain);
  for (size_t i = plain; i < keep; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' && keep_newlines) {
      out += '\n';
    } else if (c < 0x20 || c == 0x7f) {
      hex_byte(out, c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      size_t length = 1;
      const uint32_t cp = utf8_at(text, i, length);
      if (cp != 0 && hidden_control(cp)) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += kHex[cp >> shift & 15];
      } else if (cp != 0) {
        out.append(text.substr(i, length));
      } else if (c <= 0x9F) {  // a raw C1 byte outside any UTF-8 sequence
        hex_byte(out, c);
      } else {
        out += static_cast<char>(c);
      }
      i += length - 1;
    }
  }
}

}  // namespace

std::string printable(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t keep = text.size();
  if (keep > max_bytes) {
    keep = max_bytes;
    // Do not cut a UTF-8 sequence: back up over continuation bytes to its lead byte.
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  }
  out.reserve(keep + 16);
  // A space at either end of a name is shown as \x20: "T1 " and "T1" must not look alike.
  size_t first = 0;
  if (keep > 0 && text[0] == ' ') {
    out += "\\x20";
    first = 1;
  }
  const bool last_space = keep > first && keep == text.size() && text[keep - 1] == ' ';
  escape(out, text.substr(first), keep - first - (last_space ? 1 : 0));
  if (last_space) out += "\\x20";
  if (keep < text.size()) out += "...[" + std::to_string(text.size()) + " bytes]";
  return out;
}

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  escape(out, text, text.size(), /*keep_newlines=*/true);
  return out;
}

}  // namespace racepred
