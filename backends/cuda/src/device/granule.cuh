// granule.cuh: the device header of granule's CUDA backend.
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
//   unsigned type no narrower than int (`wadd`, .., "integer ops");
// - division or remainder by zero, and MIN / -1, trap (Rust panics);
// - shift counts are masked to the width (Rust's release behaviour);
// - float -> int `as` saturates, NaN -> 0; int -> int `as` wraps;
// - 8- and 16-bit integers are promoted to int by C++ arithmetic: the
//   translator casts results back (and the helpers below return T), so
//   they wrap at their own width like Rust's;
// - the `core` methods with an exact device form (wrapping_*, checked_*,
//   count_ones, round, ..) compute what core's definitions compute;
//   transcendental functions are CUDA's, within documented bounds;
// - View indexing is bounds-checked: the first failure is recorded in the
//   ErrorRecord `granule_error_at` points to and the thread stops (see
//   stop_thread); so are failed assertions.

// GRANULE_LOOP_TICK(): the first statement of the body of every loop whose
// trip count is not a compile-time constant, in this header and in every
// translated `#[kernel]`/`#[device]` loop (the translator inserts it). On
// a GPU it is nothing; the emulator (shim.h) defines it to count the
// iteration and, every so many, check the launch's time limit, so that a
// loop of arithmetic or atomics alone cannot run forever there. Loops
// bounded by a constant (a rank, sizeof(T), the lanes of a warp) need none.
#ifndef GRANULE_LOOP_TICK
#define GRANULE_LOOP_TICK() ((void)0)
#endif

// GRANULE_WAIT_TICK(): the first statement of every loop of this header
// that waits for other threads (a look-back, a tile counter, a busy map
// slot). A failing thread stops (stop_thread) instead of trapping, so on
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

// ---------------------------------------------------------------- errors

// The first device-side failure of a launch; the host reads and clears it.
struct ErrorRecord {
  u32 code;   // 0 none, 1 out of bounds, 2 division by zero, 3 division overflow, 4 clamp bounds,
              // 5 assertion failed, 6 chunk map precondition (a failed chunk_mut unwrap)
  u32 view;   // View id for code 1
  u64 rank;   // the offending dimension for code 1; the source line for code 5
  u64 index;  // the offending index for code 1
  u64 extent; // the extent for code 1
  // Code 5: device address of the NUL-terminated message
  // "<file>:<line>:<column>: kernel `<name>`: assertion failed: <condition>",
  // or "<file>:<line>:<column>: kernel `<name>`: <custom message>".
  const char* message;
  // Code 5 with nargs > 0: the message is a template whose `{}`/`{:?}`
  // take these values in order and whose literal braces are doubled (the
  // host formats it); up to 4 message arguments, then assert_eq!/assert_ne!'s
  // left and right. kinds: see AssertArg.
  u64 args[6];
  u32 kinds[6];
  u32 nargs;
  // RECORD_COMPLETE once the first failing thread has written and fenced
  // the record; RECORD_TRUNCATED when `text` holds only the message's start.
  u32 flags;
  // Code 5: a copy of `message`, NUL-terminated, cut at 511 bytes. On a GPU
  // the context is unusable after the trap that follows, so the host can
  // read neither the module's string nor device memory: it reads this.
  char text[512];
};
constexpr u32 RECORD_COMPLETE = 1u;
constexpr u32 RECORD_TRUNCATED = 2u;
// The host mirrors this layout (device/record.rs, whose tests check every
// offset with the host compiler's offsetof; NVRTC has no offsetof). The
// older fields keep their offsets, and `flags` took the tail padding.
static_assert(sizeof(ErrorRecord) == 632, "ErrorRecord layout");

// An entry point's parameters as its caller must pass them: the count,
// then `sizeof` of each (codegen defines one per entry, from the entry's
// own type, and the host checks a launch's arguments against it).
template <class F> struct ParamTable;
template <class... P> struct ParamTable<void(P...)> {
  u64 count = sizeof...(P);
  u64 sizes[sizeof...(P) > 0 ? sizeof...(P) : 1] = {(u64)sizeof(P)...};
};

}  // namespace granule

// Named without mangling so the host can find them (cuModuleGetGlobal,
// dlsym). Failures are written where `granule_error_at` points: to
// `granule_error` on the emulator, to a record in mapped pinned host
// memory on a GPU (the device sets the pointer when it loads the module),
// which the host reads after a synchronization. The first failing thread
// claims the word `granule_failed_at` points to: this module's
// `granule_error.code` on the emulator, one word of device memory per
// device on a GPU, which every kernel of that device reads before it
// starts (a launch after a failure does nothing) and which its waiting
// loops watch; the host clears it once it has read the record.
extern "C" {
__device__ granule::ErrorRecord granule_error;
__device__ granule::ErrorRecord* granule_error_at = &granule_error;
__device__ granule::u32* granule_failed_at = &granule_error.code;
}

namespace granule {

// Ends the calling thread after a failure. On a GPU a trap would end the
// launch, but it is a sticky error: on an H100 (driver 580) it made every
// CUDA context of the process unusable, new ones included. So the thread
// exits instead (PTX `exit`; a barrier that only exited threads hold up
// is released, and warp collectives wait for the lanes that have not
// exited), the threads that wait for it stop at their next
// GRANULE_WAIT_TICK, later launches of the device do nothing, and the host
// reports the record at the next synchronization with the device still
// usable. The emulator ends the whole launch, as before.
[[noreturn]] __device__ __forceinline__ void stop_thread() {
#ifdef GRANULE_EMULATOR
  __trap();
#else
  asm volatile("exit;" ::: "memory");
  __builtin_unreachable();
#endif
}
// Whether a thread of this device has failed since the host last read the
// record (a volatile read: the word is written by other blocks).
__device__ __forceinline__ bool failure_claimed() { return *(volatile u32*)granule_failed_at != 0u; }
__device__ __forceinline__ void stop_if_failed() {
  if (failure_claimed()) stop_thread();
}

#ifndef GRANULE_EMULATOR
// On a GPU the record sits at the start of a mapped allocation that goes
// on with the stream's progress word (the number of the last launch that
// completed) and the word the first failure copies it into, which tells
// the host which launch failed (gpu/record.rs mirrors the layout).
struct RecordTail {
  u32 progress;
  u32 failed_after;
};
#endif

// The first failing thread of the device claims the record (it gets the
// record, with the code set) and must fill it, then call publish_and_stop.
// Every later one gets null after waiting, for a bounded time (about 0.1
// s on a GPU), until the record is complete. The claim word is in device
// memory (see granule_failed_at), so no atomic goes to host memory.
__device__ __noinline__ ErrorRecord* claim_record(u32 code) {
  ErrorRecord* r = granule_error_at;
  if (atomicCAS(granule_failed_at, 0u, code) == 0u) {
    r->code = code;
#ifndef GRANULE_EMULATOR
    volatile RecordTail* tail = (volatile RecordTail*)(r + 1);
    tail->failed_after = tail->progress;
#endif
    return r;
  }
  const volatile u32* flags = &r->flags;
  for (u32 k = 0; k < (1u << 16) && (*flags & RECORD_COMPLETE) == 0u; ++k) __nanosleep(1024);
  return nullptr;
}
__device__ __noinline__ void publish_and_stop(ErrorRecord* r) {
  __threadfence_system();
  *(volatile u32*)&r->flags |= RECORD_COMPLETE;
  __threadfence_system();
  stop_thread();
}
// Copies `message` into the record's text, cut (and marked) at its size.
__device__ __noinline__ void record_text(ErrorRecord* r, const char* message) {
  r->message = message;
  u32 k = 0;
  if (message != nullptr) {
    for (; k + 1 < sizeof(r->text) && message[k] != 0; ++k) r->text[k] = message[k];
    if (message[k] != 0) r->flags |= RECORD_TRUNCATED;
  }
  r->text[k] = 0;
}

__device__ __noinline__ void fail(u32 code, u32 view, u64 rank, u64 index, u64 extent) {
  if (ErrorRecord* r = claim_record(code)) {
    r->view = view;
    r->rank = rank;
    r->index = index;
    r->extent = extent;
    publish_and_stop(r);
  }
  stop_thread();
}

// A failed `assert!`/`assert_eq!`/`assert_ne!`: the first failure of the
// launch is recorded (code 5, the source line and the message), then the
// thread traps, as a Rust panic ends the kernel.
__device__ __noinline__ void assert_fail(const char* message, u32 line) {
  if (ErrorRecord* r = claim_record(5u)) {
    r->rank = line;
    record_text(r, message);
    publish_and_stop(r);
  }
  stop_thread();
}
__device__ __forceinline__ void check(bool ok, const char* message, u32 line) {
  if (!ok) assert_fail(message, line);
}

// One recorded assertion message argument: its bits and how to show them
// (1 unsigned, 2 signed (sign-extended), 3 f32 and 4 f64 (both as f64
// bits), 5 bool).
struct AssertArg {
  u64 bits;
  u32 kind;
};
__device__ __forceinline__ AssertArg assert_arg(bool v) { return AssertArg{v ? 1ull : 0ull, 5u}; }
__device__ __forceinline__ AssertArg assert_arg(f32 v) {
  return AssertArg{(u64)__double_as_longlong((f64)v), 3u};
}
__device__ __forceinline__ AssertArg assert_arg(f64 v) {
  return AssertArg{(u64)__double_as_longlong(v), 4u};
}
template <class T> __device__ __forceinline__ AssertArg assert_arg(T v) {
  if constexpr (Num<T>::is_signed) {
    return AssertArg{(u64)(i64)v, 2u};
  } else {
    return AssertArg{(u64)v, 1u};
  }
}

// A failed assertion whose message has values: as above, and the first
// failure also records `n` values. The translator calls it only once the
// condition has failed, so the values are evaluated then, as Rust does.
__device__ __noinline__ void assert_fail(const char* message, u32 line, u32 n, AssertArg a0,
                                         AssertArg a1 = AssertArg{0, 0}, AssertArg a2 = AssertArg{0, 0},
                                         AssertArg a3 = AssertArg{0, 0}, AssertArg a4 = AssertArg{0, 0},
                                         AssertArg a5 = AssertArg{0, 0}) {
  if (ErrorRecord* r = claim_record(5u)) {
    const AssertArg all[6] = {a0, a1, a2, a3, a4, a5};
    for (u32 k = 0; k < 6; ++k) {
      r->args[k] = all[k].bits;
      r->kinds[k] = all[k].kind;
    }
    r->nargs = n < 6u ? n : 6u;
    r->rank = line;
    record_text(r, message);
    publish_and_stop(r);
  }
  stop_thread();
}

// ---------------------------------------------------------- integer ops

// Rust's release profile wraps every integer + - * and <<; C++ does not:
// signed overflow is undefined, and 8- and 16-bit operands are promoted to
// `int`, where even `u16 * u16` can overflow (65535 * 65535 > INT_MAX). So
// these compute in `Num<T>::Wide`, an unsigned type no narrower than
// `int`, where C++ arithmetic wraps, and convert the result back to T:
// modulo 2^bits, which C++20 requires and which NVRTC and g++ implement
// for C++17 too. Floats (and bool) use the operator.
template <class T> __device__ __forceinline__ T wadd(T a, T b) {
  if constexpr (Num<T>::is_float || Num<T>::bits == 1) {
    return a + b;
  } else {
    typedef typename Num<T>::Wide W;
    return (T)((W)a + (W)b);
  }
}
template <class T> __device__ __forceinline__ T wsub(T a, T b) {
  if constexpr (Num<T>::is_float || Num<T>::bits == 1) {
    return a - b;
  } else {
    typedef typename Num<T>::Wide W;
    return (T)((W)a - (W)b);
  }
}
template <class T> __device__ __forceinline__ T wmul(T a, T b) {
  if constexpr (Num<T>::is_float || Num<T>::bits == 1) {
    return a * b;
  } else {
    typedef typename Num<T>::Wide W;
    return (T)((W)a * (W)b);
  }
}
template <class T> __device__ __forceinline__ T wneg(T a) {
  if constexpr (Num<T>::is_float) {
    return from_bits(a, bits_of(a) ^ sign_bit(a));
#ifndef GRANULE_EMULATOR
  } else if constexpr (Num<T>::is_signed && Num<T>::bits == 16) {
    // NVVM turns the negation into `neg.s16`, and on an H100 (NVRTC
    // 12.9, driver 580) a widening of its result lost the sign of
    // -(-32768): `x.wrapping_neg() as i64` gave +32768. The negation is
    // done in 32 bits instead, where NVVM cannot narrow it, and bfe
    // sign-extends its low 16 bits, so the value is already i16's.
    i32 w = (i32)0 - (i32)a;
    asm("bfe.s32 %0, %0, 0, 16;" : "+r"(w));
    return (T)w;
#endif
  } else {
    typedef typename Num<T>::Wide W;
    return (T)((W)0 - (W)a);
  }
}
// Rust's `!`, for an operand whose type the translator cannot see (a
// #[device] function's result, a generic): logical on bool, bitwise on an
// integer, cast back from the `int` that `~` promotes 8- and 16-bit types to.
template <class T> __device__ __forceinline__ T not_(T a) {
  if constexpr (Num<T>::bits == 1) {
    return !a;
  } else {
    return (T)~a;
  }
}
// C++ truncates toward zero like Rust, so only the panicking cases differ.
template <class T> __device__ __forceinline__ void check_div(T a, T b) {
  if constexpr (!Num<T>::is_float) {
    if (b == (T)0) fail(2, 0, 0, 0, 0);
    if constexpr (Num<T>::is_signed) {
      if (a == Num<T>::min_value() && b == (T)-1) fail(3, 0, 0, 0, 0);
    }
  }
}
// After check_div, `a / b` and `a % b` cannot overflow, promoted or not.
template <class T> __device__ __forceinline__ T div(T a, T b) {
  check_div(a, b);
  return (T)(a / b);
}
__device__ __forceinline__ f32 fmod_(f32 a, f32 b) { return fmodf(a, b); }
__device__ __forceinline__ f64 fmod_(f64 a, f64 b) { return ::fmod(a, b); }
template <class T> __device__ __forceinline__ T rem(T a, T b) {
  if constexpr (Num<T>::is_float) {
    return fmod_(a, b);
  } else {
    check_div(a, b);
    return (T)(a % b);
  }
}
// Arithmetic on a value the translator cannot type (`auto`: a `#[device]`
// call with a lambda among its arguments): the right operand, a value of
// the same type or a literal Rust has checked against it, converted to
// the left operand's type.
template <class L, class R> __device__ __forceinline__ L wadd_as(L l, R r) { return wadd(l, (L)r); }
template <class L, class R> __device__ __forceinline__ L wsub_as(L l, R r) { return wsub(l, (L)r); }
template <class L, class R> __device__ __forceinline__ L wmul_as(L l, R r) { return wmul(l, (L)r); }
template <class L, class R> __device__ __forceinline__ L div_as(L l, R r) { return div(l, (L)r); }
template <class L, class R> __device__ __forceinline__ L rem_as(L l, R r) { return rem(l, (L)r); }
// Shift counts are masked to the width, as in Rust's release profile. `<<`
// goes through Wide (a left shift into or past the sign bit of a signed
// type is undefined in C++17); a negative value is shifted right through
// its complement, which is non-negative, so that no right shift depends on
// the implementation-defined shift of a negative number.
template <class T> __device__ __forceinline__ u32 shift_count(u32 s) { return s & (u32)(Num<T>::bits - 1); }
template <class T, class S> __device__ __forceinline__ T shl(T a, S s) {
  typedef typename Num<T>::Wide W;
  return (T)((W)a << shift_count<T>((u32)s));
}
template <class T, class S> __device__ __forceinline__ T shr(T a, S s) {
  const u32 n = shift_count<T>((u32)s);
  if constexpr (Num<T>::is_signed) {
    if (a < (T)0) return (T)~(~a >> n);
  }
  return (T)(a >> n);
}

// ---------------------------------------------------------------- ranges

// Loops over stepped or reversed ranges count iterations in u64 so that no
// intermediate value overflows the loop variable's type; the wrapping u64
// difference of two's-complement values is their distance.
template <class T> __device__ __forceinline__ u64 range_len(T a, T b) { return a < b ? (u64)b - (u64)a : 0ull; }
template <class T> __device__ __forceinline__ u64 range_len_incl(T a, T b) { return a <= b ? (u64)b - (u64)a + 1ull : 0ull; }
__device__ __forceinline__ u64 div_ceil(u64 n, u64 s) { return s == 0ull ? (fail(2, 0, 0, 0, 0), 0ull) : n / s + (n % s != 0ull); }
template <class T> __device__ __forceinline__ T range_at(T a, u64 off) { return (T)((u64)a + off); }

// ----------------------------------------------------------------- casts

// Rust's `as`: float -> int saturates and maps NaN to 0; everything else is
// the C++ conversion, which wraps between integers of these widths.
template <class To, class From> __device__ __forceinline__ To cast(From x) {
  if constexpr (Num<From>::is_float && !Num<To>::is_float && Num<To>::bits > 1) {
    if (x != x) return (To)0;
    // lo and hi are powers of two, exact in every float type.
    const From lo = Num<To>::is_signed ? -(From)((u64)1 << (Num<To>::bits - 1)) : (From)0;
    const From hi = Num<To>::is_signed ? (From)((u64)1 << (Num<To>::bits - 1))
                                       : (From)((u64)1 << (Num<To>::bits - 1)) * (From)2;
    if (x <= lo) return Num<To>::min_value();
    if (x >= hi) return Num<To>::max_value();
    return (To)x;
  } else {
    return (To)x;
  }
}

// ------------------------------------------------------------------ math

// Exact float operations: IEEE-754 specifies their results (square root,
// rounding to an integer, fused multiply-add), so every device gives the
// host's bits. CUDA's own roundf is a sequence whose exactness is not
// documented; `round` below is exact by construction.
#define GRANULE_MATH1(NAME, F32, F64)                                            \
  __device__ __forceinline__ f32 NAME(f32 x) { return F32(x); }                \
  __device__ __forceinline__ f64 NAME(f64 x) { return F64(x); }
GRANULE_MATH1(sqrt, sqrtf, ::sqrt)
GRANULE_MATH1(floor, floorf, ::floor)
GRANULE_MATH1(ceil, ceilf, ::ceil)
GRANULE_MATH1(trunc, truncf, ::trunc)
// Rust's round_ties_even is IEEE roundToIntegralTiesToEven, C's rint.
GRANULE_MATH1(round_ties_even, rintf, ::rint)
// Transcendental functions: a GPU's results differ from the host's libm
// within the bounds the CUDA C++ Programming Guide documents (the kernel
// README lists them; the semantics conformance test checks them).
GRANULE_MATH1(exp, expf, ::exp)
GRANULE_MATH1(exp2, exp2f, ::exp2)
GRANULE_MATH1(exp_m1, expm1f, ::expm1)
GRANULE_MATH1(ln, logf, ::log)
GRANULE_MATH1(log2, log2f, ::log2)
GRANULE_MATH1(log10, log10f, ::log10)
GRANULE_MATH1(ln_1p, log1pf, ::log1p)
GRANULE_MATH1(sin, sinf, ::sin)
GRANULE_MATH1(cos, cosf, ::cos)
GRANULE_MATH1(tan, tanf, ::tan)
GRANULE_MATH1(asin, asinf, ::asin)
GRANULE_MATH1(acos, acosf, ::acos)
GRANULE_MATH1(atan, atanf, ::atan)
GRANULE_MATH1(sinh, sinhf, ::sinh)
GRANULE_MATH1(cosh, coshf, ::cosh)
GRANULE_MATH1(tanh, tanhf, ::tanh)
GRANULE_MATH1(cbrt, cbrtf, ::cbrt)
#undef GRANULE_MATH1
#define GRANULE_MATH2(NAME, F32, F64)                                            \
  __device__ __forceinline__ f32 NAME(f32 x, f32 y) { return F32(x, y); }      \
  __device__ __forceinline__ f64 NAME(f64 x, f64 y) { return F64(x, y); }
GRANULE_MATH2(powf, ::powf, ::pow)
GRANULE_MATH2(atan2, atan2f, ::atan2)
GRANULE_MATH2(hypot, hypotf, ::hypot)
#undef GRANULE_MATH2
template <class T> __device__ __forceinline__ T copysign(T x, T y) {
  return from_bits(x, (bits_of(x) & ~sign_bit(x)) | (bits_of(y) & sign_bit(x)));
}
// Unary minus of a float (the translator's `-x`): its sign bit flipped.
template <class T> __device__ __forceinline__ T neg(T x) { return wneg(x); }
__device__ __forceinline__ f32 mul_add(f32 x, f32 a, f32 b) { return fmaf(x, a, b); }
__device__ __forceinline__ f64 mul_add(f64 x, f64 a, f64 b) { return ::fma(x, a, b); }

template <class T> __device__ __forceinline__ auto to_bits(T x) { return bits_of(x); }
// The quiet NaN Rust's `f32::NAN` / `f64::NAN` are (what signum returns).
template <class T> __device__ __forceinline__ T nan_value() {
  if constexpr (Num<T>::bits == 32) return from_bits(T(), 0x7fc00000u);
  else return from_bits(T(), 0x7ff8000000000000ull);
}
// The smallest positive normal number (`MIN_POSITIVE`).
template <class T> __device__ __forceinline__ T min_positive() {
  if constexpr (Num<T>::bits == 32) return from_bits(T(), 0x00800000u);
  else return from_bits(T(), 0x0010000000000000ull);
}

// Float classification, from comparisons and the sign bit.
template <class T> __device__ __forceinline__ bool is_nan(T x) { return x != x; }
template <class T> __device__ __forceinline__ bool is_infinite(T x) {
  return x == Num<T>::max_value() || x == Num<T>::min_value();
}
template <class T> __device__ __forceinline__ bool is_finite(T x) { return !is_nan(x) && !is_infinite(x); }
template <class T> __device__ __forceinline__ bool is_sign_negative(T x) {
  return (bits_of(x) >> (Num<T>::bits - 1)) != 0u;
}
template <class T> __device__ __forceinline__ bool is_sign_positive(T x) { return !is_sign_negative(x); }
template <class T> __device__ __forceinline__ bool is_normal(T x) {
  return is_finite(x) && (x >= min_positive<T>() || x <= -min_positive<T>());
}
template <class T> __device__ __forceinline__ bool is_subnormal(T x) {
  return x != (T)0 && x < min_positive<T>() && x > -min_positive<T>();
}

// Rust's round: half away from zero. x - trunc(x) is exact (no bits below
// x's last one are lost), and so is t +- 1 for any x with a fraction.
template <class T> __device__ __forceinline__ T round(T x) {
  const T t = trunc(x);
  const T f = x - t;
  if (f >= (T)0.5) return t + (T)1;
  if (f <= (T)-0.5) return t - (T)1;
  return t;
}
// As Rust defines them (core's f32/f64 `math` module), operation by operation.
template <class T> __device__ __forceinline__ T fract(T x) { return x - trunc(x); }
template <class T> __device__ __forceinline__ T recip(T x) { return (T)1 / x; }

// powi by repeated squaring, in the order of the compiler runtime's
// __powisf2/__powidf2 that Rust's powi calls, a negative exponent through
// the reciprocal. Rust leaves powi's precision unspecified (LLVM may also
// expand or fold it), so the result is documented as bounded.
template <class T> __device__ __forceinline__ T powi(T x, i32 n) {
  u32 e = n < 0 ? (u32)0 - (u32)n : (u32)n;
  T r = (T)1;
  while (e != 0u) {
    if (e & 1u) r *= x;
    x *= x;
    e >>= 1;
  }
  return n < 0 ? (T)1 / r : r;
}

// ---------------------------------------------------- core integer methods

// Rust's `(T, bool)` of the overflowing_* methods is a Tuple<T, bool> (the
// header's tuple, defined with the reducers); its `Option<T>` of the
// checked_* methods is a Checked<T>, which the translator only lets a
// kernel unwrap (a failed unwrap is a device failure, as Rust's panic),
// test (`is_some`, `is_none`) or replace (`unwrap_or`).
template <class... Ts> struct Tuple;
template <class T> struct Checked {
  T value;
  bool ok;
};
template <class T> __device__ __forceinline__ Tuple<T, bool> pair(T v, bool overflowed) {
  Tuple<T, bool> r;
  r.head = v;
  r.tail.head = overflowed;
  return r;
}
template <class T> __device__ __forceinline__ Checked<T> checked(T v, bool ok) { return Checked<T>{v, ok}; }
template <class T> __device__ __forceinline__ T unwrap(Checked<T> c, const char* message, u32 line) {
  if (!c.ok) assert_fail(message, line);
  return c.value;
}
template <class T> __device__ __forceinline__ T unwrap_or(Checked<T> c, T otherwise) { return c.ok ? c.value : otherwise; }

template <class T> using UnsignedOf = typename Num<T>::Unsigned;
// `a < 0`, spelled so that no compiler warns about an unsigned T.
template <class T> __device__ __forceinline__ bool is_neg(T a) {
  if constexpr (Num<T>::is_signed) return a < (T)0;
  else return false;
}
template <class T> __device__ __forceinline__ bool is_min(T a) {
  if constexpr (Num<T>::is_signed) return a == Num<T>::min_value();
  else return false;
}
// Whether `a / b` (or `a % b`) overflows: MIN / -1.
template <class T> __device__ __forceinline__ bool div_overflows(T a, T b) {
  if constexpr (Num<T>::is_signed) return a == Num<T>::min_value() && b == (T)-1;
  else return false;
}
template <class T> __device__ __forceinline__ void check_divisor(T b) {
  if (b == (T)0) fail(2, 0, 0, 0, 0);
}

// Whether a + b, a - b, a * b leave T's range.
template <class T> __device__ __forceinline__ bool add_overflows(T a, T b) {
  const T r = wadd(a, b);
  if constexpr (Num<T>::is_signed) return (a < (T)0) == (b < (T)0) && (r < (T)0) != (a < (T)0);
  else return r < a;
}
template <class T> __device__ __forceinline__ bool sub_overflows(T a, T b) {
  const T r = wsub(a, b);
  if constexpr (Num<T>::is_signed) return (a < (T)0) != (b < (T)0) && (r < (T)0) != (a < (T)0);
  else return a < b;
}
// The high 64 bits of a 64 x 64-bit product, exactly, from 32-bit halves.
__device__ __forceinline__ u64 mul_hi_u64(u64 a, u64 b) {
  const u64 al = a & 0xffffffffull, ah = a >> 32, bl = b & 0xffffffffull, bh = b >> 32;
  const u64 lh = al * bh, hl = ah * bl;
  const u64 mid = ((al * bl) >> 32) + (lh & 0xffffffffull) + (hl & 0xffffffffull);
  return ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
template <class T> __device__ __forceinline__ bool mul_overflows(T a, T b) {
  if constexpr (Num<T>::bits < 64 && Num<T>::is_signed) {
    const i64 p = (i64)a * (i64)b;  // |p| <= 2^62: exact
    return p < (i64)Num<T>::min_value() || p > (i64)Num<T>::max_value();
  } else if constexpr (Num<T>::bits < 64) {
    return (u64)a * (u64)b > (u64)Num<T>::max_value();
  } else if constexpr (Num<T>::is_signed) {
    // The magnitudes' product fits when it is at most MAX, or MAX + 1 for a
    // negative result.
    const u64 ma = a < (T)0 ? (u64)0 - (u64)a : (u64)a;
    const u64 mb = b < (T)0 ? (u64)0 - (u64)b : (u64)b;
    const u64 limit = ((a < (T)0) != (b < (T)0)) ? 0x8000000000000000ull : 0x7fffffffffffffffull;
    return mul_hi_u64(ma, mb) != 0ull || ma * mb > limit;
  } else {
    return mul_hi_u64(a, b) != 0ull;
  }
}

template <class T> __device__ __forceinline__ T wrapping_add(T a, T b) { return wadd(a, b); }
template <class T> __device__ __forceinline__ T wrapping_sub(T a, T b) { return wsub(a, b); }
template <class T> __device__ __forceinline__ T wrapping_mul(T a, T b) { return wmul(a, b); }
template <class T> __device__ __forceinline__ T wrapping_neg(T a) { return wneg(a); }
template <class T> __device__ __forceinline__ T wrapping_shl(T a, u32 s) { return shl(a, s); }
template <class T> __device__ __forceinline__ T wrapping_shr(T a, u32 s) { return shr(a, s); }
template <class T> __device__ __forceinline__ T wrapping_abs(T a) { return is_neg(a) ? wneg(a) : a; }
template <class T> __device__ __forceinline__ T wrapping_div(T a, T b) {
  check_divisor(b);
  return div_overflows(a, b) ? a : (T)(a / b);
}
template <class T> __device__ __forceinline__ T wrapping_rem(T a, T b) {
  check_divisor(b);
  return div_overflows(a, b) ? (T)0 : (T)(a % b);
}
// pow by squaring, as core's: in release every product wraps, and the
// product modulo 2^bits does not depend on the order.
template <class T> __device__ __forceinline__ T wrapping_pow(T base, u32 e) {
  T acc = (T)1;
  while (e != 0u) {
    GRANULE_LOOP_TICK();
    if (e & 1u) acc = wmul(acc, base);
    e >>= 1;
    if (e != 0u) base = wmul(base, base);
  }
  return acc;
}
template <class T> __device__ __forceinline__ T pow(T base, u32 e) { return wrapping_pow(base, e); }

// Euclidean division (integers and floats), as core defines it.
template <class T> __device__ __forceinline__ T rem_euclid(T a, T b) {
  if constexpr (Num<T>::is_float) {
    const T r = fmod_(a, b);
    return r < (T)0 ? r + copysign(b, (T)1) : r;
  } else {
    check_div(a, b);
    const T r = (T)(a % b);
    return is_neg(r) ? wadd(r, wrapping_abs(b)) : r;
  }
}
template <class T> __device__ __forceinline__ T div_euclid(T a, T b) {
  if constexpr (Num<T>::is_float) {
    const T q = trunc(a / b);
    if (fmod_(a, b) < (T)0) return b > (T)0 ? q - (T)1 : q + (T)1;
    return q;
  } else {
    check_div(a, b);
    const T q = (T)(a / b);
    // q - 1 and q + 1 cannot overflow: |q| < |MIN| when a % b != 0.
    if (is_neg((T)(a % b))) return b > (T)0 ? (T)(q - 1) : (T)(q + 1);
    return q;
  }
}
template <class T> __device__ __forceinline__ T wrapping_div_euclid(T a, T b) {
  check_divisor(b);
  return div_overflows(a, b) ? a : div_euclid(a, b);
}
template <class T> __device__ __forceinline__ T wrapping_rem_euclid(T a, T b) {
  check_divisor(b);
  return div_overflows(a, b) ? (T)0 : rem_euclid(a, b);
}

// (wrapped result, whether it overflowed), as core's overflowing_*.
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_add(T a, T b) {
  return pair(wadd(a, b), add_overflows(a, b));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_sub(T a, T b) {
  return pair(wsub(a, b), sub_overflows(a, b));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_mul(T a, T b) {
  return pair(wmul(a, b), mul_overflows(a, b));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_neg(T a) {
  if constexpr (Num<T>::is_signed) return pair(wneg(a), is_min(a));
  else return pair(wneg(a), a != (T)0);
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_abs(T a) {
  return pair(wrapping_abs(a), is_min(a));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_shl(T a, u32 s) {
  return pair(shl(a, s), s >= (u32)Num<T>::bits);
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_shr(T a, u32 s) {
  return pair(shr(a, s), s >= (u32)Num<T>::bits);
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_div(T a, T b) {
  return pair(wrapping_div(a, b), div_overflows(a, b));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_rem(T a, T b) {
  return pair(wrapping_rem(a, b), div_overflows(a, b));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_div_euclid(T a, T b) {
  return pair(wrapping_div_euclid(a, b), div_overflows(a, b));
}
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_rem_euclid(T a, T b) {
  return pair(wrapping_rem_euclid(a, b), div_overflows(a, b));
}
// core's overflowing_pow, step by step: the flag is set by any product
// that overflows, the last squaring is skipped.
template <class T> __device__ __forceinline__ Tuple<T, bool> overflowing_pow(T base, u32 e) {
  T acc = (T)1;
  bool over = false;
  while (e != 0u) {
    GRANULE_LOOP_TICK();
    if (e & 1u) {
      over = over || mul_overflows(acc, base);
      acc = wmul(acc, base);
    }
    e >>= 1;
    if (e != 0u) {
      over = over || mul_overflows(base, base);
      base = wmul(base, base);
    }
  }
  return pair(acc, over);
}

// Option<T> as core's checked_*: none where the operation overflows, or
// (division, remainder) where the divisor is zero.
template <class T> __device__ __forceinline__ Checked<T> checked_add(T a, T b) { return checked(wadd(a, b), !add_overflows(a, b)); }
template <class T> __device__ __forceinline__ Checked<T> checked_sub(T a, T b) { return checked(wsub(a, b), !sub_overflows(a, b)); }
template <class T> __device__ __forceinline__ Checked<T> checked_mul(T a, T b) { return checked(wmul(a, b), !mul_overflows(a, b)); }
template <class T> __device__ __forceinline__ Checked<T> checked_neg(T a) {
  const Tuple<T, bool> r = overflowing_neg(a);
  return checked(r.head, !r.tail.head);
}
template <class T> __device__ __forceinline__ Checked<T> checked_abs(T a) { return checked(wrapping_abs(a), !is_min(a)); }
template <class T> __device__ __forceinline__ Checked<T> checked_shl(T a, u32 s) { return checked(shl(a, s), s < (u32)Num<T>::bits); }
template <class T> __device__ __forceinline__ Checked<T> checked_shr(T a, u32 s) { return checked(shr(a, s), s < (u32)Num<T>::bits); }
template <class T> __device__ __forceinline__ bool divisible(T a, T b) { return b != (T)0 && !div_overflows(a, b); }
template <class T> __device__ __forceinline__ Checked<T> checked_div(T a, T b) {
  return divisible(a, b) ? checked((T)(a / b), true) : checked((T)0, false);
}
template <class T> __device__ __forceinline__ Checked<T> checked_rem(T a, T b) {
  return divisible(a, b) ? checked((T)(a % b), true) : checked((T)0, false);
}
template <class T> __device__ __forceinline__ Checked<T> checked_div_euclid(T a, T b) {
  return divisible(a, b) ? checked(div_euclid(a, b), true) : checked((T)0, false);
}
template <class T> __device__ __forceinline__ Checked<T> checked_rem_euclid(T a, T b) {
  return divisible(a, b) ? checked(rem_euclid(a, b), true) : checked((T)0, false);
}
template <class T> __device__ __forceinline__ Checked<T> checked_pow(T base, u32 e) {
  const Tuple<T, bool> r = overflowing_pow(base, e);
  return checked(r.head, !r.tail.head);
}

// Clamped to T's range, as core's saturating_*.
template <class T> __device__ __forceinline__ T saturating_add(T a, T b) {
  if (!add_overflows(a, b)) return wadd(a, b);
  if constexpr (Num<T>::is_signed) return b < (T)0 ? Num<T>::min_value() : Num<T>::max_value();
  else return Num<T>::max_value();
}
template <class T> __device__ __forceinline__ T saturating_sub(T a, T b) {
  if (!sub_overflows(a, b)) return wsub(a, b);
  if constexpr (Num<T>::is_signed) return b > (T)0 ? Num<T>::min_value() : Num<T>::max_value();
  else return Num<T>::min_value();
}
template <class T> __device__ __forceinline__ T saturating_mul(T a, T b) {
  if (!mul_overflows(a, b)) return wmul(a, b);
  if constexpr (Num<T>::is_signed) return (a < (T)0) == (b < (T)0) ? Num<T>::max_value() : Num<T>::min_value();
  else return Num<T>::max_value();
}
template <class T> __device__ __forceinline__ T saturating_pow(T base, u32 e) {
  const Tuple<T, bool> r = overflowing_pow(base, e);
  if (!r.tail.head) return r.head;
  if constexpr (Num<T>::is_signed) return base < (T)0 && (e & 1u) ? Num<T>::min_value() : Num<T>::max_value();
  else return Num<T>::max_value();
}
template <class T> __device__ __forceinline__ T saturating_div(T a, T b) {
  check_divisor(b);
  return div_overflows(a, b) ? Num<T>::max_value() : (T)(a / b);
}
template <class T> __device__ __forceinline__ T saturating_neg(T a) { return is_min(a) ? Num<T>::max_value() : wneg(a); }
template <class T> __device__ __forceinline__ T saturating_abs(T a) { return is_min(a) ? Num<T>::max_value() : wrapping_abs(a); }

// Signs and distances.
template <class T> __device__ __forceinline__ T abs(T x) {
  if constexpr (Num<T>::is_float) return from_bits(x, bits_of(x) & ~sign_bit(x));
  else return wrapping_abs(x);
}
template <class T> __device__ __forceinline__ UnsignedOf<T> unsigned_abs(T a) { return (UnsignedOf<T>)wrapping_abs(a); }
template <class T> __device__ __forceinline__ UnsignedOf<T> abs_diff(T a, T b) {
  typedef typename Num<T>::Wide W;
  return (UnsignedOf<T>)(a < b ? (W)b - (W)a : (W)a - (W)b);
}
// Floats: NaN for NaN (Rust's f32::NAN), otherwise 1 with x's sign.
template <class T> __device__ __forceinline__ T signum(T x) {
  if constexpr (Num<T>::is_float) return x != x ? nan_value<T>() : copysign((T)1, x);
  else return (T)((x > (T)0) - (x < (T)0));
}
template <class T> __device__ __forceinline__ bool is_positive(T a) { return a > (T)0; }
template <class T> __device__ __forceinline__ bool is_negative(T a) { return a < (T)0; }
template <class T> __device__ __forceinline__ bool is_power_of_two(T a) {
  return a != (T)0 && (T)(a & (T)(a - (T)1)) == (T)0;
}

// Bits. CUDA's __clz, __popc, __ffs and __brev work on 32 or 64 bits;
// narrower types are zero-extended into 32 and the result corrected.
template <class T> __device__ __forceinline__ u32 count_ones(T a) {
  if constexpr (Num<T>::bits == 64) return (u32)__popcll((u64)a);
  else return (u32)__popc((u32)(UnsignedOf<T>)a);
}
template <class T> __device__ __forceinline__ u32 count_zeros(T a) { return (u32)Num<T>::bits - count_ones(a); }
template <class T> __device__ __forceinline__ u32 leading_zeros(T a) {
  if constexpr (Num<T>::bits == 64) return (u32)__clzll((i64)a);
  else return (u32)__clz((i32)(u32)(UnsignedOf<T>)a) - (32u - (u32)Num<T>::bits);
}
template <class T> __device__ __forceinline__ u32 trailing_zeros(T a) {
  if (a == (T)0) return (u32)Num<T>::bits;
  if constexpr (Num<T>::bits == 64) return (u32)__ffsll((i64)a) - 1u;
  else return (u32)__ffs((i32)(u32)(UnsignedOf<T>)a) - 1u;
}
template <class T> __device__ __forceinline__ u32 leading_ones(T a) { return leading_zeros((T)~a); }
template <class T> __device__ __forceinline__ u32 trailing_ones(T a) { return trailing_zeros((T)~a); }
template <class T> __device__ __forceinline__ T rotate_left(T a, u32 n) {
  typedef typename Num<T>::Wide W;
  const u32 bits = (u32)Num<T>::bits;
  n %= bits;
  const W x = (W)(UnsignedOf<T>)a;
  return n == 0u ? a : (T)(UnsignedOf<T>)((x << n) | (x >> (bits - n)));
}
template <class T> __device__ __forceinline__ T rotate_right(T a, u32 n) {
  return rotate_left(a, ((u32)Num<T>::bits - n % (u32)Num<T>::bits) % (u32)Num<T>::bits);
}
template <class T> __device__ __forceinline__ T swap_bytes(T a) {
  typedef typename Num<T>::Wide W;
  const W x = (W)(UnsignedOf<T>)a;
  W r = 0;
  for (u32 k = 0; k < (u32)sizeof(T); ++k) r = (r << 8) | ((x >> (8u * k)) & (W)0xff);
  return (T)(UnsignedOf<T>)r;
}
template <class T> __device__ __forceinline__ T reverse_bits(T a) {
  if constexpr (Num<T>::bits == 64) return (T)__brevll((u64)a);
  else return (T)(UnsignedOf<T>)(__brev((u32)(UnsignedOf<T>)a) >> (32u - (u32)Num<T>::bits));
}

// min, max and clamp of any scalar. Integers and bool as Ord's (the second
// argument on a tie, which is the same value). Floats ignore a NaN operand
// (NaN only if both are), as Rust's f32::min/max; Rust leaves the sign of
// a zero result unspecified when the operands are zeros of both signs,
// and the device orders -0 below +0 (IEEE 754-2019 minimumNumber).
template <class T> __device__ __forceinline__ T min(T a, T b) {
  if constexpr (Num<T>::is_float) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return is_sign_negative(a) ? a : b;
  }
  return b < a ? b : a;
}
template <class T> __device__ __forceinline__ T max(T a, T b) {
  if constexpr (Num<T>::is_float) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return is_sign_negative(a) ? b : a;
  }
  return a < b ? b : a;
}
// Rust panics when lo > hi (or either is NaN); a NaN x stays NaN.
template <class T> __device__ __forceinline__ T clamp(T x, T lo, T hi) {
  if (!(lo <= hi)) fail(4, 0, 0, 0, 0);
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}

// ----------------------------------------------------------------- views

struct LayoutRight {};
struct LayoutLeft {};
struct LayoutStride {};

template <class L, int R> struct Offset;
template <int R> struct Offset<LayoutRight, R> {
  static __device__ __forceinline__ usize at(const usize* ext, const usize*, const usize* idx) {
    usize off = idx[0];
    for (int k = 1; k < R; ++k) off = off * ext[k] + idx[k];
    return off;
  }
};
template <int R> struct Offset<LayoutLeft, R> {
  static __device__ __forceinline__ usize at(const usize* ext, const usize*, const usize* idx) {
    usize off = idx[R - 1];
    for (int k = R - 2; k >= 0; --k) off = off * ext[k] + idx[k];
    return off;
  }
};
template <int R> struct Offset<LayoutStride, R> {
  static __device__ __forceinline__ usize at(const usize*, const usize* str, const usize* idx) {
    usize off = 0;
    for (int k = 0; k < R; ++k) off += idx[k] * str[k];
    return off;
  }
};

// A View as passed by value from the host: pointer, extents, strides (in
// elements) and the id that names it in error records. Layout-independent
// layout, so the host packs every View the same way.
template <class T, int R, class L = LayoutRight> struct View {
  static_assert(R >= 1 && R <= 8, "View rank is 1..=8");
  T* data;
  usize ext[R];
  usize str[R];
  u32 id;

  __device__ __forceinline__ usize extent(usize r) const { return r < (usize)R ? ext[r] : (usize)1; }
  template <class... I> __device__ __forceinline__ T& operator()(I... is) const {
    static_assert(sizeof...(I) == R, "index arity must equal the View rank");
    const usize idx[R] = {(usize)is...};
    for (int k = 0; k < R; ++k) {
      if (idx[k] >= ext[k]) fail(1, id, (u64)k, idx[k], ext[k]);
    }
    return data[Offset<L, R>::at(ext, str, idx)];
  }
  // The address of element i of a rank-1 View after checking that the
  // `count` indices from i are in bounds: the first one past the end fails
  // as operator() would. Drivers that read a run of a unit-stride View in
  // wide pieces take the address here, so the run is checked once.
  __device__ __forceinline__ T* span(usize i, usize count) const {
    static_assert(R == 1, "span is for rank-1 Views");
    if (count > 0u && (i >= ext[0] || count > ext[0] - i)) fail(1, id, 0ull, i >= ext[0] ? i : ext[0], ext[0]);
    return data + i * str[0];
  }
};

// ------------------------------------------------------------ wide loads

// Whether `count` elements of T fill whole 16-byte pieces.
template <class T> __host__ __device__ constexpr bool fills_pieces(u32 count) {
  return ((u64)count * sizeof(T)) % 16ull == 0ull;
}

// Whether a rank-1 View's runs of N elements that start at multiples of N
// can load in 16-byte pieces: unit stride, data aligned to 16 bytes, and
// N elements filling whole pieces. Every thread of a launch gets the same
// answer, so a driver branches on it without diverging.
template <u32 N, class T, class L> __device__ __forceinline__ bool loads_in_pieces(const View<const T, 1, L>& x) {
  return fills_pieces<T>(N) && x.str[0] == 1ull && ((u64)x.data & 15ull) == 0ull;
}

// The length of the run of at most N elements that starts at element
// `mine` of a tile of `len`: N, fewer at the end, 0 past it.
template <u32 N> __device__ __forceinline__ u32 run_length(u64 mine, u64 len) {
  return mine >= len ? 0u : len - mine < (u64)N ? (u32)(len - mine) : N;
}

// v[0..count) = x(i), .., x(i + count - 1); v[count..N) is left alone. A
// whole run (count == N) of a View that loads_in_pieces, starting at a
// multiple of N, is read in 16-byte loads (N * sizeof(T) / 16 of them,
// all issued before any value is used); anything else one bounds-checked
// element at a time. The pieces' bytes are copied byte by byte, which the
// compiler turns into register moves and which aliases nothing.
template <u32 N, class T, class L>
__device__ __forceinline__ void load_run(const View<const T, 1, L>& x, bool pieces, u64 i, u32 count, T (&v)[N]) {
  struct alignas(16) Piece {
    u32 w[4];
  };
  if (fills_pieces<T>(N) && pieces && count == N) {
    const Piece* p = (const Piece*)x.span(i, N);
    Piece w[fills_pieces<T>(N) ? N * sizeof(T) / 16u : 1u];
    for (u32 j = 0; j < N * sizeof(T) / 16u; ++j) w[j] = p[j];
    for (u32 b = 0; b < N * sizeof(T); ++b) ((unsigned char*)v)[b] = ((const unsigned char*)w)[b];
  } else {
    for (u32 q = 0; q < N; ++q) {
      if (q < count) v[q] = x(i + q);
    }
  }
}

// ------------------------------------------------------------------ atomics

template <class T> struct AtomicWord { typedef T type; };
template <> struct AtomicWord<f32> { typedef u32 type; };
template <> struct AtomicWord<f64> { typedef u64 type; };
template <> struct AtomicWord<i32> { typedef u32 type; };
template <> struct AtomicWord<i64> { typedef u64 type; };

template <class T> __device__ __forceinline__ typename AtomicWord<T>::type to_word(T v) {
  if constexpr (Num<T>::is_float) return bits_of(v);
  else return (typename AtomicWord<T>::type)v;
}
template <class T, class W> __device__ __forceinline__ T from_word(W w) {
  if constexpr (Num<T>::is_float) return from_bits(T(), w);
  else return (T)w;
}
__device__ __forceinline__ u32 cas_word(u32* p, u32 c, u32 n) { return atomicCAS(p, c, n); }
__device__ __forceinline__ u64 cas_word(u64* p, u64 c, u64 n) { return atomicCAS((unsigned long long*)p, c, n); }

// Compare-and-swap loop; `f` returns false to leave the value alone.
template <class T, class F> __device__ __forceinline__ T cas_loop(T* p, F f) {
  typedef typename AtomicWord<T>::type W;
  W* w = (W*)p;
  W cur = *(volatile W*)w;
  while (true) {
    GRANULE_LOOP_TICK();
    T next;
    if (!f(from_word<T>(cur), next)) return from_word<T>(cur);
    W seen = cas_word(w, cur, to_word(next));
    if (seen == cur) return from_word<T>(cur);
    cur = seen;
  }
}

template <class T> __device__ __forceinline__ T atomic_fetch_add(T* p, T v) {
  if constexpr (Num<T>::is_float) return atomicAdd(p, v);
  else if constexpr (Num<T>::bits == 64) return (T)atomicAdd((unsigned long long*)p, (unsigned long long)v);
  else return (T)atomicAdd((u32*)p, (u32)v);
}
template <class T> __device__ __forceinline__ T atomic_fetch_sub(T* p, T v) {
  if constexpr (Num<T>::is_float) return atomic_fetch_add(p, -v);
  else return atomic_fetch_add(p, wneg(v));
}
// Integers use the hardware min/max; floats a CAS loop, like the host.
template <class T> __device__ __forceinline__ T atomic_fetch_min(T* p, T v) {
  if constexpr (Num<T>::is_float) {
    return cas_loop(p, [v](T x, T& n) { n = v; return v < x; });
  } else if constexpr (Num<T>::bits == 64 && Num<T>::is_signed) {
    return (T)atomicMin((long long*)p, (long long)v);
  } else if constexpr (Num<T>::bits == 64) {
    return (T)atomicMin((unsigned long long*)p, (unsigned long long)v);
  } else {
    return atomicMin(p, v);
  }
}
template <class T> __device__ __forceinline__ T atomic_fetch_max(T* p, T v) {
  if constexpr (Num<T>::is_float) {
    return cas_loop(p, [v](T x, T& n) { n = v; return v > x; });
  } else if constexpr (Num<T>::bits == 64 && Num<T>::is_signed) {
    return (T)atomicMax((long long*)p, (long long)v);
  } else if constexpr (Num<T>::bits == 64) {
    return (T)atomicMax((unsigned long long*)p, (unsigned long long)v);
  } else {
    return atomicMax(p, v);
  }
}
template <class T> __device__ __forceinline__ T atomic_exchange(T* p, T v) {
  return cas_loop(p, [v](T, T& n) { n = v; return true; });
}
template <class T> __device__ __forceinline__ T atomic_load(T* p) { return *(volatile T*)p; }
template <class T> __device__ __forceinline__ void atomic_store(T* p, T v) { atomic_exchange(p, v); }
// Returns the previous value; `ok` tells whether it was replaced. Compares
// bits, so -0.0 and 0.0 differ, as on the host.
template <class T> __device__ __forceinline__ T atomic_compare_exchange(T* p, T current, T next, bool& ok) {
  typedef typename AtomicWord<T>::type W;
  W seen = cas_word((W*)p, to_word(current), to_word(next));
  ok = seen == to_word(current);
  return from_word<T>(seen);
}

template <class T> __device__ __forceinline__ bool atomic_cas_ok(T* p, T current, T next) {
  bool ok;
  atomic_compare_exchange(p, current, next, ok);
  return ok;
}
// The device form of granule_views::AtomicView: any mapping, so strides.
template <class T, int R> struct AtomicView {
  View<T, R, LayoutStride> v;
  __device__ __forceinline__ usize extent(usize r) const { return v.extent(r); }
  template <class... I> __device__ __forceinline__ T* at(I... is) const { return &v(is...); }
};

// ------------------------------------------------------------- reducers

// Each reducer says whether its join is exactly associative: whether every
// grouping of a sequence of joins gives the same bits. Integer wrapping
// arithmetic, bitwise and logical joins, and min/max over a total order
// are; float + and * round, and float comparisons are not a total order
// once a NaN takes part, so their grouping shows in the result. The scan
// driver uses this to pick its look-back (see drive_scan). A reducer that
// does not say (a custom one) counts as not exactly associative.
template <class T> struct Sum {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = wadd(a, b); }
};
template <class T> struct Prod {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return (T)1; }
  static __device__ __forceinline__ void join(T& a, T b) { a = wmul(a, b); }
};
template <class T> struct Min {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return Num<T>::max_value(); }
  static __device__ __forceinline__ void join(T& a, T b) { if (b < a) a = b; }
};
template <class T> struct Max {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return Num<T>::min_value(); }
  static __device__ __forceinline__ void join(T& a, T b) { if (a < b) a = b; }
};
template <class T> struct LAnd {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)1; }
  static __device__ __forceinline__ void join(T& a, T b) { a = (T)(a && b); }
};
template <class T> struct LOr {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = (T)(a || b); }
};
template <class T> struct BAnd {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)~(T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = a & b; }
};
template <class T> struct BOr {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = a | b; }
};

// `Op::exactly_associative` where Op declares it, false otherwise.
template <class Op>
__host__ __device__ constexpr auto exactly_associative_of(int) -> decltype((bool)Op::exactly_associative) {
  return Op::exactly_associative;
}
template <class Op> __host__ __device__ constexpr bool exactly_associative_of(long) { return false; }
template <class Op> __host__ __device__ constexpr bool is_exactly_associative() { return exactly_associative_of<Op>(0); }

// Accumulators of the location reducers (granule_core's ValLocScalar,
// MinMaxLocScalar, MinMaxScalar), with the host's update rules: a tie in
// value keeps the smaller location.
// A multi-index location (`[usize; R]` on the host): compared
// lexicographically, as Rust compares arrays; "nowhere" is every index at
// usize's maximum.
template <int R> struct Loc {
  usize at[R];
};
template <int R> __device__ __forceinline__ bool operator==(const Loc<R>& a, const Loc<R>& b) {
  for (int d = 0; d < R; ++d)
    if (a.at[d] != b.at[d]) return false;
  return true;
}
template <int R> __device__ __forceinline__ bool operator<(const Loc<R>& a, const Loc<R>& b) {
  for (int d = 0; d < R; ++d)
    if (a.at[d] != b.at[d]) return a.at[d] < b.at[d];
  return false;
}
template <int R> struct Num<Loc<R>> {
  static __device__ __forceinline__ Loc<R> max_value() {
    Loc<R> l;
    for (int d = 0; d < R; ++d) l.at[d] = Num<usize>::max_value();
    return l;
  }
};
template <class T, class L> __device__ __forceinline__ void take_min(T& val, L& loc, T v, L l) {
  if (v < val || (v == val && l < loc)) { val = v; loc = l; }
}
template <class T, class L> __device__ __forceinline__ void take_max(T& val, L& loc, T v, L l) {
  if (v > val || (v == val && l < loc)) { val = v; loc = l; }
}
// Ties to the larger location; "nowhere" (the largest) loses every tie.
template <class T, class L> __device__ __forceinline__ void take_max_last(T& val, L& loc, T v, L l) {
  const L none = Num<L>::max_value();
  if (v > val || (v == val && !(l == none) && (loc == none || loc < l))) { val = v; loc = l; }
}
template <class T, class L> struct ValLocScalar {
  T val;
  L loc;
  __device__ __forceinline__ void update_min(T v, L l) { take_min(val, loc, v, l); }
  __device__ __forceinline__ void update_max(T v, L l) { take_max(val, loc, v, l); }
};
template <class T, class L> struct MinMaxLocScalar {
  T min_val;
  T max_val;
  L min_loc;
  L max_loc;
  __device__ __forceinline__ void update(T v, L l) {
    take_min(min_val, min_loc, v, l);
    take_max(max_val, max_loc, v, l);
  }
  __device__ __forceinline__ void update_first_last(T v, L l) {
    take_min(min_val, min_loc, v, l);
    take_max_last(max_val, max_loc, v, l);
  }
};
template <class T> struct MinMaxScalar {
  T min_val;
  T max_val;
  __device__ __forceinline__ void update(T v) {
    if (v < min_val) min_val = v;
    if (v > max_val) max_val = v;
  }
};

// The location reducers, over their accumulators; "nowhere" is the
// location type's maximum, as on the host.
template <class A> struct MinLoc;
template <class T, class L> struct MinLoc<ValLocScalar<T, L>> {
  typedef ValLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return A{Num<T>::max_value(), Num<L>::max_value()}; }
  static __device__ __forceinline__ void join(A& a, A b) { take_min(a.val, a.loc, b.val, b.loc); }
};
template <class A> struct MaxLoc;
template <class T, class L> struct MaxLoc<ValLocScalar<T, L>> {
  typedef ValLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return A{Num<T>::min_value(), Num<L>::max_value()}; }
  static __device__ __forceinline__ void join(A& a, A b) { take_max(a.val, a.loc, b.val, b.loc); }
};
template <class A> struct MinMaxLoc;
template <class T, class L> struct MinMaxLoc<MinMaxLocScalar<T, L>> {
  typedef MinMaxLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() {
    return A{Num<T>::max_value(), Num<T>::min_value(), Num<L>::max_value(), Num<L>::max_value()};
  }
  static __device__ __forceinline__ void join(A& a, A b) {
    take_min(a.min_val, a.min_loc, b.min_val, b.min_loc);
    take_max(a.max_val, a.max_loc, b.max_val, b.max_loc);
  }
};
template <class A> struct MinMaxFirstLastLoc;
template <class T, class L> struct MinMaxFirstLastLoc<MinMaxLocScalar<T, L>> {
  typedef MinMaxLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return MinMaxLoc<A>::identity(); }
  static __device__ __forceinline__ void join(A& a, A b) {
    take_min(a.min_val, a.min_loc, b.min_val, b.min_loc);
    take_max_last(a.max_val, a.max_loc, b.max_val, b.max_loc);
  }
};
template <class A> struct MinMax;
template <class T> struct MinMax<MinMaxScalar<T>> {
  typedef MinMaxScalar<T> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return A{Num<T>::max_value(), Num<T>::min_value()}; }
  static __device__ __forceinline__ void join(A& a, A b) {
    if (b.min_val < a.min_val) a.min_val = b.min_val;
    if (a.max_val < b.max_val) a.max_val = b.max_val;
  }
};

// Tuple accumulators (a Rust tuple reduced by a tuple of reducers): a
// head and the tuple of the rest; `get<N>(t)` is field N, by reference.
template <class... Ts> struct Tuple;
template <> struct Tuple<> {};
template <class T, class... Ts> struct Tuple<T, Ts...> {
  T head;
  Tuple<Ts...> tail;
};
template <int N> struct TupleField {
  template <class T, class... Ts>
  static __device__ __forceinline__ auto& of(Tuple<T, Ts...>& t) { return TupleField<N - 1>::of(t.tail); }
};
template <> struct TupleField<0> {
  template <class T, class... Ts>
  static __device__ __forceinline__ T& of(Tuple<T, Ts...>& t) { return t.head; }
};
template <int N, class... Ts> __device__ __forceinline__ auto& get(Tuple<Ts...>& t) { return TupleField<N>::of(t); }
// A field's value from a constant or temporary tuple (`let (v, o) = ..`,
// `x.overflowing_add(y).0`).
template <int N, class... Ts> __device__ __forceinline__ auto get(const Tuple<Ts...>& t) {
  Tuple<Ts...> copy = t;
  return TupleField<N>::of(copy);
}

// A tuple of reducers (`Reducers<Sum<f64>, Max<f64>, ..>`): reducer k
// reduces field k, as the host's tuple of reducers does.
template <class R> struct ReducerValue;
template <template <class> class R, class T> struct ReducerValue<R<T>> { typedef T type; };
template <class... Rs> struct Reducers;
template <> struct Reducers<> {
  typedef Tuple<> A;
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ A identity() { return A{}; }
  static __device__ __forceinline__ void join(A&, A) {}
};
template <class R, class... Rs> struct Reducers<R, Rs...> {
  typedef Tuple<typename ReducerValue<R>::type, typename ReducerValue<Rs>::type...> A;
  static constexpr bool exactly_associative =
      is_exactly_associative<R>() && is_exactly_associative<Reducers<Rs...>>();
  static __device__ __forceinline__ A identity() {
    A a;
    a.head = R::identity();
    a.tail = Reducers<Rs...>::identity();
    return a;
  }
  static __device__ __forceinline__ void join(A& a, A b) {
    R::join(a.head, b.head);
    Reducers<Rs...>::join(a.tail, b.tail);
  }
};

// -------------------------------------------------------------- drivers

__device__ __forceinline__ u32 flat_thread() { return threadIdx.y * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u32 block_threads() { return blockDim.x * blockDim.y; }

// Dynamic shared memory: the framework's reserved words first (team
// reductions and broadcasts), then the user's team scratch.
extern __shared__ unsigned long long granule_dyn_smem[];

// Calls f(k) for k = first, first + stride, ... below n (stride > 0). The
// loop stops before computing a k + stride that would reach n, so it never
// wraps, whatever n (a range ending at u64's maximum, say): every index
// loop of the drivers is a loop over offsets from a base, through this.
template <class F> __device__ __forceinline__ void stride_loop(u64 first, u64 n, u64 stride, F f) {
  for (u64 k = first; k < n; k += stride) {
    GRANULE_LOOP_TICK();
    f(k);
    if (n - k <= stride) break;
  }
}

// The length of [b, e): 0 when e <= b.
__device__ __forceinline__ u64 span(u64 b, u64 e) { return e > b ? e - b : 0ull; }

// parallel_for over [begin, end): a grid-stride loop over the offsets
// from `begin`, so any grid covers any range (up to u64's maximum) and
// consecutive threads touch consecutive indices.
template <class F> __device__ __forceinline__ void drive_for(u64 begin, u64 end, F f) {
  const u64 first = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  stride_loop(first, span(begin, end), (u64)gridDim.x * blockDim.x, [&](u64 k) { f(begin + k); });
}

// A copy of *p read through volatile words (also for the reducers' struct
// accumulators, whose implicit copy cannot read a volatile object).
template <class T> __device__ __forceinline__ T load_volatile(const T* p) {
  T r;
  if constexpr (sizeof(T) % 4 == 0) {
    const volatile u32* src = (const volatile u32*)p;
    u32* dst = (u32*)&r;
    for (u32 w = 0; w < sizeof(T) / 4; ++w) dst[w] = src[w];
  } else {
    const volatile unsigned char* src = (const volatile unsigned char*)p;
    unsigned char* dst = (unsigned char*)&r;
    for (u32 b = 0; b < sizeof(T); ++b) dst[b] = src[b];
  }
  return r;
}

template <class Op, class T> __device__ T team_join(T v);

// Reduces one value per thread of the block; every thread gets the result.
// Values of any size (struct and tuple accumulators, custom reducers'
// values) go through `team_join`'s warp shuffles and static shared memory,
// not the reserved words, which hold only 8 bytes per thread.
template <class Op, class T> __device__ T block_reduce(T v) { return team_join<Op>(v); }

// Combines one value per thread of the grid: blocks reduce in a fixed
// tree, the last block to finish folds the block partials in block order.
// The result is deterministic for a fixed launch geometry. `counter` must
// be 0 on entry and is 0 again on exit. The result is not finalized: the
// host's parallel_reduce applies a custom reducer's finalize once, as it
// does for every space.
template <class Op, class T>
__device__ void finish_reduce(T acc, T* partials, u32* counter, T* result) {
  T block = block_reduce<Op>(acc);
  __shared__ bool last;
  if (flat_thread() == 0) {
    partials[blockIdx.x] = block;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  T total = Op::identity();
  stride_loop(flat_thread(), gridDim.x, block_threads(), [&](u64 b) { Op::join(total, load_volatile(partials + b)); });
  total = block_reduce<Op>(total);
  if (flat_thread() == 0) {
    *result = total;
    *counter = 0;
  }
}

// parallel_reduce over [begin, end): each thread folds a grid-stride slice,
// then `finish_reduce`.
template <class Op, class T, class F>
__device__ void drive_reduce(u64 begin, u64 end, T* partials, u32* counter, T* result, F f) {
  T acc = Op::identity();
  drive_for(begin, end, [&](u64 i) { f(i, acc); });
  finish_reduce<Op>(acc, partials, counter, result);
}

// ------------------------------------------------------------- MDRange

// The box [lo, hi) of a rank-R MDRange policy, cut into tiles of
// `tile` indices per dimension (the last tile of a dimension may be cut
// short by the box). `order` bit 0: tiles are numbered with the first
// dimension fastest (Iterate::Left), else the last; bit 1: the same for
// the indices within a tile. The host checked that the box's size fits
// in u64 (MDRangePolicy refuses larger boxes) and that every tile extent
// is at least 1; every count below is at most the box's size, so none
// wraps, whatever the tile extents (up to u64's maximum).
template <int R> struct MdRange {
  u64 lo[R];
  u64 hi[R];
  u64 tile[R];
  u64 order;
  // ceil(e / tile) without computing e + tile - 1.
  __device__ __forceinline__ u64 tiles_along(int r) const {
    const u64 e = span(lo[r], hi[r]);
    return e / tile[r] + (e % tile[r] != 0ull);
  }
  __device__ __forceinline__ u64 num_tiles() const {
    u64 n = 1;
    for (int r = 0; r < R; ++r) n *= tiles_along(r);
    return n;
  }
  // Splits k into digits of the given radices, the first dimension
  // fastest when `left`, else the last.
  static __device__ __forceinline__ void digits(u64 k, const u64* radix, bool left, u64* out) {
    for (int s = 0; s < R; ++s) {
      const int r = left ? s : R - 1 - s;
      out[r] = k % radix[r];
      k /= radix[r];
    }
  }
};

// parallel_for over an MDRange: tiles become blocks (grid-stride over the
// tiles), and a block's threads stride over its tile's indices in the
// inner order, so consecutive threads touch consecutive elements of a
// View laid out in that order. A tile is walked over its extents clipped
// to the box, never over the nominal tile: the clipped tile holds at most
// the box's indices, however large the tile extents are.
template <int R, class F> __device__ __forceinline__ void drive_md_for(const MdRange<R>& range, F f) {
  u64 counts[R];
  for (int r = 0; r < R; ++r) counts[r] = range.tiles_along(r);
  stride_loop(blockIdx.x, range.num_tiles(), gridDim.x, [&](u64 t) {
    u64 at[R], lo[R], ext[R];
    MdRange<R>::digits(t, counts, (range.order & 1ull) != 0ull, at);
    u64 cells = 1;
    for (int r = 0; r < R; ++r) {
      // at[r] < ceil(e / tile), so at[r] * tile < e: lo[r] < hi[r].
      lo[r] = range.lo[r] + at[r] * range.tile[r];
      ext[r] = min(range.tile[r], range.hi[r] - lo[r]);
      cells *= ext[r];
    }
    stride_loop(threadIdx.x, cells, blockDim.x, [&](u64 k) {
      u64 idx[R];
      MdRange<R>::digits(k, ext, (range.order & 2ull) != 0ull, idx);
      for (int r = 0; r < R; ++r) idx[r] += lo[r];
      f(idx);
    });
  });
}

template <class Op, int R, class T, class F>
__device__ void drive_md_reduce(const MdRange<R>& range, T* partials, u32* counter, T* result, F f) {
  T acc = Op::identity();
  drive_md_for(range, [&](const u64* idx) { f(idx, acc); });
  finish_reduce<Op>(acc, partials, counter, result);
}

// ---------------------------------------------------------- chunk maps

// A thread's place in a scope: its linear id and the scope's thread count
// (granule_views' ThreadIds, flattened; the maps below only use these).
struct ThreadIds {
  u64 id;
  u64 count;
};

// The maps of granule_views::chunk: `check` is the map's precondition on
// the scope, `map` gives the global index a local index reaches, or false
// where Rust's map returns None.
struct MapIdentity {
  __device__ __forceinline__ bool check(u64 count) const { return count == 1ull; }
  __device__ __forceinline__ bool map(u64 k, const ThreadIds& t, u64& g) const {
    if (t.count != 1ull) return false;
    g = k;
    return true;
  }
};
struct MapContinuousLinear {
  u64 width;
  __device__ __forceinline__ bool check(u64) const { return width != 0ull; }
  __device__ __forceinline__ bool map(u64 k, const ThreadIds& t, u64& g) const {
    if (k >= width) return false;
    if (t.id != 0ull && width > 0xffffffffffffffffull / t.id) return false;  // checked_mul
    const u64 base = t.id * width;
    if (base > 0xffffffffffffffffull - k) return false;  // checked_add
    g = base + k;
    return true;
  }
};

template <class T, class O, class I> struct ThreadChunk;

// A team's part of a chunked View (granule_core's TeamChunk): the outer
// map evaluated with the league rank among the league. Readable by local
// index; threads take their writable part with `chunk_mut`. An access the
// map does not give this team, or past the View, is an out-of-bounds
// failure (code 1, rank 0, the local index and the View's size).
template <class T, class M> struct TeamChunk {
  T* data;
  usize size;
  u32 id;
  M map;
  ThreadIds ids;
  __device__ __forceinline__ usize global(u64 k) const {
    u64 g = 0;
    if (!map.map(k, ids, g) || g >= size) fail(1, id, 0, k, size);
    return g;
  }
  __device__ __forceinline__ const T& operator()(usize k) const { return data[global(k)]; }
  // `chunk_mut(inner, ids).unwrap()`: a map whose precondition fails on
  // the scope is code 6 (a failed unwrap of a ChunkError on the host).
  template <class I> __device__ __forceinline__ ThreadChunk<T, M, I> chunk_mut(I inner, ThreadIds t) const {
    if (!inner.check(t.count)) fail(6, id, 0, t.id, t.count);
    return ThreadChunk<T, M, I>{*this, inner, t};
  }
};

// A thread's writable part of a team's part: `inner` within the team,
// then the team's map.
template <class T, class O, class I> struct ThreadChunk {
  TeamChunk<T, O> outer;
  I inner;
  ThreadIds ids;
  __device__ __forceinline__ T& operator()(usize k) const {
    u64 j = 0;
    if (!inner.map(k, ids, j)) fail(1, outer.id, 0, k, outer.size);
    return outer.data[outer.global(j)];
  }
};

// A chunked View as the host passes it: the elements in row-major order,
// their count, the View's id and the outer (Grid -> Block) map.
template <class T, class M> struct Chunked {
  T* data;
  usize size;
  u32 id;
  M map;
};

// --------------------------------------------------------------- teams

// Scratch as a team launch passes it (by value: the entry parameter
// `granule::TeamScratch scratch__`): the exact bytes the policy reserved
// per team and per team thread at levels 0 and 1 (the host's
// `set_scratch_size(level, PerTeam(..))` / `PerThread(..)`), and the
// level-1 memory. The launch must provide
// - dynamic shared memory of reserved_smem(threads) +
//   scratch_block_bytes(s, 0, team_size) bytes: the framework's reserved
//   words, then level 0 (the team region, then one region per team thread
//   in team-rank order, each starting 16-aligned);
// - `level1`: global memory of gridDim.x * scratch_block_bytes(s, 1,
//   team_size) bytes, 16-aligned (null when that is 0), laid out the same
//   way per block. Level 1 lives in global memory, as in Kokkos's CUDA
//   backend: it is the level for what does not fit in shared memory, and
//   a block reuses its slot for the teams it runs one after the other.
struct TeamScratch {
  u64 team_bytes[2];
  u64 thread_bytes[2];
  unsigned char* level1;
};
__host__ __device__ constexpr u64 round16(u64 bytes) { return (bytes + 15) / 16 * 16; }
// Bytes of one block's scratch at `level` for teams of `team_size` threads.
__host__ __device__ inline u64 scratch_block_bytes(const TeamScratch& s, u32 level, u64 team_size) {
  return round16(s.team_bytes[level]) + round16(s.thread_bytes[level]) * team_size;
}

// One scratch region of a team or team thread: a bump allocator over the
// exact bytes reserved, so a request fits exactly where the host's does.
struct ScratchRegion {
  unsigned char* base;
  u64 bytes;
  mutable u64 used;
  // Where `n` bytes aligned to `align` would start; false if they do not fit.
  __device__ __forceinline__ bool fit(u64 align, u64 n, u64& at) const {
    at = (used + align - 1) / align * align;
    return at <= bytes && n <= bytes - at;
  }
};

// The bytes of a scratch View of `ext` elements of T; false on overflow
// (the host's checked_mul).
template <class T, int R> __device__ __forceinline__ bool scratch_size(const usize (&ext)[R], u64& bytes) {
  u64 n = 1;
  for (int k = 0; k < R; ++k) {
    if (ext[k] != 0ull && n > 0xffffffffffffffffull / ext[k]) return false;
    n *= ext[k];
  }
  if (n > 0xffffffffffffffffull / sizeof(T)) return false;
  bytes = n * sizeof(T);
  return true;
}

// A team is a block: team threads are threadIdx.y, vector lanes threadIdx.x.
struct TeamMember {
  u64 league_rank_;
  u64 league_size_;
  ScratchRegion team_[2];    // shared by the team's threads
  ScratchRegion thread_[2];  // this team thread's; its vector lanes share it

  __device__ __forceinline__ usize league_rank() const { return league_rank_; }
  __device__ __forceinline__ usize league_size() const { return league_size_; }
  __device__ __forceinline__ usize team_rank() const { return threadIdx.y; }
  __device__ __forceinline__ usize team_size() const { return blockDim.y; }
  __device__ __forceinline__ usize vector_lane() const { return threadIdx.x; }
  __device__ __forceinline__ usize vector_length() const { return blockDim.x; }
  __device__ __forceinline__ void team_barrier() const { __syncthreads(); }

  // Scratch requests, as the host's `team_scratch::<T, R>(level, extents)`
  // and `thread_scratch`: the next elements of the region as a LayoutRight
  // View, zero-filled (see drive_team). Every thread of a team makes the
  // same requests, so all get the same team memory. Allocation has no
  // barrier, so it may sit in divergent code. `.unwrap()` of a request
  // that does not fit (or of level 2 and above) fails with code 1, View id
  // 0xffffffff, the level as rank, the bytes requested as index and the
  // bytes left as extent (the host's ScratchError); `*_fits` is
  // `.is_ok()`: it neither fails nor takes anything.
  template <class T, int R, class... E> __device__ View<T, R> team_scratch(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    return scratch_take<T, R>(team_, level, e);
  }
  template <class T, int R, class... E> __device__ View<T, R> thread_scratch(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    return scratch_take<T, R>(thread_, level, e);
  }
  template <class T, int R, class... E> __device__ bool team_scratch_fits(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    u64 at, bytes;
    return scratch_at<T, R>(team_, level, e, at, bytes);
  }
  template <class T, int R, class... E> __device__ bool thread_scratch_fits(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    u64 at, bytes;
    return scratch_at<T, R>(thread_, level, e, at, bytes);
  }
  // Where a request would start and its bytes (all ones on overflow).
  template <class T, int R>
  static __device__ bool scratch_at(const ScratchRegion* rs, usize level, const usize (&ext)[R], u64& at, u64& bytes) {
    at = 0;
    bytes = 0;
    if (level > 1ull) return false;
    const bool sized = scratch_size<T, R>(ext, bytes);
    if (!sized) bytes = 0xffffffffffffffffull;
    return rs[level].fit(alignof(T), bytes, at) && sized;
  }
  template <class T, int R>
  static __device__ View<T, R> scratch_take(const ScratchRegion* rs, usize level, const usize (&ext)[R]) {
    static_assert(R == 1 || R == 2, "scratch Views have rank 1 or 2");
    u64 at, bytes;
    if (!scratch_at<T, R>(rs, level, ext, at, bytes)) {
      const u64 left = level > 1ull ? 0ull : rs[level].bytes - rs[level].used;
      const u64 pad = level > 1ull ? 0ull : at - rs[level].used;
      fail(1, 0xffffffffu, level, bytes > ~pad ? bytes : bytes + pad, left);
    }
    rs[level].used = at + bytes;
    View<T, R> v;
    v.data = (T*)(rs[level].base + at);
    usize stride = 1;
    for (int k = R - 1; k >= 0; --k) {
      v.ext[k] = ext[k];
      v.str[k] = stride;
      stride *= ext[k];
    }
    v.id = 0xffffffffu;
    return v;
  }

  // The value of team thread `src` (vector lane 0), on every thread. The
  // slot is static shared memory of T's size, one per instantiation (as
  // team_join's), not the reserved words, which hold only 8 bytes per
  // thread: a larger T would spill into the team's scratch. Only
  // team_broadcast<T> uses the slot, and every call ends with a barrier
  // after its reads, so the next call's write cannot overtake them.
  // A source past the team fails as the host's assertion does: no thread
  // would write the slot, and the others would read a stale value.
  template <class T> __device__ T team_broadcast(T v, usize src) const {
    static_assert(alignof(T) <= 8, "broadcast values are at most 8-aligned");
    if (src >= (usize)blockDim.y) {
      assert_fail("team_broadcast from team rank {}, but the team has {} threads", 0u, 2u, assert_arg(src),
                  assert_arg((usize)blockDim.y));
    }
    __shared__ unsigned long long slot[(sizeof(T) + 7) / 8];
    if (threadIdx.y == src && threadIdx.x == 0) *(T*)slot = v;
    __syncthreads();
    T r = *(T*)slot;
    __syncthreads();
    return r;
  }
  // Reduces `v` over the team threads: vector lanes replicate a team
  // thread (Kokkos semantics), so lane 0's value counts, once per thread.
  template <class Op, class T> __device__ T team_reduce(T v) const {
    return team_join<Op>(threadIdx.x == 0 ? v : Op::identity());
  }
  // This thread's ids in the team (Block -> Thread scope), flat over the
  // team threads and vector lanes, as granule_core's `thread_ids()`.
  __device__ __forceinline__ ThreadIds thread_ids() const { return ThreadIds{threadIdx.y, blockDim.y}; }
  // Exclusive prefix sum of `v` (vector lane 0's) over the team threads in
  // rank order, on every thread; `total` gets the team's sum.
  // The buffer is the reserved words: 8 bytes per thread of the block, so
  // one T per team thread fits when T has at most 8 bytes.
  template <class T> __device__ T team_scan(T v, T* total = nullptr) const {
    static_assert(sizeof(T) <= 8, "team_scan's buffer holds values of up to 8 bytes per team thread");
    T* buf = (T*)granule_dyn_smem;
    __syncthreads();
    if (threadIdx.x == 0) buf[threadIdx.y] = v;
    __syncthreads();
    T prefix = (T)0, sum = (T)0;
    for (u32 k = 0; k < blockDim.y; ++k) {
      GRANULE_LOOP_TICK();
      if (k < threadIdx.y) prefix = wadd(prefix, buf[k]);
      sum = wadd(sum, buf[k]);
    }
    __syncthreads();
    if (total) *total = sum;
    return prefix;
  }
  // team_scan offset by a global accumulator: the team's total is added to
  // `global(index)` once (by the team's first thread), and every thread
  // gets the previous value plus its exclusive prefix.
  template <class T> __device__ T team_scan_global(T v, const AtomicView<T, 1>& global, usize index) const {
    T total;
    const T prefix = team_scan(v, &total);
    T base = (T)0;
    if (flat_thread() == 0) base = atomic_fetch_add(global.at(index), total);
    return wadd(team_broadcast(base, 0), prefix);
  }
};

// The lanes of this team thread within its warp: vector_length must be a
// power of two up to 32, so a thread's lanes are adjacent and aligned.
__device__ __forceinline__ u32 vector_group() {
  const u32 width = blockDim.x;
  const u32 lane = flat_thread() & 31u;
  return width >= 32u ? 0xffffffffu : (((1u << width) - 1u) << (lane / width * width));
}

// A warp shuffle of any trivially copyable value (scalars of every width,
// the reducers' struct accumulators): `s` moves one 32-bit word, since the
// intrinsics take 4- and 8-byte scalars only.
template <class T, class S> __device__ __forceinline__ T shuffle_words(const T& v, S s) {
  constexpr u32 n = (sizeof(T) + 3) / 4;
  u32 w[n];
  for (u32 k = 0; k < n; ++k) w[k] = 0u;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)w)[b] = ((const unsigned char*)&v)[b];
  for (u32 k = 0; k < n; ++k) w[k] = s(w[k]);
  T r;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)&r)[b] = ((const unsigned char*)w)[b];
  return r;
}

// The warps of the block: this thread's lane and warp, the lanes its warp
// has (the last warp may be partial) and their mask.
struct WarpPlace {
  u32 lane, warp, lanes, mask, warps;
  __device__ __forceinline__ WarpPlace() {
    const u32 t = flat_thread(), n = block_threads();
    lane = t & 31u;
    warp = t >> 5;
    lanes = n - warp * 32u < 32u ? n - warp * 32u : 32u;
    mask = lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;
    warps = (n + 31u) / 32u;
  }
};

// The join of one value per thread of the block, on every thread, for
// values of any size: a shuffle tree per warp, then the warps' results in
// order through static shared memory (32 slots of T), so the reserved
// words (8 bytes per thread) need not hold a struct accumulator. Every
// thread of the block must call it.
template <class Op, class T> __device__ T team_join(T v) {
  __shared__ unsigned long long slots[32 * ((sizeof(T) + 7) / 8)];
  T* parts = (T*)slots;
  const WarpPlace w;
  for (u32 off = 16; off > 0; off >>= 1) {
    const T x = shuffle_words(v, [&](u32 word) { return __shfl_down_sync(w.mask, word, off); });
    if (w.lane + off < w.lanes) Op::join(v, x);
  }
  if (w.lane == 0) parts[w.warp] = v;
  __syncthreads();
  T r = Op::identity();
  for (u32 k = 0; k < w.warps; ++k) {
    GRANULE_LOOP_TICK();
    Op::join(r, parts[k]);
  }
  __syncthreads();  // before a later call overwrites the slots
  return r;
}

// Exclusive prefix, in flat thread order, of one value per thread of the
// block (Op joins an earlier value with a later one); `total` gets every
// value joined. Warp shuffle scans, then the warps' totals in order
// through static shared memory. Every thread of the block must call it.
template <class Op, class T> __device__ T block_exclusive_scan(T v, T& total) {
  __shared__ unsigned long long slots[32 * ((sizeof(T) + 7) / 8)];
  T* sums = (T*)slots;
  const WarpPlace w;
  T incl = v;
  for (u32 off = 1; off < 32u; off <<= 1) {
    T x = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(w.mask, word, off); });
    if (w.lane >= off) {
      Op::join(x, incl);
      incl = x;
    }
  }
  T before = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(w.mask, word, 1u); });
  if (w.lane == 0) before = Op::identity();
  if (w.lane == w.lanes - 1) sums[w.warp] = incl;
  __syncthreads();
  T prefix = Op::identity();
  total = Op::identity();
  for (u32 k = 0; k < w.warps; ++k) {
    GRANULE_LOOP_TICK();
    if (k == w.warp) prefix = total;
    Op::join(total, sums[k]);
  }
  __syncthreads();  // before a later call overwrites the slots
  Op::join(prefix, before);
  return prefix;
}

// `single(PerTeam(m), || v)`: one thread of the team (team thread 0, lane
// 0) evaluates `f`; every thread of the team gets the value.
template <class F> __device__ auto single_per_team(const TeamMember& m, F f) -> decltype(f()) {
  typedef decltype(f()) T;
  T v{};
  if (flat_thread() == 0) v = f();
  return m.team_broadcast(v, 0);
}

// `single(PerThread(m), || v)`: vector lane 0 of this team thread
// evaluates `f`; the thread's lanes get the value (a shuffle within the
// thread's lanes, see vector_group).
template <class F> __device__ auto single_per_thread(const TeamMember&, F f) -> decltype(f()) {
  typedef decltype(f()) T;
  static_assert(sizeof(T) <= 8, "single(PerThread) broadcasts values of up to 8 bytes");
  T v{};
  if (threadIdx.x == 0) v = f();
  const u32 width = blockDim.x;
  if (width == 1u) return v;
  const u32 group = vector_group();
  return shuffle_words(v, [&](u32 word) { return __shfl_sync(group, word, 0, width); });
}

// `single(PerTeam(m), || { .. })` and `single(PerThread(m), || { .. })`
// with no value: the body runs on team thread 0's lane 0, or on lane 0 of
// each team thread. When the body writes shared memory, the translator
// wraps the call in a phase (below), which orders it with the rest.
template <class F> __device__ __forceinline__ void single_per_team_do(const TeamMember&, F f) {
  if (flat_thread() == 0) f();
}
template <class F> __device__ __forceinline__ void single_per_thread_do(const TeamMember&, F f) {
  if (threadIdx.x == 0) f();
}

// Phases of the team write model (macros/src/kernel/team_rules.rs): a
// nested pattern or `single` that writes team scratch runs between two
// team barriers, so its writes meet no other thread's accesses of the
// phases before and after it; one that writes a thread's memory runs
// between two barriers of the thread's vector lanes. Every thread (or
// lane) reaches them: the translator admits these constructs only in
// control flow that is the same on all of them. The closing barrier is a
// destructor, so that it runs after `f`'s value is computed, void or not.
struct TeamPhaseEnd {
  __device__ __forceinline__ ~TeamPhaseEnd() { __syncthreads(); }
};
template <class F> __device__ __forceinline__ auto team_phase(const TeamMember&, F f) -> decltype(f()) {
  __syncthreads();
  const TeamPhaseEnd end;
  return f();
}
struct LanePhaseEnd {
  __device__ __forceinline__ ~LanePhaseEnd() { __syncwarp(vector_group()); }
};
template <class F> __device__ __forceinline__ auto lane_phase(F f) -> decltype(f()) {
  __syncwarp(vector_group());
  const LanePhaseEnd end;
  return f();
}

// The part of `c` that team `m` writes (the driver binds it per team).
template <class T, class M> __device__ __forceinline__ TeamChunk<T, M> team_part(const Chunked<T, M>& c, const TeamMember& m) {
  return TeamChunk<T, M>{c.data, c.size, c.id, c.map, ThreadIds{m.league_rank(), m.league_size()}};
}

// Bytes of dynamic shared memory the framework reserves before team scratch.
__host__ __device__ constexpr u64 reserved_smem(u64 threads) { return ((threads * 8 + 15) / 16) * 16; }

// Zeroes `bytes` (a multiple of 16) at the 8-aligned `p`, all threads of
// the block together.
__device__ __forceinline__ void zero_block_bytes(unsigned char* p, u64 bytes) {
  u64* words = (u64*)p;
  stride_loop(flat_thread(), bytes / 8, block_threads(), [&](u64 k) { words[k] = 0ull; });
}

// The member of team `l`, with its regions carved from this block's
// level-0 (shared) and level-1 (global) scratch as TeamScratch describes.
__device__ __forceinline__ TeamMember team_member(u64 l, u64 league_size, const TeamScratch& s, unsigned char* const (&block)[2]) {
  TeamMember m{l, league_size, {}, {}};
  for (u32 level = 0; level < 2; ++level) {
    const u64 team = round16(s.team_bytes[level]);
    const u64 mine = team + round16(s.thread_bytes[level]) * threadIdx.y;
    m.team_[level] = ScratchRegion{block[level], s.team_bytes[level], 0};
    m.thread_[level] = ScratchRegion{block[level] + mine, s.thread_bytes[level], 0};
  }
  return m;
}

// Runs the league, one team per block at a time, with scratch as
// TeamScratch describes. Every team's scratch (both levels, team and
// thread regions) is zeroed before `f` starts, by all the block's threads
// and behind a barrier, so every allocation is zero-filled like the
// host's. Zeroing here rather than at allocation keeps allocation
// barrier-free (it may run in divergent code, and `*_fits` probes touch
// nothing), and without a barrier a zeroing thread would race with the
// team's first writes; the price is a pass over the reserved bytes, used
// or not, per team.
template <class F> __device__ void drive_team(u64 league_size, const TeamScratch& s, F f) {
  const u64 team_size = blockDim.y;
  const u64 bytes[2] = {scratch_block_bytes(s, 0, team_size), scratch_block_bytes(s, 1, team_size)};
  unsigned char* const block[2] = {
      (unsigned char*)granule_dyn_smem + reserved_smem(block_threads()),
      bytes[1] == 0ull ? nullptr : s.level1 + blockIdx.x * bytes[1]};
  // The trip count is the same on every thread of the block, so the
  // barriers inside are reached by all of them.
  stride_loop(blockIdx.x, league_size, gridDim.x, [&](u64 l) {
    zero_block_bytes(block[0], bytes[0]);
    zero_block_bytes(block[1], bytes[1]);
    __syncthreads();
    const TeamMember team = team_member(l, league_size, s, block);
    f(team);
    __syncthreads();
  });
}

// parallel_reduce over a team policy: each team thread folds its teams'
// contributions (vector lanes replicate the kernel, as in Kokkos, so only
// lane 0 contributes), then `finish_reduce`.
template <class Op, class T, class F>
__device__ void drive_team_reduce(u64 league_size, const TeamScratch& s, T* partials, u32* counter, T* result, F f) {
  T acc = Op::identity();
  drive_team(league_size, s, [&](const TeamMember& team) {
    T mine = Op::identity();
    f(team, mine);
    if (threadIdx.x == 0) Op::join(acc, mine);
  });
  finish_reduce<Op>(acc, partials, counter, result);
}

// Nested ranges: the index is the range begin plus the thread's offset,
// offsets striding over [0, e - b) (stride_loop: no wrap near u64's end).
template <class F> __device__ __forceinline__ void team_thread_for(const TeamMember&, u64 b, u64 e, F f) {
  stride_loop(threadIdx.y, span(b, e), blockDim.y, [&](u64 k) { f(b + k); });
}
template <class F> __device__ __forceinline__ void thread_vector_for(const TeamMember&, u64 b, u64 e, F f) {
  stride_loop(threadIdx.x, span(b, e), blockDim.x, [&](u64 k) { f(b + k); });
}
template <class F> __device__ __forceinline__ void team_vector_for(const TeamMember&, u64 b, u64 e, F f) {
  stride_loop(flat_thread(), span(b, e), block_threads(), [&](u64 k) { f(b + k); });
}

// Nested reductions, with any reducer of the header (scalar, location,
// min-max): every thread gets the result. Team-thread: vector lanes
// replicate the body (Kokkos semantics), so lane 0 of each team thread
// contributes.
template <class Op, class T, class F> __device__ T team_thread_reduce(const TeamMember& m, u64 b, u64 e, F f) {
  T acc = Op::identity();
  team_thread_for(m, b, e, [&](u64 i) { f(i, acc); });
  return team_join<Op>(threadIdx.x == 0 ? acc : Op::identity());
}
template <class Op, class T, class F> __device__ T team_vector_reduce(const TeamMember& m, u64 b, u64 e, F f) {
  T acc = Op::identity();
  team_vector_for(m, b, e, [&](u64 i) { f(i, acc); });
  return team_join<Op>(acc);
}
// Within the lanes of one team thread (see vector_group), a shuffle tree.
template <class Op, class T, class F> __device__ T thread_vector_reduce(const TeamMember& m, u64 b, u64 e, F f) {
  T acc = Op::identity();
  thread_vector_for(m, b, e, [&](u64 i) { f(i, acc); });
  const u32 width = blockDim.x;
  const u32 group = vector_group();
  for (u32 off = width / 2; off > 0; off >>= 1) {
    GRANULE_LOOP_TICK();
    Op::join(acc, shuffle_words(acc, [&](u32 word) { return __shfl_xor_sync(group, word, off, width); }));
  }
  return acc;
}

// Nested scans with the Kokkos contract f(i, partial, final), combined by
// Op: participant k of n scans the k-th contiguous slice of [b, e) from
// the identity (non-final calls), the slice totals are scanned in order,
// and each index gets exactly one final call per participant, its
// partial the join of everything before it. Every participant gets the
// total. Team-thread: the participants are the team threads (vector lanes
// replicate the body, as in team_thread_for); team-vector: every thread of
// the team; thread-vector: the lanes of one team thread.
// Participant k's slice [lo, hi) of [b, e): offsets are clamped to the
// length before they are added to b, and per * k and start + per are
// never formed where they would wrap.
__device__ __forceinline__ void scan_slice(u64 b, u64 e, u64 k, u64 n, u64& lo, u64& hi) {
  const u64 len = span(b, e);
  const u64 per = len / n + (len % n != 0ull);
  const u64 start = k != 0ull && per > len / k ? len : per * k;  // per * k > len: the slice is empty
  const u64 at = start < len ? start : len;
  lo = b + at;
  hi = b + (per < len - at ? at + per : len);
}
// f(i) for i in [lo, hi), in order.
template <class F> __device__ __forceinline__ void for_each_in(u64 lo, u64 hi, F f) {
  for (u64 i = lo; i < hi; ++i) {
    GRANULE_LOOP_TICK();
    f(i);
  }
}
template <class Op, class T, class F> __device__ T team_thread_scan(const TeamMember&, u64 b, u64 e, F f) {
  u64 lo, hi;
  scan_slice(b, e, threadIdx.y, blockDim.y, lo, hi);
  T local = Op::identity();
  for_each_in(lo, hi, [&](u64 i) { f(i, local, false); });
  // The last lane stands for its team thread: the flat-order exclusive
  // prefix of every lane of thread y then covers the threads before y.
  T total;
  T prefix = block_exclusive_scan<Op>(threadIdx.x == blockDim.x - 1 ? local : Op::identity(), total);
  for_each_in(lo, hi, [&](u64 i) { f(i, prefix, true); });
  return total;
}
template <class Op, class T, class F> __device__ T team_vector_scan(const TeamMember&, u64 b, u64 e, F f) {
  u64 lo, hi;
  scan_slice(b, e, flat_thread(), block_threads(), lo, hi);
  T local = Op::identity();
  for_each_in(lo, hi, [&](u64 i) { f(i, local, false); });
  T total;
  T prefix = block_exclusive_scan<Op>(local, total);
  for_each_in(lo, hi, [&](u64 i) { f(i, prefix, true); });
  return total;
}
template <class Op, class T, class F> __device__ T thread_vector_scan(const TeamMember&, u64 b, u64 e, F f) {
  const u32 width = blockDim.x, lane = threadIdx.x, group = vector_group();
  u64 lo, hi;
  scan_slice(b, e, lane, width, lo, hi);
  T local = Op::identity();
  for_each_in(lo, hi, [&](u64 i) { f(i, local, false); });
  T incl = local;
  for (u32 off = 1; off < width; off <<= 1) {
    GRANULE_LOOP_TICK();
    T x = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(group, word, off, width); });
    if (lane >= off) {
      Op::join(x, incl);
      incl = x;
    }
  }
  T prefix = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(group, word, 1u, width); });
  if (lane == 0) prefix = Op::identity();
  const T total = shuffle_words(incl, [&](u32 word) { return __shfl_sync(group, word, width - 1, width); });
  for_each_in(lo, hi, [&](u64 i) { f(i, prefix, true); });
  return total;
}

// ---------------------------------------------------------------- scan

// parallel_scan over [begin, end) in one pass, chaining tiles with a
// decoupled look-back (Merrill & Garland 2016).
//
// Tiles. A tile is blockDim.x * scan_items(sizeof(T)) consecutive indices.
// Each thread makes the Kokkos non-final call f(i, v, false), v starting
// at the identity, for the indices k * blockDim.x + threadIdx.x of the
// tile (striped, so a warp's calls touch consecutive indices), then the
// final call f(i, partial, true) for the same indices: one call of each
// kind per index. Between the two the tile is scanned in shared memory:
// the values are transposed so that thread t holds the run of `items`
// consecutive values starting at t * items, each thread folds its run,
// the block scans the folds (block_exclusive_scan), and each thread
// writes the exclusive prefixes of its run back for the final calls.
//
// Tile status. Tile t publishes its aggregate (the join of its values)
// and, when asked to, an inclusive prefix, each with its state, PENDING <
// AGGREGATE < INCLUSIVE (TileStates). Values of up to 4 bytes share one
// 64-bit word with their state, written and read with single 64-bit
// accesses, so no reader sees a state without its value and no fence is
// needed; larger values sit in `values` (aggregate and inclusive prefix
// per tile) behind a state word, with a fence on each side.
//
// Look-back. Warp 0 of the block reads the states of 32 tiles at once
// (one per lane) and spins only while one of them is still PENDING.
// - Exactly associative Op (is_exactly_associative): any grouping gives
//   the same bits, so the usual look-back runs: every tile publishes its
//   inclusive prefix, and a tile joins the aggregates back to the nearest
//   inclusive prefix, 32 tiles per step (lookback_nearest).
// - Otherwise (float sum and product, float min/max, custom and tuple
//   reducers over them) where the look-back stops would decide the
//   grouping and results would depend on timing. Instead tile t's
//   exclusive prefix is a fixed function of t. With windows of 32 tiles,
//   w = t / 32, j = t % 32, a_t the tile aggregates, and HS(x)[l] lane l of
//   the Hillis-Steele inclusive scan of 32 values (warp_inclusive_scan):
//     S_w     = HS(a_32w .. a_32w+31)[31]             (window total)
//     P_0     = S_0,  P_w = P_(w-1) + S_w             (through window w)
//     L_j     = HS(a_32w .. a_32w+31)[j - 1]          (j > 0)
//     excl(t) = P_(w-1) + L_j,  or the term that exists when w or j is 0
//               (the identity for t = 0);
//   `+` is Op::join, its left operand the earlier. Only the last tile of a
//   window publishes an inclusive prefix, P_w. A tile reads the
//   aggregates before it in its window, then P_(w-1): from tile 32w - 1
//   if published, otherwise it computes the S of the windows it walks
//   back over (up to 32) and folds them onto the first P it finds, left
//   to right: P_w's definition is a left fold, so the bits do not depend
//   on where the walk stopped (lookback_fixed, window_prefix).
// The total is excl(t) + a_t of the last tile t; an empty range gives
// the identity. Within a tile the grouping is fixed by the block size.
//
// Workspace (codegen::workspace::scan_workspace sizes it; the order is the
// entry's tail): `status`, one zeroed u64 per tile; `values`, 2 T per tile
// when sizeof(T) > 4 and unused otherwise; `tiles`, one zeroed u32 from
// which blocks claim tiles in launch order, so a tile only ever waits on
// tiles claimed before it, whose blocks are running; `result`, one T. The
// block is 1-D, a multiple of 32 threads; any grid works (blocks loop
// while tiles are left); dynamic shared memory holds
// scan_slots(tile) values of T.

// Items per thread of a scan tile, by the size of T: 16 for values of up
// to 4 bytes, 8 for 8-byte ones, else 32 bytes of values per thread (at
// least 1). codegen::workspace::scan_items mirrors it; a test compares
// the two. The entry carries __launch_bounds__(256, scan_min_blocks(
// sizeof(T))). Measured on an H100 with the bench's functor at 2^28
// (benches/results/2026-11-27-gpu-pattern-scan.md): i32 2.87 ms with 8
// items and no cap, 1.63 with 16 and 3 blocks, 1.43 with 16 and 4 (64
// registers); i64 / f64 6.49 / 7.06 ms with 4 items and no cap, 5.27 /
// 5.08 with 8 and no cap, 4.40 / 5.14 with 8 and 3 blocks (80 registers,
// no spills). Other sizes were not measured and keep 32 bytes a thread
// and no cap. The cap is a trade: a user functor that needs more
// registers spills to local memory (slower, never wrong). Kokkos caps
// nothing by default (LaunchBounds<0, 0>) and sizes its blocks by
// occupancy instead; our block is fixed, so the cap is what keeps
// enough warps resident.
__host__ __device__ constexpr u32 scan_items(u64 bytes) {
  return bytes <= 4ull ? 16u : bytes == 8ull ? 8u : bytes >= 32ull ? 1u : (u32)(32ull / bytes);
}
__host__ __device__ constexpr u32 scan_min_blocks(u64 bytes) {
  return bytes <= 4ull ? 4u : bytes == 8ull ? 3u : 1u;
}
// The shared-memory slot of tile element e: one pad slot per 32 keeps the
// threads of a warp on distinct banks when each reads its run of `items`.
__host__ __device__ constexpr u64 scan_slot(u64 e) { return e + e / 32ull; }

enum : u32 { TILE_PENDING = 0u, TILE_AGGREGATE = 1u, TILE_INCLUSIVE = 2u };

// The bytes of a value of up to 4 bytes as the low half of a status word.
template <class T> __device__ __forceinline__ u32 low_bits(const T& v) {
  u32 w = 0u;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)&w)[b] = ((const unsigned char*)&v)[b];
  return w;
}
template <class T> __device__ __forceinline__ T from_low_bits(u32 w) {
  T v;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)&v)[b] = ((const unsigned char*)&w)[b];
  return v;
}

// The published state of the tiles: `read` returns a tile's state and,
// unless PENDING, sets `v` to the value published with it.
template <class T, bool Packed = (sizeof(T) <= 4)> struct TileStates;
template <class T> struct TileStates<T, true> {
  u64* status;
  T* values;  // unused: the value travels in the status word
  __device__ __forceinline__ void publish(u64 tile, u32 state, const T& v) const {
    ((volatile u64*)status)[tile] = (u64)state << 32 | (u64)low_bits(v);
  }
  __device__ __forceinline__ u32 read(u64 tile, T& v) const {
    const u64 w = ((volatile u64*)status)[tile];
    const u32 state = (u32)(w >> 32);
    if (state != TILE_PENDING) v = from_low_bits<T>((u32)w);
    return state;
  }
};
template <class T> struct TileStates<T, false> {
  u64* status;
  T* values;  // per tile: aggregate, inclusive prefix
  __device__ __forceinline__ void publish(u64 tile, u32 state, const T& v) const {
    values[2ull * tile + (state == TILE_INCLUSIVE ? 1ull : 0ull)] = v;
    __threadfence();  // the value before the state that announces it
    ((volatile u64*)status)[tile] = (u64)state;
  }
  __device__ __forceinline__ u32 read(u64 tile, T& v) const {
    const u32 state = (u32)((volatile u64*)status)[tile];
    if (state != TILE_PENDING) {
      __threadfence();  // the state before the value it announces
      v = load_volatile(values + 2ull * tile + (state == TILE_INCLUSIVE ? 1ull : 0ull));
    }
    return state;
  }
};

// Lane l of the Hillis-Steele inclusive scan over a full warp: at step d
// lane l >= d joins lane l - d's value on its left. Lane l's result
// depends only on lanes 0..l, and its grouping only on l.
template <class Op, class T> __device__ __forceinline__ T warp_inclusive_scan(T v, u32 lane) {
  for (u32 off = 1; off < 32u; off <<= 1) {
    T x = shuffle_words(v, [&](u32 word) { return __shfl_up_sync(0xffffffffu, word, off); });
    if (lane >= off) {
      Op::join(x, v);
      v = x;
    }
  }
  return v;
}
template <class T> __device__ __forceinline__ T lane_value(const T& v, u32 src) {
  return shuffle_words(v, [&](u32 word) { return __shfl_sync(0xffffffffu, word, src); });
}

// Exactly associative Op: the exclusive prefix of `tile` (> 0) on every
// lane of the first warp. Lane l reads tile end - 1 - l; the aggregates
// back to the nearest inclusive prefix are joined, then the window moves
// back by 32 if it held none (tile 0 always publishes one).
template <class Op, class T> __device__ T lookback_nearest(const TileStates<T>& st, u64 tile, u32 lane) {
  T after = Op::identity();  // the tiles between the window and `tile`
  for (u64 end = tile;; end -= 32ull) {
    GRANULE_LOOP_TICK();
    const bool here = end > (u64)lane;
    const u64 at = end - 1ull - lane;
    T v = Op::identity();
    u32 s = TILE_PENDING;
    while (true) {
      GRANULE_WAIT_TICK();
      if (here && s == TILE_PENDING) s = st.read(at, v);
      if (__ballot_sync(0xffffffffu, here && s == TILE_PENDING) == 0u) break;
    }
    const u32 incl = __ballot_sync(0xffffffffu, here && s == TILE_INCLUSIVE);
    // The lanes up to and including the nearest inclusive one.
    const u32 take = incl != 0u ? incl ^ (incl - 1u) : 0xffffffffu;
    T x = here && (take >> lane & 1u) ? v : Op::identity();
    // Ascending offsets pair neighbouring runs, so lane 0 ends with the
    // lanes joined in tile order (higher lanes are earlier tiles).
    for (u32 off = 1; off < 32u; off <<= 1) {
      T y = shuffle_words(x, [&](u32 word) { return __shfl_down_sync(0xffffffffu, word, off); });
      if (lane + off < 32u) {
        Op::join(y, x);
        x = y;
      }
    }
    x = lane_value(x, 0u);
    Op::join(x, after);
    after = x;
    if (incl != 0u) return after;
  }
}

// P_k (see drive_scan) on every lane of the first warp: tile 32k + 31's
// inclusive prefix if published; otherwise S_k from window k's 32
// aggregates, and on back, lane m keeping S_(k-m), until a published P or
// window 0 (P_0 = S_0); the S are then folded onto it oldest first. After
// 32 windows it waits for the next P rather than keep more.
template <class Op, class T> __device__ T window_prefix(const TileStates<T>& st, u64 k, u32 lane) {
  T saved = Op::identity();
  u32 taken = 0u;
  T base = Op::identity();
  for (;;) {
    GRANULE_LOOP_TICK();
    const u64 win = k - taken;
    T v = Op::identity();
    u32 s = TILE_PENDING;
    while (true) {
      GRANULE_WAIT_TICK();
      // Lane 31 keeps watching for the window's P while others are pending.
      if (s == TILE_PENDING || (lane == 31u && s == TILE_AGGREGATE)) s = st.read(win * 32ull + lane, v);
      const bool has_p = __ballot_sync(0xffffffffu, lane == 31u && s == TILE_INCLUSIVE) != 0u;
      const bool ready = __ballot_sync(0xffffffffu, s == TILE_PENDING) == 0u;
      if (has_p || (ready && taken < 32u)) break;
    }
    if (__ballot_sync(0xffffffffu, lane == 31u && s == TILE_INCLUSIVE) != 0u) {
      base = lane_value(v, 31u);
      break;
    }
    const T total = lane_value(warp_inclusive_scan<Op>(v, lane), 31u);
    if (win == 0ull) {
      base = total;
      break;
    }
    if (lane == taken) saved = total;
    ++taken;
  }
  for (u32 m = taken; m-- > 0u;) {
    GRANULE_LOOP_TICK();
    Op::join(base, lane_value(saved, m));
  }
  return base;
}

// Any Op: tile t's exclusive prefix excl(t), a fixed function of t (see
// drive_scan), on every lane of the first warp; `agg` is the tile's
// aggregate, already published. The last tile of a window publishes P_w.
template <class Op, class T> __device__ T lookback_fixed(const TileStates<T>& st, u64 tile, const T& agg, u32 lane) {
  const u64 w = tile / 32ull;
  const u32 j = (u32)(tile % 32ull);
  T a = lane == j ? agg : Op::identity();
  u32 s = TILE_PENDING;
  const bool earlier = lane < j;
  while (true) {
    GRANULE_WAIT_TICK();
    if (earlier && s == TILE_PENDING) s = st.read(w * 32ull + lane, a);
    if (__ballot_sync(0xffffffffu, earlier && s == TILE_PENDING) == 0u) break;
  }
  const T local = warp_inclusive_scan<Op>(a, lane);
  const T before = lane_value(local, j == 0u ? 0u : j - 1u);  // L_j
  const T window = lane_value(local, 31u);                      // S_w when j == 31
  T prior = Op::identity();
  if (w > 0ull) prior = window_prefix<Op>(st, w - 1ull, lane);
  T excl = Op::identity();
  if (w > 0ull) excl = prior;
  if (j > 0u) {
    if (w > 0ull) Op::join(excl, before);
    else excl = before;
  }
  if (j == 31u && lane == 0u) {
    T through = window;
    if (w > 0ull) {
      through = prior;
      Op::join(through, window);
    }
    st.publish(tile, TILE_INCLUSIVE, through);
  }
  return excl;
}

// The number of tiles of `per_tile` indices that n indices make, after
// checking the block's shape: 1-D, whole warps (the look-back's warp
// collectives name all 32 lanes of warp 0). With no tiles, block 0 writes
// the identity as the total.
template <class Op, class T> __device__ __forceinline__ u64 scan_tile_count(u64 n, u64 per_tile, T* result) {
  if (blockDim.x % 32u != 0u || blockDim.y != 1u || blockDim.z != 1u) __trap();
  const u64 ntiles = n / per_tile + (n % per_tile != 0ull);
  if (ntiles == 0ull && blockIdx.x == 0u && threadIdx.x == 0u) *result = Op::identity();
  return ntiles;
}

// The next tile for the block, from the launch's tile counter, on every
// thread (`tile_s` is the block's shared slot for it). The first barrier
// waits for the previous tile's readers of the block's shared memory.
__device__ __forceinline__ u64 claim_tile(u32* tiles, u32& tile_s) {
  __syncthreads();
  if (threadIdx.x == 0u) tile_s = atomicAdd(tiles, 1u);
  __syncthreads();
  return tile_s;
}

// body(tile) for each tile the block claims from the launch's tile
// counter, in claim order, until none of the `ntiles` is left (blocks
// claim in launch order, so a tile only waits on tiles whose blocks are
// running). Every thread of the block runs it.
// (A driver whose registers grew inside the lambda, as compaction's did,
// loops on claim_tile itself.)
template <class Body> __device__ __forceinline__ void for_claimed_tiles(u32* tiles, u64 ntiles, Body body) {
  __shared__ u32 tile_s;
  for (;;) {
    GRANULE_WAIT_TICK();
    const u64 tile = claim_tile(tiles, tile_s);
    if (tile >= ntiles) return;
    body(tile);
    if ((u64)gridDim.x >= ntiles) return;  // every tile had its own block
  }
}

// Warp 0's part of a scan tile (see drive_scan): publishes the tile's
// aggregate `agg`, finds the tile's exclusive prefix by the look-back
// that suits Op (lookback_nearest, or lookback_fixed's fixed order),
// publishes the inclusive prefix that look-back asks for, and for the last
// tile writes its inclusive prefix to *result unless `result` is null (a
// scan whose total is its own last value writes that instead). Every lane
// of warp 0 returns the prefix.
template <class Op, class T>
__device__ T tile_exclusive_prefix(const TileStates<T>& st, u64 tile, u64 ntiles, const T& agg, T* result, u32 lane) {
  T excl = Op::identity();
  if constexpr (is_exactly_associative<Op>()) {
    if (lane == 0u) st.publish(tile, tile == 0ull ? TILE_INCLUSIVE : TILE_AGGREGATE, agg);
    if (tile > 0ull) {
      excl = lookback_nearest<Op>(st, tile, lane);
      if (lane == 0u) {
        T incl = excl;
        Op::join(incl, agg);
        st.publish(tile, TILE_INCLUSIVE, incl);
      }
    }
  } else {
    if (lane == 0u) st.publish(tile, TILE_AGGREGATE, agg);
    excl = lookback_fixed<Op>(st, tile, agg, lane);
  }
  if (result != nullptr && lane == 0u && tile == ntiles - 1ull) {
    T total = excl;
    Op::join(total, agg);
    *result = total;
  }
  return excl;
}

// drive_scan's tile loop over element values: load(i) is index i's value
// (its contribution to the scan) and fin(i, prefix, value) gets its
// exclusive prefix with the value load gave, and returns the running
// value after it; the last index's is the total (*result), the scan's own
// last value rather than the look-back's regrouped prefix, which may
// differ in a float's last bit. A thread issues all its
// loads of a tile before it stores any to shared memory, so they are in
// flight together, and it keeps the values in registers for fin: a scan
// whose load and fin both read x(i) reads memory once.
template <class Op, class T, class Load, class Fin>
__device__ void drive_scan_values(u64 begin, u64 end, u64* status, T* values, u32* tiles, T* result, Load load,
                                  Fin fin) {
  constexpr u32 items = scan_items(sizeof(T));
  const u32 block = blockDim.x, t = threadIdx.x, lane = t & 31u;
  const TileStates<T> st{status, values};
  const u64 n = end > begin ? end - begin : 0ull;
  const u64 per_tile = (u64)block * items;
  const u64 ntiles = scan_tile_count<Op>(n, per_tile, result);
  if (ntiles == 0ull) return;
  T* slots = (T*)granule_dyn_smem;
  __shared__ T prefix_s;
  for_claimed_tiles(tiles, ntiles, [&](u64 tile) {
    const u64 first = begin + tile * per_tile;
    const u64 left = n - tile * per_tile;  // indices from `first` on; this tile takes per_tile of them
    T own[items];
    for (u32 k = 0; k < items; ++k) {
      const u64 e = (u64)k * block + t;
      own[k] = e < left ? load(first + e) : Op::identity();
    }
    for (u32 k = 0; k < items; ++k) slots[scan_slot((u64)k * block + t)] = own[k];
    __syncthreads();
    T run[items];
    for (u32 q = 0; q < items; ++q) run[q] = slots[scan_slot((u64)t * items + q)];
    T fold = run[0];
    for (u32 q = 1; q < items; ++q) Op::join(fold, run[q]);
    T agg;
    T prefix = block_exclusive_scan<Op>(fold, agg);
    for (u32 q = 0; q < items; ++q) {
      slots[scan_slot((u64)t * items + q)] = prefix;
      Op::join(prefix, run[q]);
    }
    if (t < 32u) {
      const T excl = tile_exclusive_prefix<Op>(st, tile, ntiles, agg, (T*)nullptr, lane);
      if (lane == 0u) prefix_s = excl;
    }
    __syncthreads();
    for (u32 k = 0; k < items; ++k) {
      const u64 e = (u64)k * block + t;
      if (e < left) {
        T p = prefix_s;
        Op::join(p, slots[scan_slot(e)]);
        const T after = fin(first + e, p, own[k]);
        if (e + 1ull == left) *result = after;
      }
    }
  });
}

// The Kokkos form: the non-final call f(i, v, false), v starting at the
// identity, gives index i's value; the final call f(i, prefix, true).
template <class Op, class T, class F>
__device__ void drive_scan(u64 begin, u64 end, u64* status, T* values, u32* tiles, T* result, F f) {
  drive_scan_values<Op>(
      begin, end, status, values, tiles, result,
      [&](u64 i) {
        T v = Op::identity();
        f(i, v, false);
        return v;
      },
      [&](u64 i, T p, const T&) {
        f(i, p, true);
        return p;
      });
}

}  // namespace granule
