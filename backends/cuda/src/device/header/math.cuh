// math.cuh: float functions, exact and transcendental, and float classification.
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

