// staged
__device__ void staged(const granule::TeamMember& team, granule::View<const granule::f64, 2, granule::LayoutRight> x, granule::AtomicView<granule::f64, 1> out) {
  const granule::usize rows = x.extent(0ull);
  const granule::usize cols = x.extent(1ull);
  const auto tile = team.team_scratch<granule::f64, 2>(1ull, rows, cols);
  const auto mine = team.thread_scratch<granule::f64, 1>(0ull, cols);
  const granule::usize level = granule::rem(team.league_rank(), 2ull);
  if (team.thread_scratch_fits<granule::u32, 1>(level, 8ull)) {
    const auto flags = team.thread_scratch<granule::u32, 1>(level, 8ull);
    flags(7ull) = 1u;
  }
  const bool spills = !team.team_scratch_fits<granule::f64, 2>(0ull, rows, cols);
  granule::team_phase(team, [&]() { return granule::team_thread_for(team, 0ull, rows, [&](granule::usize r) {
  granule::lane_phase([&]() { return granule::thread_vector_for(team, 0ull, cols, [&](granule::usize c) {
  tile(r, c) = x(r, c);
  mine(c) += x(r, c);
}); });
}); });
  team.team_barrier();
  if (spills) {
    granule::atomic_fetch_add(out.at(team.league_rank()), (tile((rows - 1ull), (cols - 1ull)) + mine(0ull)));
  }
}

