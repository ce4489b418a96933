// transform.cuh: granule-algorithms' element-wise algorithms on a device:
// one grid-stride pass in which each index is visited once, so each output
// element has one writer.

namespace granule_algo {

// y(i) = value(i, x(k)) for i < n, where k is i (order 0), n - 1 - i
// (order 1) or (i + shift) mod n (order 2, shift <= n).
template <class X, class Y, class V>
__device__ void map_view(granule::u64 n, const X& x, const Y& y, granule::u32 order, granule::u64 shift,
                         V value) {
  using granule::u64;
  granule::drive_for(0ull, n, [&](u64 i) {
    const u64 k = order == 0u ? i : order == 1u ? n - 1ull - i : (i < n - shift ? i + shift : i - (n - shift));
    y(i) = value(i, x(k));
  });
}

// y(i) = value(i, y(i)) for i < n.
template <class Y, class V>
__device__ void update_view(granule::u64 n, const Y& y, V value) {
  granule::drive_for(0ull, n, [&](granule::u64 i) { y(i) = value(i, y(i)); });
}

// Swaps a(i) with b(i), or with b(n - 1 - i) when reversed, for i < n; a
// and b share no element.
template <class T, class A, class B>
__device__ void swap_views(granule::u64 n, const A& a, const B& b, granule::u32 reversed) {
  granule::drive_for(0ull, n, [&](granule::u64 i) {
    const granule::u64 k = reversed != 0u ? n - 1ull - i : i;
    const T t = a(i);
    a(i) = b(k);
    b(k) = t;
  });
}

}  // namespace granule_algo
