// compact.cuh: granule-algorithms' stream compaction on a device, in one
// launch that fuses the predicate, the scan of the counts and the
// scatter (copy_if, remove_if, partition_copy, compaction by flags,
// unique).
//
// Tiles. A tile is COMPACT_BLOCK * compact_items(sizeof(T)) consecutive
// elements, claimed by blocks in order from an atomic counter (so a tile
// only waits on tiles claimed before it, whose blocks are running). Its
// block:
// 1. loads the tile striped (element r * B + t on thread t, so a warp
//    reads consecutive elements), all of a thread's loads before it
//    waits on one, keeps the values in registers and evaluates the
//    predicate once per element;
// 2. ranks the kept elements in tile order: a warp ballot per row r,
//    the popcounts of the (row, warp) pairs scanned across the block
//    (granule::block_exclusive_scan), plus the kept lanes before this one
//    in the ballot;
// 3. publishes the tile's count and looks back to the tiles before it
//    (warp 0, the header's TileStates and lookback_nearest over u64
//    sums, exact), which gives the number of kept elements before the
//    tile;
// 4. stages the kept elements in shared memory at their rank (for a
//    partition, the rejected ones after them, in order), then writes the
//    staged run out with consecutive threads on consecutive positions
//    (coalesced), to out(before + j).
// Each element is read once from memory and each kept one written once.
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
// the launch passes as `smem` and the driver checks. Grid: any.

namespace granule_algo {

constexpr granule::u32 COMPACT_BLOCK = 256u;
constexpr granule::u32 COMPACT_WARPS = COMPACT_BLOCK / 32u;

// Elements per thread of a tile: 8 up to 4-byte elements (2048 a tile),
// 4 above. compact/cuda.rs mirrors it.
__host__ __device__ constexpr granule::u32 compact_items(granule::u64 bytes) { return bytes <= 4ull ? 8u : 4u; }

// Bytes of dynamic shared memory: the staged tile, and in place each
// staged element's index in the tile.
__host__ __device__ constexpr granule::u64 compact_smem(granule::u64 bytes, bool in_place) {
  return (granule::u64)COMPACT_BLOCK * compact_items(bytes) * (bytes + (in_place ? 4ull : 0ull));
}

// The count kept before `tile` (tile > 0 looks back), after publishing
// the tile's own count `total`; on every lane of warp 0.
__device__ __forceinline__ granule::u64 kept_before(const granule::TileStates<granule::u64>& st, granule::u64 tile,
                                                    granule::u64 total, granule::u32 lane) {
  using granule::TILE_AGGREGATE;
  using granule::TILE_INCLUSIVE;
  if (lane == 0u) st.publish(tile, tile == 0ull ? TILE_INCLUSIVE : TILE_AGGREGATE, total);
  if (tile == 0ull) return 0ull;
  const granule::u64 excl = granule::lookback_nearest<granule::Sum<granule::u64>>(st, tile, lane);
  if (lane == 0u) st.publish(tile, TILE_INCLUSIVE, excl + total);
  return excl;
}

// Compacts the n elements load(i) (i < n): the kept ones (keep(i, v)) go
// to put_true(0, 1, ..) in order; with `partition` the others go to
// put_false(0, 1, ..) in order. *result gets the count kept.
template <class T, class Load, class Keep, class PutTrue, class PutFalse>
__device__ void compact(granule::u64 n, granule::u64 smem, bool partition, bool in_place,
                        granule::u64* status, granule::u64* values, granule::u32* tiles, granule::u64* result,
                        Load load, Keep keep, PutTrue put_true, PutFalse put_false) {
  using granule::u32;
  using granule::u64;
  constexpr u32 I = compact_items(sizeof(T));
  const u32 B = blockDim.x, t = threadIdx.x, lane = t & 31u, warp = t >> 5;
  // The ranks assume COMPACT_BLOCK threads; the staging needs its bytes.
  if (B != COMPACT_BLOCK || blockDim.y != 1u || blockDim.z != 1u) __trap();
  if (smem < compact_smem(sizeof(T), in_place)) __trap();
  const granule::TileStates<u64> st{status, values};
  const u64 per_tile = (u64)B * I;
  const u64 ntiles = n / per_tile + (n % per_tile != 0ull);
  T* stage = (T*)granule::granule_dyn_smem;
  u32* from = (u32*)(stage + per_tile);  // in place only
  __shared__ u32 tile_s;
  __shared__ u32 rows[I * COMPACT_WARPS];  // kept per (row, warp), then their exclusive offsets
  __shared__ u64 before_s;
  for (;;) {
    GRANULE_WAIT_TICK();
    __syncthreads();  // the previous tile's readers of tile_s, rows, before_s and stage are done
    if (t == 0u) tile_s = atomicAdd(tiles, 1u);
    __syncthreads();
    const u64 tile = tile_s;
    if (tile >= ntiles) return;
    const u64 first = tile * per_tile;
    const u64 len = n - first < per_tile ? n - first : per_tile;
    T v[I];
    bool k[I];
    u32 mask[I];
    // Every load is issued before the first predicate waits on one.
    for (u32 r = 0; r < I; ++r) {
      const u64 e = (u64)r * B + t;
      if (e < len) v[r] = load(first + e);
    }
    for (u32 r = 0; r < I; ++r) {
      const u64 e = (u64)r * B + t;
      k[r] = e < len && keep(first + e, v[r]);
      mask[r] = __ballot_sync(0xffffffffu, k[r]);
      if (lane == 0u) rows[r * COMPACT_WARPS + warp] = (u32)__popc(mask[r]);
    }
    __syncthreads();
    const u32 mine = t < I * COMPACT_WARPS ? rows[t] : 0u;
    u32 total;
    const u32 offset = granule::block_exclusive_scan<granule::Sum<u32>>(mine, total);
    if (t < I * COMPACT_WARPS) rows[t] = offset;
    if (t < 32u) {
      // The tile's loads are done (their values decided `total`); the
      // fence orders them before the count that lets later tiles write.
      __threadfence();
      const u64 before = kept_before(st, tile, (u64)total, lane);
      if (lane == 0u) {
        before_s = before;
        if (tile == ntiles - 1ull) *result = before + total;
      }
    }
    __syncthreads();
    const u64 before = before_s;
    for (u32 r = 0; r < I; ++r) {
      const u64 e = (u64)r * B + t;
      if (e >= len) continue;
      const u32 rank = rows[r * COMPACT_WARPS + warp] + (u32)__popc(mask[r] & ((1u << lane) - 1u));
      u64 slot;
      if (k[r]) slot = rank;
      else if (partition) slot = (u64)total + e - rank;
      else continue;
      stage[slot] = v[r];
      if (in_place) from[slot] = (u32)e;
    }
    __syncthreads();
    const u64 upto = partition ? len : (u64)total;
    granule::stride_loop((u64)t, upto, (u64)B, [&](u64 j) {
      if (j < (u64)total) {
        const u64 at = before + j;
        if (!(in_place && at == first + from[j])) put_true(at, stage[j]);
      } else {
        put_false(first - before + (j - total), stage[j]);
      }
    });
    if ((u64)gridDim.x >= ntiles) return;  // every tile had its own block
  }
}

}  // namespace granule_algo
