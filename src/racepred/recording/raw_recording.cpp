#include "racepred/recording/raw_recording.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "racepred/format/trace_format.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::recording {

namespace fmt = racepred::format;

RawFile::RawFile(const std::string& path, uint64_t give_back_every)
    : give_back_every_(give_back_every) {
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

void RawFile::consumed(uint64_t n) const {
  unreleased_ += n;
  if (unreleased_ < give_back_every_) return;
  unreleased_ = 0;
  // All of it, not just the bytes read: the kernel maps pages around each fault (behind it
  // too), so giving back only the blocks read would leave those mapped. The blocks the merge is
  // reading are mapped again at their next read.
  if (copy_.empty() && !bytes_.empty()) {
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t lo = reinterpret_cast<uintptr_t>(bytes_.data()) & ~(page - 1);
    const uintptr_t hi =
        (reinterpret_cast<uintptr_t>(bytes_.data() + bytes_.size()) + page - 1) & ~(page - 1);
    ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  }
}

namespace {

RawRecording decode(std::string_view data, const std::string& raw, const RawFile* file) {
  RawRecording rec;
  rec.file = file;
  rec.name = raw;
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
      const RawBlock block{payload + fmt::kRawHeader, payload + h.stored_size, n, pos};
      if (file) {
        rec.peak_raw_bytes = std::max(rec.peak_raw_bytes, h.stored_size + file->unreleased());
        file->consumed(h.stored_size);
      }
      if (n) {
        t.blocks.push_back(block);
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
  if (!rec.complete()) {
    // Check every block and find each thread's last sequence number.
    for (auto& [tid, t] : rec.threads) {
      for (const RawBlock& block : t.blocks) {
        fmt::RawUnpacker u{block.data, block.end, block.count};
        fmt::RawRecord r{};
        uint32_t k = 0;
        while (u.next(r)) ++k;
        if (k != block.count)
          throw InputError(raw + ": byte " + std::to_string(block.offset) +
                           ": error: malformed raw block");
        t.last_seq = std::max(t.last_seq, r.seq);
        if (file) file->consumed(static_cast<uint64_t>(block.end - block.data));
      }
    }
  }
  return rec;
}

}  // namespace

RawRecording decode_recording(const RawFile& file, const std::string& name) {
  return decode(file.bytes(), name, &file);
}

RawRecording decode_recording(std::string_view data, const std::string& raw) {
  return decode(data, raw, nullptr);
}

uint64_t consistent_cut(const RawRecording& recording) {
  uint64_t limit = UINT64_MAX;
  if (recording.complete()) return limit;
  for (const auto& [tid, t] : recording.threads)
    if (!t.ended) limit = std::min(limit, t.any ? t.last_seq + 1 : t.start_seq);
  return limit;
}

}  // namespace racepred::recording
