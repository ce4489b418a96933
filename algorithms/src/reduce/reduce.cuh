// reduce.cuh: granule-algorithms' reductions on a device, through the
// header's reduce driver (granule::drive_reduce: a grid-stride fold per
// thread, block trees, and the last block folding the block partials in
// block order): one launch, each element read once.

namespace granule_algo {

// The Op-join of value(i, x(i)) over i < n into *result (not finalized).
// A unit-stride, 16-byte aligned View of elements that divide 16 bytes is
// read in 16-byte pieces: the grid strides over the pieces (each thread
// joining a piece's elements in index order), then over the elements
// past the last whole piece, so a thread moves 16 bytes per load where
// element loads move 4 or 8. The join order is fixed by n and the grid,
// as drive_reduce's always is.
template <class Op, class U, class T, class V>
__device__ void reduce_view(granule::u64 n, const granule::View<const T, 1, granule::LayoutStride>& x,
                            U* partials, granule::u32* counter, U* result, V value) {
  using granule::Piece;
  using granule::u64;
  constexpr granule::u32 PER = 16u % sizeof(T) == 0u ? 16u / sizeof(T) : 1u;
  const u64 pieces = PER > 1u && granule::loads_in_pieces<PER>(x) ? n / PER : 0ull;
  // One bounds check for every piece.
  const Piece* p = pieces != 0ull ? (const Piece*)x.span(0ull, pieces * PER) : nullptr;
  granule::drive_reduce<Op>(0ull, pieces + (n - pieces * PER), partials, counter, result,
                            [&](u64 k, U& acc) {
                              if constexpr (PER > 1u) {
                                if (k < pieces) {
                                  // One 16-byte load, then register moves.
                                  const Piece w = p[k];
                                  T v[PER];
                                  granule::unpack(w, v);
                                  for (granule::u32 j = 0; j < PER; ++j) Op::join(acc, value(k * PER + j, v[j]));
                                  return;
                                }
                              }
                              const u64 i = pieces * PER + (k - pieces);
                              Op::join(acc, value(i, x(i)));
                            });
}

// The Op-join of value(i, a(i), b(i)) over i < n into *result.
template <class Op, class U, class A, class B, class V>
__device__ void reduce_pairs(granule::u64 n, const A& a, const B& b, U* partials, granule::u32* counter,
                             U* result, V value) {
  granule::drive_reduce<Op>(0ull, n, partials, counter, result,
                            [&](granule::u64 i, U& acc) { Op::join(acc, value(i, a(i), b(i))); });
}

// The searches' tests of a candidate start i < n of x: whether eq(x(i + j),
// p(j)) holds for every j < m (false when the window passes n).
template <class X, class P, class Eq>
__device__ bool window_matches(granule::u64 i, granule::u64 n, const X& x, granule::u64 m, P p, Eq eq) {
  if (m > n - i) return false;
  for (granule::u64 j = 0; j < m; ++j)
    if (!eq(x(i + j), p(j))) return false;
  return true;
}

// Whether eq(v, s(j)) holds for some element j of s.
template <class T, class S, class Eq>
__device__ bool any_matches(const T& v, const S& s, Eq eq) {
  for (granule::u64 j = 0; j < s.extent(0); ++j)
    if (eq(v, s(j))) return true;
  return false;
}

}  // namespace granule_algo
