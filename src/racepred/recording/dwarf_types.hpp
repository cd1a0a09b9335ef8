// Names of the fields of global variables for `racepred record` (docs/RECORDER.md, "Names"):
// the DWARF type of a global (from `readelf --debug-dump=info,addr`, binutils) turns an offset into
// it into a member path, `obj.field`, `table[3].y`, `obj.buf[2]+1`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace racepred::recording {

class DwarfTypes {
 public:
  // Parses the output of `readelf --debug-dump=info,addr --wide FILE` (DWARF 2 to 5: gcc's
  // DW_OP_addr and clang's DW_OP_addrx locations); what it does not understand is skipped.
  void parse(std::string_view readelf_output);
  // The member path of byte `offset` into the global variable at file address `addr`:
  // ".field", "[3].y", ".buf[2]+1", "+8" (offset into a scalar), or "" for offset 0 of a
  // scalar. False when there is no such global in the debug information.
  bool member_path(uint64_t addr, uint64_t offset, std::string& path) const;
  size_t variables() const { return vars_.size(); }

 private:
  struct Die {
    std::string tag;  // without "DW_TAG_"
    std::string name;
    uint64_t type = 0;  // offset of the DIE of its type, 0 if none
    uint64_t byte_size = 0;
    uint64_t member_location = 0;
    uint64_t count = 0;  // array: elements (one-dimensional arrays only)
    unsigned dims = 0;   // array: subranges
    uint64_t first_child = 0, next_sibling = 0;
    bool has_size = false;
  };
  const Die* die(uint64_t offset) const;
  const Die* strip(const Die* d) const;  // through typedefs and qualifiers
  uint64_t size_of(const Die* d, int depth = 0) const;

  std::unordered_map<uint64_t, Die> dies_;
  std::unordered_map<uint64_t, uint64_t> vars_;  // address -> type DIE
};

}  // namespace racepred::recording
