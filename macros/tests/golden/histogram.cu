// BINS
constexpr granule::usize BINS = 16ull;

// bin_of
__device__ __forceinline__ granule::usize bin_of(granule::f32 v, granule::f32 lo, granule::f32 width) {
  const granule::usize b = granule::cast<granule::usize>(((((v - lo)) / width)));
  if ((b >= 16ull)) {
    return 15ull;
  } else {
    return b;
  }
}

// histogram
__device__ void histogram(granule::usize i, granule::View<const granule::f32, 1, granule::LayoutRight> x, granule::f32 lo, granule::f32 width, granule::AtomicView<granule::u32, 1> h, granule::AtomicView<granule::f32, 1> m) {
  const granule::usize b = bin_of(x(i), lo, width);
  granule::atomic_fetch_add(h.at(granule::rem(b, BINS)), 1u);
  const granule::u32 old = granule::atomic_fetch_add(h.at(0ull), 0u);
  granule::atomic_fetch_max(m.at(0ull), x(i));
  granule::atomic_fetch_min(m.at(1ull), x(i));
  const granule::f32 prev = granule::atomic_exchange(m.at(2ull), x(i));
  if ((!granule::atomic_cas_ok(m.at(3ull), prev, x(i)))) {
    granule::atomic_store(m.at(4ull), (((granule::f32)(granule::atomic_load(h.at(5ull)))) + (((granule::f32)(old)))));
  }
}

