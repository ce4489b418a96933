// checked
__device__ void checked(granule::usize i, granule::i64& y, granule::usize n, granule::View<const granule::i64, 1, granule::LayoutRight> x) {
  granule::check((i < n), "<parsed string 1>:5:5: kernel `checked`: assertion failed: i < n", 5u);
  granule::check((granule::rem(x(i), ((granule::i64)2ull)) == ((granule::i64)0ull)), "<parsed string 1>:6:5: kernel `checked`: assertion failed: x [i] % 2 == 0", 6u);
  granule::check((x(i) != ((granule::i64)-2ull)), "<parsed string 1>:7:5: kernel `checked`: assertion failed: x [i] != - 2", 7u);
  y = granule::div(x(i), ((granule::i64)2ull));
}

