// scan.cuh: granule-algorithms' scans on a device, through the header's
// single-pass decoupled look-back driver for arrays
// (granule::drive_scan_runs): one launch, each element read once from
// memory and written once.
//
// Each thread of a tile reads a run of consecutive elements, in 16-byte
// loads when the input is unit-stride and 16-byte aligned and the run
// fills whole pieces (granule::load_run), else one bounds-checked element
// at a time; the outputs go back through shared memory so that their
// writes coalesce. So the scan also runs in place (x and out the same
// memory): a tile reads all its elements before it writes any, and no
// other tile touches them.

namespace granule_algo {

// out(i) = init ⊕ f(x(0)) ⊕ … ⊕ f(x(i)) (inclusive) or ⊕ … f(x(i - 1))
// (exclusive), for i < n; *result gets the total without init (the
// host joins init on its left). Op joins an earlier value with a later
// one; init may be Op's identity.
template <class Op, class T, class U, class F>
__device__ void scan_view(granule::u64 n, bool inclusive, T init, const granule::View<const U, 1, granule::LayoutStride>& x,
                          const granule::View<T, 1, granule::LayoutStride>& out, granule::u64* status,
                          T* values, granule::u32* tiles, T* result, F f) {
  constexpr granule::u32 items = granule::scan_run_items(sizeof(T));
  const bool pieces = granule::loads_in_pieces<items>(x);
  granule::drive_scan_runs<Op, T, items>(
      n, status, values, tiles, result,
      [&](granule::u64 i, granule::u32 count, T (&v)[items]) {
        U u[items];
        granule::load_run(x, pieces, i, count, u);
        for (granule::u32 q = 0; q < items; ++q) {
          if (q < count) v[q] = f(u[q]);
        }
      },
      [&](const T& acc, const T& v) {
        T p = init;
        Op::join(p, acc);
        if (inclusive) Op::join(p, v);
        return p;
      },
      [&](granule::u64 i, const T& y) { out(i) = y; });
}

}  // namespace granule_algo
