// nested_folds
__device__ void nested_folds(const granule::TeamMember& team, granule::View<const granule::f64, 1, granule::LayoutRight> x, granule::View<const granule::u32, 1, granule::LayoutRight> k, granule::ValLocScalar<granule::f64, granule::usize>& acc) {
  const granule::usize n = x.extent(0ull);
  const granule::ValLocScalar<granule::f64, granule::usize> lo = granule::thread_vector_reduce<granule::MinLoc<granule::ValLocScalar<granule::f64, granule::usize>>, granule::ValLocScalar<granule::f64, granule::usize>>(team, 0ull, n, [&](granule::usize i, granule::ValLocScalar<granule::f64, granule::usize>& a) {
  a.update_min(x(i), i);
});
  const granule::MinMaxLocScalar<granule::f64, granule::u32> both = granule::team_vector_reduce<granule::MinMaxLoc<granule::MinMaxLocScalar<granule::f64, granule::u32>>, granule::MinMaxLocScalar<granule::f64, granule::u32>>(team, 0ull, n, [&](granule::usize i, granule::MinMaxLocScalar<granule::f64, granule::u32>& a) {
  a.update(x(i), k(i));
});
  const granule::MinMaxScalar<granule::f64> span = granule::team_thread_reduce<granule::MinMax<granule::MinMaxScalar<granule::f64>>, granule::MinMaxScalar<granule::f64>>(team, 0ull, n, [&](granule::usize i, granule::MinMaxScalar<granule::f64>& a) {
  a.update(x(i));
});
  const granule::u32 bits = granule::team_thread_scan<granule::BOr<granule::u32>, granule::u32>(team, 0ull, n, [&](granule::usize i, granule::u32& p, bool last) {
  p |= k(i);
  if ((last && (p < k(i)))) {
    p = 0u;
  }
});
  const bool all = granule::thread_vector_scan<granule::LAnd<bool>, bool>(team, 0ull, n, [&](granule::usize i, bool& p, bool) {
  p = (p && (x(i) > 0.0));
});
  const granule::usize count = granule::thread_vector_scan<granule::Sum<granule::usize>, granule::usize>(team, 0ull, n, [&](granule::usize, granule::usize& p, bool) {
  p += 1ull;
});
  const granule::f64 least = granule::team_vector_scan<granule::Min<granule::f64>, granule::f64>(team, 0ull, n, [&](granule::usize i, granule::f64& p, bool) {
  p = granule::min(p, x(i));
});
  if (((((all && (bits != 0u)) && (count == n)) && (lo.val == least)) && (both.min_val == span.min_val))) {
    acc.update_max(both.max_val, lo.loc);
    acc.val += ((span.max_val - span.min_val) + (((granule::f64)(both.max_loc))));
  }
}

