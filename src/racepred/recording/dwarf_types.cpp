#include "racepred/recording/dwarf_types.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace racepred::recording {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

// The value of an attribute line after its form: "(strp) (offset: 0x17): inner" -> "inner",
// "(data1) 8" -> "8", "(ref4) <0x55>, int" -> "<0x55>, int".
std::string value_of(std::string_view v) {
  std::string s = trim(v);
  if (!s.empty() && s[0] == '(') {
    const size_t close = s.find(')');
    if (close != std::string::npos) s = trim(std::string_view(s).substr(close + 1));
  }
  if (s.rfind("(offset:", 0) == 0 || s.rfind("(indirect", 0) == 0) {
    const size_t colon = s.find("): ");
    if (colon != std::string::npos) s = s.substr(colon + 3);
  }
  return s;
}

uint64_t number(const std::string& s) {
  return std::strtoull(s.c_str(), nullptr, 0);
}

uint64_t ref(const std::string& s) {  // "<0x55>, int"
  const size_t lt = s.find("<0x");
  return lt == std::string::npos ? 0 : std::strtoull(s.c_str() + lt + 1, nullptr, 16);
}

// A name reserved to the implementation: "__x" or "_X".
bool reserved(const std::string& name) {
  return name.size() >= 2 && name[0] == '_' &&
         (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

}  // namespace

void DwarfTypes::parse(std::string_view text) {
  std::vector<uint64_t> parents;  // DIE offset per depth
  std::vector<uint64_t> last_at;  // last child DIE at each depth (to link siblings)
  Die* current = nullptr;
  Die* array = nullptr;  // the array type whose subrange `current` is
  uint64_t location = UINT64_MAX;
  uint64_t specification = 0;
  // DWARF 5 (clang): DW_OP_addrx <N> is entry N of the unit's table in .debug_addr, which
  // readelf prints after .debug_info ("For compilation unit at offset X").
  uint64_t unit = 0;
  uint64_t addrx = UINT64_MAX;
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, uint64_t>> indexed;  // (unit, N) -> type
  std::unordered_map<uint64_t, std::vector<uint64_t>> tables;               // unit -> addresses
  std::vector<uint64_t>* table = nullptr;
  auto finish = [&] {
    if (current && current->tag == "variable" && (location != UINT64_MAX || addrx != UINT64_MAX)) {
      uint64_t type = current->type;
      if (!type && specification)
        if (const Die* spec = die(specification)) type = spec->type;
      if (type && location != UINT64_MAX) vars_[location] = type;
      if (type && addrx != UINT64_MAX) indexed.push_back({{unit, addrx}, type});
    }
    addrx = UINT64_MAX;
    current = nullptr;
    location = UINT64_MAX;
    specification = 0;
  };
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (const size_t cu = line.find("ompilation Unit @ offset "); cu != std::string_view::npos) {
      finish();
      unit = std::strtoull(std::string(line.substr(cu + 25)).c_str(), nullptr, 0);
      continue;
    }
    if (const size_t cu = line.find("For compilation unit at offset ");
        cu != std::string_view::npos) {
      finish();
      table = &tables[std::strtoull(std::string(line.substr(cu + 31)).c_str(), nullptr, 0)];
      continue;
    }
    if (table) {  // "\tN:\tADDRESS"
      unsigned long long index = 0, address = 0;
      if (std::sscanf(std::string(line).c_str(), " %llu: %llx", &index, &address) == 2 &&
          index == table->size())
        table->push_back(address);
      continue;
    }
    const size_t lt = line.find('<');
    if (lt == std::string_view::npos) continue;
    unsigned depth = 0;
    unsigned long long offset = 0;
    int used = 0;
    const std::string l(line.substr(lt));
    if (std::sscanf(l.c_str(), "<%u><%llx>: Abbrev Number: %*u%n", &depth, &offset, &used) == 2 &&
        used > 0) {
      finish();
      if (parents.size() < depth + 1) parents.resize(depth + 1);
      if (last_at.size() < depth + 2) last_at.resize(depth + 2, 0);
      const size_t tag_at = l.find("(DW_TAG_");
      if (tag_at == std::string::npos) {  // end of a list of children
        last_at[depth] = 0;
        continue;
      }
      Die& d = dies_[offset];
      const size_t tag_end = l.find(')', tag_at);
      d.tag = l.substr(tag_at + 8, tag_end - tag_at - 8);
      if (last_at[depth]) dies_[last_at[depth]].next_sibling = offset;
      if (depth > 0 && !last_at[depth] && parents[depth - 1])
        dies_[parents[depth - 1]].first_child = offset;
      last_at[depth] = offset;
      last_at[depth + 1] = 0;
      parents[depth] = offset;
      current = &d;
      array = nullptr;
      if (d.tag == "subrange_type" && depth > 0 && parents[depth - 1]) {
        Die& parent = dies_[parents[depth - 1]];
        if (parent.tag == "array_type") {
          array = &parent;
          ++parent.dims;
        }
      }
      continue;
    }
    if (!current) continue;
    const size_t name_at = l.find("DW_AT_");
    if (name_at == std::string::npos) continue;
    const size_t colon = l.find(':', name_at);
    if (colon == std::string::npos) continue;
    const std::string attr = trim(std::string_view(l).substr(name_at + 6, colon - name_at - 6));
    const std::string value = value_of(std::string_view(l).substr(colon + 1));
    if (attr == "name") {
      current->name = value;
    } else if (attr == "type") {
      current->type = ref(value);
    } else if (attr == "specification") {
      specification = ref(value);
    } else if (attr == "byte_size") {
      current->byte_size = number(value);
      current->has_size = true;
    } else if (attr == "data_member_location") {
      const size_t plus = value.find("DW_OP_plus_uconst: ");
      current->member_location =
          plus != std::string::npos ? number(value.substr(plus + 19)) : number(value);
    } else if ((attr == "upper_bound" || attr == "count") && array && array->dims == 1) {
      array->count = number(value) + (attr == "upper_bound" ? 1 : 0);
    } else if (attr == "location") {
      const size_t op = value.find("DW_OP_addr: ");
      if (op != std::string::npos) location = std::strtoull(value.c_str() + op + 12, nullptr, 16);
      const size_t opx = value.find("DW_OP_addrx <");
      if (opx != std::string::npos) addrx = std::strtoull(value.c_str() + opx + 13, nullptr, 0);
    }
  }
  finish();
  for (const auto& [key, type] : indexed) {
    const auto it = tables.find(key.first);
    if (it != tables.end() && key.second < it->second.size()) vars_[it->second[key.second]] = type;
  }
}

const DwarfTypes::Die* DwarfTypes::die(uint64_t offset) const {
  const auto it = dies_.find(offset);
  return it == dies_.end() ? nullptr : &it->second;
}

const DwarfTypes::Die* DwarfTypes::strip(const Die* d) const {
  for (int i = 0; d && i < 16; ++i) {
    if (d->tag != "typedef" && d->tag != "const_type" && d->tag != "volatile_type" &&
        d->tag != "atomic_type" && d->tag != "restrict_type")
      return d;
    d = die(d->type);
  }
  return d;
}

uint64_t DwarfTypes::size_of(const Die* d, int depth) const {
  d = strip(d);
  if (!d || depth > 16) return 0;
  if (d->has_size) return d->byte_size;
  if (d->tag == "array_type" && d->dims == 1) return d->count * size_of(die(d->type), depth + 1);
  return 0;
}

bool DwarfTypes::member_path(uint64_t addr, uint64_t offset, std::string& path) const {
  const auto var = vars_.find(addr);
  if (var == vars_.end()) return false;
  path.clear();
  const Die* t = die(var->second);
  for (int step = 0; step < 32; ++step) {
    t = strip(t);
    if (!t) break;
    if (t->tag == "structure_type" || t->tag == "class_type" || t->tag == "union_type") {
      const Die* pick = nullptr;
      for (uint64_t c = t->first_child; c; c = die(c) ? die(c)->next_sibling : 0) {
        const Die* m = die(c);
        if (!m || m->tag != "member") continue;
        const uint64_t size = size_of(die(m->type));
        if (offset >= m->member_location && offset < m->member_location + (size ? size : 1)) {
          pick = m;
          break;
        }
      }
      // A member with a reserved name (`__data`, `_M_mutex`) is the implementation's: the
      // object the program declared (a pthread_mutex_t, a std::mutex) is named, not its insides.
      if (!pick || reserved(pick->name)) break;
      if (!pick->name.empty()) path.append(".").append(pick->name);
      offset -= pick->member_location;
      t = die(pick->type);
    } else if (t->tag == "array_type") {
      const uint64_t element = size_of(die(t->type));
      if (element == 0 || t->dims != 1) break;  // multi-dimensional arrays: an offset
      const uint64_t index = offset / element;
      if (t->count && index >= t->count) break;
      path.append("[").append(std::to_string(index)).append("]");
      offset -= index * element;
      t = die(t->type);
    } else {
      break;
    }
  }
  if (offset) path.append("+").append(std::to_string(offset));
  return true;
}

}  // namespace racepred::recording
