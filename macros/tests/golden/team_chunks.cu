// read_rows
__device__ void read_rows(const granule::TeamMember& m, granule::AtomicView<granule::u64, 1> g, granule::TeamChunk<granule::u64, granule::MapContinuousLinear> row) {
  const granule::u64 first = granule::single_per_team(m, [&]() {
  return (row(0ull) + 1ull);
});
  granule::single_per_team_do(m, [&]() {
  granule::atomic_fetch_add(g.at(0ull), first);
});
}

// chunk_rows
__device__ void chunk_rows(const granule::TeamMember& m, granule::usize n, granule::AtomicView<granule::u64, 1> g, granule::TeamChunk<granule::u64, granule::MapContinuousLinear> row) {
  const granule::u64 first = granule::single_per_team(m, [&]() {
  return (((granule::u64)(m.league_rank())) + 1ull);
});
  const auto mine = row.chunk_mut(granule::MapIdentity{}, m.thread_ids());
  const granule::u64 lane = granule::single_per_thread(m, [&]() {
  const granule::u64 t = ((granule::u64)(m.team_rank()));
  return (t * 2ull);
});
  mine((n - 1ull)) = (m.team_scan(first) + lane);
  mine(0ull) = m.team_scan_global(first, g, 0ull);
}

// blocks
__device__ void blocks(const granule::TeamMember& m, granule::TeamChunk<granule::f32, granule::MapContinuousLinear> part) {
  const auto mine = part.chunk_mut(granule::MapContinuousLinear{2ull}, m.thread_ids());
  mine(1ull) = (mine(0ull) * 0.5f);
}

