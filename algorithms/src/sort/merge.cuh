// merge.cuh: granule-algorithms' comparison sort on a device, a stable
// merge sort with the user's comparator `less(a, b)` ("a before b"):
// one launch sorts each tile of MERGE_TILE elements in shared memory
// (merge_tiles), then one launch per doubling of the sorted runs merges
// pairs of runs from one View into another (merge_runs).
//
// Every merge places each element by ranks alone, so each element is
// moved by one thread and written once: in runs A (first) and B, a_i
// lands at i + |{b in B : less(b, a_i)}| and b_j at j + |{a in A :
// !less(b_j, a)}|, both counts found by binary search. Equal elements of
// A therefore stay before those of B: the merge is stable.

namespace granule_algo {

constexpr granule::u32 MERGE_BLOCK = 256u;
constexpr granule::u32 MERGE_ITEMS = 4u;
constexpr granule::u64 MERGE_TILE = (granule::u64)MERGE_BLOCK * MERGE_ITEMS;

// The first index in [lo, hi) of a sorted run whose element x must
// precede: `after(e)` is monotone (false, then true) over the run.
template <class Get, class After>
__device__ __forceinline__ granule::u64 first_after(granule::u64 lo, granule::u64 hi, Get get, After after) {
  while (lo < hi) {
    GRANULE_LOOP_TICK();
    const granule::u64 mid = lo + (hi - lo) / 2ull;
    if (after(get(mid))) hi = mid;
    else lo = mid + 1ull;
  }
  return lo;
}

// Where element i of the runs [lo, mid) and [mid, hi) goes when they are
// merged (an offset from lo), reading elements through `get`.
template <class T, class Get, class Less>
__device__ __forceinline__ granule::u64 merged_place(granule::u64 i, granule::u64 lo, granule::u64 mid, granule::u64 hi,
                                                     const T& x, Get get, Less less) {
  if (i < mid) {
    // the b that go before x: those less than x
    const granule::u64 b = first_after(mid, hi, get, [&](const T& y) { return !less(y, x); });
    return (i - lo) + (b - mid);
  }
  // the a that go before x: those x is not less than
  const granule::u64 a = first_after(lo, mid, get, [&](const T& y) { return less(x, y); });
  return (i - mid) + (a - lo);
}

// Sorts each tile of MERGE_TILE elements of `data` (n of them) in place,
// merging runs of 1, 2, 4, .. in shared memory (two buffers of the tile).
// Dynamic shared memory: 2 * MERGE_TILE * sizeof(T) bytes (`smem`).
template <class T, class Data, class Less>
__device__ void merge_tiles(granule::u64 n, granule::u64 smem, const Data& data, Less less) {
  using granule::u64;
  if (blockDim.x != MERGE_BLOCK || blockDim.y != 1u || blockDim.z != 1u) __trap();
  if (smem < 2ull * MERGE_TILE * sizeof(T)) __trap();
  T* buf[2] = {(T*)granule::granule_dyn_smem, (T*)granule::granule_dyn_smem + MERGE_TILE};
  const u64 ntiles = n / MERGE_TILE + (n % MERGE_TILE != 0ull);
  const u64 t = threadIdx.x;
  granule::stride_loop(blockIdx.x, ntiles, gridDim.x, [&](u64 tile) {
    const u64 first = tile * MERGE_TILE;
    const u64 len = n - first < MERGE_TILE ? n - first : MERGE_TILE;
    __syncthreads();  // the previous tile's readers of the buffers are done
    granule::stride_loop(t, len, MERGE_BLOCK, [&](u64 j) { buf[0][j] = data(first + j); });
    __syncthreads();
    granule::u32 src = 0u;
    for (u64 w = 1ull; w < len; w *= 2ull) {
      GRANULE_LOOP_TICK();
      const T* from = buf[src];
      T* to = buf[1u - src];
      granule::stride_loop(t, len, MERGE_BLOCK, [&](u64 j) {
        const u64 lo = j / (2ull * w) * (2ull * w);
        const u64 mid = len - lo < w ? len : lo + w;
        const u64 hi = len - lo < 2ull * w ? len : lo + 2ull * w;
        const T x = from[j];
        to[lo + merged_place(j, lo, mid, hi, x, [&](u64 k) { return from[k]; }, less)] = x;
      });
      __syncthreads();
      src = 1u - src;
    }
    granule::stride_loop(t, len, MERGE_BLOCK, [&](u64 j) { data(first + j) = buf[src][j]; });
  });
}

// Merges the sorted runs of `width` elements of `src` pairwise into
// `dst` (both n long; width < n, or width >= n to copy). One thread per
// element, grid-stride.
template <class T, class Src, class Dst, class Less>
__device__ void merge_runs(granule::u64 n, granule::u64 width, const Src& src, const Dst& dst, Less less) {
  using granule::u64;
  granule::drive_for(0ull, n, [&](u64 i) {
    // Offsets, so that nothing past n is computed: lo + 2 * width may
    // not fit when width is large.
    const u64 lo = i / width / 2ull * width * 2ull;
    const u64 left = n - lo;
    const u64 mid = lo + (left < width ? left : width);
    const u64 hi = lo + (left - (mid - lo) < width ? left - (mid - lo) : width) + (mid - lo);
    const T x = src(i);
    dst(lo + merged_place(i, lo, mid, hi, x, [&](u64 k) { return (T)src(k); }, less)) = x;
  });
}

}  // namespace granule_algo
