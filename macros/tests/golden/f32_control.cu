// control
__device__ void control(granule::usize i, granule::f32& y, granule::View<const granule::f32, 2, granule::LayoutLeft> x, granule::usize n) {
  const granule::f32 SCALE = 0.5f;
  granule::f32 acc = 0.0f;
  for (granule::usize it_g1 = 0ull, end_g2 = x.extent(1ull); it_g1 < end_g2; ++it_g1) {
    const granule::usize j = it_g1;
    GRANULE_LOOP_TICK();
    acc += x(i, j);
  }
  for (granule::u64 it_g3 = 0, n_g4 = granule::div_ceil(granule::range_len(0ull, n), 2ull); it_g3 < n_g4; ++it_g3) {
    const granule::usize j = granule::range_at(0ull, it_g3 * 2ull);
    GRANULE_LOOP_TICK();
    acc -= ((((granule::f32)(j))) * SCALE);
  }
  for (granule::u64 it_g5 = 0, n_g6 = granule::div_ceil(granule::range_len_incl(1ull, n), 1ull); it_g5 < n_g6; ++it_g5) {
    const granule::usize j = granule::range_at(n, (granule::u64)0 - it_g5 * 1ull);
    GRANULE_LOOP_TICK();
    if ((granule::rem(j, 3ull) == 0ull)) {
      continue;
    }
    acc = granule::mul_add(acc, 0.99f, 1.0f);
  }
  for (granule::u64 it_g7 = 0, n_g8 = granule::div_ceil(granule::range_len(0ull, n), 3ull); it_g7 < n_g8; ++it_g7) {
    const granule::usize j = granule::range_at(granule::range_at(n, ~0ull), (granule::u64)0 - it_g7 * 3ull);
    GRANULE_LOOP_TICK();
    acc += ((granule::f32)(j));
  }
  granule::u32 k = 0u;
  while ((k < 4u)) {
    GRANULE_LOOP_TICK();
    k += 1u;
  }
  while (true) {
    GRANULE_LOOP_TICK();
    if ((acc > 100.0f)) {
      break;
    }
    acc *= 2.0f;
  }
  const granule::f32 sign = ((acc < 0.0f) ? -1.0f : 1.0f);
  const granule::f32 mag = [&]() {
  const granule::f32 s = granule::sqrt(granule::abs(acc));
  return granule::clamp(granule::min(granule::max(s, 0.25f), 4.0f), 0.0f, 3.0f);
}();
  const granule::f32 t = [&]() {
  if ((k > 2u)) {
    const granule::f32 u = granule::ln(granule::exp(mag));
    return ((granule::sin(u) * granule::cos(u)) + granule::tanh(u));
  } else {
    return (((granule::powi(mag, 3) + granule::powf(mag, 1.5f)) + granule::floor(mag)) + granule::ceil(mag));
  }
}();
  y = ((sign * t) + ((granule::f32)((granule::cast<granule::i32>(acc)))));
}

