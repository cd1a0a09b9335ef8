#include "racepred/io/input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::io {
namespace {

constexpr size_t kChunk = size_t{4} << 20;

[[noreturn]] void fail(const std::string& display, const char* what) {
  throw InputError(display + ": error: " + what + ": " + std::strerror(errno));
}

// SIGBUS guard: a mapped file that shrinks while it is read makes the next read of a vanished
// page raise SIGBUS. The handler maps a page of zeros over the faulting page of a guarded
// mapping (filled with '\n', so parsers see blank lines), records the truncation and lets the
// read go on; the reader then reports an error.
// A SIGBUS elsewhere gets the previous disposition (normally: the process dies as before).
constexpr int kGuardSlots = 16;
struct GuardSlot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> hit{false};
};
GuardSlot g_slots[kGuardSlots];
uintptr_t g_page_size = 4096;
struct sigaction g_previous_sigbus;
std::once_flag g_install_once;

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardSlot& slot : g_slots) {
    if (addr >= slot.begin.load() && addr < slot.end.load()) {
      void* page = reinterpret_cast<void*>(addr & ~(g_page_size - 1));
      if (mmap(page, g_page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
               -1, 0) != MAP_FAILED) {
        // Blank lines: every scan of the parsers stops at a '\n' inside the mapping.
        std::memset(page, '\n', g_page_size);
        mprotect(page, g_page_size, PROT_READ);
        slot.hit.store(true);
        return;  // the read is retried and sees the blank lines
      }
    }
  }
  // Not ours: restore the previous handler; returning re-raises the fault under it.
  sigaction(SIGBUS, &g_previous_sigbus, nullptr);
  (void)sig;
  (void)context;
}

int guard(const char* data, size_t length) {
  std::call_once(g_install_once, [] {
    g_page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous_sigbus);
  });
  for (int i = 0; i < kGuardSlots; ++i) {
    uintptr_t expected = 0;
    if (g_slots[i].end.compare_exchange_strong(expected, UINTPTR_MAX)) {  // claim the slot
      g_slots[i].hit.store(false);
      g_slots[i].begin.store(reinterpret_cast<uintptr_t>(data));
      g_slots[i].end.store(reinterpret_cast<uintptr_t>(data) + length);
      return i;
    }
  }
  return -1;  // more than kGuardSlots files mapped at once: this one is unguarded
}

}  // namespace

MappedFile::~MappedFile() {
  if (guard_ >= 0) {
    g_slots[guard_].begin.store(0);
    g_slots[guard_].end.store(0);
  }
  if (mapped_) munmap(const_cast<char*>(data_), mapped_);
}

bool MappedFile::truncated() const {
  return guard_ >= 0 && g_slots[guard_].hit.load();
}

bool MappedFile::open(const std::string& path, int* unmapped_fd) {
  *unmapped_fd = -1;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open file");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    fail(path, "cannot read file");
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError(path + ": error: is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    *unmapped_fd = fd;
    return false;
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ == 0) {  // empty, or a file like those in /proc whose size says nothing: stream it
    *unmapped_fd = fd;
    return false;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t length = (size_ + page - 1) / page * page;
  void* p = mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    size_ = 0;
    *unmapped_fd = fd;
    return false;
  }
  ::close(fd);
  madvise(p, length, MADV_SEQUENTIAL);
  data_ = static_cast<const char*>(p);
  mapped_ = length;
  guard_ = guard(data_, mapped_);
  return true;
}

ChunkReader::ChunkReader(int fd, std::string display)
    : owned_(std::make_unique<FdSource>(fd, display)),
      source_(owned_.get()),
      display_(std::move(display)),
      buffer_(kChunk + kReadPadding) {}

ChunkReader::ChunkReader(ByteSource& source, std::string display)
    : source_(&source), display_(std::move(display)), buffer_(kChunk + kReadPadding) {}

bool ChunkReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const size_t capacity = buffer_.size() - kReadPadding - 1;  // room for an added '\n'
  if (end_ == capacity) buffer_.resize(buffer_.size() * 2);
  const size_t n = source_->read(buffer_.data() + end_, buffer_.size() - kReadPadding - 1 - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

std::string_view ChunkReader::peek(size_t bytes) {
  while (end_ - begin_ < bytes && fill()) {
  }
  return {buffer_.data() + begin_, end_ - begin_};
}

std::string_view ChunkReader::next() {
  for (;;) {
    // Gather a large block before parsing: pipes deliver at most 64 KiB per read().
    while (!eof_ && end_ - begin_ < kChunk / 2 && fill()) {
    }
    const char* first = buffer_.data() + begin_;
    const size_t size = end_ - begin_;
    if (size == 0) return {};
    const void* last = memrchr(first, '\n', size);
    if (last) {
      const size_t n = static_cast<size_t>(static_cast<const char*>(last) - first) + 1;
      begin_ += n;
      return {first, n};
    }
    if (size > kMaxLineBytes) throw LineTooLong{};
    if (eof_) {  // the last line has no '\n': add one
      buffer_[end_] = '\n';
      begin_ = end_ = 0;
      return {first, size + 1};
    }
    fill();  // a line longer than the block: fill() grows the buffer
  }
}

std::string_view ChunkReader::next_bytes() {
  if (begin_ == end_) {
    begin_ = end_ = 0;
    while (!eof_ && end_ < kChunk / 2 && fill()) {
    }
  }
  const std::string_view block(buffer_.data() + begin_, end_ - begin_);
  begin_ = end_ = 0;
  return block;
}

std::string ChunkReader::read_all() {
  std::string text(buffer_.data() + begin_, end_ - begin_);
  begin_ = end_ = 0;
  size_t line_start = 0;  // bound the line length while reading (a pipe from /dev/zero)
  while (!eof_) {
    const void* nl = memrchr(text.data() + line_start, '\n', text.size() - line_start);
    if (nl) line_start = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
    if (text.size() - line_start > kMaxLineBytes) throw LineTooLong{};
    const size_t old = text.size();
    text.resize(old + kChunk);
    const size_t n = source_->read(text.data() + old, kChunk);
    text.resize(old + n);
    if (n == 0) eof_ = true;
  }
  text.reserve(text.size() + kReadPadding);
  return text;
}

}  // namespace racepred::io
