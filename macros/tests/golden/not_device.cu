// even
__device__ __forceinline__ bool even(granule::u32 x) {
  return (granule::rem(x, 2u) == 0u);
}

// low
__device__ __forceinline__ granule::u8 low(granule::u32 x) {
  return ((granule::u8)(x));
}

// flip
template <class T>
__device__ __forceinline__ T flip(T x) {
  return granule::not_(x);
}

// not_device
__device__ void not_device(granule::usize i, granule::u32& y, granule::u8& m, bool& b) {
  granule::u32 x = ((granule::u32)(i));
  while (granule::not_(even(x))) {
    GRANULE_LOOP_TICK();
    x += 1u;
  }
  if ((granule::not_(even((x + 1u))) && (!((x > 7u))))) {
    y = (~x);
  }
  m = granule::not_(low(x));
  b = granule::not_(flip(even(x)));
}

