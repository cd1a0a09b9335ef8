// A progress line on stderr for long traces: events read, rate, elapsed time. Redrawn at most
// twice a second with '\r'; only when enabled (stderr a terminal, no -q, not in CI).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>

namespace racepred::cli {

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // `events` read so far; may be called from another thread (the reader's).
  void update(uint64_t events) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0) return;  // short runs print nothing
    std::fprintf(stderr, "\rracepred: %.1fM events read, %.1fM events/s, %.0f s elapsed ",
                 static_cast<double>(events) / 1e6, static_cast<double>(events) / 1e6 / elapsed,
                 elapsed);
    std::fflush(stderr);
    shown_ = true;
  }
  // Clears the line if one was drawn.
  void finish() {
    std::lock_guard lock(mutex_);
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  std::mutex mutex_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

}  // namespace racepred::cli
