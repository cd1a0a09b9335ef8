// racepred binary trace format ("RPT", docs/FORMATS.md "Binary"): record layout, varints,
// checksum, and the event chunk codec. Leaf module: depends on nothing else of racepred and
// uses no exceptions, no allocation and no C++ library beyond <cstdint>/<cstring>, so the
// recording runtime (recorder/) can use it as well as the readers and writers in io/.
//
// File := Header Block* [IndexBlock Trailer]
//   Header   16 bytes: kMagic (8), version u32 LE, kind u32 (kFileTrace; kFileRecording for
//            a raw recording, see below).
//   Block    16-byte BlockHeader, then `stored_size` payload bytes (zstd-compressed when
//            codec is kCodecZstd; `raw_size` is the size after decompression).
//   Trailer  16 bytes: offset of the index block's header (u64 LE), kTrailerMagic (8).
// Blocks: kBlockSymbols (names; ids of each name space dense and in order), kBlockEvents (a
// chunk of events, decodable on its own), kBlockIndex (one entry per events block). A file that
// ends without a trailer was cut short (a crash): every complete block before the cut is valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace racepred::format {

inline constexpr unsigned char kMagic[8] = {0x89, 'R', 'P', 'T', '\r', '\n', 0x1a, '\n'};
inline constexpr unsigned char kTrailerMagic[8] = {'R', 'P', 'T', 'I', 'N', 'D', 'E', 'X'};
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kBlockHeaderSize = 16;
inline constexpr size_t kTrailerSize = 16;

enum BlockKind : uint8_t {
  kBlockSymbols = 1,
  kBlockEvents = 2,
  kBlockIndex = 3,
  // Raw recordings only (written by recorder/, turned into a trace by `racepred record`):
  kBlockRaw = 4,   // u32 thread, u32 flags (kRawEnd...), then RawRecord[]
  kBlockMaps = 5,  // the text of /proc/self/maps (for symbolisation)
  kBlockNote = 6,  // "key=value\n" text: program, pid, counters (dropped events, capped...)
};
// File header field `kind` (bytes 12..15): 0 = a trace, 1 = a raw recording.
inline constexpr uint32_t kFileTrace = 0;
inline constexpr uint32_t kFileRecording = 1;
// Flags of a kBlockRaw block.
inline constexpr uint32_t kRawEnd = 1;  // the thread's last block: nothing of it was lost
// The thread's first block: instead of records, a u64 lower bound of its sequence numbers.
inline constexpr uint32_t kRawStart = 2;
inline constexpr size_t kRawPrefix = 8;
// One event of a raw recording, in the recording thread's order. `seq` orders all threads'
// events; `op_pc` holds the op in bits 56..63 and the return address in bits 0..55.
struct RawRecord {
  uint64_t seq;
  uint64_t addr;  // variable / lock address (bit 63: the atomic lock of the address), thread
                  // id for fork/join, size for kRawSize
  uint64_t op_pc;
};
static_assert(sizeof(RawRecord) == 24, "RawRecord is 24 bytes");
// Raw ops beyond EventOp: allocation bookkeeping, used for naming heap memory.
enum RawOp : uint8_t { kRawAlloc = 8, kRawFree = 9, kRawSize = 10 };
inline constexpr uint64_t kAtomicLockBit = uint64_t{1} << 63;
enum Codec : uint8_t { kCodecNone = 0, kCodecZstd = 1 };
// Name spaces of symbol records (the same order as racepred::Symbols).
enum Space : uint8_t { kThreads = 0, kVariables = 1, kLocks = 2, kLocations = 3, kSpaceCount = 4 };
// Event operations; the values equal racepred::Op.
enum EventOp : uint8_t { kRead = 0, kWrite = 1, kAcquire = 2, kRelease = 3, kFork = 4, kJoin = 5 };
inline constexpr unsigned kOpCount = 6;

// Largest payload of one block before compression (a reader refuses more: a corrupt size must
// not make it allocate gigabytes).
inline constexpr uint32_t kMaxRawBlock = 64u << 20;
// Events per chunk the writers aim for, and the most bytes one event can take encoded.
inline constexpr uint32_t kChunkEvents = 1u << 16;
inline constexpr size_t kMaxEventBytes = 1 + 10 + 5 + 5 + 5;
inline constexpr size_t kEventsPrefix = 12;  // u32 count, u64 first event id
inline constexpr size_t chunk_capacity(uint32_t events) {
  return kEventsPrefix + size_t{events} * kMaxEventBytes;
}

// "symbols", "events", "index", or "unknown" (for messages).
const char* block_kind_name(uint8_t kind);

struct BlockHeader {
  uint8_t kind;
  uint8_t codec;
  uint16_t reserved;     // 0
  uint32_t stored_size;  // payload bytes in the file
  uint32_t raw_size;     // payload bytes after decompression (== stored_size when not compressed)
  uint32_t checksum;     // checksum() of the first 12 header bytes, then of the stored payload
};
static_assert(sizeof(BlockHeader) == kBlockHeaderSize, "BlockHeader is 16 bytes");

// One entry of the index block (24 bytes): where an events block starts and what it holds.
struct IndexEntry {
  uint64_t offset;    // file offset of the events block's header
  uint64_t first_id;  // id of the block's first event
  uint64_t events;    // events in the block
};

// ---- little-endian fixed-size fields (x86-64 and aarch64 are little-endian) ----
inline void put_u32(uint8_t* p, uint32_t v) {
  std::memcpy(p, &v, 4);
}
inline void put_u64(uint8_t* p, uint64_t v) {
  std::memcpy(p, &v, 8);
}
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// ---- LEB128 varints ----
inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}
// Reads a varint from [p, end). Returns the position after it, or nullptr when it is cut off or
// longer than 10 bytes.
inline const uint8_t* get_varint(const uint8_t* p, const uint8_t* end, uint64_t& v) {
  if (p < end && *p < 0x80) {
    v = *p;
    return p + 1;
  }
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 70 && p < end; shift += 7) {
    const uint8_t b = *p++;
    r |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) {
      v = r;
      return p;
    }
  }
  return nullptr;
}
inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// ---- checksum: a 32-bit multiply-xorshift hash over 8-byte words (not cryptographic; finds
// torn writes and bit rot) ----
inline uint64_t checksum_update(uint64_t h, const uint8_t* p, size_t n) {
  constexpr uint64_t k = 0x9E3779B97F4A7C15ULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ get_u64(p + i)) * k;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  if (i < n) std::memcpy(&tail, p + i, n - i);
  h = (h ^ tail ^ (uint64_t{n} << 56)) * k;
  return h ^ (h >> 29);
}
inline uint32_t block_checksum(const BlockHeader& header, const uint8_t* payload) {
  uint64_t h =
      checksum_update(0x5250540100000000ULL, reinterpret_cast<const uint8_t*>(&header), 12);
  h = checksum_update(h, payload, header.stored_size);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

inline void write_file_header(uint8_t out[kHeaderSize], uint32_t kind = kFileTrace) {
  for (int i = 0; i < 8; ++i) out[i] = kMagic[i];
  put_u32(out + 8, kVersion);
  put_u32(out + 12, kind);
}
// True when `data` starts with the magic (the format's detection).
inline bool has_magic(const void* data, size_t size) {
  return size >= 8 && std::memcmp(data, kMagic, 8) == 0;
}

// ---- event chunk codec ----
//
// Events payload: u32 count, u64 id of the first event, then `count` encoded events. Each
// event starts with a tag byte:
//   bits 0-2  op (kRead..kJoin; 6 and 7 are invalid in version 1)
//   bit 3     the thread differs from the previous event's: varint thread id follows
//   bits 4-5  location: 0 = the thread's previous location + 1, 1 = the same as the thread's
//             previous location, 2 = zigzag varint delta from it follows
//   bit 6     target: 1 = the same as the thread's previous target of this op's name space
//             (variables for r/w, locks for acq/rel, threads for fork/join); 0 = zigzag
//             varint delta from it follows
//   bit 7     the id is not the previous id + 1: varint (id - previous id - 1) follows
// Fields follow the tag in this order: id gap, thread, target delta, location delta.
// "Previous" state is per thread and lives in a 64-entry table indexed by thread id mod 64 and
// tagged with the thread id; a missing entry reads as zeros. Each chunk starts from an empty
// table, previous thread 0 and previous id = first id - 1, so chunks decode independently.

struct ThreadState {
  uint32_t thread;  // tag; UINT32_MAX when empty
  uint32_t location;
  uint32_t target[3];
};

inline constexpr unsigned kStateSlots = 64;

inline unsigned space_of(uint8_t op) {
  return op <= kWrite ? 0u : op <= kRelease ? 1u : 2u;
}

class ChunkState {
 public:
  void reset(uint64_t first_id) {
    for (ThreadState& s : slots_) s = ThreadState{UINT32_MAX, 0, {0, 0, 0}};
    prev_thread_ = 0;
    prev_id_ = first_id - 1;
  }
  ThreadState& state(uint32_t thread) {
    ThreadState& s = slots_[thread % kStateSlots];
    if (s.thread != thread) s = ThreadState{thread, 0, {0, 0, 0}};
    return s;
  }

 protected:
  ThreadState slots_[kStateSlots];
  uint32_t prev_thread_ = 0;
  uint64_t prev_id_ = 0;
};

// Encodes events into a caller-provided buffer of chunk_capacity(max events) bytes.
class ChunkEncoder : public ChunkState {
 public:
  void begin(uint8_t* buffer, uint64_t first_id) {
    buffer_ = buffer;
    pos_ = buffer + kEventsPrefix;
    count_ = 0;
    put_u64(buffer + 4, first_id);
    reset(first_id);
  }
  // Ids must increase strictly within a chunk; op < kOpCount.
  void put(uint64_t id, uint8_t op, uint32_t thread, uint32_t target, uint32_t location) {
    uint8_t* tag = pos_++;
    uint8_t t = op;
    if (id != prev_id_ + 1) {
      t |= 0x80;
      pos_ = put_varint(pos_, id - prev_id_ - 1);
    }
    prev_id_ = id;
    if (thread != prev_thread_) {
      t |= 0x08;
      pos_ = put_varint(pos_, thread);
      prev_thread_ = thread;
    }
    ThreadState& s = state(thread);
    uint32_t& prev_target = s.target[space_of(op)];
    if (target == prev_target) {
      t |= 0x40;
    } else {
      pos_ = put_varint(pos_, zigzag(int64_t{target} - int64_t{prev_target}));
      prev_target = target;
    }
    if (location == s.location + 1) {
      // mode 0
    } else if (location == s.location) {
      t |= 0x10;
    } else {
      t |= 0x20;
      pos_ = put_varint(pos_, zigzag(int64_t{location} - int64_t{s.location}));
    }
    s.location = location;
    *tag = t;
    ++count_;
  }
  uint32_t count() const { return count_; }
  // Bytes used so far, prefix included; finish() writes the count.
  size_t size() const { return static_cast<size_t>(pos_ - buffer_); }
  size_t finish() {
    put_u32(buffer_, count_);
    return size();
  }

 private:
  uint8_t* buffer_ = nullptr;
  uint8_t* pos_ = nullptr;
  uint32_t count_ = 0;
};

// Bytes past the end of an events payload that ChunkDecoder::decode may read (never use).
inline constexpr size_t kDecodePadding = 32;

// A varint of up to 4 bytes without branches: `present` 0 reads nothing (value 0, length 0).
// Longer varints take the slow path. Reads 4 bytes at p (padding makes that safe).
struct Varint4 {
  uint32_t value;
  uint32_t length;  // 0 when not present; 5 means "longer than 4 bytes: use get_varint"
};
inline Varint4 peek_varint4(const uint8_t* p, uint32_t present) {
  const uint32_t w = get_u32(p);
  const uint32_t stops = ~w & 0x80808080u;  // high bit set in bytes that end the varint
  const uint32_t length = stops ? (static_cast<uint32_t>(__builtin_ctz(stops)) >> 3) + 1 : 5;
  uint32_t v =
      (w & 0x7fu) | ((w >> 1) & 0x3f80u) | ((w >> 2) & 0x1fc000u) | ((w >> 3) & 0xfe00000u);
  v &= static_cast<uint32_t>((uint64_t{1} << (7 * (length < 4 ? length : 4))) - 1);
  return {present ? v : 0, present ? length : 0};
}

// Decodes one events payload. `sink(id, op, thread, target, location)` gets each event.
// kDecodePadding bytes after `end` must be readable. Returns nullptr on success, else the
// position of the malformed byte (for messages).
class ChunkDecoder : public ChunkState {
 public:
  template <typename Sink>
  const uint8_t* decode(const uint8_t* p, const uint8_t* end, Sink&& sink) {
    if (end - p < static_cast<ptrdiff_t>(kEventsPrefix)) return p;
    const uint32_t count = get_u32(p);
    reset(get_u64(p + 4));
    p += kEventsPrefix;
    for (uint32_t i = 0; i < count; ++i) {
      if (p >= end) return p;
      const uint8_t* at = p;
      const uint8_t t = *p++;
      const uint8_t op = t & 7;
      if (op >= kOpCount || (t & 0x30) == 0x30) return at;
      uint64_t id = prev_id_ + 1;
      if (__builtin_expect(t & 0x80, 0)) {
        uint64_t v;
        if (!(p = get_varint(p, end, v))) return at;
        id += v;
      }
      prev_id_ = id;
      // Thread, target delta and location delta: each present or not by a tag bit.
      Varint4 th = peek_varint4(p, t & 0x08);
      if (__builtin_expect(th.length > 4, 0)) return at;  // thread ids are below 2^28 here
      p += th.length;
      prev_thread_ = th.length ? th.value : prev_thread_;
      ThreadState& s = state(prev_thread_);
      uint32_t& target = s.target[space_of(op)];
      Varint4 tg = peek_varint4(p, !(t & 0x40));
      if (__builtin_expect(tg.length > 4, 0)) {
        uint64_t v;
        if (!(p = get_varint(p, end, v))) return at;
        target = static_cast<uint32_t>(target + unzigzag(v));
      } else {
        p += tg.length;
        target = static_cast<uint32_t>(target + unzigzag(tg.value));
      }
      const uint32_t mode = t & 0x30;
      Varint4 lc = peek_varint4(p, mode == 0x20);
      if (__builtin_expect(lc.length > 4, 0)) {
        uint64_t v;
        if (!(p = get_varint(p, end, v))) return at;
        s.location = static_cast<uint32_t>(s.location + unzigzag(v));
      } else {
        p += lc.length;
        s.location = static_cast<uint32_t>(s.location + (mode == 0 ? 1 : 0) + unzigzag(lc.value));
      }
      sink(id, op, prev_thread_, target, s.location);
    }
    return p == end ? nullptr : p;
  }
};

}  // namespace racepred::format
