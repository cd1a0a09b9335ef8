#include "racepred/io/binary_reader.hpp"

#include <fcntl.h>
#include <lz4.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/io/binary_ops.hpp"
#include "racepred/io/format_impl.hpp"
#include "racepred/io/input.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {

namespace {

using format::BlockHeader;

[[noreturn]] void fail(std::string_view name, uint64_t offset, const std::string& what) {
  throw InputError(std::string(name) + ": byte " + std::to_string(offset) + ": error: " + what);
}

SymbolTable& table_of(Symbols& s, unsigned space) {
  return space == format::kThreads     ? s.threads
         : space == format::kVariables ? s.variables
         : space == format::kLocks     ? s.locks
                                       : s.locations;
}

// Walks the blocks of a file image. `next` returns false at a clean end (trailer reached) or
// at a cut; `cut` then tells which, and `error` holds a message for a corrupt block.
class BlockWalker {
 public:
  BlockWalker(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // Checks the file header; false with `error` set when it is not a binary trace.
  bool start() {
    if (size_ < format::kHeaderSize && format::has_magic(data_, size_)) {
      error = "the binary trace is cut short inside its " + std::to_string(format::kHeaderSize) +
              "-byte header (" + std::to_string(size_) + " bytes)";
      return false;
    }
    if (size_ < format::kHeaderSize || !format::has_magic(data_, size_)) {
      error = "not a racepred binary trace (bad magic)";
      return false;
    }
    version = format::get_u32(data_ + 8);
    if (!format::supported_version(version)) {
      error = "unsupported binary trace version " + std::to_string(version) +
              " (this racepred reads versions " + std::to_string(format::kOldestVersion) + " to " +
              std::to_string(format::kVersion) + ")";
      return false;
    }
    if (format::get_u32(data_ + 12) == format::kFileRecording) {
      error =
          "a raw recording, not a trace: `racepred record --finish FILE -o TRACE` turns it into "
          "one";
      return false;
    }
    if (format::get_u32(data_ + 12) != format::kFileTrace) {
      error = "unknown binary file kind " + std::to_string(format::get_u32(data_ + 12));
      return false;
    }
    pos_ = format::kHeaderSize;
    return true;
  }

  // The next block: header and stored payload. False at the end of the blocks.
  bool next(BlockHeader& header, const uint8_t*& payload, uint64_t& offset) {
    offset = pos_;
    if (size_ - pos_ < format::kBlockHeaderSize) return cut_here();
    std::memcpy(&header, data_ + pos_, sizeof header);
    if (header.kind == format::kBlockIndex && size_ - pos_ >= format::kBlockHeaderSize &&
        header.stored_size <= size_ - pos_ - format::kBlockHeaderSize) {
      const uint64_t end = pos_ + format::kBlockHeaderSize + header.stored_size;
      if (end + format::kTrailerSize == size_ &&
          std::memcmp(data_ + end + 8, format::kTrailerMagic, 8) == 0 &&
          format::get_u64(data_ + end) == pos_) {
        if (format::block_checksum(header, data_ + pos_ + format::kBlockHeaderSize, version) !=
            header.checksum) {
          error = "checksum mismatch in the index block";
          return false;
        }
        index = data_ + pos_ + format::kBlockHeaderSize;
        index_size = header.stored_size;
        complete = true;
        valid = pos_;
        return false;
      }
    }
    const bool stacks_block = version >= 5 && header.kind >= format::kBlockStacks &&
                              header.kind <= format::kBlockThreadStacks;
    if (((header.kind < format::kBlockSymbols || header.kind > format::kBlockEvents) &&
         !stacks_block) ||
        header.codec > format::max_codec_of(version) || header.reserved != 0 ||
        header.raw_size > format::kMaxRawBlock ||
        (header.codec == format::kCodecNone && header.raw_size != header.stored_size)) {
      // A torn write at the very end looks like garbage too: only a full, checksummed block
      // is trusted, so a header that is not followed by its payload is a cut.
      if (header.stored_size > size_ - pos_ - format::kBlockHeaderSize) return cut_here();
      error = "bad block header";
      return false;
    }
    if (header.stored_size > size_ - pos_ - format::kBlockHeaderSize) return cut_here();
    payload = data_ + pos_ + format::kBlockHeaderSize;
    if (format::block_checksum(header, payload, version) != header.checksum) {
      // The last block of a cut file may be torn; a bad block followed by more is corruption.
      if (pos_ + format::kBlockHeaderSize + header.stored_size == size_) return cut_here();
      error = std::string("checksum mismatch (corrupt ") + format::block_kind_name(header.kind) +
              " block)";
      return false;
    }
    pos_ += format::kBlockHeaderSize + header.stored_size;
    valid = pos_;
    return true;
  }

  std::string error;
  uint32_t version = 0;  // of the file, once start() succeeded
  bool cut = false;
  bool complete = false;
  uint64_t valid = format::kHeaderSize;
  const uint8_t* index = nullptr;
  size_t index_size = 0;

 private:
  bool cut_here() {
    cut = true;
    valid = pos_;
    return false;
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Decompresses zstd and LZ4 blocks; one zstd context, reused for every block (creating one per
// block costs).
class Decompressor {
 public:
  Decompressor() : ctx_(ZSTD_createDCtx()) {}
  ~Decompressor() { ZSTD_freeDCtx(ctx_); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  // Decompresses a compressed block into `out` (raw_size bytes and kDecodePadding more); an
  // error message, or empty.
  std::string run(const BlockHeader& h, const uint8_t* stored, std::vector<uint8_t>& out) {
    if (out.size() < h.raw_size + format::kDecodePadding)
      out.resize(h.raw_size + format::kDecodePadding);
    if (h.codec == format::kCodecLz4) {
      const int n = LZ4_decompress_safe(
          reinterpret_cast<const char*>(stored), reinterpret_cast<char*>(out.data()),
          static_cast<int>(h.stored_size), static_cast<int>(h.raw_size));
      if (n != static_cast<int>(h.raw_size))
        return n < 0 ? "cannot decompress block: corrupt LZ4 data"
                     : "cannot decompress block: wrong size";
      return {};
    }
    if (!ctx_) return "cannot decompress block: out of memory";
    const size_t n = ZSTD_decompressDCtx(ctx_, out.data(), h.raw_size, stored, h.stored_size);
    if (ZSTD_isError(n) || n != h.raw_size)
      return std::string("cannot decompress block: ") +
             (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
    return {};
  }

 private:
  ZSTD_DCtx* ctx_;
};

// The payload after decompression. `copy` copies an uncompressed payload too (so that
// kDecodePadding bytes after it are readable).
const uint8_t* raw_payload(const BlockHeader& h, const uint8_t* stored, std::vector<uint8_t>& buf,
                           Decompressor& unpack, std::string_view name, uint64_t offset,
                           bool copy = false) {
  if (h.codec == format::kCodecNone && !copy) return stored;
  if (h.codec == format::kCodecNone) {
    if (buf.size() < h.raw_size + format::kDecodePadding)
      buf.resize(h.raw_size + format::kDecodePadding);
    std::memcpy(buf.data(), stored, h.raw_size);
    return buf.data();
  }
  const std::string error = unpack.run(h, stored, buf);
  if (!error.empty()) fail(name, offset, error);
  return buf.data();
}

// A whole block as the walker found it.
struct StoredBlock {
  BlockHeader header;
  const uint8_t* stored;
  uint64_t offset;
};

// Decompresses the compressed blocks of a file on a helper thread, ahead of the reader, into a ring
// of kSlots buffers: the reader decodes block k while block k + 1 is being decompressed (half
// of a binary read is decompression). Blocks are handed out in file order; a block's decompression
// error is reported when the reader reaches it.
class Prefetcher {
 public:
  static constexpr size_t kSlots = 3;
  explicit Prefetcher(const std::vector<StoredBlock>& blocks) : blocks_(blocks) {
    for (const StoredBlock& b : blocks_) compressed_ += b.header.codec != format::kCodecNone;
    if (compressed_ >= 2 && std::thread::hardware_concurrency() > 1)
      worker_ = std::thread([this] { work(); });
  }
  ~Prefetcher() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The payload of blocks_[i] (called with increasing i, for each block in turn).
  const uint8_t* payload(size_t i, const uint8_t* end, std::string_view name) {
    const StoredBlock& b = blocks_[i];
    const bool near_end = b.stored + b.header.stored_size + format::kDecodePadding > end;
    if (b.header.codec == format::kCodecNone || !worker_.joinable())
      return raw_payload(b.header, b.stored, own_, unpack_, name, b.offset, near_end);
    std::unique_lock lock(mutex_);
    if (taken_ > 0) {  // the previous compressed block's slot is free again
      ++freed_;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return done_ > taken_; });
    Slot& slot = slots_[taken_ % kSlots];
    ++taken_;
    if (!slot.error.empty()) fail(name, b.offset, slot.error);
    return slot.data.data();
  }

 private:
  struct Slot {
    std::vector<uint8_t> data;
    std::string error;
  };
  void work() {
    Decompressor unpack;
    size_t produced = 0;
    for (const StoredBlock& b : blocks_) {
      if (b.header.codec == format::kCodecNone) continue;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || produced - freed_ < kSlots; });
        if (stop_) return;
      }
      Slot& slot = slots_[produced % kSlots];
      slot.error = unpack.run(b.header, b.stored, slot.data);
      {
        std::lock_guard lock(mutex_);
        done_ = ++produced;
      }
      changed_.notify_all();
    }
  }

  const std::vector<StoredBlock>& blocks_;
  size_t compressed_ = 0;
  Slot slots_[kSlots];
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t done_ = 0;   // compressed blocks decompressed
  size_t taken_ = 0;  // handed to the reader
  size_t freed_ = 0;  // given back by the reader
  bool stop_ = false;
  std::thread worker_;
  std::vector<uint8_t> own_;  // without the helper, and for uncompressed blocks
  Decompressor unpack_;
};

// A stack table block (docs/FORMATS.md "Stacks"): stack ids dense and in order from 1, frames
// naming locations already defined.
void read_stacks(const uint8_t* p, const uint8_t* end, Symbols& symbols, std::string_view name,
                 uint64_t offset) {
  std::vector<std::vector<uint32_t>>& frames = symbols.stacks.frames;
  if (frames.empty()) frames.emplace_back();  // id 0: no stack
  uint64_t first;
  if (!(p = format::get_varint(p, end, first)) || first != frames.size())
    fail(name, offset, "stack ids out of order");
  const uint64_t locations = symbols.locations.size();
  while (p < end) {
    uint64_t depth, f;
    if (!(p = format::get_varint(p, end, depth)) || depth > static_cast<uint64_t>(end - p))
      fail(name, offset, "malformed stack record");
    std::vector<uint32_t>& stack = frames.emplace_back();
    for (uint64_t i = 0; i < depth; ++i) {
      if (!(p = format::get_varint(p, end, f)) || f >= locations)
        fail(name, offset, "malformed stack record (a frame names no location)");
      stack.push_back(static_cast<uint32_t>(f));
    }
  }
}

// An event stacks block: (event id delta, stack id) pairs naming known stacks and events read
// before it (up to `last_id`).
void read_event_stacks(const uint8_t* p, const uint8_t* end, Symbols& symbols, uint64_t last_id,
                       std::string_view name, uint64_t offset) {
  Stacks& stacks = symbols.stacks;
  uint64_t event = 0;
  while (p < end) {
    uint64_t delta, stack;
    if (!(p = format::get_varint(p, end, delta)) || !(p = format::get_varint(p, end, stack)) ||
        stack == 0 || stack >= stacks.frames.size() || delta >= last_id - event)
      fail(name, offset, "malformed event stack record");
    event += delta + 1;
    if (event >= stacks.of_event.size()) stacks.of_event.resize(event + 1, 0);
    stacks.of_event[event] = static_cast<uint32_t>(stack);
  }
}

// A thread stacks block: (thread, creating thread, stack id) of known threads and stacks.
void read_thread_stacks(const uint8_t* p, const uint8_t* end, Symbols& symbols,
                        std::string_view name, uint64_t offset) {
  Stacks& stacks = symbols.stacks;
  const uint64_t threads = symbols.threads.size();
  while (p < end) {
    uint64_t thread, parent, stack;
    if (!(p = format::get_varint(p, end, thread)) || !(p = format::get_varint(p, end, parent)) ||
        !(p = format::get_varint(p, end, stack)) || thread >= threads || parent >= threads ||
        stack == 0 || stack >= stacks.frames.size())
      fail(name, offset, "malformed thread stack record");
    if (thread >= stacks.created.size()) stacks.created.resize(thread + 1);
    stacks.created[thread] = {static_cast<uint32_t>(parent), static_cast<uint32_t>(stack)};
  }
}

void read_symbols(const uint8_t* p, const uint8_t* end, Symbols& symbols, std::string_view name,
                  uint64_t offset) {
  while (p < end) {
    const unsigned space = *p++;
    uint64_t id, len;
    if (space >= format::kSpaceCount || !(p = format::get_varint(p, end, id)) ||
        !(p = format::get_varint(p, end, len)) || len > static_cast<uint64_t>(end - p))
      fail(name, offset, "malformed symbol record");
    SymbolTable& table = table_of(symbols, space);
    if (id != table.size())
      fail(name, offset,
           "symbol id " + std::to_string(id) + " out of order (expected " +
               std::to_string(table.size()) + ")");
    const std::string_view text(reinterpret_cast<const char*>(p), len);
    if (table.intern(text) != id)
      fail(name, offset, "duplicate symbol name '" + std::string(text) + "'");
    p += len;
  }
}

// What decode_block found: `count` good events, then possibly a bad one or a malformed byte.
struct Decoded {
  size_t count = 0;
  const char* bad = nullptr;  // why event `bad_id` is refused
  uint64_t bad_id = 0;
  const uint8_t* err = nullptr;  // the malformed byte
};

// Decodes an events payload and delivers its events in runs of kRun (no virtual call per event;
// a run of 24-byte id+event pairs stays in the L2 cache for the consumer), checking each event's
// ids against the symbol tables and `last_id`. An event that names nothing ends the delivery
// before it. A function of its own, so that the compiler keeps the loop's state in registers.
[[gnu::noinline]] Decoded decode_block(format::ChunkDecoder& decoder, const uint8_t* raw,
                                       uint32_t size, const Symbols& symbols, uint64_t& last_id,
                                       EventConsumer& consumer) {
  constexpr size_t kRun = 4096;
  EventId ids[kRun];
  Event events[kRun];
  size_t run = 0;
  const uint32_t n_threads = symbols.threads.size(), n_vars = symbols.variables.size(),
                 n_locks = symbols.locks.size(), n_locs = symbols.locations.size();
  // The name space of each op's target, as a table: no branch on the op per event (the decoder
  // refuses ops past the file's version, so op < kOpCount <= 16).
  static_assert(format::kOpCount <= 16);
  const uint32_t limits[16] = {n_vars,  n_vars,  n_locks, n_locks, n_threads, n_threads,
                               n_locks, n_locks, n_locks, n_locks, n_locks,   n_locks};
  Decoded d;
  size_t count = 0;
  uint64_t last = last_id;
  bool bad = false;
  d.err = decoder.decode(
      raw, raw + size,
      [&](uint64_t id, uint8_t op, uint32_t thread, uint32_t target, uint32_t location) {
        const bool wrong = (thread >= n_threads) | (target >= limits[op & 15]) |
                           (location >= n_locs) | (id <= last) | bad;
        if (__builtin_expect(wrong, 0)) {
          if (bad) return;
          bad = true;
          d.bad = thread >= n_threads         ? "thread id without a name"
                  : target >= limits[op & 15] ? "target id without a name"
                  : location >= n_locs        ? "location id without a name"
                                              : "event ids do not increase";
          d.bad_id = id;
          return;
        }
        last = id;
        ids[run] = id;
        events[run] = Event{static_cast<Op>(op), thread, target, location};
        if (++run == kRun) {
          consumer.on_events(ids, events);
          count += run;
          run = 0;
        }
      });
  if (run) consumer.on_events({ids, run}, {events, run});
  last_id = last;
  d.count = count + run;
  return d;
}

}  // namespace

bool is_binary_trace(std::string_view head) {
  return format::has_magic(head.data(), head.size());
}

void read_binary_events(std::string_view data, std::string_view name, const ReadOptions& options,
                        Symbols& symbols, EventConsumer& consumer, ReadSummary& summary) {
  summary.format = "binary";
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  BlockWalker walker(bytes, data.size());
  if (!walker.start()) fail(name, 0, walker.error);
  if (!symbols.threads.empty() || !symbols.variables.empty() || !symbols.locks.empty() ||
      !symbols.locations.empty())
    throw InputError(std::string(name) +
                     ": error: a binary trace must be read into empty symbol tables");
  // The blocks first (checksums), then their contents in order; a corrupt block is reported
  // after the events before it, as a streaming read would.
  std::vector<StoredBlock> blocks;
  {
    StoredBlock b{};
    while (walker.next(b.header, b.stored, b.offset)) blocks.push_back(b);
  }
  Prefetcher prefetch(blocks);
  format::ChunkDecoder decoder(format::op_count_of(walker.version));
  uint64_t last_id = 0;
  for (size_t block = 0; block < blocks.size(); ++block) {
    const BlockHeader& header = blocks[block].header;
    const uint64_t offset = blocks[block].offset;
    const uint8_t* raw = prefetch.payload(block, bytes + data.size(), name);
    if (header.kind == format::kBlockSymbols) {
      read_symbols(raw, raw + header.raw_size, symbols, name, offset);
      continue;
    }
    if (header.kind == format::kBlockStacks) {
      read_stacks(raw, raw + header.raw_size, symbols, name, offset);
      continue;
    }
    if (header.kind == format::kBlockThreadStacks) {
      read_thread_stacks(raw, raw + header.raw_size, symbols, name, offset);
      continue;
    }
    if (header.kind == format::kBlockEventStacks) {
      read_event_stacks(raw, raw + header.raw_size, symbols, last_id, name, offset);
      continue;
    }
    const Decoded d = decode_block(decoder, raw, header.raw_size, symbols, last_id, consumer);
    const size_t count = d.count;
    if (d.bad) fail(name, offset, std::string(d.bad) + " at event " + std::to_string(d.bad_id));
    if (d.err)
      fail(name, offset,
           "malformed event at byte " + std::to_string(d.err - raw) + " of the events block");
    summary.event_lines += count;
    summary.delivered += count;
  }
  if (!walker.error.empty()) fail(name, walker.valid, walker.error);
  if (!walker.complete) {
    const std::string message =
        std::string(name) + ": byte " + std::to_string(walker.valid) +
        ": error: the binary trace is cut short (no index and trailer: the writer did not "
        "finish, e.g. it crashed); the " +
        std::to_string(summary.delivered) +
        " events before the cut are complete: --lenient reads them, `racepred record --repair "
        "FILE` makes the file whole";
    if (!options.lenient) throw InputError(message);
    ++summary.malformed;
    summary.malformed_examples.push_back(
        std::string(name) + ": byte " + std::to_string(walker.valid) +
        ": the binary trace is cut short (no index and trailer); read the " +
        std::to_string(summary.delivered) + " complete events before the cut");
  }
  summary.lines = 0;
}

namespace {
struct FileImage {
  io::MappedFile file;
  std::string copy;
  std::string_view data;
};

void load_image(const std::string& path, FileImage& image) {
  int fd = -1;
  if (image.file.open(path, &fd)) {
    image.data = image.file.text();
    return;
  }
  io::ChunkReader reader(fd, path);
  image.copy = reader.read_all();
  if (fd >= 0) ::close(fd);
  image.data = image.copy;
}

BinaryTraceInfo info_of(std::string_view data, const std::string& path, BlockWalker& walker) {
  if (!walker.start()) fail(path, 0, walker.error);
  BinaryTraceInfo info;
  info.file_bytes = data.size();
  BlockHeader header;
  const uint8_t* stored;
  uint64_t offset;
  std::vector<uint8_t> buffer;
  Decompressor unpack;
  while (walker.next(header, stored, offset)) {
    if (header.kind != format::kBlockEvents) continue;
    const uint8_t* raw = raw_payload(header, stored, buffer, unpack, path, offset);
    if (header.raw_size < format::kEventsPrefix) fail(path, offset, "events block too short");
    ++info.event_blocks;
    info.events += format::get_u32(raw);
  }
  if (!walker.error.empty()) fail(path, walker.valid, walker.error);
  info.complete = walker.complete;
  info.valid_bytes = walker.valid;
  return info;
}
}  // namespace

BinaryTraceInfo binary_trace_info(const std::string& path) {
  FileImage image;
  load_image(path, image);
  const auto* bytes = reinterpret_cast<const uint8_t*>(image.data.data());
  BlockWalker walker(bytes, image.data.size());
  if (walker.start()) {
    // A complete file: the trailer points at the index, which has the counts.
    const size_t size = image.data.size();
    if (size >= format::kHeaderSize + format::kBlockHeaderSize + format::kTrailerSize &&
        std::memcmp(bytes + size - 8, format::kTrailerMagic, 8) == 0) {
      const uint64_t at = format::get_u64(bytes + size - format::kTrailerSize);
      BlockHeader h;
      if (at + format::kBlockHeaderSize <= size - format::kTrailerSize) {
        std::memcpy(&h, bytes + at, sizeof h);
        const uint8_t* payload = bytes + at + format::kBlockHeaderSize;
        if (h.kind == format::kBlockIndex &&
            at + format::kBlockHeaderSize + h.stored_size + format::kTrailerSize == size &&
            format::block_checksum(h, payload, walker.version) == h.checksum &&
            h.stored_size % sizeof(format::IndexEntry) == 0) {
          BinaryTraceInfo info;
          info.complete = true;
          info.file_bytes = info.valid_bytes = size;
          for (size_t i = 0; i < h.stored_size; i += sizeof(format::IndexEntry)) {
            format::IndexEntry e;
            std::memcpy(&e, payload + i, sizeof e);
            info.events += e.events;
            ++info.event_blocks;
          }
          return info;
        }
      }
    }
  }
  BlockWalker walk(bytes, image.data.size());
  BinaryTraceInfo info = info_of(image.data, path, walk);
  if (info.complete) info.valid_bytes = info.file_bytes;
  return info;
}

BinaryTraceInfo repair_binary_trace(const std::string& path) {
  std::vector<format::IndexEntry> index;
  BinaryTraceInfo info;
  {
    FileImage image;
    load_image(path, image);
    const auto* bytes = reinterpret_cast<const uint8_t*>(image.data.data());
    BlockWalker walker(bytes, image.data.size());
    if (!walker.start()) fail(path, 0, walker.error);
    info.file_bytes = image.data.size();
    BlockHeader header;
    const uint8_t* stored;
    uint64_t offset;
    std::vector<uint8_t> buffer;
    Decompressor unpack;
    while (walker.next(header, stored, offset)) {
      if (header.kind != format::kBlockEvents) continue;
      const uint8_t* raw = raw_payload(header, stored, buffer, unpack, path, offset);
      if (header.raw_size < format::kEventsPrefix) fail(path, offset, "events block too short");
      index.push_back({offset, format::get_u64(raw + 4), format::get_u32(raw)});
      info.events += format::get_u32(raw);
      ++info.event_blocks;
    }
    if (!walker.error.empty()) fail(path, walker.valid, walker.error);
    info.valid_bytes = walker.valid;
    if (walker.complete) {
      info.complete = true;
      info.valid_bytes = info.file_bytes;
      return info;
    }
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(info.valid_bytes)) != 0 ||
      ::lseek(fd, 0, SEEK_END) < 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw InputError(path + ": error: cannot repair: " + why);
  }
  const size_t index_bytes = index.size() * sizeof(format::IndexEntry);
  std::vector<uint8_t> tail(format::kBlockHeaderSize + index_bytes + format::kTrailerSize);
  BlockHeader h{format::kBlockIndex,
                format::kCodecNone,
                0,
                static_cast<uint32_t>(index_bytes),
                static_cast<uint32_t>(index_bytes),
                0};
  if (index_bytes) std::memcpy(tail.data() + format::kBlockHeaderSize, index.data(), index_bytes);
  h.checksum = format::block_checksum(h, tail.data() + format::kBlockHeaderSize);
  std::memcpy(tail.data(), &h, sizeof h);
  format::put_u64(tail.data() + format::kBlockHeaderSize + index_bytes, info.valid_bytes);
  std::memcpy(tail.data() + format::kBlockHeaderSize + index_bytes + 8, format::kTrailerMagic, 8);
  const bool ok = ::write(fd, tail.data(), tail.size()) == static_cast<ssize_t>(tail.size());
  const int err = errno;
  ::close(fd);
  if (!ok) throw InputError(path + ": error: cannot repair: " + std::strerror(err));
  info.complete = true;
  info.file_bytes = info.valid_bytes = info.valid_bytes + tail.size();
  return info;
}

}  // namespace racepred

namespace racepred::io {

void read_binary(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                 EventConsumer& consumer, ReadSummary& summary) {
  if (!in.stream) return read_binary_events(in.text, name, options, symbols, consumer, summary);
  std::string all;  // a pipe or compressed input: blocks need random access, so read it whole
  for (std::string_view block = in.stream->next_bytes(); !block.empty();
       block = in.stream->next_bytes())
    all.append(block);
  read_binary_events(all, name, options, symbols, consumer, summary);
}

}  // namespace racepred::io
