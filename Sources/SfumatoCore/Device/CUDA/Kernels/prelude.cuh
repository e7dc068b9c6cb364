// The few CUDA names gallery.cu uses, declared without CUDA's headers (clang-16 compiles the
// kernels with -nocudainc -nocudalib), or emulated on the host when SFUMATO_HOST_EMULATION is
// defined (scripts/cuda-kernels-hostcheck, which runs every thread of a block as a fiber and
// `sf_sync` as a barrier between them).
#pragma once

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;

#ifndef SFUMATO_HOST_EMULATION

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define SF_INLINE __device__ static inline __attribute__((always_inline))
#define SF_METHOD __device__ inline __attribute__((always_inline))
#define SF_KERNEL extern "C" __global__ void

SF_INLINE int sf_tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }
SF_INLINE int sf_tid_y() { return __nvvm_read_ptx_sreg_tid_y(); }
SF_INLINE int sf_ntid_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
SF_INLINE int sf_ntid_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
SF_INLINE int sf_ctaid_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
SF_INLINE int sf_ctaid_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
SF_INLINE int sf_nctaid_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
SF_INLINE int sf_nctaid_y() { return __nvvm_read_ptx_sreg_nctaid_y(); }
SF_INLINE void sf_sync() { __syncthreads(); }

// Read-only loads through the non-coherent cache (inputs are never written by the same launch).
SF_INLINE u32 sf_ld32(const u8* p) { return __nvvm_ldg_ui((const unsigned int*)p); }
SF_INLINE u32 sf_ld8(const u8* p) { return __nvvm_ldg_uc(p); }
SF_INLINE u16 sf_ld16(const u16* p) { return __nvvm_ldg_us(p); }

// IEEE single-precision operations, rounded to nearest, never contracted into FMAs (the CPU
// rounds each product and sum on its own).
SF_INLINE float sf_fmul(float a, float b) { return __nvvm_mul_rn_f(a, b); }
SF_INLINE float sf_fadd(float a, float b) { return __nvvm_add_rn_f(a, b); }
SF_INLINE float sf_fsub(float a, float b) { return __nvvm_add_rn_f(a, -b); }
SF_INLINE float sf_fsqrt(float a) { return __nvvm_sqrt_rn_f(a); }
// Nearest integer, ties to even (the CPU's `_roundedInts`).
SF_INLINE int sf_rint(float a) { return __nvvm_f2i_rn(a); }
SF_INLINE u32 sf_float_bits(float a) { return __nvvm_bitcast_f2i(a); }
SF_INLINE float sf_bits_float(u32 a) { return __nvvm_bitcast_i2f((int)a); }
// a x b + c computed exactly and rounded once, down (toward minus infinity).
SF_INLINE float sf_fma_down(float a, float b, float c) { return __nvvm_fma_rm_f(a, b, c); }
// a + b rounded once, up (toward plus infinity).
SF_INLINE float sf_fadd_up(float a, float b) { return __nvvm_add_rp_f(a, b); }

// Two 16-bit lanes as f16x2 (values 1024 + byte, so normal numbers whose order is the bytes'):
// one instruction takes the minimum or maximum of two channels.
SF_INLINE u32 sf_hmin2(u32 a, u32 b) { u32 d; asm("min.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
SF_INLINE u32 sf_hmax2(u32 a, u32 b) { u32 d; asm("max.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }

SF_INLINE u32 sf_atomic_add(u32* p, u32 v) { return (u32)__nvvm_atom_add_gen_i((int*)p, (int)v); }

// The high 32 bits of a 32 x 32-bit product; a byte permutation of two words (PRMT).
SF_INLINE u32 sf_mulhi(u32 a, u32 b) { return __nvvm_mulhi_ui(a, b); }
SF_INLINE u32 sf_prmt(u32 a, u32 b, u32 selector) { return __nvvm_prmt(a, b, selector); }

#endif
