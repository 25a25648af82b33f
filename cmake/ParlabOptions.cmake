# Compile flags shared by every target: warnings, reproducible floating point, CPU tuning and
# sanitizers. Applied with add_compile_options so that every part (and the tests) agree.

# Warnings. Third-party headers come in as SYSTEM includes, so -Werror only judges our code.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wpedantic;-Wshadow;-Wnon-virtual-dtor>")
  if(PARLAB_WERROR)
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Werror>")
  endif()
  # No fused multiply-add contraction: a*b+c must round twice everywhere, or the same kernel
  # inlined in two places could give two different bit patterns (docs/design.md, "Deterministic reduction").
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>")
endif()

if(PARLAB_NATIVE)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag("-march=native" PARLAB_HAS_MARCH_NATIVE)
  if(PARLAB_HAS_MARCH_NATIVE)
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-march=native>")
  endif()
endif()

string(TOLOWER "${PARLAB_SANITIZE}" PARLAB_SANITIZE)
if(PARLAB_SANITIZE STREQUAL "")
  set(PARLAB_SANITIZE_LABEL "none")
elseif(PARLAB_SANITIZE STREQUAL "thread")
  set(PARLAB_SANITIZE_LABEL "ThreadSanitizer")
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=thread;-fno-omit-frame-pointer;-g>")
  add_link_options(-fsanitize=thread)
elseif(PARLAB_SANITIZE STREQUAL "address,undefined")
  set(PARLAB_SANITIZE_LABEL "AddressSanitizer+UndefinedBehaviorSanitizer")
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined;-fno-sanitize-recover=all;-fno-omit-frame-pointer;-g>")
  add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
else()
  message(FATAL_ERROR "PARLAB_SANITIZE must be empty, 'thread' or 'address,undefined', got '${PARLAB_SANITIZE}'")
endif()

# The flags the results' context block records ("compiler and flags").
string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
get_directory_property(_opts COMPILE_OPTIONS)
string(REPLACE ";" " " _opts "${_opts}")
string(REGEX REPLACE "\\$<\\$<COMPILE_LANGUAGE:CXX>:([^>]*)>" "\\1" _opts "${_opts}")
string(REPLACE ";" " " _opts "${_opts}")
set(PARLAB_CXX_FLAGS_SUMMARY "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_bt}} ${_opts}")
string(STRIP "${PARLAB_CXX_FLAGS_SUMMARY}" PARLAB_CXX_FLAGS_SUMMARY)

# The libFuzzer targets (tests/fuzz/) need clang's -fsanitize=fuzzer; no other compiler has it.
if(PARLAB_BUILD_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "PARLAB_BUILD_FUZZERS=ON needs clang (libFuzzer, -fsanitize=fuzzer), but the C++ compiler is "
                      "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}: configure with -DCMAKE_CXX_COMPILER=clang++ "
                      "(the asan-ubsan preset does), or with -DPARLAB_BUILD_FUZZERS=OFF")
endif()

# parlab_precompile_headers(TARGET [GTEST]): the headers most of a target's sources include,
# precompiled once for it (with clang, their templates instantiated once too). Only third-party and
# standard headers: parlab's own change too often for a header rebuilt on every edit to pay off, and
# a source still includes what it uses, so it builds without the option.
function(parlab_precompile_headers target)
  if(NOT PARLAB_PRECOMPILE_HEADERS)
    return()
  endif()
  set(headers <algorithm> <cmath> <cstdint> <cstdlib> <filesystem> <map> <optional> <sstream> <string>
              <string_view> <utility> <vector> <nlohmann/json.hpp>)
  if("GTEST" IN_LIST ARGN)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()

# parlab_test_target(TARGET): a GoogleTest binary. Its sources are the checks, not the code under
# test, which the libraries hold, compiled as the configuration says; so they compile at -O1 (a
# Debug build keeps -O0). gtest's macros make long functions that -O2 and -O3 take about a third
# longer to compile, and builds are half of CI's time. GoogleTest is precompiled with the rest.
# Its sources stay out of a unity build (the sanitizer presets batch the libraries' sources):
# test files reuse helper names in their anonymous namespaces, and each is a test of its own.
function(parlab_test_target target)
  target_compile_options(${target} PRIVATE "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-O1>")
  parlab_precompile_headers(${target} GTEST)
  set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
endfunction()
