// The one place that includes Python.h, with PY_SSIZE_T_CLEAN defined first (the "#" formats of
// CPython's argument parsers then take Py_ssize_t). Python's documentation asks for Python.h
// before any standard header because pyconfig.h sets feature-test macros; the repository's
// .clang-format puts system headers first, which is harmless on glibc: g++ and clang predefine
// _GNU_SOURCE, and pyconfig.h's macros only repeat what it implies.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x030B0000
#error "parlab's embed/ part needs CPython >= 3.11 (PyConfig start-up, Py_Version)"
#endif

// PARLAB_EMBED_ASAN: this is an AddressSanitizer build (GCC defines __SANITIZE_ADDRESS__, clang
// answers __has_feature); the embedding adapts its allocator and its Numba backends to it.
#if defined(__SANITIZE_ADDRESS__)
#define PARLAB_EMBED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PARLAB_EMBED_ASAN 1
#endif
#endif
