// sum_max_count
__device__ void sum_max_count(granule::usize i, granule::View<const granule::f64, 1, granule::LayoutRight> x, granule::Tuple<granule::f64, granule::f64, granule::usize>& a) {
  granule::get<0>(a) += x(i);
  granule::get<1>(a) = granule::max(granule::get<1>(a), x(i));
  granule::get<2>(a) += 1ull;
}

// min_and_flag
__device__ void min_and_flag(granule::usize i, granule::Tuple<granule::f32, bool>& a) {
  granule::get<0>((a)) = granule::min(granule::get<0>(a), (0.5f * ((granule::f32)(i))));
  granule::get<1>(a) = (granule::get<1>(a) || (granule::rem(i, 7ull) == 3ull));
}

