#include "racepred/io/binary_writer.hpp"

#include <fcntl.h>
#include <lz4.h>
#include <lz4hc.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "racepred/io/binary_ops.hpp"
#include "racepred/io/format_impl.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {

namespace {
std::string display_name(const std::string& path) {
  return path.empty() || path == "-" ? "<stdout>" : path;
}
const SymbolTable& table_of(const Symbols& s, unsigned space) {
  return space == format::kThreads     ? s.threads
         : space == format::kVariables ? s.variables
         : space == format::kLocks     ? s.locks
                                       : s.locations;
}
}  // namespace

BinaryWriter::BinaryWriter(const Symbols& symbols, const std::string& path,
                           BinaryWriteOptions options)
    : symbols_(symbols), path_(path), options_(options) {
  if (options_.chunk_events == 0 || options_.chunk_events > format::kChunkEvents)
    options_.chunk_events = format::kChunkEvents;
  if (path.empty() || path == "-") {
    fd_ = STDOUT_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw InputError(path + ": error: cannot open for writing: " + std::strerror(errno));
    owns_fd_ = true;
  }
  chunk_.resize(format::chunk_capacity(options_.chunk_events));
  pending_.reserve(options_.chunk_events);
  pending_ids_.reserve(options_.chunk_events);
  uint8_t header[format::kHeaderSize];
  format::write_file_header(header);
  write_all(header, sizeof header);
}

BinaryWriter::~BinaryWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() explicitly to see write errors
  }
}

void BinaryWriter::write_all(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(display_name(path_) + ": error: write failed: " + std::strerror(errno));
    }
    p += n;
    size -= static_cast<size_t>(n);
    offset_ += static_cast<uint64_t>(n);
  }
}

void BinaryWriter::write_block(uint8_t kind, const uint8_t* raw, size_t size, bool compress) {
  format::BlockHeader header{
      kind, format::kCodecNone, 0, static_cast<uint32_t>(size), static_cast<uint32_t>(size), 0};
  const uint8_t* payload = raw;
  if (compress && options_.codec != format::kCodecNone && size > 64) {
    size_t n = 0;
    if (options_.codec == format::kCodecLz4) {
      scratch_.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(size))));
      const char* in = reinterpret_cast<const char*>(raw);
      char* out = reinterpret_cast<char*>(scratch_.data());
      if (options_.level <= 0) {
        n = static_cast<size_t>(LZ4_compress_fast(in, out, static_cast<int>(size),
                                                  static_cast<int>(scratch_.size()),
                                                  1 - options_.level));
      } else {
        // One compression state for every block (LZ4_compress_HC allocates and maps a fresh
        // 256 KiB one per call); the compressed bytes are the same.
        if (!lz4_state_)
          lz4_state_ =
              std::make_unique<uint64_t[]>((static_cast<size_t>(LZ4_sizeofStateHC()) + 7) / 8);
        n = static_cast<size_t>(
            LZ4_compress_HC_extStateHC(lz4_state_.get(), in, out, static_cast<int>(size),
                                       static_cast<int>(scratch_.size()), options_.level));
      }
    } else {
      scratch_.resize(ZSTD_compressBound(size));
      n = ZSTD_compress(scratch_.data(), scratch_.size(), raw, size, options_.level);
      if (ZSTD_isError(n)) n = 0;
    }
    if (n > 0 && n < size) {  // a block that does not shrink is stored as it is
      header.codec = options_.codec;
      header.stored_size = static_cast<uint32_t>(n);
      payload = scratch_.data();
    }
  }
  header.checksum = format::block_checksum(header, payload);
  write_all(&header, sizeof header);
  write_all(payload, header.stored_size);
}

void BinaryWriter::write_symbols() {
  symbol_buffer_.clear();
  for (unsigned space = 0; space < format::kSpaceCount; ++space) {
    const SymbolTable& table = table_of(symbols_, space);
    NameSource* const source = sources_[space];
    const uint32_t upto =
        source ? std::max(written_names_[space], needed_names_[space]) : table.size();
    for (uint32_t id = written_names_[space]; id < upto; ++id) {
      std::string_view name;
      if (source) {
        name_.clear();
        source->name(space, id, name_);
        name = name_;
      } else {
        name = table.name(id);
      }
      const size_t at = symbol_buffer_.size();
      symbol_buffer_.resize(at + 1 + 10 + 10 + name.size());
      uint8_t* p = symbol_buffer_.data() + at;
      *p++ = static_cast<uint8_t>(space);
      p = format::put_varint(p, id);
      p = format::put_varint(p, name.size());
      std::memcpy(p, name.data(), name.size());
      symbol_buffer_.resize(static_cast<size_t>(p - symbol_buffer_.data()) + name.size());
      if (symbol_buffer_.size() > (source ? kStreamedNamesBlock : format::kMaxRawBlock / 2)) {
        write_block(format::kBlockSymbols, symbol_buffer_.data(), symbol_buffer_.size(), true);
        symbol_buffer_.clear();
      }
    }
    written_names_[space] = upto;
  }
  if (!symbol_buffer_.empty())
    write_block(format::kBlockSymbols, symbol_buffer_.data(), symbol_buffer_.size(), true);
}

void BinaryWriter::flush_chunk() {
  if (sources_[format::kVariables] || sources_[format::kLocks]) {
    // The names of streamed spaces up to the largest the chunk's events use.
    uint32_t vars = 0, locks = 0;
    for (const Event& e : pending_) {
      if (e.is_access())
        vars = std::max(vars, e.target + 1);
      else if (targets_lock(e.op))
        locks = std::max(locks, e.target + 1);
    }
    needed_names_[format::kVariables] = std::max(needed_names_[format::kVariables], vars);
    needed_names_[format::kLocks] = std::max(needed_names_[format::kLocks], locks);
  }
  write_symbols();  // every name an event of the chunk uses precedes it
  if (pending_.empty()) return;
  const uint32_t count = static_cast<uint32_t>(pending_.size());
  const size_t size =
      format::encode_events(count, chunk_.data(),
                            [&](uint32_t i, uint64_t& id, uint8_t& op, uint32_t& thread,
                                uint32_t& target, uint32_t& location) {
                              const Event& e = pending_[i];
                              id = pending_ids_[i];
                              op = static_cast<uint8_t>(e.op);
                              thread = e.thread;
                              target = e.target;
                              location = e.location;
                            });
  index_.push_back({offset_, pending_ids_.front(), count});
  write_block(format::kBlockEvents, chunk_.data(), size, true);
  pending_.clear();
  pending_ids_.clear();
  if (!pending_stacks_.empty()) {
    write_stack_table();
    write_event_stacks(pending_stacks_);
    pending_stacks_.clear();
  }
}

void BinaryWriter::write_stack_table() {
  const Stacks& stacks = symbols_.stacks;
  if (written_stacks_ >= stacks.frames.size()) return;
  // Blocks of at most half the block limit, each starting with the id of its first stack.
  std::vector<uint8_t> buf;
  auto room = [&](size_t n) {
    const size_t at = buf.size();
    buf.resize(at + n);
    return buf.data() + at;
  };
  auto trim = [&](uint8_t* end) { buf.resize(static_cast<size_t>(end - buf.data())); };
  trim(format::put_varint(room(10), written_stacks_));
  for (size_t id = written_stacks_; id < stacks.frames.size(); ++id) {
    const std::vector<uint32_t>& frames = stacks.frames[id];
    uint8_t* p = format::put_varint(room(10 + 5 * frames.size()), frames.size());
    for (const uint32_t f : frames) p = format::put_varint(p, f);
    trim(p);
    if (buf.size() > format::kMaxRawBlock / 2 && id + 1 < stacks.frames.size()) {
      write_block(format::kBlockStacks, buf.data(), buf.size(), true);
      buf.clear();
      trim(format::put_varint(room(10), id + 1));
    }
  }
  write_block(format::kBlockStacks, buf.data(), buf.size(), true);
  written_stacks_ = stacks.frames.size();
}

void BinaryWriter::write_event_stacks(const std::vector<std::pair<EventId, uint32_t>>& of_events) {
  // Room for every pair at once (two varints of at most 10 and 5 bytes), kept between chunks;
  // a block is cut once it passes half the block limit.
  constexpr size_t kPair = 10 + 5;
  const size_t limit = format::kMaxRawBlock / 2;
  std::vector<uint8_t>& buf = stack_buffer_;
  if (buf.size() < std::min(of_events.size() * kPair, limit + kPair))
    buf.resize(std::min(of_events.size() * kPair, limit + kPair));
  uint8_t* const start = buf.data();
  uint8_t* p = start;
  uint64_t previous = 0;
  for (const auto& [e, stack] : of_events) {
    p = format::put_varint(p, e - previous - 1);
    p = format::put_varint(p, stack);
    previous = e;
    if (static_cast<size_t>(p - start) > limit) [[unlikely]] {
      write_block(format::kBlockEventStacks, start, static_cast<size_t>(p - start), true);
      p = start;
      previous = 0;  // each block decodes on its own
    }
  }
  if (p != start)
    write_block(format::kBlockEventStacks, start, static_cast<size_t>(p - start), true);
}

void BinaryWriter::write_thread_stacks() {
  const Stacks& stacks = symbols_.stacks;
  std::vector<uint8_t> buf;
  for (size_t t = 0; t < stacks.created.size(); ++t) {
    if (stacks.created[t].stack == 0) continue;
    const size_t at = buf.size();
    buf.resize(at + 30);
    uint8_t* p = format::put_varint(buf.data() + at, t);
    p = format::put_varint(p, stacks.created[t].parent);
    p = format::put_varint(p, stacks.created[t].stack);
    buf.resize(static_cast<size_t>(p - buf.data()));
  }
  if (!buf.empty()) write_block(format::kBlockThreadStacks, buf.data(), buf.size(), true);
}

void BinaryWriter::write_stacks() {
  const Stacks& stacks = symbols_.stacks;
  if (stacks.empty()) return;
  write_stack_table();
  if (!streams_stacks_) {
    std::vector<std::pair<EventId, uint32_t>> of_events;
    for (uint64_t e = 0; e < stacks.of_event.size(); ++e)
      if (stacks.of_event[e] != 0) of_events.push_back({e, stacks.of_event[e]});
    write_event_stacks(of_events);
  }
  write_thread_stacks();
}

void BinaryWriter::finish() {
  if (finished_ || fd_ < 0) return;
  finished_ = true;
  flush_chunk();
  // The names no event uses (a streamed space's table is still complete).
  bool rest = false;
  for (unsigned space = 0; space < format::kSpaceCount; ++space) {
    if (!sources_[space]) continue;
    needed_names_[space] = sources_[space]->count(space);
    rest = rest || needed_names_[space] > written_names_[space];
  }
  if (rest) write_symbols();
  write_stacks();
  const uint64_t index_offset = offset_;
  write_block(format::kBlockIndex, reinterpret_cast<const uint8_t*>(index_.data()),
              index_.size() * sizeof(format::IndexEntry), false);
  uint8_t trailer[format::kTrailerSize];
  format::put_u64(trailer, index_offset);
  std::memcpy(trailer + 8, format::kTrailerMagic, 8);
  write_all(trailer, sizeof trailer);
}

void BinaryWriter::close() {
  if (fd_ < 0) return;
  finish();
  const int fd = fd_;
  fd_ = -1;
  if (owns_fd_ && ::close(fd) != 0)
    throw InputError(display_name(path_) + ": error: close failed: " + std::strerror(errno));
}

}  // namespace racepred

namespace racepred::io {

void write_binary(const Trace& trace, const WriteOptions&, const std::string& path) {
  // Nothing is lost: names, locations and event ids are kept (input line numbers are not part
  // of a trace).
  BinaryWriter writer(trace.symbols, path);
  for (size_t i = 0; i < trace.size(); ++i) writer.on_event(trace.ids[i], trace.events[i], 0);
  writer.on_end();
  writer.close();
}

}  // namespace racepred::io
