// MMKG_SIMD_CLONES: compile a hot element-wise function for AVX-512, AVX2 and baseline x86-64
// (GCC target_clones; the loader picks one by CPU features). Empty elsewhere, and under
// ThreadSanitizer, whose runtime is not up yet when the clones' ifunc resolvers run (they crash).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define MMKG_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MMKG_SIMD_CLONES
#endif
