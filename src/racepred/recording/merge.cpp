#include "racepred/recording/merge.hpp"

namespace racepred::recording {

RecordMerger::RecordMerger(const RawRecording& recording, uint64_t cut)
    : heap_(Later{&cursors_}), cut_(cut) {
  for (const auto& [tid, t] : recording.threads)
    if (t.any) cursors_.emplace_back(t, tid);
  for (size_t i = 0; i < cursors_.size(); ++i) heap_.push(i);
}

}  // namespace racepred::recording
