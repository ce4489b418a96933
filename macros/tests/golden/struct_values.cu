// Pair
struct Pair {
  granule::u64 lo;
  granule::u64 hi;
};

// start
__device__ __forceinline__ Pair start(granule::u64 seed) {
  return ([&] { Pair s_g1{}; s_g1.lo = seed; s_g1.hi = (~seed); return s_g1; }());
}

// step
__device__ __forceinline__ Pair step(Pair p) {
  return ([&] { Pair s_g1{}; s_g1.lo = (p.hi ^ (granule::shl(p.lo, 7))); s_g1.hi = p.lo; return s_g1; }());
}

// steps
__device__ __forceinline__ Pair steps(Pair p, granule::usize n) {
  Pair q = p;
  for (granule::usize it_g1 = 0ull, end_g2 = n; it_g1 < end_g2; ++it_g1) {
    const granule::usize _k = it_g1;
    GRANULE_LOOP_TICK();
    q = step(q);
  }
  return q;
}

// mix
__device__ void mix(granule::usize i, granule::u64& y, granule::usize n) {
  const granule::Plain<decltype(steps(granule::val<granule::Plain<decltype(start(granule::val<granule::u64>()))>>(), granule::val<granule::usize>()))> p = steps(start(((granule::u64)(i))), n);
  y = (p.lo ^ p.hi);
}

