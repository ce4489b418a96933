// shim.h: the CUDA built-ins that granule's generated CUDA C++ uses, for
// the host emulator (backends/cuda/src/emu). The emulator writes this text
// first and the translation unit after it, then compiles the whole with
// g++ and links it with runtime.cpp, which holds the definitions.
//
// Memory model of the emulator, in CUDA terms:
// - a CUDA thread is a fiber; the fibers of a block run on one worker OS
//   thread, one at a time, switching only at __syncthreads, warp
//   collectives and yield points (volatile loads, fences, __nanosleep);
// - blocks run concurrently on several workers;
// - `__shared__` is `thread_local`: a worker runs one block at a time, so
//   the worker's copy is that block's shared memory (a block-scope
//   thread_local is static), and `extern __shared__` names the worker's
//   dynamic shared memory, defined after the translation unit;
// - global memory is the emulator's arena; loads and stores of the
//   translation unit are seen by the runtime through GCC's ThreadSanitizer
//   instrumentation hooks (`-fsanitize=thread` at compile time only, with
//   runtime.cpp providing the hooks instead of libtsan).

#include <math.h>
#include <stddef.h>
#include <stdint.h>
// printf, which a GPU provides to device code; the runtime flushes it at
// the end of each launch.
#include <stdio.h>

#define GRANULE_EMULATOR 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ thread_local
#define __restrict__ __restrict
// A cap on the registers of a GPU thread; the emulator's threads have none.
#define __launch_bounds__(...)

// Largest dynamic shared memory of a launch (an H100's opt-in maximum).
#define GRANULE_EMU_MAX_DYN_SMEM 232448

struct uint3 {
  unsigned int x, y, z;
};

namespace granule_emu {

uint3 thread_idx();
uint3 block_idx();
uint3 block_dim();
uint3 grid_dim();
void sync_threads();
void fence();
void yield();
[[noreturn]] void trap();
// One iteration of a device loop: every 65536 ticks (loop iterations,
// memory accesses and atomics together) the thread checks the launch's
// time limit and whether the launch failed elsewhere, and ends if so.
void loop_tick();

// Warp collectives: every lane of `mask` that has not exited arrives, then
// each gets its result. Values travel as 64-bit patterns.
enum WarpOp : int { SHFL = 0, SHFL_UP = 1, SHFL_DOWN = 2, SHFL_XOR = 3, BALLOT = 4, SYNC = 5 };
uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width);

template <class T> inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8, "warp shuffles move values of up to 8 bytes");
  uint64_t b = 0;
  __builtin_memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T> inline T from_bits(uint64_t b) {
  T v;
  __builtin_memcpy(&v, &b, sizeof(T));
  return v;
}

}  // namespace granule_emu

// The device header puts this at the top of every loop body it and the
// translator write (on a GPU it is nothing), so that a loop of arithmetic
// alone still stops at the time limit.
#define GRANULE_LOOP_TICK() ::granule_emu::loop_tick()

#define threadIdx (::granule_emu::thread_idx())
#define blockIdx (::granule_emu::block_idx())
#define blockDim (::granule_emu::block_dim())
#define gridDim (::granule_emu::grid_dim())

// Always inlined, so that sync_threads's return address is the call site
// in the caller: the emulator fails a barrier whose threads wait at
// different __syncthreads (a divergent barrier).
__attribute__((always_inline)) inline void __syncthreads() { ::granule_emu::sync_threads(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { ::granule_emu::warp_op(::granule_emu::SYNC, mask, 0, 0, 32); }
inline void __threadfence() { ::granule_emu::fence(); }
inline void __threadfence_block() { ::granule_emu::fence(); }
inline void __threadfence_system() { ::granule_emu::fence(); }
inline void __nanosleep(unsigned) { ::granule_emu::yield(); }
[[noreturn]] inline void __trap() { ::granule_emu::trap(); }

template <class T> inline T __shfl_sync(unsigned mask, T var, int src, int width = 32) {
  return ::granule_emu::from_bits<T>(::granule_emu::warp_op(::granule_emu::SHFL, mask, ::granule_emu::to_bits(var), src, width));
}
template <class T> inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return ::granule_emu::from_bits<T>(::granule_emu::warp_op(::granule_emu::SHFL_UP, mask, ::granule_emu::to_bits(var), (int)delta, width));
}
template <class T> inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return ::granule_emu::from_bits<T>(::granule_emu::warp_op(::granule_emu::SHFL_DOWN, mask, ::granule_emu::to_bits(var), (int)delta, width));
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return ::granule_emu::from_bits<T>(::granule_emu::warp_op(::granule_emu::SHFL_XOR, mask, ::granule_emu::to_bits(var), lane_mask, width));
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  return (unsigned)::granule_emu::warp_op(::granule_emu::BALLOT, mask, pred != 0, 0, 32);
}

inline float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
inline int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
inline long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }

// Bit-counting intrinsics (the header's count_ones, leading_zeros, ..;
// the drivers of granule-algorithms rank ballots with __popc), with CUDA's
// results for zero.
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1u) << (31 - k);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}

// Atomics (defined in runtime.cpp, outside the instrumentation: they are
// counted as atomics and are never data races).
unsigned atomicAdd(unsigned* p, unsigned v);
int atomicAdd(int* p, int v);
unsigned long long atomicAdd(unsigned long long* p, unsigned long long v);
float atomicAdd(float* p, float v);
double atomicAdd(double* p, double v);
unsigned atomicSub(unsigned* p, unsigned v);
int atomicSub(int* p, int v);
unsigned atomicExch(unsigned* p, unsigned v);
int atomicExch(int* p, int v);
unsigned long long atomicExch(unsigned long long* p, unsigned long long v);
float atomicExch(float* p, float v);
unsigned atomicCAS(unsigned* p, unsigned compare, unsigned value);
int atomicCAS(int* p, int compare, int value);
unsigned long long atomicCAS(unsigned long long* p, unsigned long long compare, unsigned long long value);
int atomicMin(int* p, int v);
unsigned atomicMin(unsigned* p, unsigned v);
long long atomicMin(long long* p, long long v);
unsigned long long atomicMin(unsigned long long* p, unsigned long long v);
int atomicMax(int* p, int v);
unsigned atomicMax(unsigned* p, unsigned v);
long long atomicMax(long long* p, long long v);
unsigned long long atomicMax(unsigned long long* p, unsigned long long v);

namespace granule_emu {

// Calls an entry point with arguments laid out as cuLaunchKernel's
// `void** kernelParams`: args[k] points at parameter k's bytes.
template <unsigned long... I> struct Indices {};
template <unsigned long N, unsigned long... I> struct MakeIndices : MakeIndices<N - 1, N - 1, I...> {};
template <unsigned long... I> struct MakeIndices<0, I...> {
  typedef Indices<I...> type;
};
template <class... A, unsigned long... I> inline void call_with(void (*f)(A...), void** args, Indices<I...>) {
  f(*(A*)args[I]...);
}
template <class... A> inline void call_entry(void (*f)(A...), void** args) {
  call_with(f, args, typename MakeIndices<sizeof...(A)>::type());
}
// The entry's parameter count; sizes[k] = sizeof(parameter k) for k < cap.
template <class... A> inline uint64_t entry_signature(void (*)(A...), uint64_t* sizes, uint64_t cap) {
  const uint64_t s[sizeof...(A) + 1] = {(uint64_t)sizeof(A)..., 0};
  for (uint64_t k = 0; k < sizeof...(A) && k < cap; ++k) sizes[k] = s[k];
  return sizeof...(A);
}

}  // namespace granule_emu

#ifndef GRANULE_EMU_RUNTIME
// The worker's dynamic shared memory, which range.cuh declares as
// `extern __shared__ unsigned long long granule_dyn_smem[]`.
namespace granule {
thread_local unsigned long long granule_dyn_smem[GRANULE_EMU_MAX_DYN_SMEM / 8] __attribute__((aligned(16)));
}
extern "C" void* granule_emu_dyn_smem() { return granule::granule_dyn_smem; }
#endif
