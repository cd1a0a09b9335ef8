// Merging the threads of a raw recording into one sequence: records in the order of their
// sequence numbers, and of their threads among equal numbers (the runtime numbers them with
// Lamport timestamps, or with one global counter under a scheduler; docs/RECORDER.md, "How
// records are ordered"), up to the cut.
#pragma once

#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/raw_recording.hpp"

namespace racepred::recording {

// The raw bytes a merge holds: each cursor its current block, and what the file has not given
// back yet (RawFile::consumed: a bounded amount), however long the recording is.
struct RawHolding {
  const RawFile* file = nullptr;  // nullptr: the bytes are not a file's (nothing to give back)
  uint64_t held = 0, peak = 0;
  void take(const RawBlock& b) {
    held += static_cast<uint64_t>(b.end - b.data);
    const uint64_t now = held + (file ? file->unreleased() : 0);
    if (now > peak) peak = now;
  }
  void give_back(const RawBlock& b) {
    held -= static_cast<uint64_t>(b.end - b.data);
    if (file) file->consumed(static_cast<uint64_t>(b.end - b.data));
  }
};

// One thread's records, block after block.
class ThreadCursor {
 public:
  ThreadCursor(const ThreadStream& stream, uint32_t tid, RawHolding* holding)
      : stream_(&stream), tid_(tid), holding_(holding) {
    const RawBlock& b = stream.blocks[0];
    holding_->take(b);
    unpacker_ = format::RawUnpacker{b.data, b.end, b.count};
    next();
  }
  uint32_t tid() const { return tid_; }
  // A block whose records could not all be read, or nullptr.
  const RawBlock* malformed() const { return malformed_; }
  // The current record, nullptr at the end.
  const format::RawRecord* get() const { return valid_ ? &record_ : nullptr; }
  [[gnu::always_inline]] void next() {
    if ((valid_ = unpacker_.next(record_))) [[likely]]
      return;
    next_block();
  }

 private:
  [[gnu::noinline]] void next_block() {
    // A block must hold exactly its count of records (decode_recording checked the blocks of an
    // unfinished recording only).
    if (block_ < stream_->blocks.size() && unpacker_.left != 0 && !malformed_)
      malformed_ = &stream_->blocks[block_];
    while (!valid_ && block_ < stream_->blocks.size()) {
      holding_->give_back(stream_->blocks[block_]);
      if (++block_ >= stream_->blocks.size()) return;
      const RawBlock& b = stream_->blocks[block_];
      holding_->take(b);
      unpacker_ = format::RawUnpacker{b.data, b.end, b.count};
      valid_ = unpacker_.next(record_);
    }
  }

  const ThreadStream* stream_;
  uint32_t tid_;
  RawHolding* holding_;
  const RawBlock* malformed_ = nullptr;
  size_t block_ = 0;
  format::RawUnpacker unpacker_{};
  format::RawRecord record_{};
  bool valid_ = false;
};

// Yields the records of every thread in the order of (sequence number, thread), each with its
// thread. A thread's records up to the next thread's first one come in one run, without a heap
// operation.
class RecordMerger {
 public:
  // `recording` must outlive the merger; records at or past `cut` are not yielded (counted).
  // The blocks of a recording read from a RawFile are given back to it as they are read.
  RecordMerger(const RawRecording& recording, uint64_t cut);
  // Throws InputError at the end when a block does not hold the records its header counts.
  RecordMerger(const RecordMerger&) = delete;  // the heap's order points at cursors_
  RecordMerger& operator=(const RecordMerger&) = delete;

  // The next record and its thread; false at the end.
  [[gnu::always_inline]] bool next(format::RawRecord& record, uint32_t& tid) {
    // The common case inline: the current thread's run goes on.
    if (current_ != kNone) [[likely]] {
      ThreadCursor& cur = cursors_[current_];
      if (const format::RawRecord* r = cur.get();
          r && before_bound(r->seq, cur.tid()) && r->seq < cut_) [[likely]] {
        record = *r;
        tid = cur.tid();
        cur.next();
        return true;
      }
    }
    return next_slow(record, tid);
  }
  [[gnu::noinline]] bool next_slow(format::RawRecord& record, uint32_t& tid) {
    for (;;) {
      if (current_ != kNone) {
        ThreadCursor& cur = cursors_[current_];
        if (const format::RawRecord* r = cur.get(); r && before_bound(r->seq, cur.tid())) {
          if (r->seq >= cut_) {
            // Everything after the cut is dropped: count it.
            for (; cur.get(); cur.next()) ++cut_events_;
          } else {
            record = *r;
            tid = cur.tid();
            cur.next();
            return true;
          }
        }
        if (cur.get()) heap_.push(current_);
        current_ = kNone;
      }
      if (heap_.empty()) {
        check();
        return false;
      }
      current_ = heap_.top();
      heap_.pop();
      if (heap_.empty()) {
        bound_ = UINT64_MAX;
        bound_tid_ = UINT32_MAX;
      } else {
        bound_ = cursors_[heap_.top()].get()->seq;
        bound_tid_ = cursors_[heap_.top()].tid();
      }
    }
  }

  // The record that follows the last one yielded in its own thread, whatever its sequence
  // number (an allocation's size record); nullptr if none. take_following() consumes it.
  const format::RawRecord* following() const {
    return current_ == kNone ? nullptr : cursors_[current_].get();
  }
  void take_following() { cursors_[current_].next(); }

  // Records dropped because they are at or past the cut.
  uint64_t cut_events() const { return cut_events_; }
  // The most raw bytes the merge held at once (one block per thread at most).
  uint64_t peak_raw_bytes() const { return holding_.peak; }

 private:
  // Throws InputError naming a malformed block (the end of the merge).
  void check() const;

  // (seq, tid) of the current thread's record comes before the next thread's first one.
  bool before_bound(uint64_t seq, uint32_t tid) const {
    return seq < bound_ || (seq == bound_ && tid < bound_tid_);
  }

  static constexpr size_t kNone = SIZE_MAX;
  struct Later {
    const std::vector<ThreadCursor>* cursors;
    bool operator()(size_t a, size_t b) const {
      const ThreadCursor& x = (*cursors)[a];
      const ThreadCursor& y = (*cursors)[b];
      const uint64_t sx = x.get()->seq, sy = y.get()->seq;
      return sx != sy ? sx > sy : x.tid() > y.tid();
    }
  };
  RawHolding holding_;
  std::string name_;
  std::vector<ThreadCursor> cursors_;
  std::priority_queue<size_t, std::vector<size_t>, Later> heap_;
  size_t current_ = kNone;
  uint64_t bound_ = 0;
  uint32_t bound_tid_ = 0;
  uint64_t cut_;
  uint64_t cut_events_ = 0;
};

}  // namespace racepred::recording
