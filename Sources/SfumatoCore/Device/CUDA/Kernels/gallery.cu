// The gallery's 8-bit kernels for CUDA: the same bytes as the CPU's byte-tile kernels
// (docs/GPU-KERNELS.md lists each kernel, its arguments, its launch and the CPU code it matches).
//
// Compiled to PTX by scripts/cuda-kernels (clang-16, sm_80, no CUDA headers) into
// ../_GalleryPTX.swift; run on the host, thread by thread, by scripts/cuda-kernels-hostcheck.
//
// Conventions shared by every image kernel:
// - Images are interleaved 8-bit, `channels` 4 (RGBA, premultiplied, sRGB-encoded: the CPU's byte
//   tiles) or 1 (grey), `width` x `height` pixels, rows `pitch` bytes apart (a multiple of 16, at
//   least width * channels), buffers 16-byte aligned and under 4 GiB. Input and output are
//   separate buffers of the same layout.
// - `edge` 0 clamps coordinates into the image (the CPU's `clampedToExtent()`, `_withEdges(.clamp)`);
//   1 reads 0 outside (transparent black: the CPU's finite image read past its extent).
// - Every parameter is an argument (numbers, or pointers to small device tables), so a parameter
//   change needs no recompilation.

#include "prelude.cuh"

typedef u32 sf_u32x2 __attribute__((ext_vector_type(2)));
typedef u32 sf_u32x4 __attribute__((ext_vector_type(4)));

#define SF_EDGE_CLAMP 0
#define SF_EDGE_ZERO 1

SF_INLINE int sf_clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
SF_INLINE u32 sf_minu(u32 a, u32 b) { return a < b ? a : b; }
SF_INLINE u32 sf_maxu(u32 a, u32 b) { return a > b ? a : b; }
SF_INLINE int sf_mini(int a, int b) { return a < b ? a : b; }
SF_INLINE int sf_maxi(int a, int b) { return a > b ? a : b; }

// Byte offset of (x, y) with 32-bit arithmetic.
SF_INLINE u32 sf_at(int x, int y, int pitch, int channels) { return (u32)y * (u32)pitch + (u32)x * (u32)channels; }

// The RGBA pixel at (x, y) under the edge rule.
SF_INLINE u32 sf_pixel(const u8* src, int x, int y, int width, int height, int pitch, int edge) {
    if (edge == SF_EDGE_CLAMP) {
        x = sf_clamp(x, 0, width - 1);
        y = sf_clamp(y, 0, height - 1);
    } else if ((unsigned)x >= (unsigned)width || (unsigned)y >= (unsigned)height) {
        return 0;
    }
    return sf_ld32(src + sf_at(x, y, pitch, 4));
}

// The byte of a grey image (or of one channel, `channels` apart) at (x, y) under the edge rule.
SF_INLINE u32 sf_byte(const u8* src, int x, int y, int c, int width, int height, int pitch, int channels, int edge) {
    if (edge == SF_EDGE_CLAMP) {
        x = sf_clamp(x, 0, width - 1);
        y = sf_clamp(y, 0, height - 1);
    } else if ((unsigned)x >= (unsigned)width || (unsigned)y >= (unsigned)height) {
        return 0;
    }
    return sf_ld8(src + sf_at(x, y, pitch, channels) + (u32)c);
}

// Four consecutive grey bytes x ... x + 3 of row y under the edge rule (each clamped or zeroed
// on its own).
SF_INLINE u32 sf_gray4(const u8* src, int x, int y, int width, int height, int pitch, int edge) {
    if (edge == SF_EDGE_ZERO && (unsigned)y >= (unsigned)height) return 0;
    y = sf_clamp(y, 0, height - 1);
    const u8* row = src + (u32)y * (u32)pitch;
    if (x >= 0 && x + 3 < width) {
        const u32 s = (u32)x & 3u;
        const u8* p = row + ((u32)x & ~3u);
        const u32 a = sf_ld32(p);
        if (s == 0) return a;
        // The word holding byte x + 3 lies inside the row's pitch.
        const u32 b = sf_ld32(p + 4);
        return (a >> (8 * s)) | (b << (32 - 8 * s));
    }
    u32 v = 0;
    #pragma unroll
    for (int e = 0; e < 4; e++) {
        int xx = x + e;
        u32 b = 0;
        if (edge == SF_EDGE_CLAMP) {
            b = sf_ld8(row + sf_clamp(xx, 0, width - 1));
        } else if ((unsigned)xx < (unsigned)width) {
            b = sf_ld8(row + xx);
        }
        v |= b << (8 * e);
    }
    return v;
}

// Pixels around (x, y): INSIDE when the whole neighbourhood lies in the image (plain loads at
// fixed offsets from the centre), else through the edge rule.
template <bool INSIDE> struct SfNear {
    const u8* src;
    const u8* c;   // the centre pixel
    int x, y, width, height, pitch, channels, edge;
    SF_METHOD u32 pixel(int dx, int dy) const {
        if (INSIDE) return sf_ld32(c + dy * pitch + 4 * dx);
        return sf_pixel(src, x + dx, y + dy, width, height, pitch, edge);
    }
    SF_METHOD u32 byte(int dx, int dy) const {
        if (INSIDE) return sf_ld8(c + dy * pitch + dx);
        return sf_byte(src, x + dx, y + dy, 0, width, height, pitch, 1, edge);
    }
    // A pixel (RGBA) or a byte (grey).
    SF_METHOD u32 value(int dx, int dy) const { return channels == 4 ? pixel(dx, dy) : byte(dx, dy); }
};

template <bool INSIDE>
SF_INLINE SfNear<INSIDE> sf_near(const u8* src, int x, int y, int width, int height, int pitch, int channels, int edge) {
    return SfNear<INSIDE>{src, src + sf_at(x, y, pitch, channels), x, y, width, height, pitch, channels, edge};
}

// Whether the neighbourhood x - rx0 ... x + rx1, y - ry ... y + ry lies in the image.
SF_INLINE bool sf_inside(int x, int y, int rx0, int rx1, int ry0, int ry1, int width, int height) {
    return x - rx0 >= 0 && x + rx1 < width && y - ry0 >= 0 && y + ry1 < height;
}

// ---------------------------------------------------------------------------------------------
// Two channels as f16x2 lanes: 1024 + byte is a normal half whose order is the byte's, so
// sf_hmin2 / sf_hmax2 take the minimum or maximum of two channels in one instruction.

SF_INLINE u32 sf_even(u32 p) { return (p & 0x00FF00FFu) | 0x64006400u; }         // R, B (or bytes 0, 2)
SF_INLINE u32 sf_odd(u32 p) { return ((p >> 8) & 0x00FF00FFu) | 0x64006400u; }   // G, A (or bytes 1, 3)
SF_INLINE u32 sf_join(u32 e, u32 o) { return (e & 0x00FF00FFu) | ((o & 0x00FF00FFu) << 8); }

struct SfH2 {
    u32 v;
};
SF_INLINE SfH2 sf_min(SfH2 a, SfH2 b) { return SfH2{sf_hmin2(a.v, b.v)}; }
SF_INLINE SfH2 sf_max(SfH2 a, SfH2 b) { return SfH2{sf_hmax2(a.v, b.v)}; }
SF_INLINE u32 sf_min(u32 a, u32 b) { return sf_minu(a, b); }
SF_INLINE u32 sf_max(u32 a, u32 b) { return sf_maxu(a, b); }

#include "median_networks.cuh"

// =============================================================================================
// Gaussian blur, 8-bit
// =============================================================================================
//
// Replicates Sources/SfumatoFilters/Blur/GaussianKernel+Bytes.swift, `_GaussianKernel.apply(input:
// ByteTile, ...)` (`_verticalPass`, `_horizontalPass`, `_midRow`, `_storeHighBytes`; the AVX-512
// twin `_gaussianTileAVX512` in Sources/SfumatoAVX512/GaussianTile.swift takes the same steps).
// `weights` are `_GaussianKernel.fixedWeights` (radius + 1 UInt16: the centre, then distance
// 1 ... radius); the pair weight of distance k is min(65535, 2 * weights[k]).
//
// Per value (a byte; taps `channels` values apart along a row), with 16-bit wrap-around sums:
//   vertical:   word = (byte * w0) >> 8 + Σk ((a + b) * pair[k]) >> 9
//               (the CPU's mulhi(byte << 8, w0) and mulhi(avg(a << 8, b << 8), pair[k]));
//   horizontal: acc = 128 + (m * w0) >> 16 + Σk (((l + r + 1) >> 1) * pair[k]) >> 16, byte = acc >> 8.
// Two routes give those bytes. RGBA images (and weights that keep float sums in range, which every
// sigma of the CPU's byte route does) take the float route ("The float route" below): two float
// operations per tap and value, several outputs a thread. Grey images, and weights outside that
// range, take the integer route ("_fixed"): pair sums (vertical) and rounding averages
// (l | r) - ((l ^ r) >> 1) (horizontal) for two channels at once in the 16-bit lanes of a word, the
// terms added as described at SF_GAUSS_VMODE below. docs/GPU-KERNELS.md (Speed) has the timings.
//
// With `interpolate` (the CPU's `interpolatesRows`, sigma >= 8) only the rows even in image
// coordinates are filtered (`parity` = the image's first row's y & 1, 0 for a photo), and an odd
// row is the cubic midpoint of the four filtered rows y - 3, y - 1, y + 1, y + 3 before the
// high byte is taken. Those rows (anchors) include up to 3 rows outside the image, filtered with
// the edge rule like any other. Anchor j is row 2j - 2 - parity, j = 0 ..< (height + 4 + parity) / 2 + 1.
//
// Two ways to run it:
//   sfumato_gaussian: one launch, no interpolation, radius <= 24 (every sigma below 8);
//   sfumato_gaussian_vertical then sfumato_gaussian_horizontal: any radius <= 64, with or without
//   interpolation, through a 16-bit buffer (`words`) the caller provides.

#define SF_GAUSS_MAX_RADIUS 64
#define SF_GV_TW 32   // groups of 4 bytes a vertical block covers
#define SF_GV_TH 32   // filtered rows a vertical block covers
#define SF_GV_ROWS (2 * SF_GV_TH - 1 + 2 * SF_GAUSS_MAX_RADIUS)

SF_INLINE int sf_gauss_anchor_base(int parity) { return -2 - parity; }
SF_INLINE int sf_gauss_anchor_count(int height, int parity) { return (height + 4 + parity) / 2 + 1; }

// How the passes are computed (the same bytes every way; scripts/cuda-hostcheck/bench.py times them):
// vertical 0: per channel in integers; 1: two channels' pair sums at once in 16-bit lanes, then
// each term ⌊s · pair / 512⌋ as one fma rounded down (below); 2: packed sums, integer terms.
// horizontal 0: per channel in integers; 1: rounding averages of two channels at once.
//
// Mode 3 (vertical) and 2 (horizontal), the defaults, keep each sum as a float T in [2^23, 2^24),
// where floats are exactly the integers, and add every term with one fma rounded down (floor):
// vertical T += ⌊(2^23 + 256 s) · pair / 2^17⌋ = 64 pair + ⌊s · pair / 512⌋ (s the pair sum, put in
// the float's mantissa by one byte permutation of the packed sums), horizontal
// T += ⌊(2^23 + avg) · pair / 2^16⌋ = 128 pair + ⌊avg · pair / 65536⌋; the 64 (128) × Σ pair that
// the terms carry is taken off at the end. T stays in [2^23, 2^24) for weights whose pairs add up
// to less than 2^16 (`fixedWeights` add up to 65535 within rounding): always in the vertical pass
// (2^23 + 65 Σ pair), and in the horizontal one while 129 Σ pair + w0 + 128 < 2^23, which every
// sigma below 40 meets (checked per launch; otherwise mode 1 runs).
#ifndef SF_GAUSS_VMODE
#define SF_GAUSS_VMODE 3
#endif
#ifndef SF_GAUSS_HMODE
#define SF_GAUSS_HMODE 2
#endif

// The weights in shared memory: w[0] the centre; w[k] the pair weight; for the vertical pass's
// fma route P[k] = pair / 512 and K[k] = 16384 (768 - pair), both exact floats.
struct SfGaussWeights {
    u32 w[SF_GAUSS_MAX_RADIUS + 1];
    float P[SF_GAUSS_MAX_RADIUS + 1];   // mode 1: pair / 512; mode 3: pair / 2^17
    float K[SF_GAUSS_MAX_RADIUS + 1];   // mode 1: 16384 (768 - pair)
    float Q[SF_GAUSS_MAX_RADIUS + 1];   // horizontal mode 2: pair / 2^16
    u32 vbias, hbias;                   // 64 Σ pair and 128 Σ pair (wrapping)
    int hfloat;                         // whether horizontal mode 2 stays in range
    // The float route (sf_gauss_*_float): Q[k] is also its tap weight; c0 = w0 / 2^15 and the
    // centre terms' addends cv = 2^23 - 128 w0 (vertical), ch = 2^23 + 128 - 128 w0 (horizontal);
    // fbias = the bits of 2^23 + 128 Σ pair, taken off every sum's bits at the end.
    float c0, cv, ch;
    u32 fbias;
};

// Loads the weights (every thread of the block takes part; read them after the next barrier).
SF_INLINE void sf_gauss_weights(const u16* weights, int radius, SfGaussWeights& gw, int t, int threads) {
    for (int k = t; k <= radius; k += threads) {
        const u32 f = sf_ld16(weights + k);
        const u32 pair = k == 0 ? f : sf_minu(65535u, 2u * f);
        gw.w[k] = pair;
#if SF_GAUSS_VMODE == 3
        gw.P[k] = (float)pair * (1.0f / 131072.0f);
#else
        gw.P[k] = (float)pair * (1.0f / 512.0f);
#endif
        gw.K[k] = (float)(16384 * (768 - (int)pair));
        gw.Q[k] = (float)pair * (1.0f / 65536.0f);
    }
    if (t == 0) {
        u32 sum = 0;
        for (int k = 1; k <= radius; k++) sum += sf_minu(65535u, 2u * (u32)sf_ld16(weights + k));
        gw.vbias = 64u * sum;
        gw.hbias = 128u * sum;
        // Mode 2's T reaches at most 2^23 + 128 Σ pair + (128 + w0 + Σ pair): below 2^24?
        gw.hfloat = 129u * sum + (u32)sf_ld16(weights) + 128u < 8388608u;
        const u32 w0 = sf_ld16(weights);
        gw.c0 = (float)w0 * (1.0f / 32768.0f);
        gw.cv = (float)(8388608 - 128 * (int)w0);
        gw.ch = (float)(8388608 + 128 - 128 * (int)w0);
        gw.fbias = 0x4B000000u + 128u * sum;
    }
}

SF_INLINE float sf_int_float(u32 v) { return sf_bits_float(0x4B000000u + v); }   // 2^23 + v, v < 2^23
SF_INLINE u32 sf_float_int(float f) { return sf_float_bits(f) - 0x4B000000u; }

// The centre term of the vertical pass for the four bytes of `p` (mode 3: as the bits of 2^23 + it).
SF_INLINE void sf_gauss_vcentre(u32 p, u32 w0, u32 (&a)[4]) {
    a[0] = ((p & 255u) * w0) >> 8;
    a[1] = (((p >> 8) & 255u) * w0) >> 8;
    a[2] = (((p >> 16) & 255u) * w0) >> 8;
    a[3] = ((p >> 24) * w0) >> 8;
#if SF_GAUSS_VMODE == 3
    for (int c = 0; c < 4; c++) a[c] += 0x4B000000u;
#endif
}

// ⌊s · pair / 512⌋ + 0x4B400000 for the sum s in the low 16 bits of `lane` (as the float 2^23 + s):
// fma((2^23 + s), pair / 512, 1.5 · 2^23 − 2^23 · pair / 512) is 1.5 · 2^23 + s · pair / 512 exactly,
// in [2^23, 2^24) where floats are the integers, so rounding it down is the floor, in its bits.
SF_INLINE u32 sf_gauss_vterm(u32 lane16, float P, float K) {
    return sf_float_bits(sf_fma_down(sf_bits_float(lane16 | 0x4B000000u), P, K));
}

// One symmetric pair of the vertical pass for four bytes: rows a and b, pair k.
SF_INLINE void sf_gauss_vpair(u32 a, u32 b, int k, const SfGaussWeights& gw, u32 (&acc)[4]) {
#if SF_GAUSS_VMODE == 0
    const u32 pk = gw.w[k];
    acc[0] += (((a & 255u) + (b & 255u)) * pk) >> 9;
    acc[1] += ((((a >> 8) & 255u) + ((b >> 8) & 255u)) * pk) >> 9;
    acc[2] += ((((a >> 16) & 255u) + ((b >> 16) & 255u)) * pk) >> 9;
    acc[3] += (((a >> 24) + (b >> 24)) * pk) >> 9;
#else
    const u32 e = sf_prmt(a, 0, 0x4240) + sf_prmt(b, 0, 0x4240);   // a0 + b0 | (a2 + b2) << 16
    const u32 o = sf_prmt(a, 0, 0x4341) + sf_prmt(b, 0, 0x4341);   // a1 + b1 | (a3 + b3) << 16
#if SF_GAUSS_VMODE == 3
    // 2^23 + 256 s: each sum's two bytes into the mantissa's bits 8...23.
    const float P = gw.P[k];
    acc[0] = sf_float_bits(sf_fma_down(sf_bits_float(sf_prmt(e, 0x4B000000u, 0x7104)), P, sf_bits_float(acc[0])));
    acc[2] = sf_float_bits(sf_fma_down(sf_bits_float(sf_prmt(e, 0x4B000000u, 0x7324)), P, sf_bits_float(acc[2])));
    acc[1] = sf_float_bits(sf_fma_down(sf_bits_float(sf_prmt(o, 0x4B000000u, 0x7104)), P, sf_bits_float(acc[1])));
    acc[3] = sf_float_bits(sf_fma_down(sf_bits_float(sf_prmt(o, 0x4B000000u, 0x7324)), P, sf_bits_float(acc[3])));
#elif SF_GAUSS_VMODE == 1
    const float P = gw.P[k], K = gw.K[k];
    acc[0] += sf_gauss_vterm(e & 0xFFFFu, P, K);
    acc[2] += sf_gauss_vterm(e >> 16, P, K);
    acc[1] += sf_gauss_vterm(o & 0xFFFFu, P, K);
    acc[3] += sf_gauss_vterm(o >> 16, P, K);
#else
    const u32 pk = gw.w[k];
    acc[0] += ((e & 0xFFFFu) * pk) >> 9;
    acc[2] += ((e >> 16) * pk) >> 9;
    acc[1] += ((o & 0xFFFFu) * pk) >> 9;
    acc[3] += ((o >> 16) * pk) >> 9;
#endif
#endif
}

// After `radius` pairs: the fma routes' sums back to integers.
SF_INLINE void sf_gauss_vfinish(int radius, const SfGaussWeights& gw, u32 (&acc)[4]) {
#if SF_GAUSS_VMODE == 1
    const u32 bias = (u32)radius * 0x4B400000u;
    for (int c = 0; c < 4; c++) acc[c] -= bias;
#elif SF_GAUSS_VMODE == 3
    const u32 bias = 0x4B000000u + gw.vbias;
    for (int c = 0; c < 4; c++) acc[c] -= bias;
#endif
}

// Four 16-bit sums as two words of 16-bit lanes (the CPU's wrap-around).
SF_INLINE sf_u32x2 sf_gauss_words(const u32 (&a)[4]) {
    sf_u32x2 o;
    o.x = (a[0] & 0xFFFFu) | (a[1] << 16);
    o.y = (a[2] & 0xFFFFu) | (a[3] << 16);
    return o;
}

// Lane-wise (l + r + 1) >> 1 of two words of 16-bit lanes (pavgw).
SF_INLINE u32 sf_avg_up2(u32 l, u32 r) { return (l | r) - (((l ^ r) >> 1) & 0x7FFF7FFFu); }

// The integer route of sfumato_gaussian_vertical (below). Each block stages its input rows (32 groups
// of 4 bytes wide) in shared memory; each thread computes one group of 4 values for 4 rows.
SF_INLINE void sf_gauss_vertical_fixed(
    u32* tile, const SfGaussWeights& gw, const u8* src, u16* words, int width, int height, int pitch, int channels,
    int edge, int radius, int interpolate, int parity)
{
    const int tx = sf_tid_x(), ty = sf_tid_y();
    const int groups = (width * channels + 3) >> 2;
    const int g = sf_ctaid_x() * SF_GV_TW + tx;
    const int step = interpolate ? 2 : 1;
    const int base = interpolate ? sf_gauss_anchor_base(parity) : 0;
    const int rows = interpolate ? sf_gauss_anchor_count(height, parity) : height;
    const int j0 = sf_ctaid_y() * SF_GV_TH;
    const int first = base + step * j0 - radius;
    const int span = step * (SF_GV_TH - 1) + 2 * radius + 1;
    for (int r = ty; r < span; r += 8) {
        int y = first + r;
        u32 v = 0;
        if (g < groups) {
            if (edge == SF_EDGE_CLAMP) y = sf_clamp(y, 0, height - 1);
            if ((unsigned)y < (unsigned)height) v = sf_ld32(src + (u32)y * (u32)pitch + 4u * (u32)g);
        }
        tile[r * SF_GV_TW + tx] = v;
    }
    sf_sync();
    if (g >= groups) return;
    const u32 w0 = gw.w[0];
    #pragma unroll 1
    for (int i = 0; i < SF_GV_TH / 8; i++) {
        const int jl = ty + 8 * i, j = j0 + jl;
        if (j >= rows) break;
        const u32* c = tile + (step * jl + radius) * SF_GV_TW + tx;
        u32 acc[4];
        sf_gauss_vcentre(c[0], w0, acc);
        #pragma unroll 2
        for (int k = 1; k <= radius; k++) sf_gauss_vpair(c[-k * SF_GV_TW], c[k * SF_GV_TW], k, gw, acc);
        sf_gauss_vfinish(radius, gw, acc);
        *(sf_u32x2*)(words + (u32)j * (u32)pitch + 4u * (u32)g) = sf_gauss_words(acc);
    }
}

#define SF_GH_VALUES 512   // values (bytes) of a row a warp covers: 32 lanes x 4 groups of 4
#define SF_GH_STAGE (SF_GH_VALUES + 8 * SF_GAUSS_MAX_RADIUS)
#ifndef SF_GH_ROWS
#define SF_GH_ROWS 40                     // output rows a horizontal block covers (a multiple of 8)
#endif
#define SF_GH_ANCHORS (SF_GH_ROWS / 2 + 4)   // anchors those rows can need (at most SF_GH_ROWS / 2 + 3)

// Stages values v0 - halo ... v0 + SF_GH_VALUES + halo - 1 of one word row into `st` (one warp).
SF_INLINE void sf_gauss_stage(
    u16* st, const u16* row, int v0, int halo, int width, int channels, int edge, int lane)
{
    if (channels == 4) {
        const int p0 = (v0 - halo) >> 2, count = (SF_GH_VALUES + 2 * halo) >> 2;
        for (int i = lane; i < count; i += 32) {
            int px = p0 + i;
            sf_u32x2 v = {0u, 0u};
            if (edge == SF_EDGE_CLAMP) px = sf_clamp(px, 0, width - 1);
            if ((unsigned)px < (unsigned)width) v = *(const sf_u32x2*)(row + 4u * (u32)px);
            *(sf_u32x2*)(st + 4 * i) = v;
        }
    } else {
        const int first = v0 - halo, count = SF_GH_VALUES + 2 * halo;
        for (int i = lane; i < count; i += 32) {
            int x = first + i;
            u16 v = 0;
            if (edge == SF_EDGE_CLAMP) x = sf_clamp(x, 0, width - 1);
            if ((unsigned)x < (unsigned)width) v = row[x];
            st[i] = v;
        }
    }
}

// The horizontal pass at values si ... si + 3 of a word row in shared memory: four 16-bit sums
// (rounding 128 included). Taps `channels` values apart.
SF_INLINE void sf_gauss_h4(const u16* st, int si, int channels, int radius, const SfGaussWeights& gw, u32 (&acc)[4]) {
    const u32* w = gw.w;
    const u32 w0 = w[0];
    if (channels == 4) {
        const sf_u32x2 c = *(const sf_u32x2*)(st + si);
        acc[0] = 128u + (((c.x & 0xFFFFu) * w0) >> 16);
        acc[1] = 128u + (((c.x >> 16) * w0) >> 16);
        acc[2] = 128u + (((c.y & 0xFFFFu) * w0) >> 16);
        acc[3] = 128u + (((c.y >> 16) * w0) >> 16);
#if SF_GAUSS_HMODE == 2
        if (gw.hfloat) {
            float T[4];
            for (int e = 0; e < 4; e++) T[e] = sf_int_float(acc[e]);
            #pragma unroll 2
            for (int k = 1; k <= radius; k++) {
                const sf_u32x2 l = *(const sf_u32x2*)(st + si - 4 * k), r = *(const sf_u32x2*)(st + si + 4 * k);
                const float Q = gw.Q[k];
                const u32 s0 = sf_avg_up2(l.x, r.x), s1 = sf_avg_up2(l.y, r.y);
                // 2^23 + avg: each average's two bytes into the mantissa's low bits.
                T[0] = sf_fma_down(sf_bits_float(sf_prmt(s0, 0x4B000000u, 0x7610)), Q, T[0]);
                T[1] = sf_fma_down(sf_bits_float(sf_prmt(s0, 0x4B000000u, 0x7632)), Q, T[1]);
                T[2] = sf_fma_down(sf_bits_float(sf_prmt(s1, 0x4B000000u, 0x7610)), Q, T[2]);
                T[3] = sf_fma_down(sf_bits_float(sf_prmt(s1, 0x4B000000u, 0x7632)), Q, T[3]);
            }
            for (int e = 0; e < 4; e++) acc[e] = sf_float_int(T[e]) - gw.hbias;
            return;
        }
#endif
        #pragma unroll 2
        for (int k = 1; k <= radius; k++) {
            const sf_u32x2 l = *(const sf_u32x2*)(st + si - 4 * k), r = *(const sf_u32x2*)(st + si + 4 * k);
            const u32 pk = w[k];
#if SF_GAUSS_HMODE >= 1
            const u32 s0 = sf_avg_up2(l.x, r.x), s1 = sf_avg_up2(l.y, r.y);
            acc[0] += ((s0 & 0xFFFFu) * pk) >> 16;
            acc[1] += ((s0 >> 16) * pk) >> 16;
            acc[2] += ((s1 & 0xFFFFu) * pk) >> 16;
            acc[3] += ((s1 >> 16) * pk) >> 16;
#else
            acc[0] += ((((l.x & 0xFFFFu) + (r.x & 0xFFFFu) + 1u) >> 1) * pk) >> 16;
            acc[1] += ((((l.x >> 16) + (r.x >> 16) + 1u) >> 1) * pk) >> 16;
            acc[2] += ((((l.y & 0xFFFFu) + (r.y & 0xFFFFu) + 1u) >> 1) * pk) >> 16;
            acc[3] += ((((l.y >> 16) + (r.y >> 16) + 1u) >> 1) * pk) >> 16;
#endif
        }
    } else {
        #pragma unroll
        for (int e = 0; e < 4; e++) acc[e] = 128u + (((u32)st[si + e] * w0) >> 16);
#if SF_GAUSS_HMODE == 2
        if (gw.hfloat) {
            float T[4];
            for (int e = 0; e < 4; e++) T[e] = sf_int_float(acc[e]);
            for (int k = 1; k <= radius; k++) {
                const float Q = gw.Q[k];
                #pragma unroll
                for (int e = 0; e < 4; e++) {
                    const u32 avg = ((u32)st[si + e - k] + (u32)st[si + e + k] + 1u) >> 1;
                    T[e] = sf_fma_down(sf_int_float(avg), Q, T[e]);
                }
            }
            for (int e = 0; e < 4; e++) acc[e] = sf_float_int(T[e]) - gw.hbias;
            return;
        }
#endif
        for (int k = 1; k <= radius; k++) {
            const u32 pk = w[k];
            #pragma unroll
            for (int e = 0; e < 4; e++) {
                acc[e] += ((((u32)st[si + e - k] + (u32)st[si + e + k] + 1u) >> 1) * pk) >> 16;
            }
        }
    }
}

SF_INLINE u32 sf_gauss_bytes(const u32 (&acc)[4]) {
    return ((acc[0] >> 8) & 255u) | (((acc[1] >> 8) & 255u) << 8) | (((acc[2] >> 8) & 255u) << 16) | (((acc[3] >> 8) & 255u) << 24);
}

// The CPU's `_midRow`: the cubic (Catmull-Rom) midpoint of b and c, neighbours a and d.
SF_INLINE u32 sf_cubic_mid(u32 a, u32 b, u32 c, u32 d) {
    const int m = (int)((b + c + 1u) >> 1), e = (int)((a + d + 1u) >> 1);
    return (u32)sf_clamp(m + (((m >> 1) - (e >> 1)) >> 2), 0, 65535);
}

// The integer route of sfumato_gaussian_horizontal (below). Each warp stages a word row (512 values
// and the radius either side, edge rule on columns) in shared memory and computes 4 groups of 4
// values per lane; with `interpolate` the block first filters the anchors its SF_GH_ROWS rows need,
// then writes each row: an anchor's high bytes, or the midpoint of four anchors.
SF_INLINE void sf_gauss_horizontal_fixed(
    u16* stage, u16* hrows, const SfGaussWeights& gw, const u16* words, u8* dst, int width, int height, int pitch,
    int channels, int edge, int radius, int interpolate, int parity)
{
    const int lane = sf_tid_x(), warp = sf_tid_y();
    const int n = width * channels;
    const int v0 = sf_ctaid_x() * SF_GH_VALUES;
    const int halo = channels * radius;
    const int y0 = sf_ctaid_y() * SF_GH_ROWS;
    u16* st = stage + warp * SF_GH_STAGE;
    if (!interpolate) {
        #pragma unroll 1
        for (int i = 0; i < SF_GH_ROWS / 8; i++) {
            const int y = y0 + warp + 8 * i;
            if (y < height) sf_gauss_stage(st, words + (u32)y * (u32)pitch, v0, halo, width, channels, edge, lane);
            sf_sync();
            if (y < height) {
                for (int m = 0; m < 4; m++) {
                    const int s = 4 * (lane + 32 * m);
                    if (v0 + s >= n) break;
                    u32 acc[4];
                    sf_gauss_h4(st, s + halo, channels, radius, gw, acc);
                    *(u32*)(dst + (u32)y * (u32)pitch + (u32)(v0 + s)) = sf_gauss_bytes(acc);
                }
            }
            sf_sync();
        }
        return;
    }
    const int base = sf_gauss_anchor_base(parity), anchors = sf_gauss_anchor_count(height, parity);
    const int y1 = sf_mini(y0 + SF_GH_ROWS - 1, height - 1);
    const int jmin = sf_maxi(0, (y0 - 3 - base + 1) >> 1);
    const int jmax = sf_mini(anchors - 1, (y1 + 3 - base) >> 1);
    const int count = jmax - jmin + 1;
    #pragma unroll 1
    for (int i = 0; i < (SF_GH_ANCHORS + 7) / 8; i++) {
        const int jl = warp + 8 * i;
        const bool live = jl < count;
        if (live) sf_gauss_stage(st, words + (u32)(jmin + jl) * (u32)pitch, v0, halo, width, channels, edge, lane);
        sf_sync();
        if (live) {
            for (int m = 0; m < 4; m++) {
                const int s = 4 * (lane + 32 * m);
                u32 acc[4];
                sf_gauss_h4(st, s + halo, channels, radius, gw, acc);
                *(sf_u32x2*)(hrows + jl * SF_GH_VALUES + s) = sf_gauss_words(acc);
            }
        }
        sf_sync();
    }
    #pragma unroll 1
    for (int i = 0; i < SF_GH_ROWS / 8; i++) {
        const int y = y0 + warp + 8 * i;
        if (y >= height) break;
        const bool anchor = ((y + parity) & 1) == 0;
        const int jl = anchor ? ((y - base) >> 1) - jmin : ((y - 3 - base) >> 1) - jmin;
        for (int m = 0; m < 4; m++) {
            const int s = 4 * (lane + 32 * m);
            if (v0 + s >= n) break;
            u32 v[4];
            const sf_u32x2 b = *(const sf_u32x2*)(hrows + jl * SF_GH_VALUES + s);
            v[0] = b.x & 0xFFFFu; v[1] = b.x >> 16; v[2] = b.y & 0xFFFFu; v[3] = b.y >> 16;
            if (!anchor) {
                const sf_u32x2 c = *(const sf_u32x2*)(hrows + (jl + 1) * SF_GH_VALUES + s);
                const sf_u32x2 d = *(const sf_u32x2*)(hrows + (jl + 2) * SF_GH_VALUES + s);
                const sf_u32x2 e = *(const sf_u32x2*)(hrows + (jl + 3) * SF_GH_VALUES + s);
                // Rows y - 3 (b), y - 1 (c), y + 1 (d), y + 3 (e).
                v[0] = sf_cubic_mid(v[0], c.x & 0xFFFFu, d.x & 0xFFFFu, e.x & 0xFFFFu);
                v[1] = sf_cubic_mid(v[1], c.x >> 16, d.x >> 16, e.x >> 16);
                v[2] = sf_cubic_mid(v[2], c.y & 0xFFFFu, d.y & 0xFFFFu, e.y & 0xFFFFu);
                v[3] = sf_cubic_mid(v[3], c.y >> 16, d.y >> 16, e.y >> 16);
            }
            const u32 o = (v[0] >> 8) | ((v[1] >> 8) << 8) | ((v[2] >> 8) << 16) | ((v[3] >> 8) << 24);
            *(u32*)(dst + (u32)y * (u32)pitch + (u32)(v0 + s)) = o;
        }
    }
}

#define SF_GF_ROWS 16          // output rows a fused block covers
#define SF_GF_MAX_RADIUS 24    // every sigma below 8 (radius ceil(3 sigma))
#define SF_GF_STAGED_RADIUS 12 // up to this radius the input rows are staged in shared memory too
#define SF_GF_STRIDE (SF_GH_VALUES + 8 * SF_GF_MAX_RADIUS)
#define SF_GF_SMALL_STRIDE (SF_GH_VALUES + 8 * SF_GF_STAGED_RADIUS)
#define SF_GF_TILE_ROWS (SF_GF_ROWS + 2 * SF_GF_STAGED_RADIUS)
#define SF_GF_TILE_GROUPS (SF_GF_SMALL_STRIDE / 4)
// Shared memory of one block, in words: the staged input rows and the 16-bit tile of the small
// route, or the larger 16-bit tile of the other.
#define SF_GF_WORDS_SMALL (SF_GF_TILE_ROWS * SF_GF_TILE_GROUPS + SF_GF_ROWS * SF_GF_SMALL_STRIDE / 2)
#define SF_GF_WORDS_LARGE (SF_GF_ROWS * SF_GF_STRIDE / 2)
#define SF_GF_WORDS (SF_GF_WORDS_SMALL > SF_GF_WORDS_LARGE ? SF_GF_WORDS_SMALL : SF_GF_WORDS_LARGE)

// The vertical pass of group `gi` (4 bytes) at row y, reading the input directly (L1); `inside`
// when every row y - radius ... y + radius lies in the image.
SF_INLINE sf_u32x2 sf_gauss_vgroup(
    const u8* src, int gi, int y, int height, int pitch, int edge, int radius, bool inside, const SfGaussWeights& gw)
{
    const u8* col = src + 4u * (u32)gi;
    const u8* c = col + (u32)y * (u32)pitch;
    u32 acc[4];
    sf_gauss_vcentre(sf_ld32(c), gw.w[0], acc);
    if (inside) {
        const u8* pa = c;
        const u8* pb = c;
        #pragma unroll 2
        for (int k = 1; k <= radius; k++) {
            pa -= pitch;
            pb += pitch;
            sf_gauss_vpair(sf_ld32(pa), sf_ld32(pb), k, gw, acc);
        }
    } else {
        for (int k = 1; k <= radius; k++) {
            int ya = y - k, yb = y + k;
            u32 a = 0, b = 0;
            if (edge == SF_EDGE_CLAMP) { ya = sf_maxi(ya, 0); yb = sf_mini(yb, height - 1); }
            if (ya >= 0) a = sf_ld32(col + (u32)ya * (u32)pitch);
            if (yb < height) b = sf_ld32(col + (u32)yb * (u32)pitch);
            sf_gauss_vpair(a, b, k, gw, acc);
        }
    }
    sf_gauss_vfinish(radius, gw, acc);
    return sf_gauss_words(acc);
}

// The integer route of sfumato_gaussian (below): the vertical pass of a block's 512 values and the
// radius either side into a 16-bit tile in shared memory (from input rows staged in shared memory
// up to radius 12, through L1 beyond), the edge rule applied to the columns outside the image, then
// the horizontal pass from the tile.
SF_INLINE void sf_gauss_fused_fixed(
    u32* smem, const SfGaussWeights& gw, const u8* src, u8* dst, int width, int height, int pitch, int channels,
    int edge, int radius)
{
    const int lane = sf_tid_x(), warp = sf_tid_y(), t = warp * 32 + lane;
    const int n = width * channels, groups = (n + 3) >> 2;
    const int v0 = sf_ctaid_x() * SF_GH_VALUES, y0 = sf_ctaid_y() * SF_GF_ROWS;
    const int halo = channels == 4 ? 4 * radius : (radius + 3) & ~3;   // values, whole groups
    const int span = SF_GH_VALUES + 2 * halo, gs = (v0 - halo) >> 2, spanGroups = span >> 2;
    const bool staged = radius <= SF_GF_STAGED_RADIUS;
    const int stride = staged ? SF_GF_SMALL_STRIDE : SF_GF_STRIDE;   // of the 16-bit tile, in values
    u32* input = smem;                                                // staged rows (small route)
    u16* vt = (u16*)(staged ? smem + SF_GF_TILE_ROWS * SF_GF_TILE_GROUPS : smem);
    if (staged) {
        // Input rows y0 - radius ... y0 + 15 + radius, groups gs ... gs + spanGroups - 1.
        const int rows = SF_GF_ROWS + 2 * radius;
        for (int r = warp; r < rows; r += 8) {
            int y = y0 - radius + r;
            if (edge == SF_EDGE_CLAMP) y = sf_clamp(y, 0, height - 1);
            const bool live = (unsigned)y < (unsigned)height;
            const u8* row = src + (u32)(live ? y : 0) * (u32)pitch;
            for (int g = lane; g < spanGroups; g += 32) {
                const int gi = gs + g;
                input[r * SF_GF_TILE_GROUPS + g] = live && gi >= 0 && gi < groups ? sf_ld32(row + 4u * (u32)gi) : 0u;
            }
        }
    }
    sf_sync();
    const bool inside = y0 - radius >= 0 && y0 + SF_GF_ROWS - 1 + radius < height;
    #pragma unroll 1
    for (int i = 0; i < SF_GF_ROWS / 8; i++) {
        const int row = warp + 8 * i, y = y0 + row;
        u16* vrow = vt + row * stride;
        for (int g = lane; g < spanGroups; g += 32) {
            const int gi = gs + g;
            sf_u32x2 v = {0u, 0u};
            if (staged) {
                const u32* c = input + (row + radius) * SF_GF_TILE_GROUPS + g;
                u32 acc[4];
                sf_gauss_vcentre(c[0], gw.w[0], acc);
                #pragma unroll 2
                for (int k = 1; k <= radius; k++) sf_gauss_vpair(c[-k * SF_GF_TILE_GROUPS], c[k * SF_GF_TILE_GROUPS], k, gw, acc);
                sf_gauss_vfinish(radius, gw, acc);
                v = sf_gauss_words(acc);
            } else if (gi >= 0 && gi < groups && y < height) {
                v = sf_gauss_vgroup(src, gi, y, height, pitch, edge, radius, inside, gw);
            }
            *(sf_u32x2*)(vrow + 4 * g) = v;
        }
    }
    sf_sync();
    const int first = v0 - halo;   // the value at tile column 0
    if (first < 0 || first + span > n) {
        // Columns outside the image: the edge column's words (clamp) or 0 (zero).
        for (int idx = t; idx < SF_GF_ROWS * span; idx += 256) {
            const int row = idx / span, j = idx - row * span, x = first + j;
            if (x >= 0 && x < n) continue;
            u16 v = 0;
            if (edge == SF_EDGE_CLAMP) {
                const int cx = channels == 4 ? 4 * sf_clamp(x >> 2, 0, width - 1) + (x & 3) : sf_clamp(x, 0, width - 1);
                v = vt[row * stride + (cx - first)];
            }
            vt[row * stride + j] = v;
        }
        sf_sync();
    }
    #pragma unroll 1
    for (int i = 0; i < SF_GF_ROWS / 8; i++) {
        const int row = warp + 8 * i, y = y0 + row;
        if (y >= height) break;
        const u16* vrow = vt + row * stride;
        for (int m = 0; m < 4; m++) {
            const int s = 4 * (lane + 32 * m);
            if (v0 + s >= n) break;
            u32 acc[4];
            sf_gauss_h4(vrow, s + halo, channels, radius, gw, acc);
            *(u32*)(dst + (u32)y * (u32)pitch + (u32)(v0 + s)) = sf_gauss_bytes(acc);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The float route (RGBA, and weights for which gw.hfloat holds: every sigma the CPU's byte route
// takes): the same sums with two float operations per tap and value, no integer work in the taps.
//
// Every sum is a float T in [2^23, 2^24), where floats are the integers and fma.rm adds a floor:
// - vertical: a byte b is the float 2^22 + 128 b (bits 0x4A800000 + (b << 8), one byte permutation);
//   a pair's sum 2^23 + 128 (a + b) is exact, and fma.rm(sum, pair / 2^16, T) adds
//   128 pair + ⌊(a + b) pair / 512⌋;
// - horizontal: a word w is the float 2^22 + w / 2 (bits 0x4A800000 + w); add.rp of two is
//   2^23 + ⌈(l + r) / 2⌉ = 2^23 + ((l + r + 1) >> 1), and fma.rm(that, pair / 2^16, T) adds
//   128 pair + ⌊avg pair / 65536⌋;
// - centres: fma.rm(2^22 + 128 b, w0 / 2^15, 2^23 - 128 w0) = 2^23 + ((b w0) >> 8), and
//   fma.rm(2^22 + w / 2, w0 / 2^15, 2^23 + 128 - 128 w0) = 2^23 + 128 + ((w w0) >> 16).
// The 2^23 + 128 Σ pair the taps carry (gw.fbias) comes off the bits at the end; T stays below
// 2^24 while 129 Σ pair + w0 + 128 < 2^23 (gw.hfloat). Otherwise, and for grey images, the
// kernels run the integer route above (the same bytes).
//
// Each thread keeps the taps of M neighbouring outputs (rows, or pixels of a row) in registers:
// tap m of output i pairs up(i - m) with dn(i + m), so going from one tap to the next shifts both
// windows by one value; M taps at a time (registers renamed, not moved), then the rest.

typedef float sf_f32x4 __attribute__((ext_vector_type(4)));

// Tuning (docs/GPU-KERNELS.md, Speed): whether each kernel's streams load a step ahead (PF), and
// the blocks per SM its registers are held to (LB, 0: no bound). Measured on an H200: occupancy
// matters more than prefetching (these passes wait on loads and barriers more than on issue).
#ifndef SF_GF_PF
#define SF_GF_PF false
#endif
#ifndef SF_GV_PF
#define SF_GV_PF false
#endif
#ifndef SF_GH_PF
#define SF_GH_PF false
#endif
#ifndef SF_GF_LB
#define SF_GF_LB 3
#endif
#ifndef SF_GV_LB
#define SF_GV_LB 3
#endif
#ifndef SF_GH_LB
#define SF_GH_LB 4
#endif
// launch_bounds(256, n) for n > 0 (min blocks per SM), nothing for 0.
#ifdef SFUMATO_HOST_EMULATION
#define SF_GAUSS_LAUNCH_BOUNDS(n)
#else
#define SF_GAUSS_LAUNCH_BOUNDS(n) __attribute__((launch_bounds(256, (n) > 0 ? (n) : 1)))
#endif

// The outputs (and taps per step) a thread keeps in registers; the horizontal pass's layout (32
// segments of 4 pixels, 16-byte stores) assumes 4.
#define SF_GN_M 4

// Four bytes as the floats 2^22 + 128 b.
SF_INLINE sf_f32x4 sf_gauss_fbytes(u32 p) {
    sf_f32x4 v;
    v.x = sf_bits_float(sf_prmt(p, 0x4A800000u, 0x7604));
    v.y = sf_bits_float(sf_prmt(p, 0x4A800000u, 0x7614));
    v.z = sf_bits_float(sf_prmt(p, 0x4A800000u, 0x7624));
    v.w = sf_bits_float(sf_prmt(p, 0x4A800000u, 0x7634));
    return v;
}

// Four words (two 32-bit lanes) as the floats 2^22 + w / 2.
SF_INLINE sf_f32x4 sf_gauss_fwords(sf_u32x2 p) {
    sf_f32x4 v;
    v.x = sf_bits_float(sf_prmt(p.x, 0x4A800000u, 0x7610));
    v.y = sf_bits_float(sf_prmt(p.x, 0x4A800000u, 0x7632));
    v.z = sf_bits_float(sf_prmt(p.y, 0x4A800000u, 0x7610));
    v.w = sf_bits_float(sf_prmt(p.y, 0x4A800000u, 0x7632));
    return v;
}

SF_INLINE sf_f32x4 sf_gauss_fzero() {
    const float z = sf_bits_float(0x4A800000u);
    sf_f32x4 v = {z, z, z, z};
    return v;
}

// Taps s < S of one step: outputs i, carried windows cu (up(M - 1 - j)), cd (dn(j)) and the
// step's new values nu (up(-1 - j)), nd (dn(M + j)), relative to the step's first tap.
template <int M, int S, bool UP>
SF_INLINE void sf_gwin_step(
    const sf_f32x4 (&cu)[M], const sf_f32x4 (&nu)[M], const sf_f32x4 (&cd)[M], const sf_f32x4 (&nd)[M],
    const float* Q, int qs, float (&T)[M][4])
{
    #pragma unroll
    for (int s = 0; s < S; s++) {
        const float q = Q[s * qs];
        #pragma unroll
        for (int i = 0; i < M; i++) {
            const int ju = M - 1 - i + s, jd = i + s;
            const sf_f32x4 a = ju < M ? cu[ju] : nu[ju - M];
            const sf_f32x4 b = jd < M ? cd[jd] : nd[jd - M];
            if (UP) {
                T[i][0] = sf_fma_down(sf_fadd_up(a.x, b.x), q, T[i][0]);
                T[i][1] = sf_fma_down(sf_fadd_up(a.y, b.y), q, T[i][1]);
                T[i][2] = sf_fma_down(sf_fadd_up(a.z, b.z), q, T[i][2]);
                T[i][3] = sf_fma_down(sf_fadd_up(a.w, b.w), q, T[i][3]);
            } else {
                T[i][0] = sf_fma_down(sf_fadd(a.x, b.x), q, T[i][0]);
                T[i][1] = sf_fma_down(sf_fadd(a.y, b.y), q, T[i][1]);
                T[i][2] = sf_fma_down(sf_fadd(a.z, b.z), q, T[i][2]);
                T[i][3] = sf_fma_down(sf_fadd(a.w, b.w), q, T[i][3]);
            }
        }
    }
}

// T[i][c] = fma.rm(up(i - m)[c] + dn(i + m)[c], Q[m * qs], T[i][c]) for taps m < n, outputs i < M
// (UP: the sums rounded up). `up` and `dn` are streams: up yields up(M - 1), up(M - 2), ... and dn
// yields dn(0), dn(1), ...; each load is issued a step (M taps) before its values are used.
// The streams read up to up(-n - M) and dn(n + 2M - 1); values past up(-n + 1) and dn(n + M - 2)
// only need to be readable.
template <int M, bool UP, bool PREFETCH, class L>
SF_INLINE void sf_gwin(L up, L dn, const float* Q, int qs, int n, float (&T)[M][4]) {
    typedef typename L::Raw R;
    sf_f32x4 cu[M], cd[M], nu[M], nd[M];
    R pu[M], pd[M];
    #pragma unroll
    for (int j = 0; j < M; j++) {
        cu[j] = L::conv(up.next());
        cd[j] = L::conv(dn.next());
    }
    if (PREFETCH) {
        #pragma unroll
        for (int j = 0; j < M; j++) {
            pu[j] = up.next();
            pd[j] = dn.next();
        }
    }
    int mb = 0;
    #pragma unroll 1
    for (; mb + M <= n; mb += M) {
        #pragma unroll
        for (int j = 0; j < M; j++) {
            nu[j] = L::conv(PREFETCH ? pu[j] : up.next());
            nd[j] = L::conv(PREFETCH ? pd[j] : dn.next());
        }
        if (PREFETCH) {
            #pragma unroll
            for (int j = 0; j < M; j++) {
                pu[j] = up.next();
                pd[j] = dn.next();
            }
        }
        sf_gwin_step<M, M, UP>(cu, nu, cd, nd, Q + mb * qs, qs, T);
        #pragma unroll
        for (int j = 0; j < M; j++) {
            cu[j] = nu[j];
            cd[j] = nd[j];
        }
    }
    const int rest = n - mb;
    if (rest == 0) return;
    #pragma unroll
    for (int j = 0; j < M; j++) {
        nu[j] = L::conv(PREFETCH ? pu[j] : up.next());
        nd[j] = L::conv(PREFETCH ? pd[j] : dn.next());
    }
    if (rest == 1) sf_gwin_step<M, 1, UP>(cu, nu, cd, nd, Q + mb * qs, qs, T);
    if constexpr (M > 2) { if (rest == 2) sf_gwin_step<M, 2, UP>(cu, nu, cd, nd, Q + mb * qs, qs, T); }
    if constexpr (M > 3) { if (rest == 3) sf_gwin_step<M, 3, UP>(cu, nu, cd, nd, Q + mb * qs, qs, T); }
    if constexpr (M > 4) { if (rest == 4) sf_gwin_step<M, 4, UP>(cu, nu, cd, nd, Q + mb * qs, qs, T); }
    if constexpr (M > 5) { if (rest == 5) sf_gwin_step<M, 5, UP>(cu, nu, cd, nd, Q + mb * qs, qs, T); }
}

// A stream of staged input words (rows of SF_GV_TW), `delta` words apart, as floats.
struct SfGStaged {
    typedef u32 Raw;
    const u32* p;
    int delta;
    SF_METHOD u32 next() { const u32 v = *p; p += delta; return v; }
    SF_METHOD static sf_f32x4 conv(u32 v) { return sf_gauss_fbytes(v); }
};

// A stream of rows of one input pixel column, `dy` rows apart from row y: all inside the image,
// or (SfGColumnEdge) under the edge rule.
struct SfGColumn {
    typedef u32 Raw;
    const u8* p;
    long long delta;   // dy * pitch
    SF_METHOD u32 next() { const u32 v = sf_ld32(p); p += delta; return v; }
    SF_METHOD static sf_f32x4 conv(u32 v) { return sf_gauss_fbytes(v); }
};
struct SfGColumnEdge {
    typedef u32 Raw;
    const u8* col;
    int y, dy, height, edge;
    u32 pitch;
    SF_METHOD u32 next() {
        int yy = y;
        y += dy;
        if (edge == SF_EDGE_CLAMP) yy = sf_clamp(yy, 0, height - 1);
        else if ((unsigned)yy >= (unsigned)height) return 0u;
        return sf_ld32(col + (u32)yy * pitch);
    }
    SF_METHOD static sf_f32x4 conv(u32 v) { return sf_gauss_fbytes(v); }
};

// A stream of pixels of a row of words in shared memory (4 words a pixel), `delta` words apart.
struct SfGTileRow {
    typedef sf_u32x2 Raw;
    const u16* p;
    int delta;
    SF_METHOD sf_u32x2 next() { const sf_u32x2 v = *(const sf_u32x2*)p; p += delta; return v; }
    SF_METHOD static sf_f32x4 conv(sf_u32x2 v) { return sf_gauss_fwords(v); }
};

// The centre terms.
SF_INLINE void sf_gauss_fcentre(sf_f32x4 v, float c0, float add, float (&T)[4]) {
    T[0] = sf_fma_down(v.x, c0, add);
    T[1] = sf_fma_down(v.y, c0, add);
    T[2] = sf_fma_down(v.z, c0, add);
    T[3] = sf_fma_down(v.w, c0, add);
}

// Four sums as four 16-bit words (two lanes each) and as the four high bytes of their low 16 bits.
SF_INLINE sf_u32x2 sf_gauss_fpack_words(const float (&T)[4], u32 bias) {
    const u32 a = sf_float_bits(T[0]) - bias, b = sf_float_bits(T[1]) - bias;
    const u32 c = sf_float_bits(T[2]) - bias, d = sf_float_bits(T[3]) - bias;
    sf_u32x2 o;
    o.x = sf_prmt(a, b, 0x5410);
    o.y = sf_prmt(c, d, 0x5410);
    return o;
}
SF_INLINE u32 sf_gauss_fpack_bytes(const float (&T)[4], u32 bias) {
    const u32 a = sf_float_bits(T[0]) - bias, b = sf_float_bits(T[1]) - bias;
    const u32 c = sf_float_bits(T[2]) - bias, d = sf_float_bits(T[3]) - bias;
    return sf_prmt(sf_prmt(a, b, 0x0051), sf_prmt(c, d, 0x0051), 0x5410);
}

// The vertical pass of M rows (centre rows y0 + STEP i) of one RGBA column from staged rows;
// `c` points at the first output's centre row.
template <int STEP, bool PF>
SF_INLINE void sf_gauss_vcolumn_staged(const u32* c, const SfGaussWeights& gw, int radius, float (&T)[SF_GN_M][4]) {
    #pragma unroll
    for (int i = 0; i < SF_GN_M; i++) sf_gauss_fcentre(sf_gauss_fbytes(c[i * STEP * SF_GV_TW]), gw.c0, gw.cv, T[i]);
    const int st = STEP * SF_GV_TW, top = (SF_GN_M - 1) * st;
    if (STEP == 1) {
        sf_gwin<SF_GN_M, false, PF>(SfGStaged{c - SF_GV_TW + top, -st}, SfGStaged{c + SF_GV_TW, st}, gw.Q + 1, 1, radius, T);
    } else {
        // Even distances 2m + 2 pair rows of the centres' parity, odd ones 2m + 1 the others.
        sf_gwin<SF_GN_M, false, PF>(SfGStaged{c - 2 * SF_GV_TW + top, -st}, SfGStaged{c + 2 * SF_GV_TW, st}, gw.Q + 2, 2, radius >> 1, T);
        sf_gwin<SF_GN_M, false, PF>(SfGStaged{c - SF_GV_TW + top, -st}, SfGStaged{c + SF_GV_TW, st}, gw.Q + 1, 2, (radius + 1) >> 1, T);
    }
}

#define SF_GV_MARGIN (2 * SF_GN_M + 2)   // staged rows beyond the radius the streams read
#define SF_GV_FROWS (2 * SF_GV_TH - 1 + 2 * (SF_GAUSS_MAX_RADIUS + SF_GV_MARGIN))
#define SF_GV_SMEM (SF_GV_FROWS > SF_GV_ROWS ? SF_GV_FROWS : SF_GV_ROWS)

// The vertical pass of SF_GN_M rows of one RGBA column read from the input (L1), centre rows
// yc + STEP i; INSIDE when every row the streams read lies in the image.
template <bool INSIDE, int STEP, bool PF>
SF_INLINE void sf_gauss_vcolumn(const u8* col, int yc, int height, int edge, u32 pitch, const SfGaussWeights& gw,
                                int radius, float (&T)[SF_GN_M][4]) {
    #pragma unroll
    for (int i = 0; i < SF_GN_M; i++) {
        int y = yc + STEP * i;
        u32 v = 0;
        if (INSIDE) v = sf_ld32(col + (u32)y * pitch);
        else {
            if (edge == SF_EDGE_CLAMP) y = sf_clamp(y, 0, height - 1);
            if ((unsigned)y < (unsigned)height) v = sf_ld32(col + (u32)y * pitch);
        }
        sf_gauss_fcentre(sf_gauss_fbytes(v), gw.c0, gw.cv, T[i]);
    }
    const int top = STEP * (SF_GN_M - 1);
    #pragma unroll
    for (int cls = STEP == 1 ? 1 : 0; cls < 2; cls++) {
        // STEP 2: even distances 2m + 2 pair rows of the centres' parity, odd ones 2m + 1 the others.
        const int off = STEP == 1 ? 1 : 2 - cls;
        const int n = STEP == 1 ? radius : cls == 0 ? radius >> 1 : (radius + 1) >> 1;
        const float* Q = gw.Q + off;
        if (INSIDE) {
            const long long d = (long long)STEP * (long long)pitch;
            sf_gwin<SF_GN_M, false, PF>(SfGColumn{col + (u32)(yc - off + top) * pitch, -d}, SfGColumn{col + (u32)(yc + off) * pitch, d},
                                    Q, STEP, n, T);
        } else {
            sf_gwin<SF_GN_M, false, PF>(SfGColumnEdge{col, yc - off + top, -STEP, height, edge, pitch},
                                    SfGColumnEdge{col, yc + off, STEP, height, edge, pitch}, Q, STEP, n, T);
        }
    }
}

// 1: the float vertical pass reads the input through L1 (no barrier); 0: from rows staged in
// shared memory (measured slower: 0.38 against 0.28 ms at sigma 10).
#ifndef SF_GV_DIRECT
#define SF_GV_DIRECT 1
#endif

SF_INLINE void sf_gauss_vertical_float(
    u32* tile, const SfGaussWeights& gw, const u8* src, u16* words, int width, int height, int pitch, int edge,
    int radius, int interpolate, int parity)
{
    const int tx = sf_tid_x(), ty = sf_tid_y();
#if SF_GV_DIRECT
    {
        const int g = sf_ctaid_x() * SF_GV_TW + tx;
        const int step = interpolate ? 2 : 1;
        const int base = interpolate ? sf_gauss_anchor_base(parity) : 0;
        const int rows = interpolate ? sf_gauss_anchor_count(height, parity) : height;
        const int j = sf_ctaid_y() * SF_GV_TH + SF_GN_M * ty;
        if (g >= width || j >= rows) return;
        const int yc = base + step * j, rs = radius + 2 * SF_GN_M + 2;
        const bool inside = yc - rs >= 0 && yc + step * (SF_GN_M - 1) + rs < height;
        const u8* col = src + 4u * (u32)g;
        float T[SF_GN_M][4];
        if (interpolate) {
            if (inside) sf_gauss_vcolumn<true, 2, SF_GV_PF>(col, yc, height, edge, (u32)pitch, gw, radius, T);
            else sf_gauss_vcolumn<false, 2, SF_GV_PF>(col, yc, height, edge, (u32)pitch, gw, radius, T);
        } else {
            if (inside) sf_gauss_vcolumn<true, 1, SF_GV_PF>(col, yc, height, edge, (u32)pitch, gw, radius, T);
            else sf_gauss_vcolumn<false, 1, SF_GV_PF>(col, yc, height, edge, (u32)pitch, gw, radius, T);
        }
        #pragma unroll
        for (int i = 0; i < SF_GN_M; i++)
            if (j + i < rows) *(sf_u32x2*)(words + (u32)(j + i) * (u32)pitch + 4u * (u32)g) = sf_gauss_fpack_words(T[i], gw.fbias);
        return;
    }
#endif
    const int g = sf_ctaid_x() * SF_GV_TW + tx;   // the pixel column
    const int step = interpolate ? 2 : 1;
    const int base = interpolate ? sf_gauss_anchor_base(parity) : 0;
    const int rows = interpolate ? sf_gauss_anchor_count(height, parity) : height;
    const int j0 = sf_ctaid_y() * SF_GV_TH;
    const int rs = radius + SF_GV_MARGIN;
    const int first = base + step * j0 - rs;
    const int span = step * (SF_GV_TH - 1) + 2 * rs + 1;
    for (int r = ty; r < span; r += 8) {
        int y = first + r;
        u32 v = 0;
        if (g < width) {
            if (edge == SF_EDGE_CLAMP) y = sf_clamp(y, 0, height - 1);
            if ((unsigned)y < (unsigned)height) v = sf_ld32(src + (u32)y * (u32)pitch + 4u * (u32)g);
        }
        tile[r * SF_GV_TW + tx] = v;
    }
    sf_sync();
    if (g >= width) return;
    const int jl = SF_GN_M * ty;   // this thread's first output
    if (j0 + jl >= rows) return;
    float T[SF_GN_M][4];
    const u32* c = tile + (rs + step * jl) * SF_GV_TW + tx;
    if (interpolate) sf_gauss_vcolumn_staged<2, SF_GV_PF>(c, gw, radius, T);
    else sf_gauss_vcolumn_staged<1, SF_GV_PF>(c, gw, radius, T);
    #pragma unroll
    for (int i = 0; i < SF_GN_M; i++) {
        const int j = j0 + jl + i;
        if (j < rows) *(sf_u32x2*)(words + (u32)j * (u32)pitch + 4u * (u32)g) = sf_gauss_fpack_words(T[i], gw.fbias);
    }
}

// Horizontal: rows of words staged 8 at a time, SF_GN_M pixels a thread.
#define SF_GH_PIXELS (SF_GH_VALUES / 4)                                    // 128 pixels a block
#define SF_GH_MARGIN (SF_GN_M + 1)                                               // pixels beyond the radius the streams read
#define SF_GH_FSTRIDE (SF_GH_PIXELS + 2 * (SF_GAUSS_MAX_RADIUS + SF_GH_MARGIN) + 1)   // odd: pixels of a staged row
#define SF_GH_FROWS 8

// Stages pixels x0 - rs ... x0 + 127 + rs of a word row (edge rule on columns) at `st` (pixels of
// 4 words), by `threads` threads from `i0`.
SF_INLINE void sf_gauss_fstage(u16* st, const u16* row, int x0, int rs, int width, int edge, int i0, int threads) {
    const int count = SF_GH_PIXELS + 2 * rs;
    for (int i = i0; i < count; i += threads) {
        int px = x0 - rs + i;
        sf_u32x2 v = {0u, 0u};
        if (edge == SF_EDGE_CLAMP) px = sf_clamp(px, 0, width - 1);
        if ((unsigned)px < (unsigned)width) v = *(const sf_u32x2*)(row + 4u * (u32)px);
        *(sf_u32x2*)(st + 4 * i) = v;
    }
}

// The horizontal pass of SF_GN_M pixels from a staged row; `c` points at the first pixel.
template <bool PF>
SF_INLINE void sf_gauss_hpixels(const u16* c, const SfGaussWeights& gw, int radius, float (&T)[SF_GN_M][4]) {
    #pragma unroll
    for (int i = 0; i < SF_GN_M; i++) sf_gauss_fcentre(sf_gauss_fwords(*(const sf_u32x2*)(c + 4 * i)), gw.c0, gw.ch, T[i]);
    sf_gwin<SF_GN_M, true, PF>(SfGTileRow{c + 4 * (SF_GN_M - 2), -4}, SfGTileRow{c + 4, 4}, gw.Q + 1, 1, radius, T);
}

// Stores SF_GN_M RGBA pixels (those inside the row).
SF_INLINE void sf_gauss_fstore(u8* d, int x, int width, const float (&T)[SF_GN_M][4], u32 bias) {
    u32 o[SF_GN_M];
    #pragma unroll
    for (int i = 0; i < SF_GN_M; i++) o[i] = sf_gauss_fpack_bytes(T[i], bias);
    if (x + SF_GN_M <= width) {
        sf_u32x4 v = {o[0], o[1], o[2], o[3]};
        *(sf_u32x4*)d = v;
    } else {
        #pragma unroll
        for (int i = 0; i < SF_GN_M; i++) if (x + i < width) ((u32*)d)[i] = o[i];
    }
}

SF_INLINE void sf_gauss_horizontal_float(
    u16* st, u16* hrows, const SfGaussWeights& gw, const u16* words, u8* dst, int width, int height, int pitch,
    int edge, int radius, int interpolate, int parity)
{
    const int t = sf_tid_y() * 32 + sf_tid_x();
    const int x0 = sf_ctaid_x() * SF_GH_PIXELS, y0 = sf_ctaid_y() * SF_GH_ROWS;
    const int rs = radius + SF_GH_MARGIN;
    // This thread's row of a batch and its 4 pixels; a half-warp's 16 threads read 8 rows at two
    // segments 8 pixels apart (with an odd row stride, 16 different banks).
    const int hr = t & 7, seg = 2 * ((t >> 3) & 1) + ((t >> 4) & 1) + 4 * (t >> 5);
    const int xs = x0 + SF_GN_M * seg;
    const u16* c = st + 4 * (hr * SF_GH_FSTRIDE + rs + SF_GN_M * seg);
    if (!interpolate) {
        #pragma unroll 1
        for (int b = 0; b < SF_GH_ROWS / SF_GH_FROWS; b++) {
            {   // warp w stages row w of the batch
                const int r = sf_tid_y(), y = y0 + SF_GH_FROWS * b + r;
                if (y < height) sf_gauss_fstage(st + 4 * r * SF_GH_FSTRIDE, words + (u32)y * (u32)pitch, x0, rs, width, edge, sf_tid_x(), 32);
            }
            sf_sync();
            const int y = y0 + SF_GH_FROWS * b + hr;
            if (y < height && xs < width) {
                float T[SF_GN_M][4];
                sf_gauss_hpixels<SF_GH_PF>(c, gw, radius, T);
                sf_gauss_fstore(dst + (u32)y * (u32)pitch + 4u * (u32)xs, xs, width, T, gw.fbias);
            }
            sf_sync();
        }
        return;
    }
    const int base = sf_gauss_anchor_base(parity), anchors = sf_gauss_anchor_count(height, parity);
    const int y1 = sf_mini(y0 + SF_GH_ROWS - 1, height - 1);
    const int jmin = sf_maxi(0, (y0 - 3 - base + 1) >> 1);
    const int jmax = sf_mini(anchors - 1, (y1 + 3 - base) >> 1);
    const int count = jmax - jmin + 1;
    #pragma unroll 1
    for (int b = 0; b * SF_GH_FROWS < count; b++) {
        {   // warp w stages anchor row w of the batch
            const int r = sf_tid_y(), jl = SF_GH_FROWS * b + r;
            if (jl < count) sf_gauss_fstage(st + 4 * r * SF_GH_FSTRIDE, words + (u32)(jmin + jl) * (u32)pitch, x0, rs, width, edge, sf_tid_x(), 32);
        }
        sf_sync();
        const int jl = SF_GH_FROWS * b + hr;
        if (jl < count) {
            float T[SF_GN_M][4];
            sf_gauss_hpixels<SF_GH_PF>(c, gw, radius, T);
            u16* h = hrows + jl * SF_GH_VALUES + 4 * SF_GN_M * seg;
            const sf_u32x2 p0 = sf_gauss_fpack_words(T[0], gw.fbias), p1 = sf_gauss_fpack_words(T[1], gw.fbias);
            const sf_u32x2 p2 = sf_gauss_fpack_words(T[2], gw.fbias), p3 = sf_gauss_fpack_words(T[3], gw.fbias);
            sf_u32x4 v0 = {p0.x, p0.y, p1.x, p1.y}, v1 = {p2.x, p2.y, p3.x, p3.y};
            *(sf_u32x4*)h = v0;
            *(sf_u32x4*)(h + 8) = v1;
        }
        sf_sync();
    }
    const int lane = sf_tid_x(), warp = sf_tid_y(), n = 4 * width;
    const int v0 = 4 * x0;
    #pragma unroll 1
    for (int i = 0; i < SF_GH_ROWS / 8; i++) {
        const int y = y0 + warp + 8 * i;
        if (y >= height) break;
        const bool anchor = ((y + parity) & 1) == 0;
        const int jl = anchor ? ((y - base) >> 1) - jmin : ((y - 3 - base) >> 1) - jmin;
        for (int m = 0; m < 4; m++) {
            const int s = 4 * (lane + 32 * m);
            if (v0 + s >= n) break;
            u32 v[4];
            const sf_u32x2 b = *(const sf_u32x2*)(hrows + jl * SF_GH_VALUES + s);
            v[0] = b.x & 0xFFFFu; v[1] = b.x >> 16; v[2] = b.y & 0xFFFFu; v[3] = b.y >> 16;
            if (!anchor) {
                const sf_u32x2 c1 = *(const sf_u32x2*)(hrows + (jl + 1) * SF_GH_VALUES + s);
                const sf_u32x2 d = *(const sf_u32x2*)(hrows + (jl + 2) * SF_GH_VALUES + s);
                const sf_u32x2 e = *(const sf_u32x2*)(hrows + (jl + 3) * SF_GH_VALUES + s);
                v[0] = sf_cubic_mid(v[0], c1.x & 0xFFFFu, d.x & 0xFFFFu, e.x & 0xFFFFu);
                v[1] = sf_cubic_mid(v[1], c1.x >> 16, d.x >> 16, e.x >> 16);
                v[2] = sf_cubic_mid(v[2], c1.y & 0xFFFFu, d.y & 0xFFFFu, e.y & 0xFFFFu);
                v[3] = sf_cubic_mid(v[3], c1.y >> 16, d.y >> 16, e.y >> 16);
            }
            const u32 o = (v[0] >> 8) | ((v[1] >> 8) << 8) | ((v[2] >> 8) << 16) | ((v[3] >> 8) << 24);
            *(u32*)(dst + (u32)y * (u32)pitch + (u32)(v0 + s)) = o;
        }
    }
}

// Fused: a block's 16 rows x 128 pixels; the vertical pass of those rows over the pixels and the
// radius either side into a word tile (4 rows of a column a task, the input read through L1), then
// the horizontal pass from it (4 pixels of a row a task; a half-warp reads 16 rows).
#define SF_GF_FSTRIDE (SF_GH_PIXELS + 2 * (SF_GF_MAX_RADIUS + SF_GH_MARGIN) + 1)   // odd, pixels
#define SF_GF_FWORDS (SF_GF_ROWS * SF_GF_FSTRIDE * 2)                             // u32 words of the tile
#define SF_GF_SMEM (SF_GF_FWORDS > SF_GF_WORDS ? SF_GF_FWORDS : SF_GF_WORDS)

SF_INLINE void sf_gauss_fused_float(
    u32* smem, const SfGaussWeights& gw, const u8* src, u8* dst, int width, int height, int pitch, int edge, int radius)
{
    const int t = sf_tid_y() * 32 + sf_tid_x();
    const int x0 = sf_ctaid_x() * SF_GH_PIXELS, y0 = sf_ctaid_y() * SF_GF_ROWS;
    const int rs = radius + SF_GH_MARGIN;        // tile pixels either side (the streams' reach)
    const int ncols = SF_GH_PIXELS + 2 * radius;  // the columns the taps use
    const int stride = SF_GH_PIXELS + 2 * rs + 1; // odd
    const int vr = radius + SF_GN_M + 1;          // rows the vertical streams read beyond the centres
    u16* tile = (u16*)smem;
    // Tasks t, t + 256, ...: task q * ncols + col computes rows 4q ... 4q + 3 of column col.
    int q = 0, col = t;
    while (col >= ncols) { col -= ncols; q++; }
    while (q < SF_GF_ROWS / SF_GN_M) {
        int px = x0 - radius + col;
        const int yc = y0 + SF_GN_M * q;
        u16* out = tile + 4 * (SF_GN_M * q * stride + rs - radius + col);
        if ((unsigned)px >= (unsigned)width && edge != SF_EDGE_CLAMP) {
            #pragma unroll
            for (int i = 0; i < SF_GN_M; i++) *(sf_u32x2*)(out + 4 * i * stride) = sf_u32x2{0u, 0u};
        } else {
            px = sf_clamp(px, 0, width - 1);
            const u8* col8 = src + 4u * (u32)px;
            float T[SF_GN_M][4];
            if (yc - vr >= 0 && yc + SF_GN_M - 1 + vr < height) sf_gauss_vcolumn<true, 1, SF_GF_PF>(col8, yc, height, edge, (u32)pitch, gw, radius, T);
            else sf_gauss_vcolumn<false, 1, SF_GF_PF>(col8, yc, height, edge, (u32)pitch, gw, radius, T);
            #pragma unroll
            for (int i = 0; i < SF_GN_M; i++) *(sf_u32x2*)(out + 4 * i * stride) = sf_gauss_fpack_words(T[i], gw.fbias);
        }
        col += 256;
        while (col >= ncols) { col -= ncols; q++; }
    }
    sf_sync();
    // 16 rows x 32 segments of 4 pixels; a half-warp reads 16 rows of one segment.
    for (int id = t; id < SF_GF_ROWS * (SF_GH_PIXELS / SF_GN_M); id += 256) {
        const int row = id & (SF_GF_ROWS - 1), seg = id >> 4;
        const int y = y0 + row, xs = x0 + SF_GN_M * seg;
        if (y >= height || xs >= width) continue;
        float T[SF_GN_M][4];
        sf_gauss_hpixels<SF_GF_PF>(tile + 4 * (row * stride + rs + SF_GN_M * seg), gw, radius, T);
        sf_gauss_fstore(dst + (u32)y * (u32)pitch + 4u * (u32)xs, xs, width, T, gw.fbias);
    }
}

// sfumato_gaussian_vertical(const u8* src, u16* words, int width, int height, int pitch, int channels,
//                           int edge, const u16* weights, int radius, int interpolate, int parity)
// Block (32, 8); grid (ceil(ceil(width * channels / 4) / 32), ceil(rows / 32)), rows = height, or the
// anchor count with `interpolate`. `words` holds rows x 2 * pitch bytes (row j of words is the
// filtered row j, or anchor j). radius 1 ... 64. Float route: each thread filters one pixel column
// for 4 consecutive rows (anchors), reading the input through L1; integer route: above.
// Exact (CPU GaussianKernel+Bytes.swift `_verticalPass`).
SF_KERNEL SF_GAUSS_LAUNCH_BOUNDS(SF_GV_LB) sfumato_gaussian_vertical(
    const u8* src, u16* words, int width, int height, int pitch, int channels, int edge,
    const u16* weights, int radius, int interpolate, int parity)
{
    __shared__ u32 tile[SF_GV_SMEM * SF_GV_TW];
    __shared__ SfGaussWeights gw;
    const int t = sf_tid_y() * SF_GV_TW + sf_tid_x();
    sf_gauss_weights(weights, radius, gw, t, SF_GV_TW * 8);
    sf_sync();
    if (channels == 4 && gw.hfloat) {
        sf_gauss_vertical_float(tile, gw, src, words, width, height, pitch, edge, radius, interpolate, parity);
    } else {
        sf_gauss_vertical_fixed(tile, gw, src, words, width, height, pitch, channels, edge, radius, interpolate, parity);
    }
}

// sfumato_gaussian_horizontal(const u16* words, u8* dst, int width, int height, int pitch, int channels,
//                             int edge, const u16* weights, int radius, int interpolate, int parity)
// Block (32, 8); grid (ceil(width * channels / 512), ceil(height / SF_GH_ROWS)), SF_GH_ROWS = 40.
// A block covers 512 values (128 RGBA pixels) of 40 rows; with `interpolate` it first filters the
// anchors those rows need (at most 23) into shared memory, then writes each row: an anchor's high
// bytes, or the midpoint of four anchors. Float route: word rows staged 8 at a time (edge rule on
// columns), each thread filters 4 pixels of one; integer route: above.
// Exact (CPU `_horizontalPass`, `_midRow`, `_storeHighBytes`).
#define SF_GH_SMEM_STAGE (8 * SF_GH_STAGE > 4 * SF_GH_FROWS * SF_GH_FSTRIDE ? 8 * SF_GH_STAGE : 4 * SF_GH_FROWS * SF_GH_FSTRIDE)
SF_KERNEL SF_GAUSS_LAUNCH_BOUNDS(SF_GH_LB) sfumato_gaussian_horizontal(
    const u16* words, u8* dst, int width, int height, int pitch, int channels, int edge,
    const u16* weights, int radius, int interpolate, int parity)
{
    __shared__ __attribute__((aligned(16))) u16 stage[SF_GH_SMEM_STAGE];
    __shared__ __attribute__((aligned(16))) u16 hrows[SF_GH_ANCHORS * SF_GH_VALUES];
    __shared__ SfGaussWeights gw;
    const int t = sf_tid_y() * 32 + sf_tid_x();
    sf_gauss_weights(weights, radius, gw, t, 256);
    sf_sync();
    if (channels == 4 && gw.hfloat) {
        sf_gauss_horizontal_float(stage, hrows, gw, words, dst, width, height, pitch, edge, radius, interpolate, parity);
    } else {
        sf_gauss_horizontal_fixed(stage, hrows, gw, words, dst, width, height, pitch, channels, edge, radius, interpolate, parity);
    }
}

// sfumato_gaussian(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                  const u16* weights, int radius)
// Both passes in one launch, without interpolation (sigma below 8), radius 1 ... 24.
// Block (32, 8); grid (ceil(width * channels / 512), ceil(height / 16)). A block filters 512 values
// of 16 rows: the vertical pass of those values and the radius either side into a 16-bit tile in
// shared memory, the edge rule applied to the columns outside the image, then the horizontal pass
// from the tile. Exact (the same arithmetic as the two launches).
SF_KERNEL SF_GAUSS_LAUNCH_BOUNDS(SF_GF_LB) sfumato_gaussian(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
    const u16* weights, int radius)
{
    __shared__ __attribute__((aligned(16))) u32 smem[SF_GF_SMEM];
    __shared__ SfGaussWeights gw;
    const int t = sf_tid_y() * 32 + sf_tid_x();
    radius = sf_mini(radius, SF_GF_MAX_RADIUS);
    sf_gauss_weights(weights, radius, gw, t, 256);
    sf_sync();
    if (channels == 4 && gw.hfloat) {
        sf_gauss_fused_float(smem, gw, src, dst, width, height, pitch, edge, radius);
    } else {
        sf_gauss_fused_fixed(smem, gw, src, dst, width, height, pitch, channels, edge, radius);
    }
}

// =============================================================================================
// Median, 8-bit, per channel (alpha too), square window of odd diameter
// =============================================================================================
//
// Replicates Sources/SfumatoFilters/Blur/MedianKernel.swift (`_MedianKernel`: `median3x3`,
// `medianBlocks`, `huang`), which Median (any odd diameter 3...63) and CIMedianFilter (3x3) run with
// clamped edges (`_withEdges(image, .clamp)`). A median is exact whatever computes it.

// The median of three.
template <typename T> SF_INLINE T sf_med3(T a, T b, T c) { return sf_max(sf_min(a, b), sf_min(sf_max(a, b), c)); }

// 3x3 medians of four neighbouring outputs from rows a, b, c of their six columns (sorted columns:
// the median is med3(max of the lows, med3 of the middles, min of the highs)).
template <typename T> SF_INLINE void sf_median3_block(const T (&a)[6], const T (&b)[6], const T (&c)[6], T (&out)[4]) {
    T lo[6], mi[6], hi[6];
    #pragma unroll
    for (int i = 0; i < 6; i++) {
        T x = sf_min(a[i], b[i]), y = sf_max(a[i], b[i]);
        T z = sf_min(y, c[i]);
        hi[i] = sf_max(y, c[i]);
        lo[i] = sf_min(x, z);
        mi[i] = sf_max(x, z);
    }
    #pragma unroll
    for (int t = 0; t < 4; t++) {
        const T l = sf_max(lo[t], sf_max(lo[t + 1], lo[t + 2]));
        const T h = sf_min(hi[t], sf_min(hi[t + 1], hi[t + 2]));
        const T m = sf_med3(mi[t], mi[t + 1], mi[t + 2]);
        out[t] = sf_med3(l, m, h);
    }
}

// Stores four neighbouring RGBA pixels (the ones inside the image).
SF_INLINE void sf_store4(u8* d, int x0, int width, const u32 (&px)[4]) {
    if (x0 + 4 <= width) {
        sf_u32x4 o = {px[0], px[1], px[2], px[3]};
        *(sf_u32x4*)d = o;
    } else {
        #pragma unroll
        for (int t = 0; t < 4; t++) if (x0 + t < width) ((u32*)d)[t] = px[t];
    }
}

// Stores four neighbouring grey bytes (the ones inside the image).
SF_INLINE void sf_store4_gray(u8* d, int x0, int width, const u32 (&v)[4]) {
    #pragma unroll
    for (int t = 0; t < 4; t++) if (x0 + t < width) d[t] = (u8)v[t];
}

template <bool IN>
SF_INLINE void sf_median3_window(const SfNear<IN>& nb, u32 (&a)[6], u32 (&b)[6], u32 (&c)[6]) {
    #pragma unroll
    for (int i = 0; i < 6; i++) {
        a[i] = nb.value(i - 1, -1);
        b[i] = nb.value(i - 1, 0);
        c[i] = nb.value(i - 1, 1);
    }
}

// sfumato_median3(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge)
// Block (32, 8); grid (ceil(ceil(width / 4) / 32), ceil(height / 8)): a thread computes 4 neighbouring
// pixels of a row (RGBA: two channels per f16x2 lane; grey: a byte at a time). Exact.
SF_KERNEL sfumato_median3(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge) {
    const int x0 = 4 * (sf_ctaid_x() * 32 + sf_tid_x()), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x0 >= width || y >= height) return;
    u8* d = dst + sf_at(x0, y, pitch, channels);
    u32 a[6], b[6], c[6];
    if (sf_inside(x0, y, 1, 4, 1, 1, width, height)) sf_median3_window(sf_near<true>(src, x0, y, width, height, pitch, channels, edge), a, b, c);
    else sf_median3_window(sf_near<false>(src, x0, y, width, height, pitch, channels, edge), a, b, c);
    if (channels == 4) {
        SfH2 ae[6], be[6], ce[6], ao[6], bo[6], co[6];
        #pragma unroll
        for (int i = 0; i < 6; i++) {
            ae[i].v = sf_even(a[i]); be[i].v = sf_even(b[i]); ce[i].v = sf_even(c[i]);
            ao[i].v = sf_odd(a[i]); bo[i].v = sf_odd(b[i]); co[i].v = sf_odd(c[i]);
        }
        SfH2 oe[4], oo[4];
        sf_median3_block(ae, be, ce, oe);
        sf_median3_block(ao, bo, co, oo);
        u32 px[4];
        #pragma unroll
        for (int t = 0; t < 4; t++) px[t] = sf_join(oe[t].v, oo[t].v);
        sf_store4(d, x0, width, px);
        return;
    }
    u32 out[4];
    sf_median3_block(a, b, c, out);
    sf_store4_gray(d, x0, width, out);
}

// The n x n medians (n = 5 or 7) of four neighbouring outputs x0 ... x0 + 3 on row y, per half
// (`half` 0: R, B; 1: G, A) of RGBA pixels: each of the n + 3 columns loaded and sorted, then the
// network. (Loading the columns through the edge rule everywhere measured faster than a separate
// route for windows inside the image: that one needs more registers.)
template <int N>
SF_INLINE void sf_median_net_rgba(const u8* src, int x0, int y, int width, int height, int pitch, int edge, int half, SfH2 (&out)[4]) {
    const int r = N / 2;
    SfH2 c[N + 3][N];
    for (int col = 0; col < N + 3; col++) {
        for (int row = 0; row < N; row++) {
            const u32 p = sf_pixel(src, x0 - r + col, y - r + row, width, height, pitch, edge);
            c[col][row].v = half == 0 ? sf_even(p) : sf_odd(p);
        }
        if constexpr (N == 5) sf_sort5(c[col]); else sf_sort7(c[col]);
    }
    if constexpr (N == 5) sf_median5_block(c, out); else sf_median7_block(c, out);
}

template <int N>
SF_INLINE void sf_median_net_gray(const u8* src, int x0, int y, int width, int height, int pitch, int edge, u32 (&out)[4]) {
    const int r = N / 2;
    u32 c[N + 3][N];
    for (int col = 0; col < N + 3; col++) {
        for (int row = 0; row < N; row++) c[col][row] = sf_byte(src, x0 - r + col, y - r + row, 0, width, height, pitch, 1, edge);
        if constexpr (N == 5) sf_sort5(c[col]); else sf_sort7(c[col]);
    }
    if constexpr (N == 5) sf_median5_block(c, out); else sf_median7_block(c, out);
}

template <int N>
SF_INLINE void sf_median_net(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge) {
    const int x0 = 4 * (sf_ctaid_x() * 32 + sf_tid_x()), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x0 >= width || y >= height) return;
    u8* d = dst + sf_at(x0, y, pitch, channels);
    if (channels == 4) {
        SfH2 oe[4], oo[4];
        sf_median_net_rgba<N>(src, x0, y, width, height, pitch, edge, 0, oe);
        sf_median_net_rgba<N>(src, x0, y, width, height, pitch, edge, 1, oo);
        u32 px[4];
        #pragma unroll
        for (int t = 0; t < 4; t++) px[t] = sf_join(oe[t].v, oo[t].v);
        sf_store4(d, x0, width, px);
        return;
    }
    u32 out[4];
    sf_median_net_gray<N>(src, x0, y, width, height, pitch, edge, out);
    sf_store4_gray(d, x0, width, out);
}

// sfumato_median5 / sfumato_median7(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge)
// Block (32, 8); grid (ceil(ceil(width / 4) / 32), ceil(height / 8)): a thread computes 4 neighbouring
// pixels of a row: each of its n + 3 columns sorted, then the CPU's pruned merge network
// (median_networks.cuh, from scripts/median-networks.py), two channels per f16x2 lane. Exact.
SF_KERNEL sfumato_median5(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge) {
    sf_median_net<5>(src, dst, width, height, pitch, channels, edge);
}
SF_KERNEL sfumato_median7(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge) {
    sf_median_net<7>(src, dst, width, height, pitch, channels, edge);
}

#define SF_MH_THREADS 64   // values (one channel of one pixel) a block covers
#define SF_MH_ROWS 64      // rows a block slides down

// sfumato_median(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge, int diameter)
// Any odd diameter 3 ... 63 (and beyond). Block (64, 1); grid (ceil(width * channels / 64), ceil(height / 64)).
// Each thread owns one channel of one pixel column and a 256-bin histogram of its window in
// shared memory (16-bit bins, laid out so a warp never conflicts), slides down 64 rows adding the
// window's new row and removing its old one (2 x diameter updates), and walks the median from the
// previous one (Huang's method, the CPU's `huang` turned on its side). Exact.
SF_KERNEL sfumato_median(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge, int diameter) {
    __shared__ u16 hist[256 * SF_MH_THREADS];
    const int t = sf_tid_x();
    const int v = sf_ctaid_x() * SF_MH_THREADS + t;
    if (v >= width * channels) return;
    const int x = channels == 4 ? v >> 2 : v, c = v - x * channels;
    u16* h = hist + (t & 31) * 2 + (t >> 5);   // bin b at h[b * 64]: bank t % 32 for every bin
    for (int b = 0; b < 256; b++) h[b * SF_MH_THREADS] = 0;
    const int r = diameter / 2, rank = (diameter * diameter - 1) / 2;
    const int y0 = sf_ctaid_y() * SF_MH_ROWS, y1 = sf_mini(y0 + SF_MH_ROWS, height);
    for (int dy = -r; dy <= r; dy++) {
        for (int dx = -r; dx <= r; dx++) {
            const u32 b = sf_byte(src, x + dx, y0 + dy, c, width, height, pitch, channels, edge);
            h[b * SF_MH_THREADS]++;
        }
    }
    int m = 0, below = 0;   // the median, and how many values lie below it
    for (int y = y0; y < y1; y++) {
        if (y > y0) {
            for (int dx = -r; dx <= r; dx++) {
                const int old = (int)sf_byte(src, x + dx, y - r - 1, c, width, height, pitch, channels, edge);
                const int add = (int)sf_byte(src, x + dx, y + r, c, width, height, pitch, channels, edge);
                h[old * SF_MH_THREADS]--;
                h[add * SF_MH_THREADS]++;
                below += (add < m) - (old < m);
            }
        }
        while (below > rank) { m--; below -= h[m * SF_MH_THREADS]; }
        while (below + h[m * SF_MH_THREADS] <= rank) { below += h[m * SF_MH_THREADS]; m++; }
        dst[sf_at(x, y, pitch, channels) + (u32)c] = (u8)m;
    }
}

// =============================================================================================
// Convolutions, 8-bit: Laplacian, emboss, sharpen (integers), Sobel, and the float fallback
// =============================================================================================
//
// Replicates Sources/SfumatoFilters/Convolution/ByteConvolution.swift `_IntegerKernel.apply`:
// the weights times 2^shift are whole numbers (`_IntegerKernel.init` finds shift 0...6 and
// refuses kernels whose partial sums could leave Int16, so 32-bit sums are the CPU's 16-bit ones),
//     out = clamp((bias + round + Σ w * in) >> shift, 0, 255),  round = shift > 0 ? 1 << (shift - 1) : 0,
// bias = the filter's bias x 255 x 2^shift; every channel, alpha too, unless `keep_alpha` (then
// alpha is the centre pixel's, RGBA only). Laplacian: weights [0 1 0; 1 -4 1; 0 1 0], shift 0,
// keep_alpha 1; the gallery's emboss [-2 0 0; 0 1 0; 0 0 2], shift 0, keep_alpha 0; sharpen
// [-0.5 -1 -0.5; -1 7 -1; -0.5 -1 -0.5] -> [-1 -2 -1; -2 14 -2; -1 -2 -1], shift 1, keep_alpha 0.

SF_INLINE u32 sf_conv_pixel(const u8* src, int x, int y, int width, int height, int pitch, int channels, int edge) {
    return channels == 4 ? sf_pixel(src, x, y, width, height, pitch, edge)
                         : sf_byte(src, x, y, 0, width, height, pitch, 1, edge);
}

SF_INLINE u32 sf_conv_store(const int (&acc)[4], int shift, u32 centre, int channels, int keep_alpha) {
    u32 o = 0;
    #pragma unroll
    for (int ch = 0; ch < 4; ch++) o |= (u32)sf_clamp(acc[ch] >> shift, 0, 255) << (8 * ch);
    if (channels == 4 && keep_alpha) o = (o & 0x00FFFFFFu) | (centre & 0xFF000000u);
    return o;
}

SF_INLINE void sf_conv_write(u8* dst, int x, int y, int pitch, int channels, u32 o) {
    if (channels == 4) *(u32*)(dst + sf_at(x, y, pitch, 4)) = o;
    else dst[sf_at(x, y, pitch, 1)] = (u8)o;
}

template <bool IN>
SF_INLINE u32 sf_convolve3x3_at(const SfNear<IN>& nb, const int (&wt)[9], int start, int shift, int keep_alpha) {
    int acc[4] = {start, start, start, start};
    u32 centre = 0;
    #pragma unroll
    for (int i = 0; i < 9; i++) {
        if (i != 4 && wt[i] == 0) continue;
        const u32 p = nb.value(i % 3 - 1, i / 3 - 1);
        if (i == 4) centre = p;
        #pragma unroll
        for (int ch = 0; ch < 4; ch++) acc[ch] += wt[i] * (int)((p >> (8 * ch)) & 255u);
    }
    return sf_conv_store(acc, shift, centre, nb.channels, keep_alpha);
}

// sfumato_convolve3x3(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                     int w0, int w1, int w2, int w3, int w4, int w5, int w6, int w7, int w8,
//                     int shift, int bias, int keep_alpha)
// Weights row-major (w4 the centre), already times 2^shift. Block (32, 8); grid (ceil(width / 32),
// ceil(height / 8)), one thread per pixel (RGBA) or byte (grey). Exact.
SF_KERNEL sfumato_convolve3x3(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
    int w0, int w1, int w2, int w3, int w4, int w5, int w6, int w7, int w8, int shift, int bias, int keep_alpha)
{
    const int x = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x >= width || y >= height) return;
    const int wt[9] = {w0, w1, w2, w3, w4, w5, w6, w7, w8};
    const int start = bias + (shift > 0 ? 1 << (shift - 1) : 0);
    u32 o;
    if (sf_inside(x, y, 1, 1, 1, 1, width, height)) o = sf_convolve3x3_at(sf_near<true>(src, x, y, width, height, pitch, channels, edge), wt, start, shift, keep_alpha);
    else o = sf_convolve3x3_at(sf_near<false>(src, x, y, width, height, pitch, channels, edge), wt, start, shift, keep_alpha);
    sf_conv_write(dst, x, y, pitch, channels, o);
}

template <bool IN>
SF_INLINE u32 sf_convolve_at(const SfNear<IN>& nb, int kw, int kh, const int* weights, int start, int shift, int keep_alpha) {
    int acc[4] = {start, start, start, start};
    const int rx = kw / 2, ry = kh / 2;
    for (int j = 0; j < kh; j++) {
        for (int i = 0; i < kw; i++) {
            const int wt = weights[j * kw + i];
            if (wt == 0) continue;
            const u32 p = nb.value(i - rx, j - ry);
            #pragma unroll
            for (int ch = 0; ch < 4; ch++) acc[ch] += wt * (int)((p >> (8 * ch)) & 255u);
        }
    }
    return sf_conv_store(acc, shift, nb.value(0, 0), nb.channels, keep_alpha);
}

// sfumato_convolve(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                  int kw, int kh, const int* weights, int shift, int bias, int keep_alpha)
// Any odd kw x kh (the CPU has an integer form up to 49 taps); `weights` kw * kh ints, row-major,
// times 2^shift. Block (32, 8); grid (ceil(width / 32), ceil(height / 8)). Exact.
SF_KERNEL sfumato_convolve(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
    int kw, int kh, const int* weights, int shift, int bias, int keep_alpha)
{
    const int x = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x >= width || y >= height) return;
    const int start = bias + (shift > 0 ? 1 << (shift - 1) : 0);
    const int rx = kw / 2, ry = kh / 2;
    u32 o;
    if (sf_inside(x, y, rx, rx, ry, ry, width, height)) o = sf_convolve_at(sf_near<true>(src, x, y, width, height, pitch, channels, edge), kw, kh, weights, start, shift, keep_alpha);
    else o = sf_convolve_at(sf_near<false>(src, x, y, width, height, pitch, channels, edge), kw, kh, weights, start, shift, keep_alpha);
    sf_conv_write(dst, x, y, pitch, channels, o);
}

// min(⌊√(gx² + gy²) + ½⌋, 255) of integer gradients (|gx|, |gy| <= 1020: the sum is exact in float,
// the root correctly rounded, and never k + ½, so rounding to nearest is the CPU's rounding).
SF_INLINE u32 sf_sobel_magnitude(int gx, int gy) {
    const int m = sf_rint(sf_fsqrt((float)(gx * gx + gy * gy)));
    return (u32)sf_mini(m, 255);
}

// The 3x3 neighbourhood, row by row (pixels, or grey bytes).
template <bool IN>
SF_INLINE void sf_load3x3(const SfNear<IN>& nb, u32 (&p)[9]) {
    #pragma unroll
    for (int i = 0; i < 9; i++) p[i] = nb.value(i % 3 - 1, i / 3 - 1);
}

// sfumato_sobel(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge)
// Per channel (R, G, B; alpha the centre's) or every grey byte: Gx = [-1 0 1; -2 0 2; -1 0 1],
// Gy its transpose, magnitude rounded and clamped (ByteConvolution.swift `_sobelBytes`, `_sobelRow`,
// `_sobelMagnitudes`). Block (32, 8); grid (ceil(width / 32), ceil(height / 8)). Exact.
SF_KERNEL sfumato_sobel(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge) {
    const int x = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x >= width || y >= height) return;
    u32 p[9];
    if (sf_inside(x, y, 1, 1, 1, 1, width, height)) sf_load3x3(sf_near<true>(src, x, y, width, height, pitch, channels, edge), p);
    else sf_load3x3(sf_near<false>(src, x, y, width, height, pitch, channels, edge), p);
    u32 o = 0;
    // Grey: only byte 0 is stored (the others are of zeros).
    #pragma unroll
    for (int ch = 0; ch < 3; ch++) {
        int v[9];
        #pragma unroll
        for (int i = 0; i < 9; i++) v[i] = (int)((p[i] >> (8 * ch)) & 255u);
        const int gx = (v[2] - v[0]) + 2 * (v[5] - v[3]) + (v[8] - v[6]);
        const int gy = (v[6] - v[0]) + 2 * (v[7] - v[1]) + (v[8] - v[2]);
        o |= sf_sobel_magnitude(gx, gy) << (8 * ch);
    }
    if (channels == 4) o |= p[4] & 0xFF000000u;
    sf_conv_write(dst, x, y, pitch, channels, o);
}

// sfumato_sobel_luma(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                    float wr, float wg, float wb)
// Sobel of luma (the `grey` option): luma = (R wr + G wg) + B wb in float levels 0...255 (not rounded),
// the gradients and magnitude in float, rounded to nearest (even) and clamped, written to R, G and B,
// alpha the centre's (ByteConvolution.swift `_sobelGreyBytes`). Grey images (channels 1) take the
// integer per-byte Sobel, as the CPU does when the weights add up to 1. Block (32, 8); grid
// (ceil(width / 32), ceil(height / 8)). Exact (no FMA contraction; same operation order).
SF_KERNEL sfumato_sobel_luma(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge, float wr, float wg, float wb)
{
    const int x = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x >= width || y >= height) return;
    u32 p[9];
    if (sf_inside(x, y, 1, 1, 1, 1, width, height)) sf_load3x3(sf_near<true>(src, x, y, width, height, pitch, channels, edge), p);
    else sf_load3x3(sf_near<false>(src, x, y, width, height, pitch, channels, edge), p);
    if (channels == 1) {
        int v[9];
        #pragma unroll
        for (int i = 0; i < 9; i++) v[i] = (int)p[i];
        const int gx = (v[2] - v[0]) + 2 * (v[5] - v[3]) + (v[8] - v[6]);
        const int gy = (v[6] - v[0]) + 2 * (v[7] - v[1]) + (v[8] - v[2]);
        dst[sf_at(x, y, pitch, 1)] = (u8)sf_sobel_magnitude(gx, gy);
        return;
    }
    float l[9];
    const u32 centre = p[4];
    #pragma unroll
    for (int i = 0; i < 9; i++) {
        l[i] = sf_fadd(sf_fadd(sf_fmul((float)(p[i] & 255u), wr), sf_fmul((float)((p[i] >> 8) & 255u), wg)),
                       sf_fmul((float)((p[i] >> 16) & 255u), wb));
    }
    const float gx = sf_fadd(sf_fadd(sf_fsub(l[2], l[0]), sf_fmul(2.0f, sf_fsub(l[5], l[3]))), sf_fsub(l[8], l[6]));
    const float gy = sf_fadd(sf_fadd(sf_fsub(l[6], l[0]), sf_fmul(2.0f, sf_fsub(l[7], l[1]))), sf_fsub(l[8], l[2]));
    int m = sf_rint(sf_fsqrt(sf_fadd(sf_fmul(gx, gx), sf_fmul(gy, gy))));
    const u32 b = (u32)sf_clamp(m, 0, 255);
    *(u32*)(dst + sf_at(x, y, pitch, 4)) = b | (b << 8) | (b << 16) | (centre & 0xFF000000u);
}

// sfumato_convolve_float(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                        int kw, int kh, const float* weights, const float* row, const float* column,
//                        int separable, float bias, int keep_alpha)
// The CPU's float route for convolutions without an integer form (ConvolutionKernel.swift
// `_ConvolutionKernel.apply(input: FloatTile, ...)` in the `.none` working space): values
// byte x (1/255); direct: bias + Σ w v over the taps row by row, zero weights skipped; separable
// (`separable` 1, `row` kw and `column` kh factors from `_ConvolutionKernel.factor`): for each
// column tap j (non-zero), the row pass Σ row[i] v summed from 0, then bias + Σ column[j] x that;
// alpha gets bias too unless `keep_alpha` (then the centre's). Stored as the CPU stores float
// tiles into premultiplied bytes (`_Convert.floatsToBytes`): a = clamp(alpha, 0, 1), colour
// clamped to 0...a, each x 255 rounded to nearest even. Grey: the red channel of that with
// alpha 1 before the kernel. Block (32, 8); grid (ceil(width / 32), ceil(height / 8)).
// Same float operations in the same order, never contracted: exact for opaque pixels.
SF_KERNEL sfumato_convolve_float(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
    int kw, int kh, const float* weights, const float* row, const float* column, int separable,
    float bias, int keep_alpha)
{
    const int x = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x >= width || y >= height) return;
    const float scale = 1.0f / 255.0f;
    const int rx = kw / 2, ry = kh / 2;
    const int chans = channels == 4 ? 4 : 1;
    float acc[4] = {bias, bias, bias, keep_alpha ? 0.0f : bias};
    // Grey pixels are (g, g, g, 1): alpha sums the weights.
    const bool greyAlpha = channels == 1;
    for (int j = 0; j < kh; j++) {
        const float cj = separable ? column[j] : 1.0f;
        if (separable && cj == 0.0f) continue;
        float mid[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int i = 0; i < kw; i++) {
            const float wt = separable ? row[i] : weights[j * kw + i];
            if (wt == 0.0f) continue;
            const u32 p = sf_conv_pixel(src, x + i - rx, y + j - ry, width, height, pitch, channels, edge);
            #pragma unroll
            for (int ch = 0; ch < 4; ch++) {
                const u32 byte = greyAlpha ? (ch == 3 ? 255u : p & 255u) : (p >> (8 * ch)) & 255u;
                const float v = sf_fmul((float)byte, scale);
                if (separable) mid[ch] = sf_fadd(mid[ch], sf_fmul(v, wt));
                else acc[ch] = sf_fadd(acc[ch], sf_fmul(v, wt));
            }
        }
        if (separable) for (int ch = 0; ch < 4; ch++) acc[ch] = sf_fadd(acc[ch], sf_fmul(mid[ch], cj));
    }
    if (keep_alpha) {
        const u32 c = sf_conv_pixel(src, x, y, width, height, pitch, channels, edge);
        acc[3] = sf_fmul((float)(channels == 4 ? c >> 24 : 255u), scale);
    }
    float a = acc[3];
    a = a > 0.0f ? a : 0.0f;
    a = a < 1.0f ? a : 1.0f;
    u32 o = (u32)sf_rint(sf_fmul(a, 255.0f)) << 24;
    #pragma unroll
    for (int ch = 0; ch < 3; ch++) {
        float e = acc[ch] > 0.0f ? acc[ch] : 0.0f;
        e = e < a ? e : a;
        o |= (u32)sf_rint(sf_fmul(e, 255.0f)) << (8 * ch);
    }
    if (chans == 4) *(u32*)(dst + sf_at(x, y, pitch, 4)) = o;
    else dst[sf_at(x, y, pitch, 1)] = (u8)(o & 255u);
}

// =============================================================================================
// Morphology, 8-bit: rectangles (area max / min, closing, opening) and probes (dilate / erode)
// =============================================================================================
//
// Replicates Sources/SfumatoFilters/Morphology: `_RectangleKernel` (RectangleKernel.swift,
// RunningExtreme.swift: a row pass then a column pass over a width x height window starting
// -(width / 2), -(height / 2) from the pixel) and `_ProbeKernel` (ProbeKernel.swift: max of
// pixel - probe, or min of pixel + probe, over the probe's taps; a flat probe of 0s and 1s is a
// run of taps per row). Every byte, alpha too. The CPU clamps the edges of all of them.
// A maximum or minimum is exact whatever computes it.

// The extreme (`maximum` or not) of groups `x + first ... x + last` of row y into the f16x2
// accumulators (RGBA: pixels; grey: 4 bytes from byte x + k).
SF_INLINE void sf_extreme_row(
    const u8* src, int x, int y, int first, int last, int width, int height, int pitch, int channels, int edge,
    int maximum, u32& e, u32& o)
{
    if (channels == 4 && x + first >= 0 && x + last < width && (unsigned)y < (unsigned)height) {
        // Inside the image: a plain walk along the row.
        const u8* p = src + sf_at(x + first, y, pitch, 4);
        const int n = last - first + 1;
        if (maximum) {
            for (int k = 0; k < n; k++) { const u32 v = sf_ld32(p + 4 * k); e = sf_hmax2(e, sf_even(v)); o = sf_hmax2(o, sf_odd(v)); }
        } else {
            for (int k = 0; k < n; k++) { const u32 v = sf_ld32(p + 4 * k); e = sf_hmin2(e, sf_even(v)); o = sf_hmin2(o, sf_odd(v)); }
        }
        return;
    }
    for (int k = first; k <= last; k++) {
        const u32 p = channels == 4 ? sf_pixel(src, x + k, y, width, height, pitch, edge)
                                    : sf_gray4(src, x + k, y, width, height, pitch, edge);
        if (maximum) { e = sf_hmax2(e, sf_even(p)); o = sf_hmax2(o, sf_odd(p)); }
        else { e = sf_hmin2(e, sf_even(p)); o = sf_hmin2(o, sf_odd(p)); }
    }
}

SF_INLINE void sf_extreme_store(u8* dst, int x, int y, int width, int pitch, int channels, u32 e, u32 o) {
    const u32 v = sf_join(e, o);
    if (channels == 4) { *(u32*)(dst + sf_at(x, y, pitch, 4)) = v; return; }
    u8* d = dst + sf_at(x, y, pitch, 1);
    if (x + 4 <= width) { *(u32*)d = v; return; }
    for (int t = 0; x + t < width; t++) d[t] = (u8)(v >> (8 * t));
}

// The start of an accumulation: 0 for a maximum, 255 for a minimum, as f16x2 lanes.
SF_INLINE u32 sf_extreme_start(int maximum) { return maximum ? 0x64006400u : 0x64FF64FFu; }

// sfumato_extreme_rows(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                      int length, int offset, int maximum)
// out(x, y) = max (or min) of in(x + offset + i, y), i = 0 ..< length: the rectangle's row pass
// (offset -(width / 2) for the CPU's rectangles). Block (32, 8); grid (ceil(units / 32), ceil(height / 8)),
// units = width (RGBA: a pixel a thread) or ceil(width / 4) (grey: 4 bytes a thread). Exact.
SF_KERNEL sfumato_extreme_rows(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge, int length, int offset, int maximum)
{
    const int u = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    const int x = channels == 4 ? u : 4 * u;
    if (x >= width || y >= height) return;
    u32 e = sf_extreme_start(maximum), o = e;
    sf_extreme_row(src, x, y, offset, offset + length - 1, width, height, pitch, channels, edge, maximum, e, o);
    sf_extreme_store(dst, x, y, width, pitch, channels, e, o);
}

// sfumato_extreme_columns(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                         int length, int offset, int maximum)
// out(x, y) = max (or min) of in(x, y + offset + i), i = 0 ..< length: the column pass (offset
// -(height / 2)). Block (32, 8); grid (ceil(ceil(width * channels / 4) / 32), ceil(height / 8)),
// 4 bytes a thread. Exact.
SF_KERNEL sfumato_extreme_columns(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge, int length, int offset, int maximum)
{
    const int g = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (4 * g >= width * channels || y >= height) return;
    u32 e = sf_extreme_start(maximum), o = e;
    for (int i = 0; i < length; i++) {
        int yy = y + offset + i;
        u32 p = 0;
        if (edge == SF_EDGE_CLAMP) yy = sf_clamp(yy, 0, height - 1);
        if ((unsigned)yy < (unsigned)height) p = sf_ld32(src + (u32)yy * (u32)pitch + 4u * (u32)g);
        if (maximum) { e = sf_hmax2(e, sf_even(p)); o = sf_hmax2(o, sf_odd(p)); }
        else { e = sf_hmin2(e, sf_even(p)); o = sf_hmin2(o, sf_odd(p)); }
    }
    const u32 v = sf_join(e, o);
    u8* d = dst + (u32)y * (u32)pitch + 4u * (u32)g;
    const int rest = width * channels - 4 * g;
    if (rest >= 4) *(u32*)d = v;
    else for (int t = 0; t < rest; t++) d[t] = (u8)(v >> (8 * t));
}

#define SF_MAX_SPANS 256

// sfumato_extreme_spans(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                       const int* spans, int count, int maximum)
// A flat probe as `count` spans (at most 256) of 3 ints each, (dy, x0, x1): columns x0 ... x1 (inclusive,
// relative to the pixel) of row y + dy. out = max (or min) over all of them; with no span, 0 (or 255),
// as the CPU's empty probe. For the CPU's `_ProbeKernel` runs: probe row i with run (start, length)
// is (i - height / 2, start - width / 2, start - width / 2 + length - 1); rows without a run are left
// out. The gallery's Dilate Bokeh is `Dilate.disc(diameter: 15, radius: 7)`. A rectangle is one
// span per row. Block (32, 8); grid (ceil(units / 32), ceil(height / 8)), units as for
// sfumato_extreme_rows. Exact.
SF_KERNEL sfumato_extreme_spans(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
    const int* spans, int count, int maximum)
{
    __shared__ int sp[3 * SF_MAX_SPANS];
    const int tid = sf_tid_y() * 32 + sf_tid_x();
    count = sf_mini(count, SF_MAX_SPANS);
    for (int i = tid; i < 3 * count; i += 256) sp[i] = spans[i];
    sf_sync();
    const int u = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    const int x = channels == 4 ? u : 4 * u;
    if (x >= width || y >= height) return;
    u32 e = sf_extreme_start(maximum), o = e;
    for (int s = 0; s < count; s++) {
        const int yy = y + sp[3 * s];
        if (edge == SF_EDGE_ZERO && (unsigned)yy >= (unsigned)height) {
            // A row of zeros: no change to a maximum, 0 for a minimum.
            if (!maximum && sp[3 * s + 1] <= sp[3 * s + 2]) { e = 0x64006400u; o = e; }
            continue;
        }
        sf_extreme_row(src, x, yy, sp[3 * s + 1], sp[3 * s + 2], width, height, pitch, channels, edge, maximum, e, o);
    }
    sf_extreme_store(dst, x, y, width, pitch, channels, e, o);
}

template <bool IN>
SF_INLINE u32 sf_probe_at(const SfNear<IN>& nb, int pw, int ph, const u8* levels, int maximum) {
    const int cx = pw / 2, cy = ph / 2;
    int acc[4];
    #pragma unroll
    for (int ch = 0; ch < 4; ch++) acc[ch] = maximum ? 0 : 255;
    for (int i = 0; i < ph; i++) {
        for (int j = 0; j < pw; j++) {
            const int q = levels[i * pw + j];
            if (q == 255) continue;   // v - 255 (v + 255) saturates: never the extreme
            const u32 p = nb.value(j - cx, i - cy);
            #pragma unroll
            for (int ch = 0; ch < 4; ch++) {
                const int v = (int)((p >> (8 * ch)) & 255u);
                acc[ch] = maximum ? sf_maxi(acc[ch], sf_maxi(v - q, 0)) : sf_mini(acc[ch], sf_mini(v + q, 255));
            }
        }
    }
    return (u32)acc[0] | ((u32)acc[1] << 8) | ((u32)acc[2] << 16) | ((u32)acc[3] << 24);
}

// sfumato_extreme_probe(const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
//                       int pw, int ph, const u8* levels, int maximum)
// Any probe with values in 0...1 (the CPU's byte route): `levels` pw * ph bytes, row-major, each
// UInt8(clamp((p * 255).rounded(), 0, 255)); tap (i, j) reads (x + j - pw / 2, y + i - ph / 2).
// Dilate: max over taps of max(v - q, 0), from 0; erode: min of min(v + q, 255), from 255 (the CPU's
// general-probe loop, ProbeKernel.swift; its flat-probe route gives the same bytes). Block (32, 8);
// grid (ceil(width / 32), ceil(height / 8)), one pixel (or grey byte) a thread. Exact.
SF_KERNEL sfumato_extreme_probe(
    const u8* src, u8* dst, int width, int height, int pitch, int channels, int edge,
    int pw, int ph, const u8* levels, int maximum)
{
    const int x = sf_ctaid_x() * 32 + sf_tid_x(), y = sf_ctaid_y() * 8 + sf_tid_y();
    if (x >= width || y >= height) return;
    const int cx = pw / 2, cy = ph / 2;
    u32 o;
    if (sf_inside(x, y, cx, pw - 1 - cx, cy, ph - 1 - cy, width, height)) o = sf_probe_at(sf_near<true>(src, x, y, width, height, pitch, channels, edge), pw, ph, levels, maximum);
    else o = sf_probe_at(sf_near<false>(src, x, y, width, height, pitch, channels, edge), pw, ph, levels, maximum);
    sf_conv_write(dst, x, y, pitch, channels, o);
}


// =============================================================================================
// Histograms and lookup tables, 8-bit
// =============================================================================================

// round(u x 255 / a), at most 255 (a > 0): the CPU's `_unpremultiplied` (Render/Convert.swift).
SF_INLINE u32 sf_unpremultiplied(u32 u, u32 a) { return sf_minu(255u, (u * 255u + a / 2u) / a); }
// round(x x a / 255) exactly: the CPU's `_mul255`.
SF_INLINE u32 sf_mul255(u32 x, u32 a) { const u32 t = x * a + 128u; return (t + (t >> 8)) >> 8; }

#define SF_HIST_WARPS 8

// sfumato_histogram(const u8* src, int width, int height, int pitch, int channels, u32* counts)
// 256-bin counts per channel into counts[c * 256 + level], c = R, G, B, A (1024 UInt32, zeroed by the
// caller; the kernel adds to them). As the CPU counts a byte image (Kernels/HistogramCounting.swift
// `_countByteHistogram`, `_countGrayHistogram`): colours unpremultiplied (round(u x 255 / a), colour
// 0 where alpha is 0), alpha as stored; a grey byte counts for R, G and B, and alpha 255.
// Block (256, 1); any grid (e.g. (ceil(width / 256) capped at 8, min(height, 128)) for RGBA,
// width / 4 for grey): blocks take rows y = blockIdx.y + k gridDim.y and columns in steps of
// gridDim.x x 256, count into per-warp histograms in shared memory, then add them to `counts`
// with atomics. Exact.
SF_KERNEL sfumato_histogram(const u8* src, int width, int height, int pitch, int channels, u32* counts) {
    __shared__ u32 sh[SF_HIST_WARPS * 1024];
    __shared__ u32 total;
    const int t = sf_tid_x();
    for (int i = t; i < SF_HIST_WARPS * 1024; i += 256) sh[i] = 0;
    if (t == 0) total = 0;
    sf_sync();
    u32* mine = sh + (t >> 5) * 1024;
    const int units = channels == 4 ? width : (width + 3) >> 2;
    const int stride = sf_nctaid_x() * 256;
    u32 seen = 0;
    for (int y = sf_ctaid_y(); y < height; y += sf_nctaid_y()) {
        const u8* row = src + (u32)y * (u32)pitch;
        for (int u = sf_ctaid_x() * 256 + t; u < units; u += stride) {
            const u32 p = sf_ld32(row + 4u * (u32)u);
            if (channels == 4) {
                const u32 a = p >> 24;
                u32 r = p & 255u, g = (p >> 8) & 255u, b = (p >> 16) & 255u;
                if (a == 0) { r = 0; g = 0; b = 0; }
                else if (a != 255) { r = sf_unpremultiplied(r, a); g = sf_unpremultiplied(g, a); b = sf_unpremultiplied(b, a); }
                sf_atomic_add(mine + r, 1u);
                sf_atomic_add(mine + 256 + g, 1u);
                sf_atomic_add(mine + 512 + b, 1u);
                sf_atomic_add(mine + 768 + a, 1u);
            } else {
                const int n = sf_mini(4, width - 4 * u);
                for (int e = 0; e < n; e++) sf_atomic_add(mine + ((p >> (8 * e)) & 255u), 1u);
                seen += (u32)n;
            }
        }
    }
    if (channels == 1 && seen) sf_atomic_add(&total, seen);
    sf_sync();
    for (int i = t; i < 1024; i += 256) {
        if (channels == 1 && i >= 256) break;
        u32 s = 0;
        for (int w = 0; w < SF_HIST_WARPS; w++) s += sh[w * 1024 + i];
        if (s == 0) continue;
        sf_atomic_add(counts + i, s);
        if (channels == 1) { sf_atomic_add(counts + 256 + i, s); sf_atomic_add(counts + 512 + i, s); }
    }
    if (channels == 1 && t == 0 && total) sf_atomic_add(counts + 768 + 255, total);
}

// sfumato_lookup(const u8* src, u8* dst, int width, int height, int pitch, int channels, const u8* table)
// out[c] = table[c * 256 + in[c]] for R, G, B (768 bytes: the CPU's per-channel byte table,
// `_PointExec.lut`, which for histogram equalization and specification and the 256-level curves is
// the filter's own table), alpha kept; on premultiplied pixels as the CPU maps them
// (Kernels/PointExec+Loops.swift `mapBytes`, premultiplied in and out): alpha 255 looked up
// directly, alpha 0 gives 0, 0, 0, 0, other alphas unpremultiplied (round(u x 255 / a)), looked up and
// premultiplied again (`_mul255`). Grey: every byte through table[0 ..< 256].
// Block (64, 4); grid (ceil(ceil(width * channels / 16) / 64), ceil(height / 4)), 16 bytes a thread. Exact.
SF_KERNEL sfumato_lookup(const u8* src, u8* dst, int width, int height, int pitch, int channels, const u8* table) {
    __shared__ u8 tb[768];
    const int tid = sf_tid_y() * 64 + sf_tid_x();
    for (int i = tid; i < 768; i += 256) tb[i] = table[i];
    sf_sync();
    const int q = sf_ctaid_x() * 64 + sf_tid_x(), y = sf_ctaid_y() * 4 + sf_tid_y();
    if (16 * q >= width * channels || y >= height) return;
    const u32 at = (u32)y * (u32)pitch + 16u * (u32)q;
    sf_u32x4 v = *(const sf_u32x4*)(src + at);
    u32 px[4] = {v.x, v.y, v.z, v.w};
    #pragma unroll
    for (int i = 0; i < 4; i++) {
        const u32 p = px[i];
        if (channels == 1) {
            px[i] = (u32)tb[p & 255u] | ((u32)tb[(p >> 8) & 255u] << 8) | ((u32)tb[(p >> 16) & 255u] << 16) | ((u32)tb[p >> 24] << 24);
            continue;
        }
        const u32 a = p >> 24;
        if (a == 255) {
            px[i] = (u32)tb[p & 255u] | ((u32)tb[256 + ((p >> 8) & 255u)] << 8) | ((u32)tb[512 + ((p >> 16) & 255u)] << 16) | (p & 0xFF000000u);
        } else if (a == 0) {
            px[i] = 0;
        } else {
            u32 o = p & 0xFF000000u;
            for (int c = 0; c < 3; c++) {
                const u32 s = sf_unpremultiplied((p >> (8 * c)) & 255u, a);
                o |= sf_mul255(tb[c * 256 + s], a) << (8 * c);
            }
            px[i] = o;
        }
    }
    sf_u32x4 out = {px[0], px[1], px[2], px[3]};
    *(sf_u32x4*)(dst + at) = out;
}

// =============================================================================================
// Threshold binary, 8-bit
// =============================================================================================

// sfumato_threshold(const u8* src, u8* dst, int width, int height, int pitch, int channels,
//                   float wr, float wg, float wb, float threshold, int on, int off)
// Sources/SfumatoFilters/Color/ThresholdBinary.swift `_Threshold.apply(StraightBytes)` (and the
// AVX-512 twin `_thresholdBytesAVX512`): luma = ((R/255) wr + (G/255) wg) + (B/255) wb with
// R/255 = R x Float(1/255); R, G, B = `on` where threshold - luma is negative, else `off`; alpha
// kept, 0, 0, 0, 0 where alpha is 0. `on` = the byte of `maximum` (round(maximum x 255), ties to even:
// `StraightBytes.encode`), `off` = 0. Exact on opaque pixels; a pixel with partial alpha is
// unpremultiplied first (round(u x 255 / a)) and its result premultiplied (`_mul255`), as the CPU
// does for a premultiplied destination of straight pixels. Grey: the luma of (g, g, g).
// Block (64, 4); grid (ceil(ceil(width * channels / 16) / 64), ceil(height / 4)), 16 bytes a thread.
SF_INLINE u32 sf_threshold_pick(u32 r, u32 g, u32 b, float wr, float wg, float wb, float threshold, u32 on, u32 off) {
    const float scale = 1.0f / 255.0f;
    const float l = sf_fadd(sf_fadd(sf_fmul(sf_fmul((float)r, scale), wr), sf_fmul(sf_fmul((float)g, scale), wg)),
                            sf_fmul(sf_fmul((float)b, scale), wb));
    return (sf_float_bits(sf_fsub(threshold, l)) >> 31) ? on : off;
}

SF_KERNEL sfumato_threshold(
    const u8* src, u8* dst, int width, int height, int pitch, int channels,
    float wr, float wg, float wb, float threshold, int on, int off)
{
    const int q = sf_ctaid_x() * 64 + sf_tid_x(), y = sf_ctaid_y() * 4 + sf_tid_y();
    if (16 * q >= width * channels || y >= height) return;
    const u32 at = (u32)y * (u32)pitch + 16u * (u32)q;
    sf_u32x4 v = *(const sf_u32x4*)(src + at);
    u32 px[4] = {v.x, v.y, v.z, v.w};
    #pragma unroll
    for (int i = 0; i < 4; i++) {
        const u32 p = px[i];
        if (channels == 1) {
            u32 o = 0;
            #pragma unroll
            for (int e = 0; e < 4; e++) {
                const u32 g = (p >> (8 * e)) & 255u;
                o |= sf_threshold_pick(g, g, g, wr, wg, wb, threshold, (u32)on, (u32)off) << (8 * e);
            }
            px[i] = o;
            continue;
        }
        const u32 a = p >> 24;
        if (a == 0) { px[i] = 0; continue; }
        u32 r = p & 255u, g = (p >> 8) & 255u, b = (p >> 16) & 255u;
        if (a != 255) { r = sf_unpremultiplied(r, a); g = sf_unpremultiplied(g, a); b = sf_unpremultiplied(b, a); }
        u32 o = sf_threshold_pick(r, g, b, wr, wg, wb, threshold, (u32)on, (u32)off);
        if (a != 255) o = sf_mul255(o, a);
        px[i] = o | (o << 8) | (o << 16) | (a << 24);
    }
    sf_u32x4 out = {px[0], px[1], px[2], px[3]};
    *(sf_u32x4*)(dst + at) = out;
}
