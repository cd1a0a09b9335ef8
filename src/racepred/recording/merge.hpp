// Merging the threads of a raw recording into one sequence: records in the order of their
// sequence numbers (the runtime numbers them with one global counter), up to the cut.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/raw_recording.hpp"

namespace racepred::recording {

// One thread's records, block after block.
class ThreadCursor {
 public:
  ThreadCursor(const ThreadStream& stream, uint32_t tid) : stream_(&stream), tid_(tid) {
    const RawBlock& b = stream.blocks[0];
    unpacker_ = format::RawUnpacker{b.data, b.end, b.count};
    next();
  }
  uint32_t tid() const { return tid_; }
  // The current record, nullptr at the end.
  const format::RawRecord* get() const { return valid_ ? &record_ : nullptr; }
  void next() {
    while (!(valid_ = unpacker_.next(record_))) {
      if (++block_ >= stream_->blocks.size()) return;
      const RawBlock& b = stream_->blocks[block_];
      unpacker_ = format::RawUnpacker{b.data, b.end, b.count};
    }
  }

 private:
  const ThreadStream* stream_;
  uint32_t tid_;
  size_t block_ = 0;
  format::RawUnpacker unpacker_{};
  format::RawRecord record_{};
  bool valid_ = false;
};

// Yields the records of every thread in sequence order, each with its thread. A thread's
// records up to the next thread's first one come in one run, without a heap operation.
class RecordMerger {
 public:
  // `recording` must outlive the merger; records at or past `cut` are not yielded (counted).
  RecordMerger(const RawRecording& recording, uint64_t cut);
  RecordMerger(const RecordMerger&) = delete;  // the heap's order points at cursors_
  RecordMerger& operator=(const RecordMerger&) = delete;

  // The next record and its thread; false at the end.
  bool next(format::RawRecord& record, uint32_t& tid) {
    for (;;) {
      if (current_ != kNone) {
        ThreadCursor& cur = cursors_[current_];
        if (const format::RawRecord* r = cur.get(); r && r->seq <= bound_) {
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
      if (heap_.empty()) return false;
      current_ = heap_.top();
      heap_.pop();
      bound_ = heap_.empty() ? UINT64_MAX : cursors_[heap_.top()].get()->seq;
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

 private:
  static constexpr size_t kNone = SIZE_MAX;
  struct Later {
    const std::vector<ThreadCursor>* cursors;
    bool operator()(size_t a, size_t b) const {
      return (*cursors)[a].get()->seq > (*cursors)[b].get()->seq;
    }
  };
  std::vector<ThreadCursor> cursors_;
  std::priority_queue<size_t, std::vector<size_t>, Later> heap_;
  size_t current_ = kNone;
  uint64_t bound_ = 0;
  uint64_t cut_;
  uint64_t cut_events_ = 0;
};

}  // namespace racepred::recording
