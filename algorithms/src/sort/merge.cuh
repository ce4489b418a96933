// merge.cuh: granule-algorithms' comparison sort on a device, a stable
// merge sort with the user's comparator `less(a, b)` ("a before b"):
// one launch sorts each tile of MERGE_TILE elements in shared memory
// (merge_tiles), then one launch per doubling of the sorted runs merges
// pairs of runs from one View into another (merge_runs).
//
// Every merge fills each output place from the co-rank of that place, so
// each place has one writer whatever the comparator answers: in runs A
// (first) and B, output k holds the next element of A or of B after the
// first i of A and k - i of B, where i, the number of A's elements among
// the first k outputs, is found by binary search over i. A's element goes
// first unless less(b, a), so equal elements of A stay before those of
// B: the merge is stable. The search stays inside both runs whatever the
// comparator answers; a comparator that is not a strict weak order (which
// the API requires) gives an unspecified order, never a race. Placing each
// element by its own rank in the other run, as before, made two elements
// share one place under such a comparator: a race.

namespace granule_algo {

constexpr granule::u32 MERGE_BLOCK = 256u;
constexpr granule::u32 MERGE_ITEMS = 4u;
constexpr granule::u64 MERGE_TILE = (granule::u64)MERGE_BLOCK * MERGE_ITEMS;

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

// Output k (k < hi - lo) of the stable merge of [lo, mid) and [mid, hi).
template <class T, class Get, class Less>
__device__ __forceinline__ T merged_at(granule::u64 k, granule::u64 lo, granule::u64 mid, granule::u64 hi, Get get,
                                       Less less) {
  const granule::u64 i = co_rank(k, lo, mid, hi, get, less), j = k - i;
  // i <= |A| and j <= |B| with i + j = k < |A| + |B|: one of them is left.
  if (lo + i == mid) return get(mid + j);
  if (mid + j == hi) return get(lo + i);
  const T a = get(lo + i), b = get(mid + j);
  return less(b, a) ? b : a;
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
        to[j] = merged_at<T>(j - lo, lo, mid, hi, [&](u64 k) { return from[k]; }, less);
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
    dst(i) = merged_at<T>(i - lo, lo, mid, hi, [&](u64 k) { return (T)src(k); }, less);
  });
}

}  // namespace granule_algo
