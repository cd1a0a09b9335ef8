#include "racepred/io/source.hpp"

#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "racepred/trace/error.hpp"

namespace racepred::io {

size_t FdSource::read(char* buffer, size_t capacity) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, capacity);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR)
      throw InputError(display_ + ": error: cannot read input: " + std::strerror(errno));
  }
}

size_t MemorySource::read(char* buffer, size_t capacity) {
  const size_t n = std::min(capacity, data_.size());
  std::memcpy(buffer, data_.data(), n);
  data_.remove_prefix(n);
  return n;
}

size_t PrefixedSource::read(char* buffer, size_t capacity) {
  if (used_ < prefix_.size()) {
    const size_t n = std::min(capacity, prefix_.size() - used_);
    std::memcpy(buffer, prefix_.data() + used_, n);
    used_ += n;
    return n;
  }
  return rest_.read(buffer, capacity);
}

std::string_view compression_name(Compression c) {
  switch (c) {
    case Compression::None:
      return "none";
    case Compression::Gzip:
      return "gzip";
    case Compression::Zstd:
      return "zstd";
    case Compression::Xz:
      return "xz";
  }
  return "?";
}

Compression detect_compression(std::string_view head) {
  const auto starts = [&](std::string_view magic) {
    return head.size() >= magic.size() && head.substr(0, magic.size()) == magic;
  };
  if (starts(std::string_view("\x1f\x8b", 2))) return Compression::Gzip;
  if (starts(std::string_view("\x28\xb5\x2f\xfd", 4))) return Compression::Zstd;
  if (starts(std::string_view("\xfd\x37\x7a\x58\x5a\x00", 6))) return Compression::Xz;
  return Compression::None;
}

namespace {

constexpr size_t kInputChunk = size_t{1} << 18;

// Common part: an input buffer refilled from the compressed source.
class Decompressor : public ByteSource {
 public:
  Decompressor(ByteSource& compressed, std::string display, std::string_view kind)
      : compressed_(compressed), display_(std::move(display)), kind_(kind), in_(kInputChunk) {}

 protected:
  // Refills the input buffer when it is used up; false at the end of the compressed input.
  bool refill() {
    if (in_pos_ < in_size_) return true;
    if (in_eof_) return false;
    in_size_ = compressed_.read(in_.data(), in_.size());
    consumed_before_ += in_pos_;
    in_pos_ = 0;
    if (in_size_ == 0) in_eof_ = true;
    return in_size_ > 0;
  }
  [[noreturn]] void fail(std::string_view what) const {
    throw InputError(display_ + ": error: " + std::string(kind_) + " data " + std::string(what) +
                     " (compressed byte " + std::to_string(consumed_before_ + in_pos_) + ")");
  }

  ByteSource& compressed_;
  std::string display_;
  std::string_view kind_;
  std::vector<char> in_;
  size_t in_pos_ = 0, in_size_ = 0;
  uint64_t consumed_before_ = 0;
  bool in_eof_ = false;
  bool done_ = false;
};

class GzipSource : public Decompressor {
 public:
  GzipSource(ByteSource& compressed, std::string display)
      : Decompressor(compressed, std::move(display), "gzip") {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 15 + 32) != Z_OK) fail("decoder could not start");
  }
  ~GzipSource() override { inflateEnd(&z_); }

  size_t read(char* buffer, size_t capacity) override {
    size_t produced = 0;
    while (produced == 0 && !done_) {
      if (!refill()) {
        if (!member_open_) {
          done_ = true;  // ended between members
          break;
        }
        fail("truncated: the input ends inside a compressed stream");
      }
      z_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
      z_.avail_in = static_cast<uInt>(in_size_ - in_pos_);
      z_.next_out = reinterpret_cast<Bytef*>(buffer);
      z_.avail_out = static_cast<uInt>(capacity);
      member_open_ = true;
      const int ret = inflate(&z_, Z_NO_FLUSH);
      in_pos_ = in_size_ - z_.avail_in;
      produced = capacity - z_.avail_out;
      if (ret == Z_STREAM_END) {
        member_open_ = false;  // a further member may follow (gzip -d reads them all)
        if (inflateReset(&z_) != Z_OK) fail("decoder could not restart");
      } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
        fail(std::string("corrupt: ") + (z_.msg ? z_.msg : "inflate failed"));
      }
    }
    return produced;
  }

 private:
  z_stream z_;
  bool member_open_ = false;
};

class ZstdSource : public Decompressor {
 public:
  ZstdSource(ByteSource& compressed, std::string display)
      : Decompressor(compressed, std::move(display), "zstd"), ctx_(ZSTD_createDCtx()) {
    if (!ctx_) fail("decoder could not start");
  }
  ~ZstdSource() override { ZSTD_freeDCtx(ctx_); }

  size_t read(char* buffer, size_t capacity) override {
    size_t produced = 0;
    while (produced == 0 && !done_) {
      if (!refill()) {
        if (frame_complete_) {
          done_ = true;
          break;
        }
        fail("truncated: the input ends inside a frame");
      }
      // At most kStep bytes a call: on an error zstd does not say how far it read, so the
      // offset in the message is the end of the step that revealed the damage.
      const size_t step = std::min(in_size_ - in_pos_, kStep);
      ZSTD_inBuffer in{in_.data() + in_pos_, step, 0};
      ZSTD_outBuffer out{buffer, capacity, 0};
      const size_t ret = ZSTD_decompressStream(ctx_, &out, &in);
      if (ZSTD_isError(ret)) {
        in_pos_ += step;
        fail(std::string("corrupt: ") + ZSTD_getErrorName(ret));
      }
      in_pos_ += in.pos;
      produced = out.pos;
      frame_complete_ = ret == 0;
    }
    return produced;
  }

 private:
  static constexpr size_t kStep = size_t{16} << 10;
  ZSTD_DCtx* ctx_;
  bool frame_complete_ = true;  // an empty input is an empty stream
};

class XzSource : public Decompressor {
 public:
  XzSource(ByteSource& compressed, std::string display)
      : Decompressor(compressed, std::move(display), "xz") {
    if (lzma_stream_decoder(&strm_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
      fail("decoder could not start");
  }
  ~XzSource() override { lzma_end(&strm_); }

  size_t read(char* buffer, size_t capacity) override {
    size_t produced = 0;
    while (produced == 0 && !done_) {
      const bool more = refill();
      strm_.next_in = reinterpret_cast<const uint8_t*>(in_.data() + in_pos_);
      strm_.avail_in = in_size_ - in_pos_;
      strm_.next_out = reinterpret_cast<uint8_t*>(buffer);
      strm_.avail_out = capacity;
      const lzma_ret ret = lzma_code(&strm_, more ? LZMA_RUN : LZMA_FINISH);
      in_pos_ = in_size_ - strm_.avail_in;
      produced = capacity - strm_.avail_out;
      if (ret == LZMA_STREAM_END) {
        done_ = true;
      } else if (ret == LZMA_BUF_ERROR && !more) {
        fail("truncated: the input ends inside a stream");
      } else if (ret != LZMA_OK && ret != LZMA_BUF_ERROR) {
        fail(ret == LZMA_DATA_ERROR     ? "corrupt"
             : ret == LZMA_FORMAT_ERROR ? "corrupt: not an xz stream"
             : ret == LZMA_MEM_ERROR    ? "needs more memory than available"
                                        : "cannot be decoded");
      }
    }
    return produced;
  }

 private:
  lzma_stream strm_ = LZMA_STREAM_INIT;
};

}  // namespace

std::unique_ptr<ByteSource> make_decompressor(Compression c, ByteSource& compressed,
                                              std::string display) {
  switch (c) {
    case Compression::Gzip:
      return std::make_unique<GzipSource>(compressed, std::move(display));
    case Compression::Zstd:
      return std::make_unique<ZstdSource>(compressed, std::move(display));
    case Compression::Xz:
      return std::make_unique<XzSource>(compressed, std::move(display));
    case Compression::None:
      break;
  }
  return nullptr;
}

}  // namespace racepred::io
