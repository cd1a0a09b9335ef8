#include "racepred/cli/recording.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <queue>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "racepred/cli/dwarf_types.hpp"
#include "racepred/format/trace_format.hpp"
#include "racepred/io/binary_writer.hpp"
#include "racepred/io/input.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {
namespace {

namespace fmt = racepred::format;

struct RawBlock {
  const uint8_t* data;  // packed records
  const uint8_t* end;
  uint32_t count;
};

struct ThreadStream {
  std::vector<RawBlock> blocks;
  bool ended = false;
  uint64_t last_seq = 0;   // of its last written record
  uint64_t start_seq = 0;  // its events have larger sequence numbers (kRawStart)
  bool any = false;
};

// A mapping of /proc/self/maps.
struct Mapping {
  uint64_t start, end, offset;
  bool exec;
  std::string path;
};

std::vector<Mapping> parse_maps(const std::string& text) {
  std::vector<Mapping> maps;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    Mapping m{};
    char perms[8] = {};
    unsigned long long s, e, off;
    int used = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perms, &off, &used) < 4)
      continue;
    m.start = s;
    m.end = e;
    m.offset = off;
    m.exec = perms[2] == 'x';
    std::string rest = line.substr(static_cast<size_t>(used));
    const size_t p = rest.find_first_not_of(' ');
    m.path = p == std::string::npos ? "" : rest.substr(p);
    maps.push_back(std::move(m));
  }
  return maps;
}

// A module (executable or shared library) as loaded: where, and whether addresses in its
// file are absolute (ET_EXEC) or relative to the load base (ET_DYN).
struct Module {
  std::string path;
  uint64_t base = 0;  // load address of file offset 0
  bool absolute = false;
  bool symbols_loaded = false;
  struct Symbol {
    uint64_t start, size;
    std::string name;
  };
  std::vector<Symbol> data;  // objects of .data/.bss/.rodata, sorted by start
  bool types_loaded = false;
  cli::DwarfTypes types;  // the globals' types (field names), when it has debug information
};

bool elf_is_exec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[18] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  return in && h[0] == 0x7f && h[1] == 'E' && h[16] == 2 && h[17] == 0;
}

std::string run_capture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

class Symbolizer {
 public:
  Symbolizer(std::vector<Mapping> maps, bool enabled) : maps_(std::move(maps)), enabled_(enabled) {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) cwd_ = std::string(cwd) + "/";
  }

  // The module holding `addr` and the address to look up in its file; nullptr if none.
  Module* module_of(uint64_t addr, uint64_t& file_addr) {
    for (const Mapping& m : maps_) {
      if (addr < m.start || addr >= m.end || m.path.empty() || m.path[0] != '/') continue;
      Module& mod = module(m.path);
      file_addr = mod.absolute ? addr : addr - mod.base;
      return &mod;
    }
    return nullptr;
  }

  // Names for code addresses: "file:line (function)", or "module+0xoff".
  std::vector<std::string> code_names(const std::vector<uint64_t>& pcs) {
    std::vector<std::string> names(pcs.size());
    std::map<Module*, std::vector<std::pair<uint64_t, size_t>>> by_module;
    for (size_t i = 0; i < pcs.size(); ++i) {
      uint64_t fa = 0;
      Module* mod = pcs[i] ? module_of(pcs[i], fa) : nullptr;
      if (!mod) {
        names[i] = pcs[i] ? hex(pcs[i]) : "?";
        continue;
      }
      names[i] = base_name(mod->path) + "+" + hex(fa);
      if (enabled_) by_module[mod].push_back({fa, i});
    }
    for (auto& [mod, list] : by_module) symbolize_code(*mod, list, names);
    return names;
  }

  // The global object holding `addr`: "name" or "name+off"; empty if none.
  std::string data_name(uint64_t addr) {
    if (!enabled_) return "";
    uint64_t fa = 0;
    Module* mod = module_of(addr, fa);
    if (!mod) return "";
    if (!mod->symbols_loaded) load_symbols(*mod);
    auto it = std::upper_bound(mod->data.begin(), mod->data.end(), fa,
                               [](uint64_t a, const Module::Symbol& s) { return a < s.start; });
    if (it == mod->data.begin()) return "";
    --it;
    if (fa >= it->start + std::max<uint64_t>(it->size, 1)) return "";
    // With debug information, the member at the offset: "obj.field", "table[3].y".
    if (!mod->types_loaded) {
      mod->types_loaded = true;
      mod->types.parse(run_capture("readelf --debug-dump=info,addr --wide " +
                                   shell_quote(mod->path) + " 2>/dev/null"));
    }
    std::string path;
    if (mod->types.member_path(it->start, fa - it->start, path)) return it->name + path;
    return fa == it->start ? it->name : it->name + "+" + std::to_string(fa - it->start);
  }

  bool stack(uint64_t addr) const {
    for (const Mapping& m : maps_)
      if (addr >= m.start && addr < m.end) return m.path == "[stack]";
    return false;
  }

  std::vector<std::string> problems;

 private:
  static std::string base_name(const std::string& path) {
    const size_t s = path.rfind('/');
    return s == std::string::npos ? path : path.substr(s + 1);
  }

  Module& module(const std::string& path) {
    auto it = modules_.find(path);
    if (it != modules_.end()) return *it->second;
    auto mod = std::make_unique<Module>();
    mod->path = path;
    mod->absolute = elf_is_exec(path);
    uint64_t base = UINT64_MAX;
    for (const Mapping& m : maps_)
      if (m.path == path) base = std::min(base, m.start - m.offset);
    mod->base = base == UINT64_MAX ? 0 : base;
    Module& ref = *mod;
    modules_.emplace(path, std::move(mod));
    return ref;
  }

  void load_symbols(Module& mod) {
    mod.symbols_loaded = true;
    const std::string out =
        run_capture("nm -C -S --defined-only " + shell_quote(mod.path) + " 2>/dev/null");
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      unsigned long long start = 0, size = 0;
      char type = 0;
      int used = 0;
      if (std::sscanf(line.c_str(), "%llx %llx %c %n", &start, &size, &type, &used) < 3 || !used)
        continue;
      if (!std::strchr("bBdDrRgGsSvV", type)) continue;
      mod.data.push_back({start, size, line.substr(static_cast<size_t>(used))});
    }
    std::sort(mod.data.begin(), mod.data.end(),
              [](const Module::Symbol& a, const Module::Symbol& b) { return a.start < b.start; });
  }

  // One addr2line run per module; inlined frames from system headers are skipped so that
  // code inlined from the C++ library is attributed to the user's call site.
  void symbolize_code(Module& mod, const std::vector<std::pair<uint64_t, size_t>>& list,
                      std::vector<std::string>& names) {
    char tmpl[] = "/tmp/racepred-addr.XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) return;
    std::string input;
    for (const auto& [fa, i] : list) input += hex(fa > 0 ? fa - 1 : fa) + "\n";  // the call
    const bool ok = ::write(fd, input.data(), input.size()) == static_cast<ssize_t>(input.size());
    ::close(fd);
    // llvm-symbolizer prints columns ("file:line:col"); addr2line does not.
    const std::string tool =
        llvm_symbolizer() ? "llvm-symbolizer -a -C -f -i --obj=" : "addr2line -a -C -f -i -e ";
    const std::string out =
        ok ? run_capture(tool + shell_quote(mod.path) + " < " + tmpl + " 2>/dev/null") : "";
    ::unlink(tmpl);
    if (out.empty()) {
      problems.push_back("addr2line gave nothing for " + mod.path +
                         " (binutils missing?): locations stay module+offset");
      return;
    }
    // Output: "0xADDR" then (function, file:line[:col]) pairs, innermost frame first.
    std::istringstream in(out);
    std::string line;
    size_t k = SIZE_MAX;
    std::vector<std::pair<std::string, std::string>> frames;
    auto emit = [&] {
      if (k >= list.size() || frames.empty()) return;
      const std::pair<std::string, std::string>* pick = &frames.front();
      for (const auto& f : frames)
        if (f.second.rfind("/usr/", 0) != 0) {
          pick = &f;
          break;
        }
      std::string file = pick->second;
      if (file.rfind("??", 0) == 0) return;  // no debug information: keep module+offset
      const size_t disc = file.find(" (discriminator");
      if (disc != std::string::npos) file.resize(disc);
      if (file.ends_with(":0") && std::count(file.begin(), file.end(), ':') >= 2)
        file.resize(file.size() - 2);  // llvm-symbolizer's column 0: no column known
      if (!cwd_.empty() && file.rfind(cwd_, 0) == 0) file = file.substr(cwd_.size());
      names[list[k].second] = file + " (" + pick->first + ")";
    };
    while (std::getline(in, line)) {
      if (line.empty()) continue;  // llvm-symbolizer ends each address with a blank line
      if (line.rfind("0x", 0) == 0) {
        emit();
        frames.clear();
        k = k == SIZE_MAX ? 0 : k + 1;
        continue;
      }
      std::string file;
      if (!std::getline(in, file)) break;
      frames.push_back({line, file});
    }
    emit();
  }

  // True when llvm-symbolizer is on the PATH (asked once).
  bool llvm_symbolizer() {
    if (llvm_symbolizer_ < 0)
      llvm_symbolizer_ = run_capture("command -v llvm-symbolizer 2>/dev/null").empty() ? 0 : 1;
    return llvm_symbolizer_ == 1;
  }

  std::vector<Mapping> maps_;
  int llvm_symbolizer_ = -1;
  bool enabled_;
  std::string cwd_;
  std::map<std::string, std::unique_ptr<Module>> modules_;
};

// A variable or lock: an address, or (allocation instance, offset) inside a heap block.
struct Key {
  uint64_t instance;  // 0: not heap
  uint64_t addr;      // address, or offset in the block; bit 63: the atomic lock
  bool operator==(const Key&) const = default;
};

// Dense ids of keys in order of first appearance: an open-addressing table of ids (no node per
// key: lbzip2's recording has 2.3 million distinct heap variables). Keys the caller numbers
// itself (add) are not in the table.
class KeyIds {
 public:
  uint32_t add(const Key& k) {
    keys_.push_back(k);
    return static_cast<uint32_t>(keys_.size() - 1);
  }
  uint32_t id(const Key& k) {
    if ((hashed_.size() + 1) * 2 > slots_.size()) grow();
    for (size_t i = hash(k) & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const uint32_t s = slots_[i];
      if (s == 0) {
        const uint32_t id = add(k);
        slots_[i] = id + 1;
        hashed_.push_back(id);
        return id;
      }
      if (keys_[s - 1] == k) return s - 1;
    }
  }
  const std::vector<Key>& keys() const { return keys_; }

 private:
  static size_t hash(const Key& k) {
    uint64_t h = k.instance * 0x9E3779B97F4A7C15ULL ^ k.addr;  // splitmix64's finaliser
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<size_t>(h ^ (h >> 31));
  }
  void grow() {
    std::vector<uint32_t> slots(std::max<size_t>(slots_.size() * 2, 1 << 12), 0);
    for (const uint32_t id : hashed_) {
      size_t i = hash(keys_[id]) & (slots.size() - 1);
      while (slots[i]) i = (i + 1) & (slots.size() - 1);
      slots[i] = id + 1;
    }
    slots_.swap(slots);
  }
  std::vector<uint32_t> slots_;  // id + 1; 0 empty
  std::vector<uint32_t> hashed_;
  std::vector<Key> keys_;
};

// A direct-mapped cache of address -> id in front of KeyIds: most events repeat recent
// addresses. Slots are chosen by 8-byte granule, so an allocation or a free (which changes what
// the addresses of its block mean) invalidates only the slots of its block's granules; a block
// larger than a quarter of the cache invalidates everything (a new epoch).
class AddressCache {
 public:
  template <typename Compute>
  uint32_t get(uint64_t addr, Compute&& compute) {
    Entry& e = slots_[slot(addr)];
    if (e.addr != addr || e.epoch != epoch_) e = Entry{addr, epoch_, compute()};
    return e.id;
  }
  // The addresses [start, start + size) change meaning.
  void invalidate(uint64_t start, uint64_t size) {
    size = std::max<uint64_t>(size, 1);
    const uint64_t first = start >> 3, last = (start + size - 1) >> 3;
    if (last - first >= kSlots / 4) {
      ++epoch_;
      return;
    }
    for (uint64_t g = first; g <= last; ++g) {
      Entry& e = slots_[slot(g << 3)];
      const uint64_t a = e.addr & ~fmt::kAtomicLockBit;
      if (a >= start && a - start < size) e.addr = UINT64_MAX;
    }
  }

 private:
  static constexpr unsigned kBits = 14;
  static constexpr size_t kSlots = size_t{1} << kBits;
  struct Entry {
    uint64_t addr = UINT64_MAX;
    uint64_t epoch = 0;
    uint32_t id = 0;
  };
  static size_t slot(uint64_t addr) {
    return static_cast<size_t>((((addr & ~fmt::kAtomicLockBit) >> 3) * 0x9E3779B97F4A7C15ULL) >>
                               (64 - kBits));
  }
  std::vector<Entry> slots_ = std::vector<Entry>(kSlots);
  uint64_t epoch_ = 1;
};

struct Alloc {
  uint64_t size;
  uint64_t site;
  uint64_t instance;
  // Blocks up to kDenseBlock bytes: the variable id of each offset (UINT32_MAX: not yet seen),
  // made at the block's first access. Programs that stream through buffers touch millions of
  // distinct addresses; an array indexed by offset keeps those lookups sequential.
  std::vector<uint32_t> var_ids;
};

}  // namespace

FinishResult finish_recording(const std::string& raw, const FinishOptions& options) {
  FinishResult result;
  io::MappedFile file;
  int fd = -1;
  std::string copy;
  std::string_view data;
  if (file.open(raw, &fd)) {
    data = file.text();
  } else {
    io::ChunkReader reader(fd, raw);
    copy = reader.read_all();
    if (fd >= 0) ::close(fd);
    data = copy;
  }
  result.raw_bytes = data.size();
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < fmt::kHeaderSize || !fmt::has_magic(bytes, data.size()) ||
      fmt::get_u32(bytes + 12) != fmt::kFileRecording)
    throw InputError(raw + ": byte 0: error: not a racepred raw recording");
  const uint32_t version = fmt::get_u32(bytes + 8);
  if (!fmt::supported_version(version))
    throw InputError(raw + ": byte 8: error: unsupported recording version");

  // ---- blocks ----
  std::map<uint32_t, ThreadStream> threads;
  std::string maps_text;
  bool complete = false;
  size_t pos = fmt::kHeaderSize;
  while (pos < data.size()) {
    if (data.size() - pos < fmt::kBlockHeaderSize) {
      result.torn = true;
      break;
    }
    fmt::BlockHeader h;
    std::memcpy(&h, bytes + pos, sizeof h);
    const uint8_t* payload = bytes + pos + fmt::kBlockHeaderSize;
    if (h.stored_size > data.size() - pos - fmt::kBlockHeaderSize ||
        fmt::block_checksum(h, payload, version) != h.checksum) {
      if (h.stored_size > data.size() - pos - fmt::kBlockHeaderSize ||
          pos + fmt::kBlockHeaderSize + h.stored_size == data.size()) {
        result.torn = true;  // the last block was being written when the process died
        break;
      }
      throw InputError(raw + ": byte " + std::to_string(pos) + ": error: corrupt block");
    }
    if (h.kind == fmt::kBlockRaw && h.stored_size == fmt::kRawPrefix + 8 &&
        (fmt::get_u32(payload + 4) & fmt::kRawStart)) {
      threads[fmt::get_u32(payload)].start_seq = fmt::get_u64(payload + fmt::kRawPrefix);
    } else if (h.kind == fmt::kBlockRaw) {
      if (h.stored_size < fmt::kRawHeader)
        throw InputError(raw + ": byte " + std::to_string(pos) + ": error: bad raw block size");
      ThreadStream& t = threads[fmt::get_u32(payload)];
      const uint32_t n = fmt::get_u32(payload + 8);
      RawBlock block{payload + fmt::kRawHeader, payload + h.stored_size, n};
      // Check the block and find its last sequence number.
      fmt::RawUnpacker u{block.data, block.end, n};
      fmt::RawRecord r{};
      uint32_t k = 0;
      while (u.next(r)) ++k;
      if (k != n)
        throw InputError(raw + ": byte " + std::to_string(pos) + ": error: malformed raw block");
      if (n) {
        t.blocks.push_back(block);
        t.last_seq = std::max(t.last_seq, r.seq);
        t.any = true;
      }
      if (fmt::get_u32(payload + 4) & fmt::kRawEnd) t.ended = true;
    } else if (h.kind == fmt::kBlockMaps) {
      maps_text.assign(reinterpret_cast<const char*>(payload), h.stored_size);
    } else if (h.kind == fmt::kBlockNote) {
      const std::string note(reinterpret_cast<const char*>(payload), h.stored_size);
      const size_t eq = note.find('=');
      if (eq != std::string::npos) {
        const std::string key = note.substr(0, eq);
        const uint64_t value = std::strtoull(note.c_str() + eq + 1, nullptr, 10);
        if (key == "dropped") result.dropped += value;
        if (key == "capped") result.capped = value != 0;
        if (key == "complete") complete = value != 0;
      }
    } else {
      throw InputError(raw + ": byte " + std::to_string(pos) + ": error: unknown block kind " +
                       std::to_string(h.kind));
    }
    pos += fmt::kBlockHeaderSize + h.stored_size;
  }
  result.complete = complete && !result.capped && !result.torn;

  // ---- the consistent cut: an unfinished thread may have lost everything after its last
  // written record, so only events up to the smallest such record are certainly all there ----
  uint64_t limit = UINT64_MAX;  // events with smaller sequence numbers are kept
  if (!result.complete) {
    for (const auto& [tid, t] : threads)
      if (!t.ended) limit = std::min(limit, t.any ? t.last_seq + 1 : t.start_seq);
  }

  // ---- merge by sequence number ----
  struct Cursor {
    const ThreadStream* stream = nullptr;
    uint32_t tid = 0;
    size_t block = 0;
    fmt::RawUnpacker unpacker;
    fmt::RawRecord record{};
    bool valid = false;
    uint64_t caller = 0;  // of the thread's next event (a kRawCaller record), or 0
    void start() {
      unpacker =
          fmt::RawUnpacker{stream->blocks[0].data, stream->blocks[0].end, stream->blocks[0].count};
      next();
    }
    const fmt::RawRecord* get() const { return valid ? &record : nullptr; }
    void next() {
      while (!(valid = unpacker.next(record))) {
        if (++block >= stream->blocks.size()) return;
        const RawBlock& b = stream->blocks[block];
        unpacker = fmt::RawUnpacker{b.data, b.end, b.count};
      }
    }
  };
  std::vector<Cursor> cursors;
  for (const auto& [tid, t] : threads)
    if (t.any) {
      Cursor c;
      c.stream = &t;
      c.tid = tid;
      cursors.push_back(c);
      cursors.back().start();
    }
  auto later = [&](size_t a, size_t b) { return cursors[a].get()->seq > cursors[b].get()->seq; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cursors.size(); ++i) heap.push(i);

  Symbols ids;  // thread names are final here; variables, locks, locations named below
  std::vector<Event> events;
  {
    size_t records = 0;  // an upper bound of the events: no regrowth of the largest array
    for (const auto& [tid, t] : threads)
      for (const RawBlock& b : t.blocks) records += b.count;
    events.reserve(records);
  }
  KeyIds var_ids, lock_ids;
  std::unordered_map<uint64_t, uint32_t> loc_ids;
  std::vector<uint64_t> pcs;
  std::map<uint64_t, Alloc> heap_blocks;
  uint64_t instances = 0;
  std::vector<uint64_t> sites(1, 0);  // sites[instance]

  auto key_of = [&](uint64_t addr) {
    const uint64_t bit = addr & fmt::kAtomicLockBit;
    const uint64_t a = addr & ~fmt::kAtomicLockBit;
    auto it = heap_blocks.upper_bound(a);
    if (it != heap_blocks.begin()) {
      --it;
      if (a < it->first + std::max<uint64_t>(it->second.size, 1))
        return Key{it->second.instance, (a - it->first) | bit};
    }
    return Key{0, addr};
  };
  constexpr uint64_t kDenseBlock = uint64_t{16} << 20;
  // The variable id of a read or write's address.
  auto var_of = [&](uint64_t addr) -> uint32_t {
    auto it = heap_blocks.upper_bound(addr);
    if (it != heap_blocks.begin() && !(addr & fmt::kAtomicLockBit)) {
      --it;
      Alloc& b = it->second;
      const uint64_t size = std::max<uint64_t>(b.size, 1);
      if (addr - it->first < size && size <= kDenseBlock) {
        if (b.var_ids.empty()) b.var_ids.assign(size, UINT32_MAX);
        uint32_t& id = b.var_ids[addr - it->first];
        if (id == UINT32_MAX) id = var_ids.add(Key{b.instance, addr - it->first});
        return id;
      }
    }
    return var_ids.id(key_of(addr));
  };
  auto thread_id = [&](uint32_t tid) { return ids.threads.intern("T" + std::to_string(tid)); };
  // Locations of events with a caller record: (pc, caller) -> location index; the callers'
  // pcs are symbolised after the allocation sites.
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> caller_locs;
  std::vector<std::pair<uint32_t, uint64_t>> callers;  // location index, caller pc
  auto caller_location_id = [&](uint64_t pc, uint64_t caller) {
    auto [it, fresh] =
        caller_locs.emplace(std::pair{pc, caller}, static_cast<uint32_t>(pcs.size()));
    if (fresh) {
      pcs.push_back(pc);
      callers.push_back({it->second, caller});
    }
    return it->second;
  };
  auto location_id = [&](uint64_t pc) {
    auto [it, fresh] = loc_ids.emplace(pc, static_cast<uint32_t>(pcs.size()));
    if (fresh) pcs.push_back(pc);
    return it->second;
  };
  AddressCache var_cache, lock_cache, loc_cache;
  // A block starting at `start` and reaching `end` is added or removed: the addresses whose
  // key_of changes are [start, end), and up to the end of an earlier block that overlaps it
  // (a free the runtime did not see).
  auto heap_changed = [&](uint64_t start, uint64_t end) {
    auto it = heap_blocks.lower_bound(start);
    if (it != heap_blocks.begin()) {
      --it;
      end = std::max(end, it->first + std::max<uint64_t>(it->second.size, 1));
    }
    var_cache.invalidate(start, end - start);
    lock_cache.invalidate(start, end - start);
  };
  auto block_end = [](uint64_t start, const Alloc& a) {
    return start + std::max<uint64_t>(a.size, 1);
  };
  std::vector<uint32_t> thread_ids;  // by tid, UINT32_MAX when not interned yet
  auto thread_of = [&](uint32_t tid) {
    if (tid >= thread_ids.size()) thread_ids.resize(tid + 1, UINT32_MAX);
    if (thread_ids[tid] == UINT32_MAX) thread_ids[tid] = thread_id(tid);
    return thread_ids[tid];
  };

  while (!heap.empty()) {
    const size_t c = heap.top();
    heap.pop();
    Cursor& cur = cursors[c];
    // This thread's records up to the next thread's first one go in one run.
    const uint64_t next = heap.empty() ? UINT64_MAX : cursors[heap.top()].get()->seq;
    for (const fmt::RawRecord* r = cur.get(); r && r->seq <= next; r = cur.get()) {
      if (r->seq >= limit) {
        // Everything after the cut is dropped: count it.
        for (; r; cur.next(), r = cur.get()) ++result.cut_events;
        break;
      }
      const uint8_t op = static_cast<uint8_t>(r->op_pc >> 56);
      const uint64_t pc = r->op_pc & 0x00ffffffffffffffULL;
      if (op == fmt::kRawAlloc) {
        const uint64_t addr = r->addr;
        cur.next();
        const fmt::RawRecord* size = cur.get();
        if (size && static_cast<uint8_t>(size->op_pc >> 56) == fmt::kRawSize) {
          Alloc block{size->addr, pc, ++instances, {}};
          uint64_t end = block_end(addr, block);
          if (auto old = heap_blocks.find(addr); old != heap_blocks.end())
            end = std::max(end, block_end(addr, old->second));
          heap_changed(addr, end);
          heap_blocks[addr] = std::move(block);
          sites.push_back(pc);
          cur.next();
        }
      } else if (op == fmt::kRawFree) {
        if (auto it = heap_blocks.find(r->addr); it != heap_blocks.end()) {
          const uint64_t start = it->first, end = block_end(start, it->second);
          heap_blocks.erase(it);
          heap_changed(start, end);
        }
        cur.next();
      } else if (op == fmt::kRawCaller) {
        cur.caller = r->addr;
        cur.next();
      } else if (op < fmt::kOpCount) {
        Event e;
        e.op = static_cast<Op>(op);
        e.thread = thread_of(cur.tid);
        const uint64_t addr = r->addr;
        if (op == fmt::kFork || op == fmt::kJoin) {
          e.target = thread_of(static_cast<uint32_t>(addr));
        } else if (op == fmt::kRead || op == fmt::kWrite) {
          e.target = var_cache.get(addr, [&] { return var_of(addr); });
        } else {
          e.target = lock_cache.get(addr, [&] { return lock_ids.id(key_of(addr)); });
        }
        e.location = cur.caller ? caller_location_id(pc, cur.caller)
                                : loc_cache.get(pc, [&] { return location_id(pc); });
        cur.caller = 0;
        events.push_back(e);
        cur.next();
      } else {
        cur.next();  // a stray size record
      }
    }
    if (cur.get()) heap.push(c);
  }

  // ---- names ----
  Symbolizer symbolizer(parse_maps(maps_text), options.symbolize);
  if (maps_text.empty()) result.notes.push_back("no memory map in the recording: names are hex");
  std::vector<uint64_t> all_pcs = pcs;
  const size_t n_locs = pcs.size();
  for (uint64_t s : sites) all_pcs.push_back(s);
  for (const auto& c : callers) all_pcs.push_back(c.second);
  std::vector<std::string> code = symbolizer.code_names(all_pcs);
  // A fork or join in a system header's code (std::thread's constructor) is named by its caller.
  for (size_t k = 0; k < callers.size(); ++k) {
    const std::string& caller = code[n_locs + sites.size() + k];
    std::string& name = code[callers[k].first];
    // (only by a source line: "FILE:LINE (FUNCTION)", not "module+0xOFF")
    if (name.rfind("/usr/", 0) == 0 && caller.rfind("/usr/", 0) != 0 &&
        caller.find(" (") != std::string::npos)
      name = caller;
  }
  for (const std::string& p : symbolizer.problems) result.notes.push_back(p);
  auto key_name = [&](const Key& k) {
    const bool atomic = k.addr & fmt::kAtomicLockBit;
    const uint64_t a = k.addr & ~fmt::kAtomicLockBit;
    std::string name;
    if (k.instance) {
      name = "heap[" + code[n_locs + k.instance] + "#" + std::to_string(k.instance) + "]";
      if (a) name += "+" + std::to_string(a);
    } else {
      name = symbolizer.data_name(a);
      if (name.empty()) name = (symbolizer.stack(a) ? "stack:" : "") + hex(a);
    }
    return atomic ? "atomic:" + name : name;
  };
  Symbols symbols;
  for (uint32_t t = 0; t < ids.threads.size(); ++t) symbols.threads.intern(ids.threads.name(t));
  auto intern_unique = [](SymbolTable& table, std::string name, uint64_t addr) {
    const uint32_t want = table.size();
    if (table.intern(name) == want) return;
    name += "@" + hex(addr);
    for (int k = 2; table.intern(name) != want; ++k) name += "'";
  };
  for (const Key& k : var_ids.keys()) intern_unique(symbols.variables, key_name(k), k.addr);
  for (const Key& k : lock_ids.keys()) intern_unique(symbols.locks, key_name(k), k.addr);
  for (size_t i = 0; i < n_locs; ++i) {
    // Locations are names of source lines: several addresses may share one.
    const uint32_t id = symbols.locations.intern(code[i]);
    (void)id;
  }
  // Locations were numbered per address; renumber to the interned source-line ids.
  std::vector<uint32_t> loc_map(n_locs);
  for (size_t i = 0; i < n_locs; ++i) loc_map[i] = *symbols.locations.find(code[i]);
  for (Event& e : events) e.location = loc_map[e.location];

  // ---- write ----
  const std::string& out = options.output;
  const bool text = out.size() > 4 && (out.ends_with(".std") || out.ends_with(".txt"));
  std::unique_ptr<EventConsumer> writer;
  BinaryWriter* binary = nullptr;
  StdWriter* std_writer = nullptr;
  if (text) {
    auto w = std::make_unique<StdWriter>(symbols, out);
    std_writer = w.get();
    writer = std::move(w);
  } else {
    auto w = std::make_unique<BinaryWriter>(symbols, out);
    binary = w.get();
    writer = std::move(w);
  }
  for (size_t i = 0; i < events.size(); ++i) writer->on_event(i + 1, events[i], 0);
  writer->on_end();
  if (binary) {
    binary->close();
    result.output_bytes = binary->bytes_written();
  }
  if (std_writer) {
    std_writer->close();
    result.output_bytes = std_writer->bytes_written();
  }
  result.events = events.size();
  result.threads = symbols.threads.size();
  result.variables = symbols.variables.size();
  result.locks = symbols.locks.size();
  result.locations = symbols.locations.size();
  return result;
}

}  // namespace racepred::cli
