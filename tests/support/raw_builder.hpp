// Raw recordings built by hand, byte for byte as the recording runtime writes them, for the
// tests of the recording module.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/format/trace_format.hpp"

namespace racepred::test {

namespace rawfmt = racepred::format;

// Builds a raw recording the way the runtime writes it.
class RawBuilder {
 public:
  RawBuilder() {
    uint8_t h[rawfmt::kHeaderSize];
    rawfmt::write_file_header(h, rawfmt::kFileRecording);
    bytes_.append(reinterpret_cast<char*>(h), sizeof h);
  }
  void block(uint8_t kind, const std::vector<uint8_t>& payload) {
    rawfmt::BlockHeader h{kind,
                          rawfmt::kCodecNone,
                          0,
                          static_cast<uint32_t>(payload.size()),
                          static_cast<uint32_t>(payload.size()),
                          0};
    h.checksum = rawfmt::block_checksum(h, payload.data());
    bytes_.append(reinterpret_cast<char*>(&h), sizeof h);
    bytes_.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  }
  void start(uint32_t tid, uint64_t seq) {
    std::vector<uint8_t> p(rawfmt::kRawPrefix + 8);
    rawfmt::put_u32(p.data(), tid);
    rawfmt::put_u32(p.data() + 4, rawfmt::kRawStart);
    rawfmt::put_u64(p.data() + 8, seq);
    block(rawfmt::kBlockRaw, p);
  }
  void records(uint32_t tid, const std::vector<rawfmt::RawRecord>& recs, bool last) {
    std::vector<uint8_t> p(rawfmt::kRawHeader + recs.size() * rawfmt::kMaxPackedRecord);
    rawfmt::put_u32(p.data(), tid);
    rawfmt::put_u32(p.data() + 4, last ? rawfmt::kRawEnd : 0);
    rawfmt::put_u32(p.data() + 8, static_cast<uint32_t>(recs.size()));
    uint8_t* end = rawfmt::pack_raw(recs.data(), static_cast<uint32_t>(recs.size()),
                                    p.data() + rawfmt::kRawHeader);
    p.resize(static_cast<size_t>(end - p.data()));
    block(rawfmt::kBlockRaw, p);
  }
  void note(const std::string& text) { block(rawfmt::kBlockNote, {text.begin(), text.end()}); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

// A record: sequence number, operation (EventOp or RawOp), address, code address.
inline rawfmt::RawRecord rec(uint64_t seq, uint8_t op, uint64_t addr, uint64_t pc = 0x1000) {
  return {seq, addr, (uint64_t{op} << 56) | pc};
}

}  // namespace racepred::test
