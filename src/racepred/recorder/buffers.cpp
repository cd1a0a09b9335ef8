// The recording runtime's per-thread buffers and the writer (docs/RECORDER.md): each thread
// appends 24-byte records to its own buffer; full buffers are written as checksummed raw blocks
// (format/) to one output file; `racepred record` merges them by sequence number into a trace.
// Nothing here allocates on the access path; per-thread buffers are mmap'ed once per thread and
// unmapped when the thread ends.
#include "racepred/recorder/rt.hpp"

#include <sys/uio.h>

namespace racepred_rt {
int g_state;  // 0 = not initialised, 1 = recording, 2 = stopped
int g_fd = -1;
int g_write_lock;
// The global event counter, incremented by every thread at (almost) every event, has a cache
// line of its own: next to g_state (read at every event) it made every event's state test miss
// (perf: 17% of the racy benchmark on that load).
Counter g_seq_line;
int g_lamport;
uint64_t g_access_stamps[1u << kAccessStampBits];
uint64_t g_clock_hint;
Counter g_free_stamp;
uint32_t g_next_tid;
uint64_t g_bytes;
uint64_t g_max_bytes;
uint64_t g_dropped;
int g_capped;
int g_nowrite;
Stripe g_stripes[kStripes];
Ctx* g_ctxs[kMaxThreads];
uint32_t g_ctx_count;
pthread_key_t g_key;
int g_finished;
pid_t g_pid;
char g_template[4096];
__thread Ctx* t_ctx RP_TLS;
__thread int t_no_ctx RP_TLS;
__thread int t_in_rt RP_TLS;

// Every file of the runtime is linked with this one (which __tsan_init brings in): from the
// static library the linker takes only members that resolve the program's own references, and
// the interceptors that libraries call (libstdc++'s pthread_cond_wait, operator new) are
// referenced by nobody in the program.
__attribute__((used)) const void* const linked_parts[] = {
    &kPart_fork,   &kPart_threads,  &kPart_locks, &kPart_sync,  &kPart_atomics,
    &kPart_memory, &kPart_settings, &kPart_sched, &kPart_crash, &kPart_libc};

void* (*volatile g_memcpy_chk)(void*, const void*, size_t, size_t) = __memcpy_chk;
void* (*volatile g_memmove_chk)(void*, const void*, size_t, size_t) = __memmove_chk;
void* (*volatile g_memset_chk)(void*, int, size_t, size_t) = __memset_chk;

bool write_fully(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    size -= static_cast<size_t>(w);
  }
  return true;
}

// The header and the payload in one system call (a short write goes on with write_fully).
static bool write_block_fully(int fd, const fmt::BlockHeader& h, const void* payload, size_t size) {
  iovec v[2] = {{const_cast<fmt::BlockHeader*>(&h), sizeof h}, {const_cast<void*>(payload), size}};
  ssize_t w;
  do {
    w = ::writev(fd, v, 2);
  } while (w < 0 && errno == EINTR);
  if (w < 0) return false;
  const size_t done = static_cast<size_t>(w);
  if (done < sizeof h)
    return write_fully(fd, reinterpret_cast<const char*>(&h) + done, sizeof h - done) &&
           write_fully(fd, payload, size);
  return write_fully(fd, static_cast<const char*>(payload) + (done - sizeof h),
                     size - (done - sizeof h));
}

// Writes one block (header + payload) under the output lock. Returns false when the cap was
// reached (recording stops) or the write failed.
// `force` writes even after the cap (small bookkeeping blocks, and the final flush of what
// the threads had buffered when recording stopped: the overshoot is bounded by one buffer per
// thread).
bool write_block(uint8_t kind, const void* payload, size_t size, bool force) {
  if (g_fd < 0) return false;
  InRuntime in_runtime;
  fmt::BlockHeader h{
      kind, fmt::kCodecNone, 0, static_cast<uint32_t>(size), static_cast<uint32_t>(size), 0};
  h.checksum = fmt::block_checksum(h, static_cast<const uint8_t*>(payload));
  sleep_lock(&g_write_lock);
  bool ok = false;
  if (!g_capped || force) {
    ok = write_block_fully(g_fd, h, payload, size);
    g_bytes += sizeof h + size;
    if (g_max_bytes && g_bytes > g_max_bytes && !g_capped) {
      // Stop cleanly: no new events; what the threads buffered is written at exit.
      g_capped = 1;
      __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    }
  }
  sleep_unlock(&g_write_lock);
  return ok;
}

// ---- per-thread contexts ----
// A new thread's first block: no records, flag kRawStart, and in the 8 bytes after the prefix
// a lower bound of the sequence numbers of its events (`lower`; UINT64_MAX: the global
// counter's value). `racepred record` needs it to cut a recording that ended early: a thread
// that never flushed may have lost everything after it.
void write_start(uint32_t tid, uint64_t lower) {
  InRuntime in_runtime;
  uint8_t block[fmt::kRawPrefix + 8];
  fmt::put_u32(block, tid);
  fmt::put_u32(block + 4, fmt::kRawStart);
  if (lower == UINT64_MAX) lower = __atomic_load_n(&g_seq_line.value, __ATOMIC_RELAXED);
  fmt::put_u64(block + fmt::kRawPrefix, lower);
  write_block(fmt::kBlockRaw, block, sizeof block, true);
}

// A context's mapping: the Ctx in the first page, then the buffer (kept until the thread ends).

// The buffers of ended threads, kept for new ones (at most kSpareBuffers; slots taken and
// filled atomically, no lock that a fork could leave held): a thread's start and end then map
// and unmap only its context's page, not its buffer (an unmap costs every CPU that runs the
// process a TLB flush).
constexpr uint32_t kSpareBuffers = 8;
static void* g_spare_buffers[kSpareBuffers];

static void* take_spare_buffer() {
  for (void*& slot : g_spare_buffers)
    if (__atomic_load_n(&slot, __ATOMIC_RELAXED))
      if (void* b = __atomic_exchange_n(&slot, nullptr, __ATOMIC_ACQUIRE)) return b;
  return nullptr;
}

static bool keep_spare_buffer(void* buffer) {
  for (void*& slot : g_spare_buffers) {
    void* empty = nullptr;
    if (__atomic_compare_exchange_n(&slot, &empty, buffer, false, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED))
      return true;
  }
  return false;
}

Ctx* new_ctx(uint32_t tid, uint64_t clock) {
  InRuntime in_runtime;
  void* spare = take_spare_buffer();
  void* mem = mmap(nullptr, spare ? kPage : kPage + kBufferBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    if (spare) munmap(spare, kBufferBytes);
    return nullptr;
  }
  Ctx* c = static_cast<Ctx*>(mem);
  c->buf = reinterpret_cast<fmt::RawRecord*>(spare ? spare : static_cast<char*>(mem) + kPage) + 1;
  c->tid = tid;
  c->clock = clock;
  const uint32_t slot = __atomic_fetch_add(&g_ctx_count, 1, __ATOMIC_RELAXED);
  if (slot < kMaxThreads) __atomic_store_n(&g_ctxs[slot], c, __ATOMIC_RELEASE);
  write_start(tid, g_lamport ? clock + 1 : UINT64_MAX);  // its records come after `clock`
  return c;
}

// Caller holds c->flush_lock.
void flush_locked(Ctx* c, bool last, bool force) {
  if (c->ended || !c->buf) return;
  InRuntime in_runtime;
  number_pending(c, 0);
  if (g_lamport) raise_to(&g_clock_hint, c->clock);
  const uint32_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
  if ((n > 0 || last) && !g_nowrite) {
    uint8_t* block = reinterpret_cast<uint8_t*>(c->buf + kBufferRecords);
    fmt::put_u32(block, c->tid);
    fmt::put_u32(block + 4, last ? fmt::kRawEnd : 0);
    fmt::put_u32(block + 8, n);
    uint8_t* end = fmt::pack_raw(c->buf, n, block + fmt::kRawHeader);
    write_block(fmt::kBlockRaw, block, static_cast<size_t>(end - block), force);
  }
  __atomic_store_n(&c->n, 0, __ATOMIC_RELEASE);
  if (last) c->ended = 1;
}

void flush_ctx(Ctx* c, bool last, bool force) {
  spin_lock(&c->flush_lock);
  flush_locked(c, last, force);
  spin_unlock(&c->flush_lock);
}

void number_waiting_reads(Ctx* c) {
  number_pending(c, 0);
}
uint64_t number_by_counter(Ctx* c) {
  return c->pending ? number_pending(c, 1)
                    : __atomic_fetch_add(&g_seq_line.value, 1, __ATOMIC_RELAXED);
}

Ctx* ctx_create() {
  // Lamport mode: a thread the runtime did not start (and the first thread) starts from the
  // largest clock published so far (nothing orders it after anything: any start is valid).
  Ctx* c = new_ctx(__atomic_fetch_add(&g_next_tid, 1, __ATOMIC_RELAXED),
                   __atomic_load_n(&g_clock_hint, __ATOMIC_RELAXED));
  if (!c) return nullptr;
  t_ctx = c;
  pthread_setspecific(g_key, c);
  tid_insert(pthread_self(), c->tid);
  return c;
}

char* read_maps(size_t* len, size_t* cap_out) {
  InRuntime in_runtime;
  *len = 0;
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  // mmap, not malloc: this also runs on a crash, when the heap may be corrupt.
  size_t cap = 1 << 16, n = 0;
  void* mem = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* buf = mem == MAP_FAILED ? nullptr : static_cast<char*>(mem);
  while (buf) {
    if (n == cap) {
      void* bigger = mremap(buf, cap, cap * 2, MREMAP_MAYMOVE);
      if (bigger == MAP_FAILED) break;
      buf = static_cast<char*>(bigger);
      cap *= 2;
    }
    const ssize_t r = read(fd, buf + n, cap - n);
    if (r <= 0) break;
    n += static_cast<size_t>(r);
  }
  close(fd);
  *len = n;
  *cap_out = cap;
  return buf;
}

void write_maps() {
  InRuntime in_runtime;
  size_t len = 0, cap = 0;
  if (const char* cached = server_maps(&len)) {  // an execution of explore's fork server
    write_block(fmt::kBlockMaps, cached, len, true);
    return;
  }
  if (char* buf = read_maps(&len, &cap)) {
    write_block(fmt::kBlockMaps, buf, len, true);
    munmap(buf, cap);
  }
}

void write_note(const char* key, uint64_t value) {
  char text[96];
  size_t n = str_len(key);
  if (n > 60) n = 60;
  copy_bytes(text, key, n);
  text[n++] = '=';
  char digits[24];
  int d = 0;
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value);
  while (d) text[n++] = digits[--d];
  text[n++] = '\n';
  write_block(fmt::kBlockNote, text, n, true);
}

// Flushes every thread (the process ends or execs): a thread still running loses what it
// records after this.
void finish_all(bool ended) {
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 0 || g_fd < 0) return;
  // A vfork() child shares this memory until it execs or exits: its exec/_exit must not end
  // the parent's recording.
  if (getpid() != g_pid) return;
  if (__atomic_exchange_n(&g_finished, 1, __ATOMIC_ACQ_REL)) return;
  __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
  const uint32_t n = __atomic_load_n(&g_ctx_count, __ATOMIC_ACQUIRE);
  uint64_t dropped = g_dropped;
  for (uint32_t i = 0; i < n && i < kMaxThreads; ++i) {
    Ctx* c = __atomic_load_n(&g_ctxs[i], __ATOMIC_ACQUIRE);
    if (!c) continue;
    dropped += c->dropped;
    flush_ctx(c, ended, true);
  }
  write_note("dropped", dropped);
  write_note("capped", static_cast<uint64_t>(g_capped));
  write_maps();
  write_note("complete", 1);
}

static void at_exit() {
  finish_all(true);
}

void thread_key_destructor(void* p) {
  Ctx* c = static_cast<Ctx*>(p);
  if (!c) return;
  sched_thread_exited(c->tid);  // pthread_exit: thread_start's call is skipped
  flush_ctx(c, true, true);
  // Lamport mode: the thread's end, after its last record, for the join that waits for it.
  if (g_lamport) chain(thread_end_stripe(c->tid), c->clock);
  __atomic_fetch_add(&g_dropped, c->dropped, __ATOMIC_RELAXED);
  c->dropped = 0;
  t_ctx = nullptr;
  t_no_ctx = 1;
  // The context stays registered for the exit flush (ended and empty: one page); its buffer
  // is kept for a new thread or goes back to the system, so memory does not grow with the
  // number of threads that ended.
  spin_lock(&c->flush_lock);
  void* buffer = reinterpret_cast<char*>(c->buf - 1);
  c->buf = nullptr;
  spin_unlock(&c->flush_lock);
  if (!keep_spare_buffer(buffer)) munmap(buffer, kBufferBytes);
}

// RACEPRED_RECORD as the process found it (%p not yet replaced): fork children name their
// recordings after it.

// The output path of this process: the template with %p replaced by the process id; a fork
// child whose template has no %p appends ".<pid>" (next to the parent's recording, where
// `racepred record` looks for it).
static void output_path(char* path, size_t cap, bool fork_child) {
  char digits[16];
  int d = 0;
  for (unsigned v = static_cast<unsigned>(getpid()); v || !d; v /= 10)
    digits[d++] = static_cast<char>('0' + v % 10);
  size_t n = 0;
  bool had_pid = false;
  for (const char* p = g_template; *p && n + 24 < cap; ++p) {
    if (p[0] == '%' && p[1] == 'p') {
      for (int i = d; i;) path[n++] = digits[--i];
      had_pid = true;
      ++p;
    } else {
      path[n++] = *p;
    }
  }
  if (fork_child && !had_pid) {
    path[n++] = '.';
    for (int i = d; i;) path[n++] = digits[--i];
  }
  path[n] = 0;
}

// Opens this process's recording and writes its file header: false when it cannot.
bool open_output(bool fork_child) {
  char path[4096];
  output_path(path, sizeof path, fork_child);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  return fd >= 0 && start_output(fd);
}

bool start_output(int fd) {
  g_fd = fd;
  g_pid = getpid();
  uint8_t header[fmt::kHeaderSize];
  fmt::write_file_header(header, fmt::kFileRecording);
  write_fully(g_fd, header, sizeof header);
  g_bytes = sizeof header;
  return true;
}

void init() {
  InRuntime in_runtime;
  read_settings();
  const char* out = g_settings.record;
  if (!out || !*out || str_len(out) >= sizeof g_template) {
    g_state = 2;  // not recording: every hook stays passive
    return;
  }
  copy_bytes(g_template, out, str_len(out) + 1);
  if (!open_output(false)) {
    g_state = 2;
    return;
  }
  // Programs this one execs record into files of their own.
  char child[4200];
  copy_bytes(child, out, str_len(out));
  copy_bytes(child + str_len(out), ".%p", 4);
  if (!strstr(out, "%p")) setenv("RACEPRED_RECORD", child, 1);
  g_nowrite = g_settings.nowrite;
  // Records are numbered by Lamport timestamps unless a scheduler runs the threads one at a
  // time (sched_init: then the global counter, whose numbers explore relates to its choices).
  {
    const char* s = g_settings.schedule;
    g_lamport = !(s && (strcmp(s, "serial") == 0 || strcmp(s, "controlled") == 0));
  }
  g_max_bytes = g_settings.max_mb << 20;
  pthread_key_create(&g_key, thread_key_destructor);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  atexit(at_exit);
  install_crash_handlers();
  __atomic_store_n(&g_state, 1, __ATOMIC_RELEASE);
  sched_init();
  write_maps();
  if (g_settings.stack_depth) write_note("stack_depth", g_settings.stack_depth);
}

int g_init_lock;
}  // namespace racepred_rt

using namespace racepred_rt;

// ======================= exported: control =======================
RP_EXPORT void racepred_rt_flush(void) {
  const uint32_t n = __atomic_load_n(&g_ctx_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n && i < kMaxThreads; ++i)
    if (Ctx* c = __atomic_load_n(&g_ctxs[i], __ATOMIC_ACQUIRE)) flush_ctx(c, false);
}
RP_EXPORT void racepred_rt_stop(void) {
  __atomic_store_n(&g_capped, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
}
RP_EXPORT int racepred_rt_recording(void) {
  return __atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1;
}

// ======================= exported: __tsan_* =======================
RP_EXPORT void __tsan_init(void) {
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 0) return;
  spin_lock(&g_init_lock);
  if (g_state == 0) init();
  spin_unlock(&g_init_lock);
}
// Call stacks (RACEPRED_STACK_DEPTH > 0, docs/RECORDER.md "Stacks"): every call and return of
// an instrumented function is a record of its thread, from which `racepred record` rebuilds the
// stack of each event (as ThreadSanitizer keeps a shadow stack). Such a record orders nothing,
// so it takes no number of its own: it joins the deferred reads before it, or shares the number
// of the thread's previous record. Not recorded while the runtime is busy (signal handlers),
// and without being counted as dropped.
namespace racepred_rt {
namespace {
inline void frame_record(uint8_t op, uint64_t pc) {
  if (RP_LIKELY(g_settings.stack_depth == 0) || __atomic_load_n(&g_state, __ATOMIC_RELAXED) != 1)
    return;
  Ctx* c = ctx();
  if (RP_UNLIKELY(!c || c->busy || c->ended)) return;
  c->busy = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (RP_UNLIKELY(c->n == kBufferRecords)) flush_ctx(c, false);
  if (c->pending == kMaxPendingReads) number_pending(c, 0);
  const uint32_t n = c->n;
  fmt::RawRecord& r = c->buf[n];
  r.addr = pc;
  r.op_pc = uint64_t{op} << 56;
  if (c->pending)
    ++c->pending;
  else if (g_lamport)
    r.seq = c->clock;
  else
    r.seq = n ? c->buf[n - 1].seq : __atomic_fetch_add(&g_seq_line.value, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&c->n, n + 1, __ATOMIC_RELEASE);
  leave(c);
}
}  // namespace
}  // namespace racepred_rt

RP_EXPORT void __tsan_func_entry(void* caller) {
  frame_record(fmt::kRawFuncEntry, reinterpret_cast<uint64_t>(caller));
}
RP_EXPORT void __tsan_func_exit(void) {
  frame_record(fmt::kRawFuncExit, 0);
}
RP_EXPORT void __tsan_ignore_thread_begin(void) {
  if (Ctx* c = t_ctx) c->busy = 1;
}
RP_EXPORT void __tsan_ignore_thread_end(void) {
  if (Ctx* c = t_ctx) c->busy = 0;
}
