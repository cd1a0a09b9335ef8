# Installing racepred (docs/INSTALL.md): `cmake --install BUILD --prefix P` or `make install
# PREFIX=P`, and a Debian package (`cpack -G DEB` in the build tree). The installed tree is
# relocatable: the wrappers find the runtime and the CMake package finds everything relative to
# where they are.
include(GNUInstallDirs)
# Installing (and packaging) takes what is built and does not build the tests first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
include(CMakePackageConfigHelpers)

set(RACEPRED_INSTALL_RTDIR ${CMAKE_INSTALL_LIBDIR}/racepred)
set(RACEPRED_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/racepred)

install(TARGETS racepred RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The runtime, its exported-symbol list and header (the wrappers link them).
install(TARGETS racepred_rt racepred_rt_shared
        ARCHIVE DESTINATION ${RACEPRED_INSTALL_RTDIR}
        LIBRARY DESTINATION ${RACEPRED_INSTALL_RTDIR})
install(FILES ${CMAKE_BINARY_DIR}/lib/racepred_rt.dynlist DESTINATION ${RACEPRED_INSTALL_RTDIR})
install(FILES ${PROJECT_SOURCE_DIR}/src/racepred/recorder/racepred_rt.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/racepred)

# The wrappers of an installation: the same script, with the runtime's place relative to bindir.
file(RELATIVE_PATH RACEPRED_RT_RELDIR /prefix/${CMAKE_INSTALL_BINDIR}
     /prefix/${RACEPRED_INSTALL_RTDIR})
foreach(wrapper racepred-cc racepred-c++)
  configure_file(${PROJECT_SOURCE_DIR}/src/racepred/recorder/racepred-cc.in
                 ${CMAKE_BINARY_DIR}/install-files/${wrapper} @ONLY)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/install-files/${wrapper}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()

# The CMake package: find_package(racepred) gives racepred_instrument() and racepred_add_test().
file(RELATIVE_PATH RACEPRED_CMAKE_TO_PREFIX /prefix/${RACEPRED_INSTALL_CMAKEDIR} /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/racepredConfig.cmake.in
               ${CMAKE_BINARY_DIR}/install-files/racepredConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install-files/racepredConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install-files/racepredConfig.cmake
              ${CMAKE_BINARY_DIR}/install-files/racepredConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/racepred-functions.cmake
        DESTINATION ${RACEPRED_INSTALL_CMAKEDIR})

# The man page and the shell completions, written from racepred's own help texts after it is
# linked (scripts/help_docs.py), so they always list the options the binary has.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(RACEPRED_HELP_DOCS ${CMAKE_BINARY_DIR}/share/man/man1/racepred.1
    ${CMAKE_BINARY_DIR}/share/bash-completion/completions/racepred
    ${CMAKE_BINARY_DIR}/share/zsh/vendor-completions/_racepred)
add_custom_command(
  OUTPUT ${RACEPRED_HELP_DOCS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/man/man1
          ${CMAKE_BINARY_DIR}/share/bash-completion/completions
          ${CMAKE_BINARY_DIR}/share/zsh/vendor-completions
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/help_docs.py $<TARGET_FILE:racepred>
          --man ${CMAKE_BINARY_DIR}/share/man/man1/racepred.1
          --bash ${CMAKE_BINARY_DIR}/share/bash-completion/completions/racepred
          --zsh ${CMAKE_BINARY_DIR}/share/zsh/vendor-completions/_racepred
  DEPENDS racepred ${PROJECT_SOURCE_DIR}/scripts/help_docs.py
  COMMENT "Man page and shell completions from racepred's help texts")
add_custom_target(racepred_help_docs ALL DEPENDS ${RACEPRED_HELP_DOCS})
install(FILES ${CMAKE_BINARY_DIR}/share/man/man1/racepred.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_BINARY_DIR}/share/bash-completion/completions/racepred
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CMAKE_BINARY_DIR}/share/zsh/vendor-completions/_racepred
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")

# A Debian package: `cpack -G DEB` in the build tree (the install test builds and checks it).
set(CPACK_PACKAGE_NAME racepred)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "racepred developers <racepred@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "dynamic data race prediction from one recorded run")
set(CPACK_PACKAGE_DESCRIPTION
    "racepred records a run of a C or C++ program (compiler wrappers around gcc and clang with\nThreadSanitizer's instrumentation and its own runtime) and predicts the data races and\ndeadlocks of every valid reordering of that run, with more than twenty published methods.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# racepred links these shared libraries (Debian 12 names); the wrappers need a compiler with
# ThreadSanitizer's instrumentation and libatomic; symbolizing uses binutils, llvm adds columns.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6, libgcc-s1, libstdc++6, libfmt9, zlib1g, libzstd1, liblzma5, liblz4-1, gcc | clang, libatomic1, binutils")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, llvm")
include(CPack)
