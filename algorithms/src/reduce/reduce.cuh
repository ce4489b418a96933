// reduce.cuh: granule-algorithms' reductions on a device, through the
// header's reduce driver (granule::drive_reduce: a grid-stride fold per
// thread, block trees, and the last block folding the block partials in
// block order): one launch, each element read once.

namespace granule_algo {

// The Op-join of value(i, x(i)) over i < n into *result (not finalized).
template <class Op, class U, class X, class V>
__device__ void reduce_view(granule::u64 n, const X& x, U* partials, granule::u32* counter, U* result,
                            V value) {
  granule::drive_reduce<Op>(0ull, n, partials, counter, result,
                            [&](granule::u64 i, U& acc) { Op::join(acc, value(i, x(i))); });
}

// The Op-join of value(a(i), b(i)) over i < n into *result.
template <class Op, class U, class A, class B, class V>
__device__ void reduce_pairs(granule::u64 n, const A& a, const B& b, U* partials, granule::u32* counter,
                             U* result, V value) {
  granule::drive_reduce<Op>(0ull, n, partials, counter, result,
                            [&](granule::u64 i, U& acc) { Op::join(acc, value(a(i), b(i))); });
}

}  // namespace granule_algo
