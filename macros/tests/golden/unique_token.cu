// per_token_count
__device__ void per_token_count(granule::usize i, granule::AtomicView<granule::u32, 1> token, granule::AtomicView<granule::u64, 2> partial, granule::usize bins) {
  const granule::usize id = granule::token_acquire(token);
  granule::check((id < token.extent(0)), "<parsed string 22>:6:5: kernel `per_token_count`: assertion failed: id < token . size ()", 6u);
  granule::atomic_fetch_add(partial.at(id, granule::rem(i, bins)), 1ull);
  granule::token_release(token, id);
}

