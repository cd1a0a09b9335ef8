// The settings of the engines (engines/options.def): EngineOptions holds one value per row, its
// default from the table; kEngineOptions describes the rows for the command line and the docs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace racepred {

struct EngineOptions {
#define ENGINE_OPTION(id, type, def, ...) type id = def;
#include "racepred/engines/options.def"
  // Not a setting, a probe: when set, counts the delta snapshots the engines' SnapshotPools make
  // (tests: snapshot_delta_stride took effect). Atomic: analyze runs engines on several threads.
  std::atomic<size_t>* snapshot_deltas_made = nullptr;
  // A probe as well: when set, wcp, dc, wdc, dc-tp and wdp add the steps of their rule-(a)
  // bookkeeping (slots filled, sections and records looked at) at finish() (tests: the work on
  // deeply nested sections grows linearly).
  std::atomic<uint64_t>* rule_a_steps = nullptr;
};

// Where a setting is offered: analyze and compare (Bounds), analyze and exact (Budget), nowhere
// on the command line (Internal).
enum class EngineOptionGroup { Bounds, Budget, Internal };

// One row of the table, with the field's value as a whole number.
struct EngineOptionInfo {
  std::string_view id;
  uint64_t default_value;
  uint64_t min;
  uint64_t max;
  EngineOptionGroup group;
  std::string_view flag;        // "--pwr-history"; "" for Internal rows
  std::string_view value_name;  // "N"
  std::string_view engines;     // the engines that read it, comma-separated
  std::string_view help;        // {default} stands for the default
  uint64_t (*get)(const EngineOptions&);
  void (*set)(EngineOptions&, uint64_t);
};

inline constexpr EngineOptionInfo kEngineOptions[] = {
#define ENGINE_OPTION(id, type, def, min, max, group, flag, value, engines, help) \
  {#id,                                                                           \
   static_cast<uint64_t>(def),                                                    \
   static_cast<uint64_t>(min),                                                    \
   static_cast<uint64_t>(max),                                                    \
   EngineOptionGroup::group,                                                      \
   flag,                                                                          \
   value,                                                                         \
   engines,                                                                       \
   help,                                                                          \
   [](const EngineOptions& o) { return static_cast<uint64_t>(o.id); },            \
   [](EngineOptions& o, uint64_t v) { o.id = static_cast<type>(v); }},
#include "racepred/engines/options.def"
};

// Every default fits its type and lies in its range.
#define ENGINE_OPTION(id, type, def, min, max, ...)                                     \
  static_assert(static_cast<uint64_t>(static_cast<type>(def)) == uint64_t{def} &&       \
                    uint64_t{min} <= uint64_t{def} && uint64_t{def} <= uint64_t{max} && \
                    uint64_t{max} <= static_cast<uint64_t>(static_cast<type>(-1)),      \
                #id ": default or range does not fit");
#include "racepred/engines/options.def"

// The row with this flag ("--pwr-edges") or id ("pwr_edges"), or nullptr.
const EngineOptionInfo* find_engine_option(std::string_view flag_or_id);
// The help text with {default} replaced by the default.
std::string engine_option_help(const EngineOptionInfo& option);

}  // namespace racepred
