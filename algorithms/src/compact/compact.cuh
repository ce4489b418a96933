// compact.cuh: granule-algorithms' stream compaction on a device, in one
// launch that fuses the predicate, the scan of the counts and the
// scatter (copy_if, remove_if, partition_copy, compaction by flags,
// unique).
//
// Tiles. A tile is COMPACT_BLOCK * compact_items(sizeof(T)) consecutive
// elements, claimed by blocks in order from an atomic counter (so a tile
// only waits on tiles claimed before it, whose blocks are running). Its
// block:
// 1. loads the tile warp-striped (granule::load_tile: 16-byte pieces when
//    x is unit-stride and 16-byte aligned, all of a thread's loads before
//    it waits on one), so each warp's loads cover whole sectors, into
//    shared memory, and reads it back in the blocked arrangement: thread t
//    the run of compact_items consecutive elements from t * compact_items,
//    kept in registers; the predicate is evaluated once per element;
// 2. ranks the kept elements in tile order: each thread counts its run's
//    kept elements, the counts are scanned across the block
//    (granule::block_exclusive_scan), and a kept element's rank is its
//    thread's offset plus the kept elements before it in the run;
// 3. publishes the tile's count and looks back to the tiles before it
//    (warp 0, the header's tile_exclusive_prefix over u64 sums, exact),
//    which gives the number of kept elements before the tile;
// 4. stages the kept elements in shared memory at their rank (for a
//    partition, the rejected ones after them, in order), then writes the
//    staged run out with consecutive threads on consecutive positions
//    (coalesced), to out(before + j).
// Each element is read once from memory and each kept one written once.
// A failure in the tile (a predicate that panics) stops its whole block
// after step 2, so nothing is staged from the ranks it left unfinished.
// The striped pieces move 16 bytes a thread per instruction where striped
// 4-byte elements move 4, so far fewer loads cover the bandwidth.
//
// In place (remove_if, unique: x and the output are the same memory) it
// works unchanged: an element lands at or below its own index; a tile
// loads all its elements before anything (its own writes come after a
// barrier; a later tile's writes come after it saw this tile's count,
// which the tile published after its loads and a fence); and a write of
// an element to its own index is skipped, so the only element outside a
// tile that the tile reads (unique's x(first - 1)) is never written
// while it is read.
//
// Workspace (granule-algorithms' compact/cuda.rs sizes it): `status`, one
// zeroed u64 per tile; `values`, two u64 per tile; `tiles`, one zeroed
// u32; `result`, one u64 (the count kept). Block: COMPACT_BLOCK threads.
// Dynamic shared memory: compact_smem(sizeof(T), in_place) bytes, which
// the launch passes as `smem` and the driver checks (exactly). Grid: any.

namespace granule_algo {

constexpr granule::u32 COMPACT_BLOCK = 256u;

// Elements per thread of a tile: 128 bytes of them, at most 32 (the
// run's kept elements are bits of a u32): 32 up to 4-byte elements (8192
// a tile), 16 for 8-byte ones. compact/cuda.rs mirrors it.
__host__ __device__ constexpr granule::u32 compact_items(granule::u64 bytes) {
  return bytes <= 4ull ? 32u : (granule::u32)(128ull / bytes);
}

// The fewest blocks of COMPACT_BLOCK threads a launch asks each
// multiprocessor to hold (its `__launch_bounds__`): 4 caps a thread at 64
// registers (half the warp slots of an H100), which its run and the
// look-back fit without spilling (the resource table's no-spill budget
// checks it), where uncapped the compiler takes up to 128 and two blocks
// fit.
__host__ __device__ constexpr granule::u32 compact_min_blocks() { return 4u; }

// Bytes of dynamic shared memory: the staged tile, and in place each
// staged element's index in the tile, both at granule::scan_slot's padded
// slots. A warp's threads stage their kept elements from ranks about
// 32 * (kept fraction) apart, which without the pad word per 32 put every
// third lane on one bank when 2/3 are kept, so most shared-memory
// wavefronts of the stage were replays.
__host__ __device__ constexpr granule::u64 compact_smem(granule::u64 bytes, bool in_place) {
  return granule::scan_slot((granule::u64)COMPACT_BLOCK * compact_items(bytes)) * (bytes + (in_place ? 4ull : 0ull));
}

// Compacts the n elements x(i) (i < n): the kept ones (keep(i, v)) go
// to put_true(0, 1, ..) in order; with `partition` the others go to
// put_false(0, 1, ..) in order. *result gets the count kept.
template <class T, class Keep, class PutTrue, class PutFalse>
__device__ void compact(granule::u64 n, granule::u64 smem, bool partition, bool in_place,
                        granule::u64* status, granule::u64* values, granule::u32* tiles, granule::u64* result,
                        const granule::View<const T, 1, granule::LayoutStride>& x, Keep keep, PutTrue put_true,
                        PutFalse put_false) {
  using granule::u32;
  using granule::u64;
  constexpr u32 I = compact_items(sizeof(T));
  static_assert(I <= 32u, "a run's kept elements are the bits of a u32");
  const u32 B = blockDim.x, t = threadIdx.x, lane = t & 31u;
  // The tile size assumes COMPACT_BLOCK threads; the staging needs its
  // bytes. The host sizes the tile states with its mirror of
  // compact_items, and `smem` is its mirror of compact_smem: exactly
  // equal, so a mirror that drifts traps instead of overrunning them.
  if (B != COMPACT_BLOCK || blockDim.y != 1u || blockDim.z != 1u) __trap();
  if (smem != compact_smem(sizeof(T), in_place)) __trap();
  const granule::TileStates<u64> st{status, values};
  const u64 per_tile = (u64)B * I;
  const u64 ntiles = n / per_tile + (n % per_tile != 0ull);
  const bool pieces = granule::loads_in_pieces<I>(x);
  using granule::scan_slot;
  T* stage = (T*)granule::granule_dyn_smem;
  u32* from = (u32*)(stage + scan_slot(per_tile));  // in place only
  __shared__ u32 tile_s;
  __shared__ u64 before_s;
  for (;;) {
    GRANULE_WAIT_TICK();
    const u64 tile = granule::claim_tile(tiles, tile_s);
    if (tile >= ntiles) return;
    const u64 first = tile * per_tile;
    const u64 len = n - first < per_tile ? n - first : per_tile;
    const u32 mine = t * I;  // the run's first element in the tile
    const u32 count = granule::run_length<I>(mine, len);
    // The stage's last readers (the previous tile's writes out) were
    // before claim_tile's barrier.
    granule::load_tile<I>(x, pieces, first, len, [&](u64 e, const T& value) { stage[scan_slot(e)] = value; });
    __syncthreads();
    T v[I];
    for (u32 q = 0; q < I; ++q) {
      if (q < count) v[q] = stage[scan_slot(mine + q)];
    }
    u32 kept_bits = 0u, kept = 0u;
    for (u32 q = 0; q < I; ++q) {
      if (q < count && keep(first + mine + q, v[q])) {
        kept_bits |= 1u << q;
        ++kept;
      }
    }
    u32 total;
    u32 rank = granule::block_exclusive_scan<granule::Sum<u32>>(kept, total);
    // On a GPU a thread whose predicate panicked has stopped before the
    // scan (granule::stop_thread), and the scan read a count it never
    // gave: ranks could collide or pass the stage (compute-sanitizer's
    // racecheck reports the collisions). It claimed the failure
    // word before stopping, and the scan's barriers wait for it to stop,
    // so every thread of the block sees the word here and stops too,
    // before staging or publishing anything.
    granule::stop_if_failed();
    if (t < 32u) {
      // The tile's loads are done (their values decided `total`); the
      // fence orders them before the count that lets later tiles write.
      __threadfence();
      // The scans' tile prefix over u64 counts: it also writes the last
      // tile's before + total, the count kept, to *result.
      const u64 before = granule::tile_exclusive_prefix<granule::Sum<u64>>(st, tile, ntiles, (u64)total, result, lane);
      if (lane == 0u) before_s = before;
    }
    // block_exclusive_scan's barriers are behind every thread's reads of
    // the staged tile.
    for (u32 q = 0; q < I; ++q) {
      if (q >= count) break;
      const u32 e = mine + q;
      u32 slot;
      if (kept_bits >> q & 1u) slot = rank++;
      else if (partition) slot = total + e - rank;  // rank: the kept elements before e
      else continue;
      stage[scan_slot(slot)] = v[q];
      if (in_place) from[scan_slot(slot)] = e;
    }
    __syncthreads();
    const u64 before = before_s;
    const u64 upto = partition ? len : (u64)total;
    granule::stride_loop((u64)t, upto, (u64)B, [&](u64 j) {
      if (j < (u64)total) {
        const u64 at = before + j;
        if (!(in_place && at == first + from[scan_slot(j)])) put_true(at, stage[scan_slot(j)]);
      } else {
        put_false(first - before + (j - total), stage[scan_slot(j)]);
      }
    });
    if ((u64)gridDim.x >= ntiles) return;  // every tile had its own block
  }
}

}  // namespace granule_algo
