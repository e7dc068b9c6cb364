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

/// Lanes where `a < b` (ordered: false where either is NaN), as a mask (`vcmpps`).
static inline __attribute__((always_inline, target("avx512f"))) __mmask16
sfumato_less_ps(__m512 a, __m512 b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}

/// A hint to bring the cache line at `p` into every level of the cache (`prefetcht0`).
static inline __attribute__((always_inline)) void sfumato_prefetch(const void *p) {
    _mm_prefetch((const char *)p, _MM_HINT_T0);
}

/// Orders the streaming stores before it ahead of later stores (`sfence`).
static inline __attribute__((always_inline)) void sfumato_store_fence(void) {
    _mm_sfence();
}
#endif
