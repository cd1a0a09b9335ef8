// Raw input for the readers: a memory-mapped regular file, or standard input / pipes read in
// large chunks. Internal to io/.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/io/source.hpp"

namespace racepred::io {

// Bytes past the end of every buffer handed to a parser that may be read (not used): lets the
// symbol tables load names as whole words without a copy.
inline constexpr size_t kReadPadding = 64;

// A read-only view of a whole regular file, mapped when possible.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path`. Returns false when it is not a regular file or cannot be mapped; the caller
  // then streams it from `*unmapped_fd`, the open descriptor (its to close), so that a FIFO or
  // /dev/fd/N is opened once. Throws InputError when it cannot be opened at all.
  bool open(const std::string& path, int* unmapped_fd);
  std::string_view text() const { return {data_, size_}; }
  // True when a read of the mapping hit a page that no longer exists (the file was truncated
  // while it was read). The SIGBUS that such a read raises is caught: the missing pages read
  // as blank lines, and the reader must then report an input error instead of its result.
  bool truncated() const;
  // End of the readable memory (the mapping is page-granular: past the file it reads zeros).
  const char* readable_end() const { return data_ + mapped_; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;
  int guard_ = -1;  // slot in the SIGBUS guard's table of mappings
};

// A line longer than kMaxLineBytes met by ChunkReader; the reader turns it into an InputError
// naming the line.
struct LineTooLong {};

// Streams a byte source (a file descriptor, a decompressor) in large chunks of whole lines.
class ChunkReader {
 public:
  // `fd` stays owned by the caller. `display` names the input in error messages.
  ChunkReader(int fd, std::string display);
  // `source` must outlive the reader.
  ChunkReader(ByteSource& source, std::string display);
  // The next block of whole lines, each ending in '\n' (a final line without one gets it added).
  // Empty at the end of the input. The block is valid until the next call; kReadPadding bytes
  // after it are readable.
  std::string_view next();
  // Reads up to `bytes` more (or to the end) without consuming: for format detection.
  std::string_view peek(size_t bytes);
  // Reads the rest of the input into one string (with kReadPadding spare capacity).
  std::string read_all();
  // The next block of bytes as they come (no line boundaries): for binary formats. Empty at the
  // end of the input.
  std::string_view next_bytes();

 private:
  bool fill();  // one read(); false at end of input

  std::unique_ptr<FdSource> owned_;
  ByteSource* source_;
  std::string display_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // start of unconsumed data
  size_t end_ = 0;    // end of valid data
  bool eof_ = false;
};

}  // namespace racepred::io
