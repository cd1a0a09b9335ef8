# racepred_instrument() and racepred_add_test() for CMake projects that record their programs
# with racepred (docs/RECORDER.md). Included by the build tree's racepred.cmake and by the
# installed package (find_package(racepred)), which set RACEPRED_EXECUTABLE and RACEPRED_RT_DIR.

# racepred_instrument(TARGET): compile TARGET with ThreadSanitizer's instrumentation and, for an
# executable, link racepred's recording runtime instead of ThreadSanitizer's.
function(racepred_instrument target)
  target_compile_options(${target} PRIVATE -fsanitize=thread -g)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_link_libraries(${target} PRIVATE "${RACEPRED_RT_DIR}/libracepred_rt.a" atomic pthread)
    target_link_options(${target} PRIVATE
                        "-Wl,--dynamic-list=${RACEPRED_RT_DIR}/racepred_rt.dynlist")
  endif()
endfunction()

# racepred_add_test(NAME name COMMAND target-or-program [args...]
#                   [ENGINES e1,e2] [ANALYZE_ARGS args...] [WORKING_DIRECTORY dir])
# A CTest test that records one run of the program (`racepred record`) and analyzes its trace
# (`racepred analyze`, shb unless ENGINES says otherwise; ANALYZE_ARGS e.g. --suppressions FILE).
# The test fails when the program fails or racepred reports a race or deadlock; the report is in
# the test's output and the trace stays in the build tree (NAME.rpt) for a closer look.
function(racepred_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;ENGINES;WORKING_DIRECTORY"
                        "COMMAND;ANALYZE_ARGS")
  if(NOT ARG_NAME OR NOT ARG_COMMAND)
    message(FATAL_ERROR "racepred_add_test: NAME and COMMAND are required")
  endif()
  list(POP_FRONT ARG_COMMAND program)
  if(TARGET ${program})
    racepred_instrument(${program})
    set(program "$<TARGET_FILE:${program}>")
  endif()
  set(trace "${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}.rpt")
  # Bracket arguments keep every argument as it is, whatever characters it has.
  set(record "[==[${RACEPRED_EXECUTABLE}]==] record -q -o [==[${trace}]==] -- [==[${program}]==]")
  foreach(arg IN LISTS ARG_COMMAND)
    string(APPEND record " [==[${arg}]==]")
  endforeach()
  set(analyze "[==[${RACEPRED_EXECUTABLE}]==] analyze")
  if(ARG_ENGINES)
    string(APPEND analyze " -e [==[${ARG_ENGINES}]==]")
  endif()
  foreach(arg IN LISTS ARG_ANALYZE_ARGS)
    string(APPEND analyze " [==[${arg}]==]")
  endforeach()
  string(APPEND analyze " [==[${trace}]==]")
  set(script "${CMAKE_CURRENT_BINARY_DIR}/racepred_test_${ARG_NAME}.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT "\
execute_process(COMMAND ${record} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR \"racepred_add_test ${ARG_NAME}: the program failed (status \${status})\")
endif()
execute_process(COMMAND ${analyze} RESULT_VARIABLE status)
if(status EQUAL 1)
  message(FATAL_ERROR \"racepred_add_test ${ARG_NAME}: racepred reported a race or deadlock (above)\")
elseif(NOT status EQUAL 0)
  message(FATAL_ERROR \"racepred_add_test ${ARG_NAME}: racepred analyze failed (status \${status})\")
endif()
")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}")
  if(ARG_WORKING_DIRECTORY)
    set(dir "${ARG_WORKING_DIRECTORY}")
  endif()
  add_test(NAME ${ARG_NAME} COMMAND "${CMAKE_COMMAND}" -P "${script}" WORKING_DIRECTORY "${dir}")
endfunction()
