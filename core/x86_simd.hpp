// The x86 SIMD intrinsics for the files that take explicit AVX2 / AVX-512 paths (pi_simd.cpp,
// ceilings_cpu.cpp, incore_probe.cpp): one place for the include and for GCC 12's false warnings
// about it. PARLAB_X86_SIMD is 1 where the intrinsics are there (x86 with GCC or clang), else 0.
#pragma once

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define PARLAB_X86_SIMD 1
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() (deliberately uninitialised) as the unused
// merge source and then warn about it: GCC bug 105593, fixed in GCC 13. Ignored in every file
// that includes this one, which is the point: those are the files that use them.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#else
#define PARLAB_X86_SIMD 0
#endif
