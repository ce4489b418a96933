// scan.cuh: granule-algorithms' scans on a device, through the header's
// single-pass decoupled look-back driver (granule::drive_scan_values): one
// launch, each element read once from memory and written once.
//
// drive_scan_values loads each element once, x(i) through f, keeps the
// value in a register of the thread that owns index i, and hands it back
// with the exclusive prefix for the write of out(i). So the scan also runs
// in place (x and out the same memory): index i is written by its owner
// after that owner's only read of it, and no other thread touches it.

namespace granule_algo {

// out(i) = init ⊕ f(x(0)) ⊕ … ⊕ f(x(i)) (inclusive) or ⊕ … f(x(i - 1))
// (exclusive), for i < n; *result gets the total without init (the
// host joins init on its left). Op joins an earlier value with a later
// one; init may be Op's identity.
template <class Op, class T, class X, class F>
__device__ void scan_view(granule::u64 n, bool inclusive, T init, const X& x,
                          const granule::View<T, 1, granule::LayoutStride>& out, granule::u64* status,
                          T* values, granule::u32* tiles, T* result, F f) {
  granule::drive_scan_values<Op>(
      0ull, n, status, values, tiles, result, [&](granule::u64 i) -> T { return f(x(i)); },
      [&](granule::u64 i, T acc, const T& v) {
        T p = init;
        Op::join(p, acc);
        if (inclusive) Op::join(p, v);
        out(i) = p;
      });
}

}  // namespace granule_algo
