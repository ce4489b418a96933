// checked
__device__ void checked(granule::usize i, granule::i64& y, granule::usize n, granule::View<const granule::i64, 1, granule::LayoutRight> x) {
  (!((i < n)) ? granule::assert_fail("<parsed string 1>:6:5: kernel `checked`: index {} past {}", 6u, 2u, granule::assert_arg(i), granule::assert_arg(n)) : (void)0);
  granule::check((granule::rem(x(i), ((granule::i64)2ull)) == ((granule::i64)0ull)), "<parsed string 1>:7:5: kernel `checked`: assertion failed: x [i] % 2 == 0", 7u);
  [&]() { const auto left_g1 = x(i); const auto right_g2 = ((granule::i64)-2ull); if (!(left_g1 != right_g2)) granule::assert_fail("<parsed string 1>:8:5: kernel `checked`: assertion failed: x [i] != - 2: sentinel\n  left: {:\?}\n right: {:\?}", 8u, 2u, granule::assert_arg(left_g1), granule::assert_arg(right_g2)); }();
  y = granule::div(x(i), ((granule::i64)2ull));
}

