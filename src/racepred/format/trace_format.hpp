// racepred binary trace format ("RPT", docs/FORMATS.md "Binary"): record layout, varints,
// checksum, and the event chunk codec. Leaf module: depends on nothing else of racepred and
// uses no exceptions, no allocation and no C++ library beyond <cstdint>/<cstring>, so the
// recording runtime (recorder/) can use it as well as the readers and writers in io/.
//
// File := Header Block* [IndexBlock Trailer]
//   Header   16 bytes: kMagic (8), version u32 LE, kind u32 (kFileTrace; kFileRecording for
//            a raw recording, see below).
//   Block    16-byte BlockHeader, then `stored_size` payload bytes (compressed when codec is
//            kCodecZstd or kCodecLz4; `raw_size` is the size after decompression).
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
// Version 2 added the read-write lock ops (kReadAcquire, kReadRelease); version 3 added the LZ4
// codec (kCodecLz4) and a four-lane checksum (block_checksum); version 4 the sync-order ops
// (kSend, kRecv); version 5 the lock request (kRequest) and the call stacks (kBlockStacks,
// kBlockEventStacks); version 6 the read-mode lock request (kReadRequest). Readers still accept
// versions 1 to 5 (ops 0..5 only in version 1, 0..7 in 2 and 3, 0..9 in 4, 0..10 in 5; the
// one-lane checksum in 1 and 2; no stack blocks before 5).
inline constexpr uint32_t kVersion = 6;
inline constexpr uint32_t kOldestVersion = 1;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kBlockHeaderSize = 16;
inline constexpr size_t kTrailerSize = 16;

enum BlockKind : uint8_t {
  kBlockSymbols = 1,
  kBlockEvents = 2,
  kBlockIndex = 3,
  // Raw recordings only (written by recorder/, turned into a trace by `racepred record`):
  kBlockRaw = 4,   // u32 thread, u32 flags (kRawEnd...), u32 count, then packed RawRecords
  kBlockMaps = 5,  // the text of /proc/self/maps (for symbolisation)
  kBlockNote = 6,  // "key=value\n" text: program, pid, counters (dropped events, capped...)
  // Version 5, traces only (docs/FORMATS.md "Stacks"): the stack table (varint first stack id,
  // then per stack: varint depth, depth varint location ids, innermost first) and the stacks of
  // events (varint pairs: event id - previous event id - 1, stack id; the first from id 0).
  kBlockStacks = 7,
  kBlockEventStacks = 8,
  // Version 5: where threads were created (varint triples: thread, creating thread, stack id).
  kBlockThreadStacks = 9,
};
// File header field `kind` (bytes 12..15): 0 = a trace, 1 = a raw recording.
inline constexpr uint32_t kFileTrace = 0;
inline constexpr uint32_t kFileRecording = 1;
// Flags of a kBlockRaw block.
inline constexpr uint32_t kRawEnd = 1;  // the thread's last block: nothing of it was lost
// The thread's first block: instead of records, a u64 lower bound of its sequence numbers.
inline constexpr uint32_t kRawStart = 2;
inline constexpr size_t kRawPrefix = 8;   // thread, flags
inline constexpr size_t kRawHeader = 12;  // thread, flags, count (a block of records)
// One event of a raw recording, in the recording thread's order. `seq` orders all threads'
// events; `op_pc` holds the op in bits 56..63 and the return address in bits 0..55.
struct RawRecord {
  uint64_t seq;
  uint64_t addr;  // variable / lock address (bit 63: the atomic lock of the address), thread
                  // id for fork/join, size for kRawSize
  uint64_t op_pc;
};
static_assert(sizeof(RawRecord) == 24, "RawRecord is 24 bytes");
// Raw ops beyond EventOp: allocation bookkeeping, used for naming heap memory; kRawCaller
// (addr = a return address) precedes a fork or join that a system library made for the user:
// the event's pc is the first user frame past the library, and the caller is the frame after
// it, named instead when the first is code of a system header (std::thread's constructor).
// kRawBenign (addr = the start, then a kRawSize record) is ThreadSanitizer's
// AnnotateBenignRaceSized: `racepred record` drops every access to the range.
// (Numbered from 16: event ops may grow up to 15 without moving them.)
// kRawStack (addr = the lowest address of the thread's stack, followed by a kRawSize record with
// its size): names the thread's stack memory ("stack of T2").
// kRawSyncObject (addr = a synchronisation object, followed by a kRawSize record with its size):
// the object is initialised or destroyed, a write of its bytes; `racepred record` then records
// every lock or sync event of the object as a read of them (only races with init/destroy).
enum RawOp : uint8_t {
  kRawAlloc = 16,
  kRawFree = 17,
  kRawSize = 18,
  kRawCaller = 19,
  kRawSyncObject = 20,
  kRawStack = 21,
  kRawBenign = 22,
  // With RACEPRED_STACK_DEPTH > 0: a call of an instrumented function (addr = the return
  // address in its caller) and its return. Thread-local: they take the sequence number of the
  // thread's record before them (or are numbered with the deferred reads around them).
  kRawFuncEntry = 23,
  kRawFuncExit = 24
};
// The op byte of a raw read or write carries the access size in bits 5..7 (raw ops stay below
// 32): 1, 2, 4, 8 or 16 bytes, a range (its length in the thread's next record, a kRawSize), or
// kSizeAtom (no size: the access of the address alone, e.g. an atomic's).
inline constexpr unsigned kRawSizeShift = 5;
inline constexpr uint8_t kRawOpMask = (1u << kRawSizeShift) - 1;
enum RawSize : uint8_t {
  kSizeAtom = 0,
  kSize1 = 1,
  kSize2 = 2,
  kSize4 = 3,
  kSize8 = 4,
  kSize16 = 5,
  kSizeRange = 7
};
inline constexpr uint8_t raw_access(uint8_t op, uint8_t size) {
  return static_cast<uint8_t>(op | (size << kRawSizeShift));
}
// The bytes of a fixed size code (kSizeAtom: 1).
inline constexpr uint32_t size_bytes(uint8_t size) {
  return size >= kSize1 && size <= kSize16 ? 1u << (size - 1) : 1u;
}
inline constexpr uint64_t kAtomicLockBit = uint64_t{1} << 63;
// kCodecLz4 (version 3): an LZ4 block (LZ4_compress_HC), about twice as fast to decompress as
// zstd for a few tenths of a byte per event more.
enum Codec : uint8_t { kCodecNone = 0, kCodecZstd = 1, kCodecLz4 = 2 };
// The largest codec a file of `version` may use.
inline constexpr uint8_t max_codec_of(uint32_t version) {
  return version >= 3 ? kCodecLz4 : kCodecZstd;
}
// Name spaces of symbol records (the same order as racepred::Symbols).
enum Space : uint8_t { kThreads = 0, kVariables = 1, kLocks = 2, kLocations = 3, kSpaceCount = 4 };
// Event operations; the values equal racepred::Op.
enum EventOp : uint8_t {
  kRead = 0,
  kWrite = 1,
  kAcquire = 2,
  kRelease = 3,
  kFork = 4,
  kJoin = 5,
  kReadAcquire = 6,   // version 2
  kReadRelease = 7,   // version 2
  kSend = 8,          // version 4
  kRecv = 9,          // version 4
  kRequest = 10,      // version 5
  kReadRequest = 11,  // version 6
};
inline constexpr unsigned kOpCount = 12;
// The ops a file of `version` may hold (a supported version).
inline constexpr unsigned op_count_of(uint32_t version) {
  return version >= 6 ? kOpCount : version >= 5 ? 11 : version >= 4 ? 10 : version >= 2 ? 8 : 6;
}
inline constexpr bool supported_version(uint32_t version) {
  return version >= kOldestVersion && version <= kVersion;
}

// Largest payload of one block before compression (a reader refuses more: a corrupt size must
// not make it allocate gigabytes).
inline constexpr uint32_t kMaxRawBlock = 64u << 20;
// Events per chunk the writers aim for.
inline constexpr uint32_t kChunkEvents = 1u << 16;

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
// __builtin_memcpy, not memcpy: the recording runtime defines memcpy (its interceptor), and
// gcc then emitted a call to it for every 8 bytes the block checksum read (6% of a recorded
// run's time).
inline void put_u32(uint8_t* p, uint32_t v) {
  __builtin_memcpy(p, &v, 4);
}
inline void put_u64(uint8_t* p, uint64_t v) {
  __builtin_memcpy(p, &v, 8);
}
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v;
  __builtin_memcpy(&v, p, 8);
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
// The same for a varint with at least 8 readable bytes at `p` (whatever `end` says: the caller
// checked), without a branch per byte: one 8-byte load, the length from the first byte whose
// high bit is clear, and the 7-bit groups gathered by three shift-and-mask steps. A varint of
// 9 or 10 bytes (rare: a delta of 2^56 or more) takes the byte-by-byte reading.
[[gnu::always_inline]] inline const uint8_t* get_varint8(const uint8_t* p, const uint8_t* end,
                                                         uint64_t& v) {
  if (*p < 0x80) {  // one byte: the common case (a small delta), predicted by loops
    v = *p;
    return p + 1;
  }
  const uint64_t w = get_u64(p);
  const uint64_t stops = ~w & 0x8080808080808080ULL;  // the high bit of each last-byte candidate
  if (stops == 0) [[unlikely]]
    return get_varint(p, end, v);
  const unsigned last = static_cast<unsigned>(__builtin_ctzll(stops));  // 7, 15, ... or 63
  // The varint's bytes (2 << 63 wraps to 0: all eight), without their continuation bits.
  uint64_t x = w & ((uint64_t{2} << last) - 1) & 0x7f7f7f7f7f7f7f7fULL;
  x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);  // 14-bit pairs
  x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);  // 28-bit quads
  x = (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);  // 56 bits
  v = x;
  return p + (last >> 3) + 1;
}
inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Packed records: op u8, varint seq delta, zigzag varint addr delta, zigzag varint pc delta,
// each delta from the block's previous record (the first from 0). At most kMaxPackedRecord
// bytes each. Returns the end of the packed bytes.
inline constexpr size_t kMaxPackedRecord = 1 + 10 + 10 + 10;
inline uint8_t* pack_raw(const RawRecord* r, uint32_t n, uint8_t* out) {
  uint64_t seq = 0, addr = 0, pc = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t rpc = r[i].op_pc & 0x00ffffffffffffffULL;
    *out++ = static_cast<uint8_t>(r[i].op_pc >> 56);
    out = put_varint(out, r[i].seq - seq);
    out = put_varint(out, zigzag(static_cast<int64_t>(r[i].addr - addr)));
    out = put_varint(out, zigzag(static_cast<int64_t>(rpc - pc)));
    seq = r[i].seq;
    addr = r[i].addr;
    pc = rpc;
  }
  return out;
}
// Unpacks the records of one block one by one.
struct RawUnpacker {
  // Bytes after a record's op that let its three varints be read 8 bytes at a time (the last
  // of them may be 10 bytes long and start 20 bytes in).
  static constexpr size_t kFastRecordBytes = 10 + 10 + 10;
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  uint32_t left = 0;
  uint64_t seq = 0, addr = 0, pc = 0;
  // False at the end of the block or on a malformed record (then `p` is nullptr).
  [[gnu::always_inline]] bool next(RawRecord& r) {
    if (left == 0 || !p || p >= end) return false;
    const uint8_t op = *p++;
    uint64_t d1, d2, d3;
    // Far from the block's end (nearly always) each varint is read 8 bytes at once.
    if (end - p >= static_cast<ptrdiff_t>(kFastRecordBytes)) [[likely]] {
      if (!(p = get_varint8(p, end, d1)) || !(p = get_varint8(p, end, d2)) ||
          !(p = get_varint8(p, end, d3))) [[unlikely]] {
        p = nullptr;
        return false;
      }
    } else if (!(p = get_varint(p, end, d1)) || !(p = get_varint(p, end, d2)) ||
               !(p = get_varint(p, end, d3))) {
      p = nullptr;
      return false;
    }
    seq += d1;
    addr += static_cast<uint64_t>(unzigzag(d2));
    pc += static_cast<uint64_t>(unzigzag(d3));
    r.seq = seq;
    r.addr = addr;
    r.op_pc = (uint64_t{op} << 56) | (pc & 0x00ffffffffffffffULL);
    --left;
    return true;
  }
};

// ---- checksum: a 32-bit multiply-xorshift hash over 8-byte words (not cryptographic; finds
// torn writes and bit rot). Versions 1 and 2 hash one word after the other; version 3 hashes
// four interleaved lanes of words (32-byte strides), which has no serial dependency from one
// word to the next and runs about four times as fast ----
inline constexpr uint64_t kChecksumMul = 0x9E3779B97F4A7C15ULL;
inline uint64_t checksum_update(uint64_t h, const uint8_t* p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ get_u64(p + i)) * kChecksumMul;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  if (i < n) std::memcpy(&tail, p + i, n - i);
  h = (h ^ tail ^ (uint64_t{n} << 56)) * kChecksumMul;
  return h ^ (h >> 29);
}
// Version 3: lanes over the whole 32-byte strides, then the one-lane hash of the rest (and of
// the lanes' states).
inline uint64_t checksum_update4(uint64_t h, const uint8_t* p, size_t n) {
  uint64_t l[4] = {h, h ^ 0x1111111111111111ULL, h ^ 0x2222222222222222ULL,
                   h ^ 0x3333333333333333ULL};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      l[k] = (l[k] ^ get_u64(p + i + 8 * k)) * kChecksumMul;
      l[k] ^= l[k] >> 32;
    }
  }
  uint8_t lanes[32];
  for (int k = 0; k < 4; ++k) put_u64(lanes + 8 * k, l[k]);
  return checksum_update(checksum_update(h, lanes, 32), p + i, n - i);
}
inline uint32_t block_checksum(const BlockHeader& header, const uint8_t* payload,
                               uint32_t version = kVersion) {
  uint64_t h =
      checksum_update(0x5250540100000000ULL, reinterpret_cast<const uint8_t*>(&header), 12);
  h = version >= 3 ? checksum_update4(h, payload, header.stored_size)
                   : checksum_update(h, payload, header.stored_size);
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
// Events payload (docs/FORMATS.md "Binary"):
//   u32 count, u64 first event id,
//   u8 thread width, u8 target width, u8 location width (1..4 bytes each), u8 reserved (0),
//   u32 number of id gaps,
//   count fixed-size records: op u8, thread, target, location (little-endian, in their widths),
//   the id gaps: pairs of varints (index of the event in the block minus the previous gap's
//   index, gap = id - previous id - 1); ids are the previous id + 1 otherwise.
// Fixed-size records keep decoding free of serial dependencies (each field is one masked load),
// and zstd finds the repetitions (same variable at the same location...) in whole records.
inline constexpr size_t kEventsPrefix = 20;
inline constexpr size_t kMaxRecordBytes = 1 + 4 + 4 + 4;
// Bytes past the end of an events payload that ChunkDecoder::decode may read (never use).
inline constexpr size_t kDecodePadding = 32;
// Room for encode_events of `events` events.
inline constexpr size_t chunk_capacity(uint32_t events) {
  return kEventsPrefix + size_t{events} * (kMaxRecordBytes + 20) + kDecodePadding;
}

inline uint8_t width_for(uint32_t max) {
  return max < (1u << 8) ? 1 : max < (1u << 16) ? 2 : max < (1u << 24) ? 3 : 4;
}
inline uint32_t width_mask(uint8_t w) {
  return w >= 4 ? 0xffffffffu : (1u << (8 * w)) - 1;
}

// Encodes `count` events into `out` (capacity chunk_capacity(count)); returns the payload size.
// `get(i, id, op, thread, target, location)` fills event i; ids must increase strictly.
template <typename Get>
size_t encode_events(uint32_t count, uint8_t* out, Get&& get) {
  uint32_t max_thread = 0, max_target = 0, max_location = 0, gaps = 0;
  uint64_t first_id = 0, prev = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t id;
    uint8_t op;
    uint32_t th, tg, lc;
    get(i, id, op, th, tg, lc);
    if (i == 0) first_id = id;
    if (i > 0 && id != prev + 1) ++gaps;
    prev = id;
    max_thread = th > max_thread ? th : max_thread;
    max_target = tg > max_target ? tg : max_target;
    max_location = lc > max_location ? lc : max_location;
  }
  const uint8_t wt = width_for(max_thread), wv = width_for(max_target),
                wl = width_for(max_location);
  put_u32(out, count);
  put_u64(out + 4, first_id);
  out[12] = wt;
  out[13] = wv;
  out[14] = wl;
  out[15] = 0;
  put_u32(out + 16, gaps);
  uint8_t* p = out + kEventsPrefix;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t id;
    uint8_t op;
    uint32_t th, tg, lc;
    get(i, id, op, th, tg, lc);
    *p++ = op;
    put_u32(p, th);  // the bytes past the width are overwritten by the next field
    p += wt;
    put_u32(p, tg);
    p += wv;
    put_u32(p, lc);
    p += wl;
  }
  uint32_t last_gap = 0;
  prev = first_id - 1;
  for (uint32_t i = 0; gaps != 0 && i < count; ++i) {  // (ids without a gap: nothing to write)
    uint64_t id;
    uint8_t op;
    uint32_t th, tg, lc;
    get(i, id, op, th, tg, lc);
    if (id != prev + 1) {
      p = put_varint(p, i - last_gap);
      p = put_varint(p, id - prev - 1);
      last_gap = i;
    }
    prev = id;
  }
  return static_cast<size_t>(p - out);
}

// Decodes one events payload. `sink(id, op, thread, target, location)` gets each event.
// kDecodePadding bytes after `end` must be readable. Returns nullptr on success, else the
// position of the malformed byte (for messages).
class ChunkDecoder {
 public:
  // `op_count`: ops of the file's version (op_count_of); a larger op is malformed.
  explicit ChunkDecoder(unsigned op_count = kOpCount) : op_count_(op_count) {}
  template <typename Sink>
  const uint8_t* decode(const uint8_t* p, const uint8_t* end, Sink&& sink) {
    if (end - p < static_cast<ptrdiff_t>(kEventsPrefix)) return p;
    const uint32_t count = get_u32(p);
    const uint64_t first_id = get_u64(p + 4);
    const uint8_t wt = p[12], wv = p[13], wl = p[14];
    const uint32_t gaps = get_u32(p + 16);
    if (wt < 1 || wt > 4 || wv < 1 || wv > 4 || wl < 1 || wl > 4 || p[15] != 0) return p + 12;
    const size_t record = 1u + wt + wv + wl;
    const uint8_t* rows = p + kEventsPrefix;
    if (static_cast<size_t>(end - rows) / record < count) return rows;
    const uint8_t* g = rows + record * count;
    const uint32_t mt = width_mask(wt), mv = width_mask(wv), ml = width_mask(wl);
    // The next id gap: at event index `next_gap` (UINT32_MAX when none is left).
    uint32_t gaps_left = gaps;
    uint64_t next_gap = UINT32_MAX, gap = 0;
    auto load_gap = [&](uint64_t base) -> bool {
      if (gaps_left == 0) {
        next_gap = UINT32_MAX;
        return true;
      }
      --gaps_left;
      uint64_t delta;
      if (!(g = get_varint(g, end, delta)) || !(g = get_varint(g, end, gap))) return false;
      next_gap = base + delta;
      return true;
    };
    if (!load_gap(0)) return end;
    uint64_t id = first_id - 1;
    const uint8_t* q = rows;
    for (uint32_t i = 0; i < count; ++i, q += record) {
      const uint8_t op = q[0];
      if (op >= op_count_) return q;
      id += 1;
      if (__builtin_expect(i == next_gap, 0)) {
        id += gap;
        if (!load_gap(i)) return end;
      }
      sink(id, op, get_u32(q + 1) & mt, get_u32(q + 1 + wt) & mv, get_u32(q + 1 + wt + wv) & ml);
    }
    if (i_is_bad(next_gap, count)) return g;
    return g == end ? nullptr : g;
  }

 private:
  unsigned op_count_;
  static bool i_is_bad(uint64_t next_gap, uint32_t count) {
    return next_gap != UINT32_MAX && next_gap >= count;
  }
};

}  // namespace racepred::format
