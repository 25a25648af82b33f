# Registers a GoogleTest binary's parametrised AllBackends/ cases with ctest one group per
# (test suite, backend) instead of one process per case.
#
# Why: there are about 800 such cases (backend x threads x size). A process per case spent more
# time starting than testing: each start maps every library parlab links (cuBLAS alone takes
# about 0.4 s), so a case of a few milliseconds cost half a second, and the four ctest
# configurations of CI spent minutes on it. A group still names its failing case (gtest prints
# it), and the groups are derived from the binary's own list after every build, so a new suite
# or backend is registered without anyone editing a list.
#
# Precondition: the cases in the group never skip (they run the CPU backends this build has; a
# case that can skip belongs outside AllBackends/, where it is registered on its own and ctest
# reports the skip). A group in which a case skipped fails, naming it, rather than pass quietly.
#
# parlab_add_gtest_groups(TARGET PREFIX PROPERTIES ...): PREFIX is the instantiation prefix
# ("AllBackends/"); the cases outside it are left to gtest_discover_tests(... TEST_FILTER).

function(parlab_add_gtest_groups target prefix)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "PROPERTIES")
  set(_out "${CMAKE_CURRENT_BINARY_DIR}/${target}_groups.cmake")
  string(REPLACE ";" "|" _props_escaped "${arg_PROPERTIES}")  # a ';' would not survive -D
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>" -D "TARGET=${target}"
            -D "PREFIX=${prefix}" -D "OUT=${_out}" -D "PROPS=${_props_escaped}"
            -P "${PROJECT_SOURCE_DIR}/cmake/ParlabGTestGroupsList.cmake"
    BYPRODUCTS "${_out}"
    VERBATIM)
  set(_include "${CMAKE_CURRENT_BINARY_DIR}/${target}_groups_include.cmake")
  file(WRITE "${_include}"
    "if(EXISTS \"${_out}\")\n  include(\"${_out}\")\nelse()\n"
    "  add_test(${target}_groups_NOT_BUILT ${target}_groups_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_include}")
endfunction()
