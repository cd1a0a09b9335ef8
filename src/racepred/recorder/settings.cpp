// The runtime's settings (format/recorder_settings.inc: one table for the runtime, `racepred
// record --help` and docs/RECORDER.md), read from the environment once, in __tsan_init.
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_settings = 0;

Settings g_settings;

namespace {
// An unset or empty variable keeps the default.
const char* value_of(const char* env, const char* def) {
  const char* v = getenv(env);
  return v && *v ? v : def;
}
void read_setting(const char*& out, const char* env, const char* def) {
  out = value_of(env, def);
}
void read_setting(uint64_t& out, const char* env, const char* def) {
  out = strtoull(value_of(env, def), nullptr, 10);
}
void read_setting(bool& out, const char* env, const char* def) {
  const char* v = value_of(env, def);
  out = v[0] == '1' || v[0] == 'y' || v[0] == 'Y' || v[0] == 't' || v[0] == 'T';
}
}  // namespace

void read_settings() {
#define RP_SETTING(member, env, type, def, help) read_setting(g_settings.member, env, def);
#include "racepred/format/recorder_settings.inc"
#undef RP_SETTING
}

}  // namespace racepred_rt
