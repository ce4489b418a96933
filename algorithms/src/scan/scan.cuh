// scan.cuh: granule-algorithms' scans on a device: one launch of a
// single-pass decoupled look-back driver for arrays (drive_scan_runs),
// built from the header's scan parts (its tile states, look-backs, block
// scan and tile claims, which the parallel_scan pattern's drive_scan
// uses too). Each element is read once from memory and written once.
//
// A tile's loads are warp-striped (granule::load_tile: 16-byte pieces when
// the input is unit-stride and 16-byte aligned, else one bounds-checked
// element a lane), so each warp's loads cover whole sectors, and go
// through shared memory to each thread's run of consecutive elements; the
// outputs go back through shared memory so that their writes coalesce too.
// The scan also runs in place (x and out the same memory): a tile reads
// all its elements before it writes any, and no other tile touches them.

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
// a thread's registers: 4 blocks, 64 registers, half the warp slots of an
// H100. Uncapped, a thread's run takes up to 128 registers, two blocks fit
// a multiprocessor and the loads in flight are too few to cover memory
// latency. With the tile staged through shared memory the run and the
// look-back fit 64 registers without spilling for every run length of
// scan_run_items (the resource table's no-spill budget checks it).
template <class T> __host__ __device__ constexpr granule::u32 scan_run_min_blocks() { return 4u; }

// The scan driver of arrays: drive_scan's tiles, tile states, look-back
// and workspace, with the tile in the blocked arrangement. Thread t of a
// tile takes the run of ITEMS consecutive indices from t * ITEMS:
// load_tile(first, len, slots) sets slots[scan_slot(e)] to the value of
// index first + e for each e < len of the tile (len < blockDim.x * ITEMS
// only in the last tile), staged in shared memory, which the driver reads
// back as runs, filling a short run's rest with the identity. The thread folds its run, the block
// scans the folds (block_exclusive_scan), warp 0 finds the tile's prefix
// (tile_exclusive_prefix), and each thread makes its run's outputs,
// out_value(prefix, value) with each index's exclusive prefix. Those go
// through shared memory to store(i, output), consecutive threads on
// consecutive indices, so the writes coalesce.
//
// The grouping is drive_scan's: the same tile prefixes, and within a tile
// index e of thread t's run gets prefix_tile + (thread_t + v_0 + .. +
// v_(q-1)), where thread_t is the thread's exclusive prefix in the block
// scan and the run's values are joined left to right. Every index is
// loaded once (in load_tile) and stored once; in place works because a
// tile loads all its indices before the barrier after which it stores
// them, and no other tile touches them.
//
// Dynamic shared memory: scan_slot(blockDim.x * ITEMS) values of T (the
// staged inputs, then the staged outputs); the rest is drive_scan's with tiles of
// blockDim.x * ITEMS indices (codegen::workspace::scan_workspace_with).
template <class Op, class T, granule::u32 ITEMS, class LoadTile, class OutValue, class ChainEnd, class Store>
__device__ void drive_scan_runs(granule::u64 n, granule::u64* status, T* values, granule::u32* tiles, T* result,
                                LoadTile load_tile, OutValue out_value, ChainEnd chain_end, Store store) {
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
    // The slots' last readers (the previous tile's stores) were before
    // the tile claim's barrier.
    load_tile(first, len, slots);
    __syncthreads();
    T v[ITEMS];
    for (u32 q = 0; q < ITEMS; ++q) {
      // Constant indices keep v in registers.
      v[q] = q < count ? slots[scan_slot(mine + q)] : Op::identity();
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
      [&](granule::u64 first, granule::u64 len, T* slots) {
        granule::load_tile<I>(x, pieces, first, len,
                              [&](granule::u64 e, const U& u) { slots[granule::scan_slot(e)] = f(u); });
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
