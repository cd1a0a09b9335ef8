#include "racepred/recording/symbolizer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "racepred/recording/spawn.hpp"

namespace racepred::recording {
namespace {

bool elf_is_exec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[18] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  return in && h[0] == 0x7f && h[1] == 'E' && h[16] == 2 && h[17] == 0;
}

// The standard output of a tool; "" when it cannot be run.
std::string tool_output(const std::vector<std::string>& argv, const std::string& input = "") {
  try {
    return run_capture(argv, input).out;
  } catch (const InputError&) {
    return "";
  }
}

std::string base_name(const std::string& path) {
  const size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace

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

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// A module (executable or shared library) as loaded: where, and whether addresses in its
// file are absolute (ET_EXEC) or relative to the load base (ET_DYN).
struct Symbolizer::Module {
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
  DwarfTypes types;  // the globals' types (field names), when it has debug information
};

Symbolizer::Symbolizer(std::vector<Mapping> maps, bool enabled)
    : maps_(std::move(maps)), enabled_(enabled) {
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) cwd_ = std::string(cwd) + "/";
}

Symbolizer::~Symbolizer() = default;

Symbolizer::Module* Symbolizer::module_of(uint64_t addr, uint64_t& file_addr) {
  for (const Mapping& m : maps_) {
    if (addr < m.start || addr >= m.end || m.path.empty() || m.path[0] != '/') continue;
    Module& mod = module(m.path);
    file_addr = mod.absolute ? addr : addr - mod.base;
    return &mod;
  }
  return nullptr;
}

std::vector<std::string> Symbolizer::code_names(const std::vector<uint64_t>& pcs) {
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

std::string Symbolizer::data_name(uint64_t addr) {
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
    mod->types.parse(tool_output({"readelf", "--debug-dump=info,addr", "--wide", mod->path}));
  }
  std::string path;
  if (mod->types.member_path(it->start, fa - it->start, path)) return it->name + path;
  return fa == it->start ? it->name : it->name + "+" + std::to_string(fa - it->start);
}

bool Symbolizer::stack(uint64_t addr) const {
  for (const Mapping& m : maps_)
    if (addr >= m.start && addr < m.end) return m.path == "[stack]";
  return false;
}

Symbolizer::Module& Symbolizer::module(const std::string& path) {
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

void Symbolizer::load_symbols(Module& mod) {
  mod.symbols_loaded = true;
  const std::string out = tool_output({"nm", "-C", "-S", "--defined-only", mod.path});
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

// "file:0", "file:0:0", "file:0 (discriminator 2)": a frame without a line.
static bool line_zero(const std::string& file) {
  const size_t slash = file.rfind('/');
  const size_t colon = file.find(':', slash == std::string::npos ? 0 : slash);
  if (colon == std::string::npos) return false;
  const size_t end = file.find_first_not_of("0123456789", colon + 1);
  const std::string line = file.substr(colon + 1, end - colon - 1);
  return line == "0";
}

// One symbolizer run per module; inlined frames from system headers are skipped so that code
// inlined from the C++ library is attributed to the user's call site.
void Symbolizer::symbolize_code(Module& mod, const std::vector<std::pair<uint64_t, size_t>>& list,
                                std::vector<std::string>& names) {
  std::string input;
  for (const auto& [fa, i] : list) input += hex(fa > 0 ? fa - 1 : fa) + "\n";  // the call
  // llvm-symbolizer prints columns ("file:line:col"); addr2line does not.
  const std::vector<std::string> argv =
      llvm_symbolizer()
          ? std::vector<std::string>{"llvm-symbolizer", "-a", "-C", "-f", "-i", "--obj=" + mod.path}
          : std::vector<std::string>{"addr2line", "-a", "-C", "-f", "-i", "-e", mod.path};
  const std::string out = tool_output(argv, input);
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
    // The innermost frame outside the system's headers, and of those the innermost with a
    // line: compiler-made code (a C++ global's dynamic initialiser) may be at line 0 in an
    // inner frame and at the initialiser's line in the frame around it.
    const std::pair<std::string, std::string>* pick = &frames.front();
    const std::pair<std::string, std::string>* user = nullptr;
    for (const auto& f : frames) {
      if (f.second.rfind("/usr/", 0) == 0) continue;
      if (!user) user = &f;
      if (!line_zero(f.second)) {
        pick = &f;
        user = nullptr;
        break;
      }
    }
    if (user) pick = user;
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
bool Symbolizer::llvm_symbolizer() {
  if (llvm_symbolizer_ < 0) llvm_symbolizer_ = find_program("llvm-symbolizer").empty() ? 0 : 1;
  return llvm_symbolizer_ == 1;
}

}  // namespace racepred::recording
