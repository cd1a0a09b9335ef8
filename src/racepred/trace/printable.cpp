#include "racepred/trace/printable.hpp"

#include <cstdint>

namespace racepred {

std::string printable(std::string_view text, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  size_t keep = text.size();
  if (keep > max_bytes) {
    keep = max_bytes;
    // Do not cut a UTF-8 sequence: back up over continuation bytes to its lead byte.
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  }
  out.reserve(keep + 16);
  for (size_t i = 0; i < keep; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (keep < text.size()) out += "...[" + std::to_string(text.size()) + " bytes]";
  return out;
}

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start <= text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    out += printable(text.substr(start, end - start), SIZE_MAX);
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

}  // namespace racepred
