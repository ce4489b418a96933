// core_methods.cuh: core's integer and float methods (checked_*, pow, bits, min/max, ..).
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

