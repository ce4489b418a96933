// ints
__device__ void ints(granule::usize i, granule::i64& y, granule::i32 a, granule::u32 b, granule::isize c, granule::View<const granule::u64, 1, granule::LayoutRight> x) {
  const granule::i32 q = granule::wsub(granule::wadd(granule::div(a, 7), granule::rem(a, 7)), (granule::wneg(a)));
  const granule::u32 r = (granule::shr((granule::shl(b, 3)), 1u) | ((b & 255u) ^ (~b)));
  const granule::i32 m = granule::max(granule::min(q, -3), granule::abs(a));
  const granule::u64 w = ((x(i) * 3ull) + (((granule::u64)(c))));
  const bool ok = (((q > 0) && (r != 0u)) || (!((w == 0ull))));
  const granule::f64 f = ((((granule::f64)(w))) * 0.5);
  if (ok) {
    y = granule::wadd(granule::wadd(granule::wadd((((granule::i64)(m))), (granule::cast<granule::i64>(f))), (((granule::i64)(r)))), granule::div(granule::Num<granule::i64>::max_value(), (granule::wadd(((granule::i64)(i)), ((granule::i64)1ull)))));
  } else {
    y = ((granule::i64)-1ull);
  }
}

