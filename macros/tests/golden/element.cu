// above
__device__ __forceinline__ bool above(granule::i64 x, granule::i64 threshold) {
  return (x > threshold);
}

// by_low_byte
__device__ __forceinline__ bool by_low_byte(granule::u32 a, granule::u32 b) {
  return (((a & 255u)) < ((b & 255u)));
}

// lookup
__device__ __forceinline__ granule::f64 lookup(granule::u32 i, granule::View<const granule::f64, 1, granule::LayoutRight> table, granule::f64 scale) {
  (!((i < 1000u)) ? granule::assert_fail("<parsed string 7>:15:5: kernel `lookup`: index {} out of the table", 15u, 1u, granule::assert_arg(i)) : (void)0);
  return (table(((granule::usize)(i))) * scale);
}

// less_than
template <class T>
__device__ __forceinline__ bool less_than(T a, T b) {
  return (a < b);
}

