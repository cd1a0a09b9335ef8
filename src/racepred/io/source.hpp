// Byte sources for the readers: a file descriptor, memory, and streaming decompressors for
// gzip, zstd and xz (detected by their magic bytes). Internal to io/.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace racepred::io {

// Delivers the bytes of one input in order. read() returns 0 only at the end of the input and
// throws InputError (naming the input) on a read or decoding error.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t read(char* buffer, size_t capacity) = 0;
};

// read() on a descriptor the caller owns.
class FdSource : public ByteSource {
 public:
  FdSource(int fd, std::string display) : fd_(fd), display_(std::move(display)) {}
  size_t read(char* buffer, size_t capacity) override;

 private:
  int fd_;
  std::string display_;
};

// A view of memory (a mapped file, a string).
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  size_t read(char* buffer, size_t capacity) override;

 private:
  std::string_view data_;
};

// `prefix` (bytes already read from `rest`, e.g. to look at magic bytes), then `rest`.
class PrefixedSource : public ByteSource {
 public:
  PrefixedSource(std::string prefix, ByteSource& rest) : prefix_(std::move(prefix)), rest_(rest) {}
  size_t read(char* buffer, size_t capacity) override;

 private:
  std::string prefix_;
  size_t used_ = 0;
  ByteSource& rest_;
};

enum class Compression { None, Gzip, Zstd, Xz };

// "gzip", "zstd", "xz", or "none".
std::string_view compression_name(Compression c);
// Judged by the magic bytes at the start of `head` (at least 6 bytes when available):
// 1f 8b (gzip), 28 b5 2f fd (zstd), fd 37 7a 58 5a 00 (xz).
Compression detect_compression(std::string_view head);
// Longest magic: how many bytes detect_compression wants to see.
inline constexpr size_t kCompressionMagicSize = 6;

// Decompresses `compressed` as it is read, with bounded memory (concatenated gzip members and
// xz streams are read as one input, as gzip -d and xz -d do). `display` names the input in
// error messages: "FILE: error: gzip data corrupt at compressed byte N: ...".
std::unique_ptr<ByteSource> make_decompressor(Compression c, ByteSource& compressed,
                                              std::string display);

}  // namespace racepred::io
