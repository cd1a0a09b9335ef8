// The recording runtime's settings (recorder_settings.inc) as a table for racepred's own use
// (`racepred record --help`); the runtime reads the .inc directly.
#pragma once

namespace racepred::format {

struct RecorderSetting {
  const char* env;
  const char* type;
  const char* def;
  const char* help;
};

inline constexpr RecorderSetting kRecorderSettings[] = {
#define RP_SETTING(member, env, type, def, help) {env, #type, def, help},
#include "racepred/format/recorder_settings.inc"
#undef RP_SETTING
};

}  // namespace racepred::format
