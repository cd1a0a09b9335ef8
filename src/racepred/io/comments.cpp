#include "racepred/io/comments.hpp"

#include <unistd.h>

#include <cstring>

#include "racepred/io/input.hpp"
#include "racepred/io/source.hpp"

namespace racepred {
namespace {

// Whole lines in `block`; `line` counts them across blocks.
void scan(std::string_view block, std::string_view prefix, uint64_t& line,
          std::vector<CommentLine>& out) {
  const char* p = block.data();
  const char* end = p + block.size();
  while (p < end) {
    ++line;
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    const char* stop = nl ? static_cast<const char*>(nl) : end;
    const auto length = static_cast<size_t>(stop - p);
    // A UTF-8 byte-order mark before the first line is not part of it (as the readers do).
    const size_t skip = line == 1 && length >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    const std::string_view text(p + skip, length - skip);
    if (text.substr(0, prefix.size()) == prefix) {
      std::string rest(text.substr(prefix.size()));
      if (!rest.empty() && rest.back() == '\r') rest.pop_back();
      out.push_back({line, skip + prefix.size(), std::move(rest)});
    }
    p = stop + 1;
  }
}

}  // namespace

std::vector<CommentLine> read_comment_lines(const std::string& path, std::string_view prefix) {
  std::vector<CommentLine> out;
  if (path == "-") return out;
  io::MappedFile file;
  int fd = -1;
  if (!file.open(path, &fd)) {  // not a regular file: it was read once already
    if (fd >= 0) ::close(fd);
    return out;
  }
  uint64_t line = 0;
  const std::string_view text = file.text();
  const io::Compression compression = io::detect_compression(text);
  if (compression == io::Compression::None) {
    scan(text, prefix, line, out);
    return out;
  }
  io::MemorySource compressed(text);
  const auto plain = io::make_decompressor(compression, compressed, path);
  io::ChunkReader reader(*plain, path);
  for (std::string_view block = reader.next(); !block.empty(); block = reader.next())
    scan(block, prefix, line, out);
  return out;
}

}  // namespace racepred
