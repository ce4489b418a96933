// rows
__device__ void rows(const granule::TeamMember& team, granule::View<const granule::f64, 2, granule::LayoutRight> a, granule::View<const granule::f64, 1, granule::LayoutRight> x, granule::AtomicView<granule::f64, 1> out, granule::AtomicView<granule::i64, 1> counts) {
  const granule::usize row = team.league_rank();
  const granule::usize n = x.extent(0ull);
  const auto cache = team.team_scratch<granule::f64, 1>(0ull, n);
  granule::team_phase(team, [&]() { return granule::team_thread_for(team, 0ull, n, [&](granule::usize j) {
  cache(j) = x(j);
}); });
  team.team_barrier();
  const granule::f64 sum = granule::team_thread_reduce<granule::Sum<granule::f64>, granule::f64>(team, 0ull, a.extent(1ull), [&](granule::usize j, granule::f64& acc) {
  const granule::f64 inner = granule::thread_vector_reduce<granule::Sum<granule::f64>, granule::f64>(team, 0ull, 4ull, [&](granule::usize v, granule::f64& part) {
  part += ((a(row, j) * cache(j)) * (((granule::f64)(v))));
});
  acc += inner;
});
  const granule::f64 biggest = granule::team_vector_reduce<granule::Max<granule::f64>, granule::f64>(team, 0ull, n, [&](granule::usize j, granule::f64& m) {
  m = granule::max(m, x(j));
});
  const granule::i64 total = granule::team_thread_scan<granule::Sum<granule::i64>, granule::i64>(team, 0ull, 8ull, [&](granule::usize j, granule::i64& partial, bool last) {
  partial = granule::wadd(partial, ((granule::i64)(j)));
  if (last) {
    granule::atomic_fetch_add(counts.at(j), partial);
  }
});
  const granule::f64 lead = team.team_broadcast(sum, 0ull);
  const granule::usize ranks = team.team_reduce<granule::Sum<granule::usize>, granule::usize>(team.team_rank());
  if ((team.team_rank() == 0ull)) {
    granule::atomic_fetch_add(out.at(row), (((lead + biggest) + (((granule::f64)(total)))) + ((granule::f64)((((team.league_size() + team.team_size()) + ranks))))));
  }
}

