// peak
__device__ void peak(granule::usize i, granule::View<const granule::f32, 1, granule::LayoutRight> x, granule::ValLocScalar<granule::f32, granule::u32>& a) {
  a.update_max((x(i) * 2.0f), ((granule::u32)(i)));
}

// spread
__device__ void spread(granule::usize i, granule::View<const granule::i64, 1, granule::LayoutRight> x, granule::MinMaxLocScalar<granule::i64, granule::usize>& a) {
  a.update(granule::wsub(x(i), ((granule::i64)1ull)), i);
}

// range_of
__device__ void range_of(granule::usize i, granule::MinMaxScalar<granule::u16>& a) {
  a.update(((granule::u16)((granule::rem(i, 7ull)))));
}

// peak2
__device__ void peak2(granule::usize i, granule::usize j, granule::View<const granule::f64, 2, granule::LayoutRight> a, granule::ValLocScalar<granule::f64, granule::Loc<2>>& acc) {
  acc.update_max(a(i, j), granule::Loc<2>{{i, (j + 1ull)}});
}

