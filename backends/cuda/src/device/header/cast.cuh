// cast.cuh: Rust's `as`.
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

