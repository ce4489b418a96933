// scan.cuh: granule-algorithms' scans on a device: one launch of a
// single-pass decoupled look-back driver for arrays (drive_scan_runs),
// built from the header's scan parts (its tile states, look-backs, block
// scan and tile claims, which the parallel_scan pattern's drive_scan
// uses too). Each element is read once from memory and written once.
//
// Each thread of a tile reads a run of consecutive elements, in 16-byte
// loads when the input is unit-stride and 16-byte aligned and the run
// fills whole pieces (granule::load_run), else one bounds-checked element
// at a time; the outputs go back through shared memory so that their
// writes coalesce. So the scan also runs in place (x and out the same
// memory): a tile reads all its elements before it writes any, and no
// other tile touches them.

namespace granule_algo {

// Items per thread of a tile of drive_scan_runs, by the size of T: 128
// bytes of values per thread, between 1 and 32 items. scan/cuda.rs
// mirrors it and passes its value to scan_view, which traps on a
// mismatch.
__host__ __device__ constexpr granule::u32 scan_run_items(granule::u64 bytes) {
  return bytes <= 4ull ? 32u : bytes >= 128ull ? 1u : (granule::u32)(128ull / bytes);
}

// The fewest blocks of 256 threads a scan_view launch over values of T
// asks each multiprocessor to hold (its `__launch_bounds__`), which caps
// a thread's registers: 2 (128 registers) for values of up to 4 bytes, 3
// (80) for larger ones. Uncapped, a thread's run takes so many registers
// that one block fits a multiprocessor and the loads in flight are too
// few to cover memory latency; a tighter cap spills the look-back's
// state to local memory. These caps are the tightest that spill nothing
// for the run lengths of scan_run_items.
template <class T> __host__ __device__ constexpr granule::u32 scan_run_min_blocks() {
  return sizeof(T) <= 4 ? 2u : 3u;
}

// The scan driver of arrays: drive_scan's tiles, tile states, look-back
// and workspace, with the tile in the blocked arrangement. Thread t of a
// tile takes the run of ITEMS consecutive indices from t * ITEMS:
// load_run(i, count, v) sets v[0..count) to the values of indices
// i..i + count (count < ITEMS only in the last tile), and the driver
// fills the rest with the identity. The thread folds its run, the block
// scans the folds (block_exclusive_scan), warp 0 finds the tile's prefix
// (tile_exclusive_prefix), and each thread makes its run's outputs,
// out_value(prefix, value) with each index's exclusive prefix. Those go
// through shared memory to store(i, output), consecutive threads on
// consecutive indices, so the writes coalesce; reading the run in one
// piece lets load_run use wide loads.
//
// The grouping is drive_scan's: the same tile prefixes, and within a tile
// index e of thread t's run gets prefix_tile + (thread_t + v_0 + .. +
// v_(q-1)), where thread_t is the thread's exclusive prefix in the block
// scan and the run's values are joined left to right. Every index is
// loaded once (in load_run) and stored once; in place works because a
// tile loads all its indices before the barrier after which it stores
// them, and no other tile touches them.
//
// Dynamic shared memory: scan_slot(blockDim.x * ITEMS) values of T (the
// staged outputs); the rest is drive_scan's with tiles of
// blockDim.x * ITEMS indices (codegen::workspace::scan_workspace_with).
template <class Op, class T, granule::u32 ITEMS, class LoadRun, class OutValue, class ChainEnd, class Store>
__device__ void drive_scan_runs(granule::u64 n, granule::u64* status, T* values, granule::u32* tiles, T* result,
                                LoadRun load_run, OutValue out_value, ChainEnd chain_end, Store store) {
  using granule::scan_slot;
  using granule::u32;
  using granule::u64;
  const u32 block = blockDim.x, t = threadIdx.x, lane = t & 31u;
  const granule::TileStates<T> st{status, values};
  const u64 per_tile = (u64)block * ITEMS;
  const u64 ntiles = granule::scan_tile_count<Op>(n, per_tile, result);
  if (ntiles == 0ull) return;
  T* slots = (T*)granule::granule_dyn_smem;
  __shared__ T prefix_s;
  granule::for_claimed_tiles(tiles, ntiles, [&](u64 tile) {
    const u64 first = tile * per_tile;
    const u64 len = n - first < per_tile ? n - first : per_tile;
    const u64 mine = (u64)t * ITEMS;  // the run's first index in the tile
    const u32 count = granule::run_length<ITEMS>(mine, len);
    T v[ITEMS];
    load_run(first + mine, count, v);
    for (u32 q = 0; q < ITEMS; ++q) {
      if (q >= count) v[q] = Op::identity();  // constant indices keep v in registers
    }
    T fold = v[0];
    for (u32 q = 1; q < ITEMS; ++q) Op::join(fold, v[q]);
    T agg;
    T running = granule::block_exclusive_scan<Op>(fold, agg);
    if (t < 32u) {
      const T excl = granule::tile_exclusive_prefix<Op>(st, tile, ntiles, agg, (T*)nullptr, lane);
      if (lane == 0u) prefix_s = excl;
    }
    __syncthreads();
    const T before = prefix_s;
    for (u32 q = 0; q < ITEMS; ++q) {
      T p = before;
      Op::join(p, running);
      slots[scan_slot(mine + q)] = out_value(p, v[q]);
      // The total is the chain's own end at the last index, not the
      // look-back's regrouped prefix (a float's last bit may differ).
      if (q < count && first + mine + q + 1ull == n) *result = chain_end(p, v[q]);
      Op::join(running, v[q]);
    }
    __syncthreads();
    for (u32 k = 0; k < ITEMS; ++k) {
      const u64 e = (u64)k * block + t;
      if (e < len) store(first + e, slots[scan_slot(e)]);
    }
  });
}

// out(i) = init ⊕ f(x(0)) ⊕ … ⊕ f(x(i)) (inclusive) or ⊕ … f(x(i - 1))
// (exclusive), for i < n; *result gets the total as the chain ends it:
// out(n - 1) of an inclusive scan, out(n - 1) ⊕ f(x(n - 1)) of an
// exclusive one, bit for bit. Op joins an earlier value with a later
// one; init may be Op's identity. `items` is the host's mirror of
// scan_run_items, which sized the workspace: a launch whose mirror
// drifted traps instead of overrunning the tile states.
template <class Op, class T, class U, class F>
__device__ void scan_view(granule::u64 n, bool inclusive, T init, granule::u32 items,
                          const granule::View<const U, 1, granule::LayoutStride>& x,
                          const granule::View<T, 1, granule::LayoutStride>& out, granule::u64* status, T* values,
                          granule::u32* tiles, T* result, F f) {
  constexpr granule::u32 I = scan_run_items(sizeof(T));
  if (items != I) __trap();
  const bool pieces = granule::loads_in_pieces<I>(x);
  drive_scan_runs<Op, T, I>(
      n, status, values, tiles, result,
      [&](granule::u64 i, granule::u32 count, T (&v)[I]) {
        U u[I];
        granule::load_run(x, pieces, i, count, u);
        for (granule::u32 q = 0; q < I; ++q) {
          if (q < count) v[q] = f(u[q]);
        }
      },
      [&](const T& acc, const T& v) {
        T p = init;
        Op::join(p, acc);
        if (inclusive) Op::join(p, v);
        return p;
      },
      [&](const T& acc, const T& v) {
        T p = init;
        Op::join(p, acc);
        Op::join(p, v);
        return p;
      },
      [&](granule::u64 i, const T& y) { out(i) = y; });
}

}  // namespace granule_algo
