// merge.cuh: granule-algorithms' comparison sort on a device, a stable
// merge sort with the user's comparator `less(a, b)` ("a before b"):
// one launch sorts each tile of MERGE_TILE elements in shared memory
// (merge_tiles), then one launch per doubling of the sorted runs merges
// pairs of runs from one View into another (merge_runs).
//
// Merge path: a thread writes a few consecutive output places of a
// merge. For the first of them it finds the co-rank (in runs A, first,
// and B: how many of A's elements are among the first k outputs, by
// binary search), then it merges sequentially from there: A's next
// element goes first unless less(b, a), so equal elements of A stay
// before those of B and the merge is stable. Every output place has one
// writer whatever the comparator answers, and the search and the steps
// stay inside both runs; a comparator that is not a strict weak order
// (which the API requires) gives an unspecified order, never a race.
// Placing each element by its own rank in the other run instead would
// let such a comparator put two elements in one place.

namespace granule_algo {

constexpr granule::u32 MERGE_BLOCK = 256u;
constexpr granule::u32 MERGE_ITEMS = 4u;
constexpr granule::u64 MERGE_TILE = (granule::u64)MERGE_BLOCK * MERGE_ITEMS;
// Output places a thread of merge_runs writes (merge_cuda.rs mirrors it).
constexpr granule::u32 MERGE_RUN_ITEMS = 8u;

// How many elements of A = [lo, mid) are among the first k outputs
// (k <= hi - lo) of the stable merge of A and B = [mid, hi), reading
// elements through `get`. i is searched in [max(0, k - |B|), min(k, |A|)],
// so A[i] and B[k - 1 - i] exist at every step and the result is a valid
// split of the k outputs whatever `less` answers.
template <class Get, class Less>
__device__ __forceinline__ granule::u64 co_rank(granule::u64 k, granule::u64 lo, granule::u64 mid, granule::u64 hi,
                                                Get get, Less less) {
  using granule::u64;
  const u64 na = mid - lo, nb = hi - mid;
  u64 a = k > nb ? k - nb : 0ull, b = k < na ? k : na;
  while (a < b) {
    GRANULE_LOOP_TICK();
    const u64 i = a + (b - a) / 2ull;
    // A[i] is among the first k unless B[k - 1 - i] goes before it.
    if (!less(get(mid + (k - 1ull - i)), get(lo + i))) a = i + 1ull;
    else b = i;
  }
  return a;
}

// Writes the outputs k0, k0 + 1, .. (at most ITEMS, below n) of the
// pairwise merges of the sorted runs of `width` elements [0, width),
// [width, 2 width), .. of n, reading elements through `get` and writing
// output k through put(k, v). The pair's bounds are computed as offsets,
// so that nothing past n is computed (lo + 2 * width may not fit).
template <granule::u32 ITEMS, class T, class Get, class Put, class Less>
__device__ __forceinline__ void merge_outputs(granule::u64 k0, granule::u64 n, granule::u64 width, Get get, Put put,
                                              Less less) {
  using granule::u64;
  u64 lo = 0ull, mid = 0ull, hi = 0ull, i = 0ull, j = 0ull;
  T a{}, b{};  // A's and B's next elements, while they have one
  for (granule::u32 q = 0; q < ITEMS; ++q) {
    const u64 k = k0 + q;
    if (k >= n) break;
    if (q == 0u || k == hi) {
      lo = k / width / 2ull * width * 2ull;
      mid = lo + (n - lo < width ? n - lo : width);
      hi = mid + (n - mid < width ? n - mid : width);
      i = co_rank(k - lo, lo, mid, hi, get, less);
      j = k - lo - i;
      if (lo + i < mid) a = get(lo + i);
      if (mid + j < hi) b = get(mid + j);
    }
    // i + j = k - lo < hi - lo: A or B has an element left.
    if (lo + i == mid || (mid + j < hi && less(b, a))) {
      put(k, b);
      if (mid + ++j < hi) b = get(mid + j);
    } else {
      put(k, a);
      if (lo + ++i < mid) a = get(lo + i);
    }
  }
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
      // MERGE_BLOCK threads of MERGE_ITEMS places: the whole tile.
      merge_outputs<MERGE_ITEMS, T>(
          t * MERGE_ITEMS, len, w, [&](u64 k) { return from[k]; }, [&](u64 k, const T& v) { to[k] = v; }, less);
      __syncthreads();
      src = 1u - src;
    }
    granule::stride_loop(t, len, MERGE_BLOCK, [&](u64 j) { data(first + j) = buf[src][j]; });
  });
}

// Merges the sorted runs of `width` elements of `src` pairwise into
// `dst` (both n long; width < n, or width >= n to copy). One thread per
// MERGE_RUN_ITEMS consecutive outputs, grid-stride.
template <class T, class Src, class Dst, class Less>
__device__ void merge_runs(granule::u64 n, granule::u64 width, const Src& src, const Dst& dst, Less less) {
  using granule::u64;
  const u64 chunks = n / MERGE_RUN_ITEMS + (n % MERGE_RUN_ITEMS != 0ull);
  granule::drive_for(0ull, chunks, [&](u64 c) {
    merge_outputs<MERGE_RUN_ITEMS, T>(
        c * MERGE_RUN_ITEMS, n, width, [&](u64 k) { return (T)src(k); }, [&](u64 k, const T& v) { dst(k) = v; },
        less);
  });
}

}  // namespace granule_algo
