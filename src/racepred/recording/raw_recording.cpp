#include "racepred/recording/raw_recording.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "racepred/format/trace_format.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::recording {

namespace fmt = racepred::format;

RawFile::RawFile(const std::string& path) {
  int fd = -1;
  if (file_.open(path, &fd)) {
    bytes_ = file_.text();
    return;
  }
  io::ChunkReader reader(fd, path);
  copy_ = reader.read_all();
  if (fd >= 0) ::close(fd);
  bytes_ = copy_;
}

RawRecording decode_recording(std::string_view data, const std::string& raw) {
  RawRecording rec;
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < fmt::kHeaderSize || !fmt::has_magic(bytes, data.size()) ||
      fmt::get_u32(bytes + 12) != fmt::kFileRecording)
    throw InputError(raw + ": byte 0: error: not a racepred raw recording");
  const uint32_t version = fmt::get_u32(bytes + 8);
  if (!fmt::supported_version(version))
    throw InputError(raw + ": byte 8: error: unsupported recording version");
  // Before version 4 the raw ops were numbered 8-11, where the send/recv events are now.
  if (version < 4)
    throw InputError(raw + ": byte 8: error: recording version " + std::to_string(version) +
                     " was written by an older recording runtime; record the program again");

  size_t pos = fmt::kHeaderSize;
  while (pos < data.size()) {
    if (data.size() - pos < fmt::kBlockHeaderSize) {
      rec.torn = true;
      break;
    }
    fmt::BlockHeader h;
    std::memcpy(&h, bytes + pos, sizeof h);
    const uint8_t* payload = bytes + pos + fmt::kBlockHeaderSize;
    if (h.stored_size > data.size() - pos - fmt::kBlockHeaderSize ||
        fmt::block_checksum(h, payload, version) != h.checksum) {
      if (h.stored_size > data.size() - pos - fmt::kBlockHeaderSize ||
          pos + fmt::kBlockHeaderSize + h.stored_size == data.size()) {
        rec.torn = true;  // the last block was being written when the process died
        break;
      }
      throw InputError(raw + ": byte " + std::to_string(pos) + ": error: corrupt block");
    }
    if (h.kind == fmt::kBlockRaw && h.stored_size == fmt::kRawPrefix + 8 &&
        (fmt::get_u32(payload + 4) & fmt::kRawStart)) {
      rec.threads[fmt::get_u32(payload)].start_seq = fmt::get_u64(payload + fmt::kRawPrefix);
    } else if (h.kind == fmt::kBlockRaw) {
      if (h.stored_size < fmt::kRawHeader)
        throw InputError(raw + ": byte " + std::to_string(pos) + ": error: bad raw block size");
      ThreadStream& t = rec.threads[fmt::get_u32(payload)];
      const uint32_t n = fmt::get_u32(payload + 8);
      const RawBlock block{payload + fmt::kRawHeader, payload + h.stored_size, n};
      // Check the block and find its last sequence number.
      fmt::RawUnpacker u{block.data, block.end, n};
      fmt::RawRecord r{};
      uint32_t k = 0;
      while (u.next(r)) ++k;
      if (k != n)
        throw InputError(raw + ": byte " + std::to_string(pos) + ": error: malformed raw block");
      if (n) {
        t.blocks.push_back(block);
        t.last_seq = std::max(t.last_seq, r.seq);
        t.any = true;
        rec.records += n;
      }
      if (fmt::get_u32(payload + 4) & fmt::kRawEnd) t.ended = true;
    } else if (h.kind == fmt::kBlockMaps) {
      rec.maps.assign(reinterpret_cast<const char*>(payload), h.stored_size);
    } else if (h.kind == fmt::kBlockNote) {
      const std::string note(reinterpret_cast<const char*>(payload), h.stored_size);
      const size_t eq = note.find('=');
      if (eq != std::string::npos) {
        const std::string key = note.substr(0, eq);
        const uint64_t value = std::strtoull(note.c_str() + eq + 1, nullptr, 10);
        if (key == "dropped") rec.dropped += value;
        if (key == "capped") rec.capped = value != 0;
        if (key == "complete") rec.ended = value != 0;
        if (key == "stack_depth")
          rec.stack_depth = static_cast<uint32_t>(std::min<uint64_t>(value, 1024));
      }
    } else {
      throw InputError(raw + ": byte " + std::to_string(pos) + ": error: unknown block kind " +
                       std::to_string(h.kind));
    }
    pos += fmt::kBlockHeaderSize + h.stored_size;
  }
  return rec;
}

uint64_t consistent_cut(const RawRecording& recording) {
  uint64_t limit = UINT64_MAX;
  if (recording.complete()) return limit;
  for (const auto& [tid, t] : recording.threads)
    if (!t.ended) limit = std::min(limit, t.any ? t.last_seq + 1 : t.start_seq);
  return limit;
}

}  // namespace racepred::recording
