// AVX-512 intrinsics that clang defines as macros, which Swift can see but not call: wrapped
// here as static inline functions, compiled into their Swift callers in SfumatoAVX512.
#pragma once
#if defined(__x86_64__)
#include <immintrin.h>

/// Eight 64-bit loads, each from `base` plus its lane's byte offset (`vpgatherqq`).
static inline __attribute__((always_inline, target("avx512f"))) __m512i
sfumato_gather_epi64(__m512i offsets, const void *base) {
    return _mm512_i64gather_epi64(offsets, base, 1);
}
#endif
