// count_keys
__device__ void count_keys(granule::usize i, granule::u32& what, granule::MapInserter<granule::u64, granule::u32> ins, granule::usize n) {
  const auto r = ins.insert_add(((granule::u64)((granule::rem(i, n)))), 1u);
  what = (r.success() ? 0u : (r.existing() ? 1u : 2u));
  granule::check(((ins.find(((granule::u64)((granule::rem(i, n))))) == r.index()) || r.failed()), "<parsed string 23>:7:5: kernel `count_keys`: assertion failed: ins . find ((i % n) as u64) == r . index () || r . failed ()", 7u);
}

// lookup
__device__ void lookup(granule::usize i, granule::u32& out, granule::UnorderedMap<granule::u64, granule::u32> map) {
  const granule::u64 k = ((granule::u64)(i));
  out = (map.exists(k) ? map.value_at(map.find(k)) : 0u);
}

