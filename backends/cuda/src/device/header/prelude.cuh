// prelude.cuh: the device header's start: conventions, tick macros, exact-width types, Num.
//
// Self-contained on purpose: NVRTC from the PyPI wheel has no headers at
// all, so nothing here includes anything. Every generated translation unit
// starts with this text, followed by the translated `#[kernel]`/`#[device]`
// functions and one `extern "C"` wrapper per instantiation.
//
// Conventions that keep Rust semantics on the device:
// - integer widths are exact (usize is 64-bit, checked below);
// - integer + - * << and unary - wrap (two's complement), like Rust's
//   release profile, without C++ undefined behaviour: they compute in an
//   unsigned type no narrower than int (`wadd`, .., int.cuh);
// - division or remainder by zero, and MIN / -1, trap (Rust panics);
// - shift counts are masked to the width (Rust's release behaviour);
// - float -> int `as` saturates, NaN -> 0; int -> int `as` wraps;
// - 8- and 16-bit integers are promoted to int by C++ arithmetic: the
//   translator casts results back (and the helpers of int.cuh return
//   T), so they wrap at their own width like Rust's;
// - the `core` methods with an exact device form (wrapping_*, checked_*,
//   count_ones, round, ..) compute what core's definitions compute;
//   transcendental functions are CUDA's, within documented bounds;
// - View indexing is bounds-checked: the first failure is recorded in the
//   ErrorRecord `granule_error_at` points to and the thread stops (see
//   stop_thread); so are failed assertions.

// GRANULE_LOOP_TICK(): the first statement of the body of every loop whose
// trip count is not a compile-time constant, in the device header and in
// every translated `#[kernel]`/`#[device]` loop (the translator inserts
// it). On a GPU it is nothing; the emulator (shim.h) defines it to count the
// iteration and, every so many, check the launch's time limit, so that a
// loop of arithmetic or atomics alone cannot run forever there. Loops
// bounded by a constant (a rank, sizeof(T), the lanes of a warp) need none.
#ifndef GRANULE_LOOP_TICK
#define GRANULE_LOOP_TICK() ((void)0)
#endif

// GRANULE_WAIT_TICK(): the first statement of every loop of the device
// header that waits for other threads (a look-back, a tile counter, a busy
// map slot). A failing thread stops (stop_thread) instead of trapping, so on
// a GPU the threads waiting for it must see the failure and stop too, or
// they would wait forever: the tick reads the device's failure word. The
// emulator ends the whole launch at the failure, so there it is the loop
// tick.
#ifdef GRANULE_EMULATOR
#define GRANULE_WAIT_TICK() GRANULE_LOOP_TICK()
#else
#define GRANULE_WAIT_TICK() ::granule::stop_if_failed()
#endif

// GRANULE_ENTRY_CHECK(): the first statement of every entry point. On a
// GPU a launch queued after a failure does nothing: the failed launch's
// outputs are incomplete, and a driver's later launch may index by them.
// The emulator runs no launch after a failure at all.
#ifdef GRANULE_EMULATOR
#define GRANULE_ENTRY_CHECK() ((void)0)
#else
#define GRANULE_ENTRY_CHECK() \
  do {                          \
    if (::granule::failure_claimed()) return; \
  } while (0)
#endif

namespace granule {

typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef u64 usize;
typedef i64 isize;
typedef float f32;
typedef double f64;

static_assert(sizeof(i8) == 1 && sizeof(u8) == 1, "8-bit integers");
static_assert(sizeof(i16) == 2 && sizeof(u16) == 2, "16-bit integers");
static_assert(sizeof(i32) == 4 && sizeof(u32) == 4, "32-bit integers");
static_assert(sizeof(i64) == 8 && sizeof(u64) == 8, "64-bit integers");
static_assert(sizeof(usize) == 8 && sizeof(void*) == 8, "usize is 64-bit");

// ---------------------------------------------------------------- traits

template <class T> struct Num;
// `Wide` is the unsigned type an integer's + - * << are computed in: no
// narrower than `int`, so that C++ never promotes it to a signed type.
#define GRANULE_INT(T, U, W, BITS, SIGNED, MINV, MAXV)                       \
  template <> struct Num<T> {                                                \
    typedef U Unsigned;                                                      \
    typedef W Wide;                                                          \
    static constexpr bool is_float = false;                                  \
    static constexpr bool is_signed = SIGNED;                                \
    static constexpr int bits = BITS;                                        \
    static __device__ __forceinline__ T min_value() { return MINV; }         \
    static __device__ __forceinline__ T max_value() { return MAXV; }         \
  };
GRANULE_INT(i8, u8, u32, 8, true, (i8)(-128), (i8)127)
GRANULE_INT(u8, u8, u32, 8, false, (u8)0, (u8)0xff)
GRANULE_INT(i16, u16, u32, 16, true, (i16)(-32768), (i16)32767)
GRANULE_INT(u16, u16, u32, 16, false, (u16)0, (u16)0xffff)
GRANULE_INT(i32, u32, u32, 32, true, (i32)0x80000000u, (i32)0x7fffffff)
GRANULE_INT(u32, u32, u32, 32, false, 0u, 0xffffffffu)
GRANULE_INT(i64, u64, u64, 64, true, (i64)0x8000000000000000ull, (i64)0x7fffffffffffffffll)
GRANULE_INT(u64, u64, u64, 64, false, 0ull, 0xffffffffffffffffull)
#undef GRANULE_INT
template <> struct Num<bool> {
  typedef bool Unsigned;
  static constexpr bool is_float = false;
  static constexpr bool is_signed = false;
  static constexpr int bits = 1;
  static __device__ __forceinline__ bool min_value() { return false; }
  static __device__ __forceinline__ bool max_value() { return true; }
};
// `bits` is the width, so that conditions over every Num (such as cast's)
// name members that exist for any instantiation.
template <> struct Num<f32> {
  static constexpr bool is_float = true;
  static constexpr bool is_signed = true;
  static constexpr int bits = 32;
  static __device__ __forceinline__ f32 min_value() { return -__int_as_float(0x7f800000); }
  static __device__ __forceinline__ f32 max_value() { return __int_as_float(0x7f800000); }
};
template <> struct Num<f64> {
  static constexpr bool is_float = true;
  static constexpr bool is_signed = true;
  static constexpr int bits = 64;
  static __device__ __forceinline__ f64 min_value() { return -__longlong_as_double(0x7ff0000000000000ll); }
  static __device__ __forceinline__ f64 max_value() { return __longlong_as_double(0x7ff0000000000000ll); }
};


// `T` without const or reference: the type of a variable initialized from
// an expression of type T (the translator spells the types of `#[device]`
// results and constants as `Plain<decltype(..)>`).
template <class T> struct PlainOf { typedef T type; };
template <class T> struct PlainOf<const T> { typedef T type; };
template <class T> struct PlainOf<T&> { typedef typename PlainOf<T>::type type; };
template <class T> using Plain = typename PlainOf<T>::type;

// A value of type T for unevaluated contexts only (never defined): the
// translator spells a `#[device]` call's result type from its arguments'
// types, `Plain<decltype(f(val<A>(), ..))>`, so that the type can be
// named before the arguments' variables are declared (`let mut acc =
// 0.0;` ahead of a loop whose body adds `f(x, j)` to it).
template <class T> __device__ T& val();

// The bits of a float and back (`to_bits`, `f32::from_bits`), and its sign
// bit: negation, `abs` and `copysign` change only that bit, as Rust
// guarantees (NaN payloads included), where PTX's neg.f32 and abs.f32
// leave a NaN's bits unspecified.
__device__ __forceinline__ u32 bits_of(f32 v) { return (u32)__float_as_int(v); }
__device__ __forceinline__ u64 bits_of(f64 v) { return (u64)__double_as_longlong(v); }
__device__ __forceinline__ f32 from_bits(f32, u32 b) { return __int_as_float((i32)b); }
__device__ __forceinline__ f64 from_bits(f64, u64 b) { return __longlong_as_double((i64)b); }
__device__ __forceinline__ u32 sign_bit(f32) { return 0x80000000u; }
__device__ __forceinline__ u64 sign_bit(f64) { return 0x8000000000000000ull; }

