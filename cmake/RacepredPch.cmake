# Precompiled headers for the test programs: the standard library, fmt, nlohmann-json and
# GoogleTest headers are parsed once per test program instead of once per test file (about a
# third of a test file's compile time). Not for the libraries: at -O3 with a precompiled header
# g++ 12 reports false -Warray-bounds errors inside std::string. Off with -DRACEPRED_PCH=OFF,
# e.g. to check that every test file includes what it uses.
option(RACEPRED_PCH "Precompile the standard, fmt, JSON and GoogleTest headers" ON)

set(RACEPRED_PCH_STD
    <algorithm> <array> <cstddef> <cstdint> <cstdio> <cstdlib> <cstring> <functional> <map>
    <memory> <optional> <set> <span> <sstream> <string> <string_view> <unordered_map> <utility>
    <vector>)

# racepred_pch(TARGET [header…]): the standard headers above and the given ones.
function(racepred_pch target)
  if(RACEPRED_PCH)
    target_precompile_headers(${target} PRIVATE ${RACEPRED_PCH_STD} ${ARGN})
  endif()
endfunction()

# ccache caches compilations that use a precompiled header only when told that the header's
# macros and time stamps may be ignored (the header is part of the hashed command line).
if(RACEPRED_PCH AND CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${CCACHE_PROGRAM})
endif()
