# racepred_module(NAME [DEPENDS module…] [LIBS target…]): one static library per folder of
# src/racepred (DESIGN's modules), built from the folder's .cpp files and linked only along the
# module arrows given in DEPENDS. A module sees the headers of the modules it depends on
# (transitively, since their headers include their own dependencies) and of no other: each
# module gets an include root of its own under the build tree, racepred/<module> links to the
# visible folders only, so an include of a forbidden module fails to compile.
# tests/unit/module_arrows_test (scripts/check-includes.py) checks the direct includes too.
set(RACEPRED_MODULE_ROOT ${PROJECT_SOURCE_DIR}/src/racepred)

function(racepred_module name)
  cmake_parse_arguments(M "" "" "DEPENDS;LIBS" ${ARGN})
  set(visible ${name})
  foreach(dep ${M_DEPENDS})
    get_property(dep_visible GLOBAL PROPERTY RACEPRED_VISIBLE_${dep})
    list(APPEND visible ${dep} ${dep_visible})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set_property(GLOBAL PROPERTY RACEPRED_VISIBLE_${name} ${visible})

  set(root ${CMAKE_BINARY_DIR}/module-include/${name})
  file(MAKE_DIRECTORY ${root}/racepred)
  foreach(module ${visible})
    if(NOT EXISTS ${root}/racepred/${module})
      file(CREATE_LINK ${RACEPRED_MODULE_ROOT}/${module} ${root}/racepred/${module} SYMBOLIC)
    endif()
  endforeach()

  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${RACEPRED_MODULE_ROOT}/${name}/*.cpp)
  list(FILTER sources EXCLUDE REGEX ".*/cli/main\\.cpp$")
  add_library(racepred_${name} STATIC ${sources})
  target_include_directories(racepred_${name} PUBLIC ${root})
  foreach(dep ${M_DEPENDS})
    target_link_libraries(racepred_${name} PUBLIC racepred_${dep})
  endforeach()
  if(M_LIBS)
    target_link_libraries(racepred_${name} PUBLIC ${M_LIBS})
  endif()
endfunction()
