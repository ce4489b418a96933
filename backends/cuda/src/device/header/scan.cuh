// scan.cuh: parallel_scan in one pass with a decoupled look-back (the device header's end).
// ---------------------------------------------------------------- scan

// parallel_scan over [begin, end) in one pass, chaining tiles with a
// decoupled look-back (Merrill & Garland 2016).
//
// Tiles. A tile is blockDim.x * scan_items(sizeof(T)) consecutive indices.
// Each thread makes the Kokkos non-final call f(i, v, false), v starting
// at the identity, for the indices k * blockDim.x + threadIdx.x of the
// tile (striped, so a warp's calls touch consecutive indices), then the
// final call f(i, partial, true) for the same indices: one call of each
// kind per index. Between the two the tile is scanned in shared memory:
// the values are transposed so that thread t holds the run of `items`
// consecutive values starting at t * items, each thread folds its run,
// the block scans the folds (block_exclusive_scan), and each thread
// writes the exclusive prefixes of its run back for the final calls.
//
// Tile status. Tile t publishes its aggregate (the join of its values)
// and, when asked to, an inclusive prefix, each with its state, PENDING <
// AGGREGATE < INCLUSIVE (TileStates). Values of up to 4 bytes share one
// 64-bit word with their state, written and read with single 64-bit
// accesses, so no reader sees a state without its value and no fence is
// needed; larger values sit in `values` (aggregate and inclusive prefix
// per tile) behind a state word, with a fence on each side.
//
// Look-back. Warp 0 of the block reads the states of 32 tiles at once
// (one per lane) and spins only while one of them is still PENDING.
// - Exactly associative Op (is_exactly_associative): any grouping gives
//   the same bits, so the usual look-back runs: every tile publishes its
//   inclusive prefix, and a tile joins the aggregates back to the nearest
//   inclusive prefix, 32 tiles per step (lookback_nearest).
// - Otherwise (float sum and product, float min/max, custom and tuple
//   reducers over them) where the look-back stops would decide the
//   grouping and results would depend on timing. Instead tile t's
//   exclusive prefix is a fixed function of t. With windows of 32 tiles,
//   w = t / 32, j = t % 32, a_t the tile aggregates, and HS(x)[l] lane l of
//   the Hillis-Steele inclusive scan of 32 values (warp_inclusive_scan):
//     S_w     = HS(a_32w .. a_32w+31)[31]             (window total)
//     P_0     = S_0,  P_w = P_(w-1) + S_w             (through window w)
//     L_j     = HS(a_32w .. a_32w+31)[j - 1]          (j > 0)
//     excl(t) = P_(w-1) + L_j,  or the term that exists when w or j is 0
//               (the identity for t = 0);
//   `+` is Op::join, its left operand the earlier. Only the last tile of a
//   window publishes an inclusive prefix, P_w. A tile reads the
//   aggregates before it in its window, then P_(w-1): from tile 32w - 1
//   if published, otherwise it computes the S of the windows it walks
//   back over (up to 32) and folds them onto the first P it finds, left
//   to right: P_w's definition is a left fold, so the bits do not depend
//   on where the walk stopped (lookback_fixed, window_prefix).
// The total is excl(t) + a_t of the last tile t; an empty range gives
// the identity. Within a tile the grouping is fixed by the block size.
//
// Workspace (codegen::workspace::scan_workspace sizes it; the order is the
// entry's tail): `status`, one zeroed u64 per tile; `values`, 2 T per tile
// when sizeof(T) > 4 and unused otherwise; `tiles`, one zeroed u32 from
// which blocks claim tiles in launch order, so a tile only ever waits on
// tiles claimed before it, whose blocks are running; `result`, one T. The
// block is 1-D, a multiple of 32 threads; any grid works (blocks loop
// while tiles are left); dynamic shared memory holds
// scan_slots(tile) values of T.

// Items per thread of a scan tile, by the size of T: 16 for values of up
// to 4 bytes, 8 for 8-byte ones, else 32 bytes of values per thread (at
// least 1). codegen::workspace::scan_items mirrors it; a test compares
// the two. More items a thread make fewer tiles, so fewer look-back
// steps per index, and put more of a thread's loads in flight at once.
// The entry carries __launch_bounds__(256, scan_min_blocks(sizeof(T))):
// 4 resident blocks of 256 threads for values of up to 4 bytes (64
// registers a thread) and 3 for 8-byte ones (80 registers, in which 8
// items a thread fit without spills). Other sizes keep 32 bytes a thread
// and no cap. The cap is a trade: a user functor that needs more
// registers spills to local memory (slower, never wrong). Kokkos caps
// nothing by default (LaunchBounds<0, 0>) and sizes its blocks by
// occupancy instead; our block is fixed, so the cap is what keeps
// enough warps resident.
__host__ __device__ constexpr u32 scan_items(u64 bytes) {
  return bytes <= 4ull ? 16u : bytes == 8ull ? 8u : bytes >= 32ull ? 1u : (u32)(32ull / bytes);
}
__host__ __device__ constexpr u32 scan_min_blocks(u64 bytes) {
  return bytes <= 4ull ? 4u : bytes == 8ull ? 3u : 1u;
}
// The shared-memory slot of tile element e: one pad slot per 32 keeps the
// threads of a warp on distinct banks when each reads its run of `items`.
__host__ __device__ constexpr u64 scan_slot(u64 e) { return e + e / 32ull; }

enum : u32 { TILE_PENDING = 0u, TILE_AGGREGATE = 1u, TILE_INCLUSIVE = 2u };

// The bytes of a value of up to 4 bytes as the low half of a status word.
template <class T> __device__ __forceinline__ u32 low_bits(const T& v) {
  u32 w = 0u;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)&w)[b] = ((const unsigned char*)&v)[b];
  return w;
}
template <class T> __device__ __forceinline__ T from_low_bits(u32 w) {
  T v;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)&v)[b] = ((const unsigned char*)&w)[b];
  return v;
}

// The published state of the tiles: `read` returns a tile's state and,
// unless PENDING, sets `v` to the value published with it.
template <class T, bool Packed = (sizeof(T) <= 4)> struct TileStates;
template <class T> struct TileStates<T, true> {
  u64* status;
  T* values;  // unused: the value travels in the status word
  __device__ __forceinline__ void publish(u64 tile, u32 state, const T& v) const {
    ((volatile u64*)status)[tile] = (u64)state << 32 | (u64)low_bits(v);
  }
  __device__ __forceinline__ u32 read(u64 tile, T& v) const {
    const u64 w = ((volatile u64*)status)[tile];
    const u32 state = (u32)(w >> 32);
    if (state != TILE_PENDING) v = from_low_bits<T>((u32)w);
    return state;
  }
};
template <class T> struct TileStates<T, false> {
  u64* status;
  T* values;  // per tile: aggregate, inclusive prefix
  __device__ __forceinline__ void publish(u64 tile, u32 state, const T& v) const {
    values[2ull * tile + (state == TILE_INCLUSIVE ? 1ull : 0ull)] = v;
    __threadfence();  // the value before the state that announces it
    ((volatile u64*)status)[tile] = (u64)state;
  }
  __device__ __forceinline__ u32 read(u64 tile, T& v) const {
    const u32 state = (u32)((volatile u64*)status)[tile];
    if (state != TILE_PENDING) {
      __threadfence();  // the state before the value it announces
      v = load_volatile(values + 2ull * tile + (state == TILE_INCLUSIVE ? 1ull : 0ull));
    }
    return state;
  }
};

// Lane l of the Hillis-Steele inclusive scan over a full warp: at step d
// lane l >= d joins lane l - d's value on its left. Lane l's result
// depends only on lanes 0..l, and its grouping only on l.
template <class Op, class T> __device__ __forceinline__ T warp_inclusive_scan(T v, u32 lane) {
  for (u32 off = 1; off < 32u; off <<= 1) {
    T x = shuffle_words(v, [&](u32 word) { return __shfl_up_sync(0xffffffffu, word, off); });
    if (lane >= off) {
      Op::join(x, v);
      v = x;
    }
  }
  return v;
}
template <class T> __device__ __forceinline__ T lane_value(const T& v, u32 src) {
  return shuffle_words(v, [&](u32 word) { return __shfl_sync(0xffffffffu, word, src); });
}

// Exactly associative Op: the exclusive prefix of `tile` (> 0) on every
// lane of the first warp. Lane l reads tile end - 1 - l; the aggregates
// back to the nearest inclusive prefix are joined, then the window moves
// back by 32 if it held none (tile 0 always publishes one).
template <class Op, class T> __device__ T lookback_nearest(const TileStates<T>& st, u64 tile, u32 lane) {
  T after = Op::identity();  // the tiles between the window and `tile`
  for (u64 end = tile;; end -= 32ull) {
    GRANULE_LOOP_TICK();
    const bool here = end > (u64)lane;
    const u64 at = end - 1ull - lane;
    T v = Op::identity();
    u32 s = TILE_PENDING;
    while (true) {
      GRANULE_WAIT_TICK();
      if (here && s == TILE_PENDING) s = st.read(at, v);
      if (__ballot_sync(0xffffffffu, here && s == TILE_PENDING) == 0u) break;
    }
    const u32 incl = __ballot_sync(0xffffffffu, here && s == TILE_INCLUSIVE);
    // The lanes up to and including the nearest inclusive one.
    const u32 take = incl != 0u ? incl ^ (incl - 1u) : 0xffffffffu;
    T x = here && (take >> lane & 1u) ? v : Op::identity();
    // Ascending offsets pair neighbouring runs, so lane 0 ends with the
    // lanes joined in tile order (higher lanes are earlier tiles).
    for (u32 off = 1; off < 32u; off <<= 1) {
      T y = shuffle_words(x, [&](u32 word) { return __shfl_down_sync(0xffffffffu, word, off); });
      if (lane + off < 32u) {
        Op::join(y, x);
        x = y;
      }
    }
    x = lane_value(x, 0u);
    Op::join(x, after);
    after = x;
    if (incl != 0u) return after;
  }
}

// P_k (see drive_scan) on every lane of the first warp: tile 32k + 31's
// inclusive prefix if published; otherwise S_k from window k's 32
// aggregates, and on back, lane m keeping S_(k-m), until a published P or
// window 0 (P_0 = S_0); the S are then folded onto it oldest first. After
// 32 windows it waits for the next P rather than keep more.
template <class Op, class T> __device__ T window_prefix(const TileStates<T>& st, u64 k, u32 lane) {
  T saved = Op::identity();
  u32 taken = 0u;
  T base = Op::identity();
  for (;;) {
    GRANULE_LOOP_TICK();
    const u64 win = k - taken;
    T v = Op::identity();
    u32 s = TILE_PENDING;
    while (true) {
      GRANULE_WAIT_TICK();
      // Lane 31 keeps watching for the window's P while others are pending.
      if (s == TILE_PENDING || (lane == 31u && s == TILE_AGGREGATE)) s = st.read(win * 32ull + lane, v);
      const bool has_p = __ballot_sync(0xffffffffu, lane == 31u && s == TILE_INCLUSIVE) != 0u;
      const bool ready = __ballot_sync(0xffffffffu, s == TILE_PENDING) == 0u;
      if (has_p || (ready && taken < 32u)) break;
    }
    if (__ballot_sync(0xffffffffu, lane == 31u && s == TILE_INCLUSIVE) != 0u) {
      base = lane_value(v, 31u);
      break;
    }
    const T total = lane_value(warp_inclusive_scan<Op>(v, lane), 31u);
    if (win == 0ull) {
      base = total;
      break;
    }
    if (lane == taken) saved = total;
    ++taken;
  }
  for (u32 m = taken; m-- > 0u;) {
    GRANULE_LOOP_TICK();
    Op::join(base, lane_value(saved, m));
  }
  return base;
}

// Any Op: tile t's exclusive prefix excl(t), a fixed function of t (see
// drive_scan), on every lane of the first warp; `agg` is the tile's
// aggregate, already published. The last tile of a window publishes P_w.
template <class Op, class T> __device__ T lookback_fixed(const TileStates<T>& st, u64 tile, const T& agg, u32 lane) {
  const u64 w = tile / 32ull;
  const u32 j = (u32)(tile % 32ull);
  T a = lane == j ? agg : Op::identity();
  u32 s = TILE_PENDING;
  const bool earlier = lane < j;
  while (true) {
    GRANULE_WAIT_TICK();
    if (earlier && s == TILE_PENDING) s = st.read(w * 32ull + lane, a);
    if (__ballot_sync(0xffffffffu, earlier && s == TILE_PENDING) == 0u) break;
  }
  const T local = warp_inclusive_scan<Op>(a, lane);
  const T before = lane_value(local, j == 0u ? 0u : j - 1u);  // L_j
  const T window = lane_value(local, 31u);                      // S_w when j == 31
  T prior = Op::identity();
  if (w > 0ull) prior = window_prefix<Op>(st, w - 1ull, lane);
  T excl = Op::identity();
  if (w > 0ull) excl = prior;
  if (j > 0u) {
    if (w > 0ull) Op::join(excl, before);
    else excl = before;
  }
  if (j == 31u && lane == 0u) {
    T through = window;
    if (w > 0ull) {
      through = prior;
      Op::join(through, window);
    }
    st.publish(tile, TILE_INCLUSIVE, through);
  }
  return excl;
}

// The number of tiles of `per_tile` indices that n indices make, after
// checking the block's shape: 1-D, whole warps (the look-back's warp
// collectives name all 32 lanes of warp 0). With no tiles, block 0 writes
// the identity as the total.
template <class Op, class T> __device__ __forceinline__ u64 scan_tile_count(u64 n, u64 per_tile, T* result) {
  if (blockDim.x % 32u != 0u || blockDim.y != 1u || blockDim.z != 1u) __trap();
  const u64 ntiles = n / per_tile + (n % per_tile != 0ull);
  if (ntiles == 0ull && blockIdx.x == 0u && threadIdx.x == 0u) *result = Op::identity();
  return ntiles;
}

// The next tile for the block, from the launch's tile counter, on every
// thread (`tile_s` is the block's shared slot for it). The first barrier
// waits for the previous tile's readers of the block's shared memory.
__device__ __forceinline__ u64 claim_tile(u32* tiles, u32& tile_s) {
  __syncthreads();
  if (threadIdx.x == 0u) tile_s = atomicAdd(tiles, 1u);
  __syncthreads();
  return tile_s;
}

// body(tile) for each tile the block claims from the launch's tile
// counter, in claim order, until none of the `ntiles` is left (blocks
// claim in launch order, so a tile only waits on tiles whose blocks are
// running). Every thread of the block runs it.
// (A driver whose registers would grow inside the lambda, such as
// compaction's, loops on claim_tile itself.)
template <class Body> __device__ __forceinline__ void for_claimed_tiles(u32* tiles, u64 ntiles, Body body) {
  __shared__ u32 tile_s;
  for (;;) {
    GRANULE_WAIT_TICK();
    const u64 tile = claim_tile(tiles, tile_s);
    if (tile >= ntiles) return;
    body(tile);
    if ((u64)gridDim.x >= ntiles) return;  // every tile had its own block
  }
}

// Warp 0's part of a scan tile (see drive_scan): publishes the tile's
// aggregate `agg`, finds the tile's exclusive prefix by the look-back
// that suits Op (lookback_nearest, or lookback_fixed's fixed order),
// publishes the inclusive prefix that look-back asks for, and for the last
// tile writes its inclusive prefix to *result unless `result` is null (a
// scan whose total is its own last value writes that instead). Every lane
// of warp 0 returns the prefix.
template <class Op, class T>
__device__ T tile_exclusive_prefix(const TileStates<T>& st, u64 tile, u64 ntiles, const T& agg, T* result, u32 lane) {
  T excl = Op::identity();
  if constexpr (is_exactly_associative<Op>()) {
    if (lane == 0u) st.publish(tile, tile == 0ull ? TILE_INCLUSIVE : TILE_AGGREGATE, agg);
    if (tile > 0ull) {
      excl = lookback_nearest<Op>(st, tile, lane);
      if (lane == 0u) {
        T incl = excl;
        Op::join(incl, agg);
        st.publish(tile, TILE_INCLUSIVE, incl);
      }
    }
  } else {
    if (lane == 0u) st.publish(tile, TILE_AGGREGATE, agg);
    excl = lookback_fixed<Op>(st, tile, agg, lane);
  }
  if (result != nullptr && lane == 0u && tile == ntiles - 1ull) {
    T total = excl;
    Op::join(total, agg);
    *result = total;
  }
  return excl;
}

// drive_scan's tile loop over element values: load(i) is index i's value
// (its contribution to the scan) and fin(i, prefix, value) gets its
// exclusive prefix with the value load gave, and returns the running
// value after it; the last index's is the total (*result), the scan's own
// last value rather than the look-back's regrouped prefix, which may
// differ in a float's last bit. A thread issues all its
// loads of a tile before it stores any to shared memory, so they are in
// flight together, and it keeps the values in registers for fin: a scan
// whose load and fin both read x(i) reads memory once.
template <class Op, class T, class Load, class Fin>
__device__ void drive_scan_values(u64 begin, u64 end, u64* status, T* values, u32* tiles, T* result, Load load,
                                  Fin fin) {
  constexpr u32 items = scan_items(sizeof(T));
  const u32 block = blockDim.x, t = threadIdx.x, lane = t & 31u;
  const TileStates<T> st{status, values};
  const u64 n = end > begin ? end - begin : 0ull;
  const u64 per_tile = (u64)block * items;
  const u64 ntiles = scan_tile_count<Op>(n, per_tile, result);
  if (ntiles == 0ull) return;
  T* slots = (T*)granule_dyn_smem;
  __shared__ T prefix_s;
  for_claimed_tiles(tiles, ntiles, [&](u64 tile) {
    const u64 first = begin + tile * per_tile;
    const u64 left = n - tile * per_tile;  // indices from `first` on; this tile takes per_tile of them
    T own[items];
    for (u32 k = 0; k < items; ++k) {
      const u64 e = (u64)k * block + t;
      own[k] = e < left ? load(first + e) : Op::identity();
    }
    for (u32 k = 0; k < items; ++k) slots[scan_slot((u64)k * block + t)] = own[k];
    __syncthreads();
    T run[items];
    for (u32 q = 0; q < items; ++q) run[q] = slots[scan_slot((u64)t * items + q)];
    T fold = run[0];
    for (u32 q = 1; q < items; ++q) Op::join(fold, run[q]);
    T agg;
    T prefix = block_exclusive_scan<Op>(fold, agg);
    for (u32 q = 0; q < items; ++q) {
      slots[scan_slot((u64)t * items + q)] = prefix;
      Op::join(prefix, run[q]);
    }
    if (t < 32u) {
      const T excl = tile_exclusive_prefix<Op>(st, tile, ntiles, agg, (T*)nullptr, lane);
      if (lane == 0u) prefix_s = excl;
    }
    __syncthreads();
    for (u32 k = 0; k < items; ++k) {
      const u64 e = (u64)k * block + t;
      if (e < left) {
        T p = prefix_s;
        Op::join(p, slots[scan_slot(e)]);
        const T after = fin(first + e, p, own[k]);
        if (e + 1ull == left) *result = after;
      }
    }
  });
}

// The Kokkos form: the non-final call f(i, v, false), v starting at the
// identity, gives index i's value; the final call f(i, prefix, true).
template <class Op, class T, class F>
__device__ void drive_scan(u64 begin, u64 end, u64* status, T* values, u32* tiles, T* result, F f) {
  drive_scan_values<Op>(
      begin, end, status, values, tiles, result,
      [&](u64 i) {
        T v = Op::identity();
        f(i, v, false);
        return v;
      },
      [&](u64 i, T p, const T&) {
        f(i, p, true);
        return p;
      });
}

}  // namespace granule
