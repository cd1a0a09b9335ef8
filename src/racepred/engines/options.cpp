#include "racepred/engines/options.hpp"

namespace racepred {

const EngineOptionInfo* find_engine_option(std::string_view flag_or_id) {
  for (const EngineOptionInfo& option : kEngineOptions)
    if (option.id == flag_or_id || (!option.flag.empty() && option.flag == flag_or_id))
      return &option;
  return nullptr;
}

std::string engine_option_help(const EngineOptionInfo& option) {
  static constexpr std::string_view kPlaceholder = "{default}";
  std::string help(option.help);
  for (size_t at = help.find(kPlaceholder); at != std::string::npos;
       at = help.find(kPlaceholder, at))
    help.replace(at, kPlaceholder.size(), std::to_string(option.default_value));
  return help;
}

}  // namespace racepred
