// int.cuh: Rust's integer operators (wrapping, trapping division, masked shifts); range lengths.
// ---------------------------------------------------------- integer ops

// Rust's release profile wraps every integer + - * and <<; C++ does not:
// signed overflow is undefined, and 8- and 16-bit operands are promoted to
// `int`, where even `u16 * u16` can overflow (65535 * 65535 > INT_MAX). So
// these compute in `Num<T>::Wide`, an unsigned type no narrower than
// `int`, where C++ arithmetic wraps, and convert the result back to T:
// modulo 2^bits, which C++20 requires and which NVRTC and g++ implement
// for C++17 too. Floats (and bool) use the operator. They are constexpr
// because a `#[device] const`'s initializer is translated through them.
template <class T> __host__ __device__ constexpr __forceinline__ T wadd(T a, T b) {
  if constexpr (Num<T>::is_float || Num<T>::bits == 1) {
    return a + b;
  } else {
    typedef typename Num<T>::Wide W;
    return (T)((W)a + (W)b);
  }
}
template <class T> __host__ __device__ constexpr __forceinline__ T wsub(T a, T b) {
  if constexpr (Num<T>::is_float || Num<T>::bits == 1) {
    return a - b;
  } else {
    typedef typename Num<T>::Wide W;
    return (T)((W)a - (W)b);
  }
}
template <class T> __host__ __device__ constexpr __forceinline__ T wmul(T a, T b) {
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
    // NVVM turns the negation into `neg.s16`, and NVRTC 12.9 can widen
    // its result without the sign of -(-32768) (`x.wrapping_neg() as i64`
    // giving +32768). The negation is done in 32 bits instead, where NVVM
    // cannot narrow it, and bfe sign-extends its low 16 bits, so the value
    // is already i16's.
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

