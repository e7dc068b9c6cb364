// Host emulation of the CUDA names gallery.cu uses (scripts/cuda-kernels-hostcheck): every thread
// of a block runs as a fiber (ucontext), `sf_sync` yields to a scheduler that runs each live
// thread up to its next barrier before any goes past it, and shared memory is a static array
// (blocks run one after another). Float operations are the host's IEEE single precision,
// compiled with -ffp-contract=off like the device code.
#pragma once

#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#define SFUMATO_HOST_EMULATION 1
#define __global__
#define __device__
#define __shared__ static
#define SF_INLINE static inline
#define SF_METHOD inline
#define SF_KERNEL extern "C" void

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;

struct SfDim {
    int x = 1, y = 1, z = 1;
};

inline SfDim g_tid, g_ntid, g_ctaid, g_nctaid;

SF_INLINE int sf_tid_x() { return g_tid.x; }
SF_INLINE int sf_tid_y() { return g_tid.y; }
SF_INLINE int sf_ntid_x() { return g_ntid.x; }
SF_INLINE int sf_ntid_y() { return g_ntid.y; }
SF_INLINE int sf_ctaid_x() { return g_ctaid.x; }
SF_INLINE int sf_ctaid_y() { return g_ctaid.y; }
SF_INLINE int sf_nctaid_x() { return g_nctaid.x; }
SF_INLINE int sf_nctaid_y() { return g_nctaid.y; }

SF_INLINE u32 sf_ld32(const u8* p) { u32 v; std::memcpy(&v, p, 4); return v; }
SF_INLINE u32 sf_ld8(const u8* p) { return *p; }
SF_INLINE u16 sf_ld16(const u16* p) { return *p; }

SF_INLINE float sf_fmul(float a, float b) { volatile float r = a * b; return r; }
SF_INLINE float sf_fadd(float a, float b) { volatile float r = a + b; return r; }
SF_INLINE float sf_fsub(float a, float b) { volatile float r = a - b; return r; }
SF_INLINE float sf_fsqrt(float a) { return std::sqrt(a); }
SF_INLINE int sf_rint(float a) { return (int)std::nearbyint(a); }
SF_INLINE u32 sf_float_bits(float a) { u32 v; std::memcpy(&v, &a, 4); return v; }
SF_INLINE float sf_bits_float(u32 a) { float v; std::memcpy(&v, &a, 4); return v; }
// fma rounded down, for the kernels' one use: arguments whose exact a x b + c lies in [2^23, 2^24)
// (ulp 1 there) and fits a double exactly, so rounding down is floor.
SF_INLINE float sf_fma_down(float a, float b, float c) {
    const double x = (double)a * (double)b + (double)c;
    if (!(x >= 8388608.0 && x < 16777216.0)) { fprintf(stderr, "sf_fma_down out of range\n"); std::abort(); }
    return (float)std::floor(x);
}

// a + b rounded up, for the kernels' one use: sums in [2^23, 2^24) (ulp 1) of floats whose exact
// sum fits a double, so rounding up is the ceiling.
SF_INLINE float sf_fadd_up(float a, float b) {
    const double x = (double)a + (double)b;
    if (!(x >= 8388608.0 && x < 16777216.0)) { fprintf(stderr, "sf_fadd_up out of range\n"); std::abort(); }
    return (float)std::ceil(x);
}

// f16x2 lanes holding 1024 + byte are positive normal halves: their order is their bits' order.
SF_INLINE u32 sf_hmin2(u32 a, u32 b) {
    u32 lo = (a & 0xFFFF) < (b & 0xFFFF) ? a & 0xFFFF : b & 0xFFFF, hi = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
    return lo | (hi << 16);
}
SF_INLINE u32 sf_hmax2(u32 a, u32 b) {
    u32 lo = (a & 0xFFFF) > (b & 0xFFFF) ? a & 0xFFFF : b & 0xFFFF, hi = (a >> 16) > (b >> 16) ? a >> 16 : b >> 16;
    return lo | (hi << 16);
}

SF_INLINE u32 sf_atomic_add(u32* p, u32 v) { u32 old = *p; *p = old + v; return old; }

SF_INLINE u32 sf_mulhi(u32 a, u32 b) { return (u32)(((uint64_t)a * b) >> 32); }
// PRMT's default mode: result byte i is byte (selector nibble i & 7) of the pair (b:a); sign
// replication (bit 3 of a nibble) is not used by the kernels.
SF_INLINE u32 sf_prmt(u32 a, u32 b, u32 selector) {
    const uint64_t pair = ((uint64_t)b << 32) | a;
    u32 r = 0;
    for (int i = 0; i < 4; i++) r |= (u32)((pair >> (8 * ((selector >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return r;
}

// ---- fibers
struct SfFiber {
    ucontext_t ctx;
    SfDim tid;
    bool done = false;
    std::vector<char> stack;
};
inline ucontext_t g_scheduler;
inline SfFiber* g_current = nullptr;
inline std::function<void()> g_body;
inline std::vector<SfFiber> g_fibers;
inline long g_barriers = 0;

inline void sf_fiber_entry() {
    g_body();
    g_current->done = true;
    swapcontext(&g_current->ctx, &g_scheduler);
    std::abort();  // never resumed
}

SF_INLINE void sf_sync() {
    g_barriers++;
    swapcontext(&g_current->ctx, &g_scheduler);
}

// Runs `body` (a kernel call) for every thread of every block of `grid` x `block`.
inline void sf_launch(SfDim grid, SfDim block, std::function<void()> body) {
    g_body = std::move(body);
    g_nctaid = grid;
    g_ntid = block;
    const int n = block.x * block.y * block.z;
    if ((int)g_fibers.size() < n) g_fibers.resize(n);
    for (auto& f : g_fibers) if (f.stack.empty()) f.stack.resize(256 * 1024);
    for (int bz = 0; bz < grid.z; bz++)
        for (int by = 0; by < grid.y; by++)
            for (int bx = 0; bx < grid.x; bx++) {
                g_ctaid = SfDim{bx, by, bz};
                for (int i = 0; i < n; i++) {
                    SfFiber& f = g_fibers[i];
                    f.tid = SfDim{i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
                    f.done = false;
                    getcontext(&f.ctx);
                    f.ctx.uc_stack.ss_sp = f.stack.data();
                    f.ctx.uc_stack.ss_size = f.stack.size();
                    f.ctx.uc_link = nullptr;
                    makecontext(&f.ctx, sf_fiber_entry, 0);
                }
                // One round: every live thread up to its next barrier (or its end).
                bool live = true;
                while (live) {
                    live = false;
                    for (int i = 0; i < n; i++) {
                        SfFiber& f = g_fibers[i];
                        if (f.done) continue;
                        g_current = &f;
                        g_tid = f.tid;
                        swapcontext(&g_scheduler, &f.ctx);
                        live = true;
                    }
                }
            }
}
