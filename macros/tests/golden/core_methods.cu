// core_methods
__device__ void core_methods(granule::usize i, granule::u64& y, granule::f32& z, granule::i32 a, granule::u16 b, granule::View<const granule::f32, 1, granule::LayoutRight> x) {
  const auto tuple_g1 = granule::overflowing_mul(a, 3);
  const granule::i32 v = granule::get<0>(tuple_g1);
  const bool over = granule::get<1>(tuple_g1);
  const granule::i32 w = granule::get<0>(granule::overflowing_sub(a, v));
  const granule::u16 s = granule::wadd(granule::rotate_left(granule::saturating_add(b, ((granule::u16)60000)), 3u), ((granule::u16)(granule::count_ones(b))));
  const granule::i32 c = granule::wadd(granule::wadd(granule::unwrap(granule::checked_div(a, v), "<parsed string 5>:10:30: kernel `core_methods`: called `Option::unwrap()` on a `None` value", 10u), granule::unwrap(granule::checked_rem(a, 7), "<parsed string 5>:10:58: kernel `core_methods`: seven", 10u)), granule::unwrap_or(granule::checked_add(a, 1), 0));
  const granule::i32 d = ((granule::checked_neg(a)).ok ? granule::wrapping_neg(a) : ((granule::i32)(granule::abs_diff(a, w))));
  const granule::u64 bits = ((granule::u64)(granule::to_bits(granule::from_bits(granule::f32(), ((granule::u32)(b))))));
  y = (((((((granule::u64)(c))) ^ (((granule::u64)(granule::rem_euclid(d, 5))))) ^ (((granule::u64)(s)))) ^ (((granule::u64)(over)))) ^ bits);
  const granule::f32 f = x(i);
  const granule::f32 sign = (granule::is_nan(f) ? 0.0f : granule::signum(f));
  z = (((granule::copysign(granule::round(f), -1.0f) + granule::max(granule::fract(f), granule::from_bits(granule::f32(), 1u))) + granule::mul_add(f, 2.0f, granule::powi(f, 3))) + sign);
}

// twice
__device__ __forceinline__ granule::i64 twice(granule::i64 v) {
  return granule::wmul(v, ((granule::i64)2ull));
}

// device_literals
__device__ void device_literals(granule::usize _i, granule::i64& y, granule::i64 n) {
  y = granule::wadd(granule::wmul(twice(1), ((granule::Plain<decltype(twice(granule::val<granule::i32>()))>)3ull)), twice(granule::wsub(n, ((granule::i64)1ull))));
  y = granule::wadd(y, granule::wmul(twice([&]() {
  const granule::i64 t = granule::wadd(n, ((granule::i64)1ull));
  return granule::wmul(t, t);
}()), ((granule::Plain<decltype(twice(granule::val<granule::i64>()))>)2ull)));
}

