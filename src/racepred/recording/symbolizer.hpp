// Symbolisation of a recording: code addresses become "file:line (function)" (llvm-symbolizer or
// addr2line), data addresses the global they fall in (nm) and its member path (DWARF types,
// readelf), from the program's memory map. The tools run with an argument vector (spawn.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "racepred/recording/dwarf_types.hpp"

namespace racepred::recording {

// A line of /proc/self/maps.
struct Mapping {
  uint64_t start, end, offset;
  bool exec;
  std::string path;
};
std::vector<Mapping> parse_maps(const std::string& text);

// "0x1f" (the spelling of unnamed addresses in traces).
std::string hex(uint64_t value);

class Symbolizer {
 public:
  // `enabled` false: no tool runs; code is named module+offset and data not at all.
  Symbolizer(std::vector<Mapping> maps, bool enabled);
  ~Symbolizer();

  // Names for code addresses: "file:line (function)", or "module+0xoff" ("?" for 0).
  std::vector<std::string> code_names(const std::vector<uint64_t>& pcs);
  // The global object holding `addr`: "name", "name.field", "name+off"; empty if none.
  std::string data_name(uint64_t addr);
  // True when `addr` is in the main thread's stack.
  bool stack(uint64_t addr) const;

  // What went wrong (a tool missing...), for the user.
  std::vector<std::string> problems;

 private:
  struct Module;
  Module* module_of(uint64_t addr, uint64_t& file_addr);
  Module& module(const std::string& path);
  void load_symbols(Module& mod);
  void symbolize_code(Module& mod, const std::vector<std::pair<uint64_t, size_t>>& list,
                      std::vector<std::string>& names);
  bool llvm_symbolizer();

  std::vector<Mapping> maps_;
  int llvm_symbolizer_ = -1;
  bool enabled_;
  std::string cwd_;
  std::map<std::string, std::unique_ptr<Module>> modules_;
};

}  // namespace racepred::recording
