// radix.cuh: granule-algorithms' LSD radix sort on a device, Onesweep
// style (Adinets & Merrill 2022): one launch counts the digits of every
// pass at once (radix_histogram), then one launch per 8-bit digit pass
// moves the keys (and values) to their buckets, chaining each tile's
// per-digit offsets to the tiles before it with a decoupled look-back
// (radix_pass). Keys sort by their order-preserving bits (RadixBits:
// integers by value, floats in total_cmp order); the sort is stable.
//
// A pass, per tile of RADIX_BLOCK * RADIX_ITEMS consecutive keys, claimed
// in order from an atomic counter:
// 1. each warp loads its 32 * RADIX_ITEMS consecutive keys (and values),
//    32 consecutive ones at a time (coalesced);
// 2. ranks them by the pass's digit within the warp, stably: a key's
//    peers (the lanes whose key has its digit) come from one ballot per
//    digit bit, and the last peer adds their number to the warp's counter
//    of the digit (Onesweep's warp ranking, with ballots for match.any);
// 3. scans the warps' counts into each warp's first place in each digit
//    and each digit's first place in the tile, and publishes the tile's
//    count of each digit at once, so later tiles look back sooner;
// 4. writes the keys to their places in shared memory (sorted by digit);
// 5. looks back to the nearest tile with an inclusive offset for each
//    digit (thread d for digit d; tile 0's is the digit's start from the
//    histogram), and publishes its own inclusive offsets;
// 6. writes each key to its digit's offset plus its place in the run:
//    consecutive keys of a run to consecutive positions.
// Keys are read once and written once per pass. The status word of
// (tile, digit) holds its state in the top 2 bits and the count or
// offset below, so one access carries both: a u32 when the keys number
// fewer than 2^30, a u64 above (the host picks W).
//
// Workspace (granule-algorithms' sort/radix_cuda.rs sizes it): per pass,
// `status`, ntiles * 256 zeroed words of W, and `tiles`, one zeroed u32;
// the histogram is a View of radix_hist_len(sizeof(K)) u64 (the counts,
// the plan, a block counter), zeroed before radix_histogram. The host
// launches one pass per key byte, k = 0, 1, .., and the plan says which
// digit each sorts by, or that it does nothing. Block: RADIX_BLOCK threads. Dynamic shared memory:
// radix_smem(sizeof(K), sizeof(V) or 0) bytes, passed as `smem` and
// checked. Grid: any.

namespace granule_algo {

constexpr granule::u32 RADIX_BLOCK = 512u;
constexpr granule::u32 RADIX_ITEMS = 16u;
constexpr granule::u64 RADIX_TILE = (granule::u64)RADIX_BLOCK * RADIX_ITEMS;
// Thread d < 256 handles digit d, whole warps rank, and a warp's places
// travel two to a 32-bit word.
static_assert(RADIX_BLOCK >= 256u && RADIX_BLOCK % 32u == 0u, "a thread per digit, whole warps");
static_assert(RADIX_ITEMS % 2u == 0u && 32u * RADIX_ITEMS <= 65536u, "places fit 16 bits, two to a word");

// The fewest blocks per multiprocessor a pass's __launch_bounds__ asks
// for. Keys alone run faster with two blocks resident, though the cap
// spills a little, because the second block hides the first's memory
// waits; key-value pairs spill twice as much under that cap, which costs
// more than it hides, so they take no cap, and neither do 8-byte keys,
// which hold twice the registers.
template <class K, bool Values> __host__ __device__ constexpr granule::u32 radix_min_blocks() {
  return !Values && sizeof(K) <= 4 ? 2u : 1u;
}

// Bytes of dynamic shared memory of a pass: the tile's keys and values.
__host__ __device__ constexpr granule::u64 radix_smem(granule::u64 key_bytes, granule::u64 value_bytes) {
  return RADIX_TILE * (key_bytes + value_bytes);
}

// The order-preserving bits of a key and back: integers by value (signed
// ones with the sign bit flipped), floats in total_cmp order (negative:
// every bit flipped; positive: the sign bit set). RadixKey (sort/key.rs)
// is the host's.
template <class K> struct RadixBits;
#define GRANULE_RADIX_UINT(K)                                                                          \
  template <> struct RadixBits<K> {                                                                    \
    typedef K U;                                                                                       \
    static __device__ __forceinline__ U to(K k) { return k; }                                          \
    static __device__ __forceinline__ K from(U u) { return u; }                                        \
  };
GRANULE_RADIX_UINT(granule::u32)
GRANULE_RADIX_UINT(granule::u64)
#undef GRANULE_RADIX_UINT
#define GRANULE_RADIX_INT(K, UT)                                                                       \
  template <> struct RadixBits<K> {                                                                    \
    typedef UT U;                                                                                      \
    static constexpr U SIGN = (U)1 << (sizeof(U) * 8 - 1);                                             \
    static __device__ __forceinline__ U to(K k) { return (U)k ^ SIGN; }                                \
    static __device__ __forceinline__ K from(U u) { return (K)(u ^ SIGN); }                            \
  };
GRANULE_RADIX_INT(granule::i32, granule::u32)
GRANULE_RADIX_INT(granule::i64, granule::u64)
#undef GRANULE_RADIX_INT
template <> struct RadixBits<granule::f32> {
  typedef granule::u32 U;
  static constexpr U SIGN = 0x80000000u;
  static __device__ __forceinline__ U to(granule::f32 k) {
    const U b = granule::bits_of(k);
    return (b & SIGN) != 0u ? ~b : (b | SIGN);
  }
  static __device__ __forceinline__ granule::f32 from(U u) {
    return granule::from_bits(0.0f, (u & SIGN) != 0u ? (u & ~SIGN) : ~u);
  }
};
template <> struct RadixBits<granule::f64> {
  typedef granule::u64 U;
  static constexpr U SIGN = 0x8000000000000000ull;
  static __device__ __forceinline__ U to(granule::f64 k) {
    const U b = granule::bits_of(k);
    return (b & SIGN) != 0ull ? ~b : (b | SIGN);
  }
  static __device__ __forceinline__ granule::f64 from(U u) {
    return granule::from_bits(0.0, (u & SIGN) != 0ull ? (u & ~SIGN) : ~u);
  }
};

template <class K> __device__ __forceinline__ granule::u32 digit_of(K k, granule::u32 shift) {
  return (granule::u32)(RadixBits<K>::to(k) >> shift) & 255u;
}

// The plan's mark for a launch that runs no pass.
constexpr granule::u64 RADIX_NO_PASS = 256ull;

// The length of the histogram View for keys of `key_bytes` bytes: a row
// of 256 digit counts per pass, then the plan (one word per pass: the row
// that launch k sorts by, or RADIX_NO_PASS), then the histogram's count
// of finished blocks.
__host__ __device__ constexpr granule::u64 radix_hist_len(granule::u64 key_bytes) {
  return key_bytes * 256ull + key_bytes + 1ull;
}

// The plan of the sort, from the finished counts (thread 0 of the
// histogram's last block): the passes whose digit the n keys do not all
// share, in order, and when their number is odd the first pass whose
// digit they share too, so that the passes number an even count and the
// last one writes the caller's View. The other launches run no pass.
// Deciding it here keeps the host from waiting for the counts.
template <class K, class Hist> __device__ void radix_plan(granule::u64 n, const Hist& hist) {
  using granule::u32;
  constexpr u32 P = (u32)sizeof(K);
  bool shared[P];
  u32 moving = 0u;
  for (u32 p = 0; p < P; ++p) {
    shared[p] = false;
    for (u32 d = 0; d < 256u; ++d) shared[p] |= *(volatile granule::u64*)&hist(p * 256ull + d) == n;
    moving += shared[p] ? 0u : 1u;
  }
  bool extra = moving % 2u == 1u;
  u32 k = 0u;
  for (u32 p = 0; p < P; ++p) {
    const bool runs = !shared[p] || extra;
    if (shared[p] && extra) extra = false;
    if (runs) hist(P * 256ull + k++) = (granule::u64)p;
  }
  for (; k < P; ++k) hist(P * 256ull + k) = RADIX_NO_PASS;
}

// Counts the digits of all 8 * sizeof(K) / 8 passes of the n keys into
// hist(pass * 256 + digit) (zeroed by the host, radix_hist_len long): per
// block in shared memory, then one global atomic add per (pass, digit) the
// block saw. The last block to finish writes the plan (radix_plan).
template <class K, class Keys, class Hist>
__device__ void radix_histogram(granule::u64 n, const Keys& keys, const Hist& hist) {
  using granule::u32;
  using granule::u64;
  constexpr u32 P = (u32)sizeof(K);
  __shared__ u32 counts[P * 256u];
  __shared__ bool last_s;
  const u64 B = blockDim.x;
  granule::stride_loop(threadIdx.x, P * 256u, B, [&](u64 j) { counts[j] = 0u; });
  __syncthreads();
  granule::drive_for(0ull, n, [&](u64 i) {
    const K k = keys(i);
    for (u32 p = 0; p < P; ++p) atomicAdd(&counts[p * 256u + digit_of(k, 8u * p)], 1u);
  });
  __syncthreads();
  granule::stride_loop(threadIdx.x, P * 256u, B, [&](u64 j) {
    if (counts[j] != 0u) atomicAdd((unsigned long long*)&hist(j), (unsigned long long)counts[j]);
  });
  // Every thread's adds are ordered before the block counts itself done;
  // the last block sees every block's adds.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0u) {
    const u64 blocks = (u64)gridDim.x * gridDim.y * gridDim.z;
    last_s = atomicAdd((unsigned long long*)&hist(P * 256ull + P), 1ull) == blocks - 1ull;
  }
  __syncthreads();
  if (last_s && threadIdx.x == 0u) {
    __threadfence();
    radix_plan<K>(n, hist);
  }
}

// The status word of (tile, digit): state in the top 2 bits, the count
// (AGGREGATE) or the offset of the digit's first key of the next tile
// (INCLUSIVE) below.
template <class W> struct DigitStates {
  static constexpr granule::u32 SHIFT = sizeof(W) * 8u - 2u;
  static constexpr W VALUE = ((W)1 << SHIFT) - (W)1;
  W* status;
  __device__ __forceinline__ void publish(granule::u64 at, granule::u32 state, granule::u64 v) const {
    ((volatile W*)status)[at] = (W)state << SHIFT | ((W)v & VALUE);
  }
  // The offset of the digit's keys before `tile` (> 0), walking back to
  // the nearest tile with an inclusive offset; tile 0 always has one.
  __device__ granule::u64 look_back(granule::u64 tile, granule::u32 digit) const {
    granule::u64 sum = 0ull;
    for (granule::u64 tt = tile - 1ull;; --tt) {
      GRANULE_LOOP_TICK();
      W w = ((volatile W*)status)[tt * 256ull + digit];
      while ((w >> SHIFT) == (W)granule::TILE_PENDING) {
        GRANULE_WAIT_TICK();
        w = ((volatile W*)status)[tt * 256ull + digit];
      }
      sum += (granule::u64)(w & VALUE);
      if ((w >> SHIFT) == (W)granule::TILE_INCLUSIVE) return sum;
    }
  }
};

// The lanes of the warp whose digit equals this lane's, among `live`:
// one ballot per digit bit, kept where the lane's bit is 1 and inverted
// where it is 0 (every lane of the warp calls it). __match_any_sync gives
// the same lanes in one instruction, but it issues as several on
// current GPUs and the sort ran slower with it; CUB's Onesweep also
// prefers ballots.
__device__ __forceinline__ granule::u32 digit_peers(granule::u32 d, granule::u32 live) {
  granule::u32 peers = live;
  for (granule::u32 b = 0; b < 8u; ++b) {
    const granule::u32 bit = (d >> b) & 1u;
    const granule::u32 ones = __ballot_sync(0xffffffffu, bit);
    peers &= ones ^ (bit - 1u);
  }
  return peers;
}

// Ranks the warp's keys by digit, stably: key q of this lane is the
// tile's key `warp * 32 * RADIX_ITEMS + q * 32 + lane`. Counts them in the
// warp's row of `counts` (one counter per digit, zeroed) and returns, two
// to a word, each live key's place among the warp's earlier keys of its
// digit (below 32 * RADIX_ITEMS, so 16 bits hold it).
template <class K>
__device__ void rank_in_warp(const K (&kk)[RADIX_ITEMS], granule::u32 live_keys, granule::u32 shift,
                             granule::u32* counts, granule::u32 (&places)[RADIX_ITEMS / 2u]) {
  using granule::u32;
  const u32 lane = threadIdx.x % 32u;
  for (u32 q = 0; q < RADIX_ITEMS; ++q) {
    const bool live = q * 32u + lane < live_keys;
    const u32 d = digit_of(kk[q], shift);
    const u32 peers = digit_peers(d, __ballot_sync(0xffffffffu, live));
    // The last peer counts them all and hands the old count to its peers.
    // An atomic, so that a later key's last peer, another lane, adds after
    // it without a barrier: the warp's collectives order the two.
    const u32 last = live ? 31u - (u32)__clz((int)peers) : lane;
    u32 before = 0u;
    if (live && lane == last) before = atomicAdd(&counts[d], (u32)__popc(peers));
    before = __shfl_sync(0xffffffffu, before, (int)last);
    const u32 place = before + (u32)__popc(peers & ((1u << lane) - 1u));
    places[q / 2u] = q % 2u == 0u ? place : places[q / 2u] | place << 16u;
  }
}

// Launch k of the sort: the plan's k-th digit pass over the n keys of kin
// (values vin) into kout (vout), with the digit starts of its row of
// hist, or nothing when the plan has fewer passes.
template <class K, class V, class W, bool Values, class KIn, class KOut, class VIn, class VOut, class Hist>
__device__ void radix_pass(granule::u64 n, granule::u32 k, granule::u64 smem, const Hist& hist, const KIn& kin,
                           const KOut& kout, const VIn& vin, const VOut& vout, W* status, granule::u32* tiles) {
  using granule::u32;
  using granule::u64;
  const u64 planned = hist((u64)sizeof(K) * 256ull + k);
  if (planned >= (u64)sizeof(K)) return;  // every thread of the launch
  const u32 row = (u32)planned, shift = 8u * row;
  constexpr u32 WARPS = RADIX_BLOCK / 32u;
  constexpr u32 WARP_KEYS = 32u * RADIX_ITEMS;
  const u32 t = threadIdx.x, warp = t / 32u, lane = t % 32u;
  // The warps' counter rows and the digit table assume the block; the
  // tile needs its shared memory.
  if (blockDim.x != RADIX_BLOCK || blockDim.y != 1u || blockDim.z != 1u) __trap();
  if (smem < radix_smem(sizeof(K), Values ? sizeof(V) : 0u)) __trap();
  const DigitStates<W> st{status};
  const u64 ntiles = n / RADIX_TILE + (n % RADIX_TILE != 0ull);
  K* sk = (K*)granule::granule_dyn_smem;
  V* sv = (V*)(sk + RADIX_TILE);
  __shared__ u32 counts_s[WARPS * 256u];  // per warp and digit: its count, then its keys' first place
  __shared__ u64 start_s[256];            // the digits' first positions, from the histogram
  __shared__ u64 base_s[256];             // the digit's global position less its first place in the tile
  __shared__ u32 tile_s;
  u64 digits_total;
  const u64 own = t < 256u ? hist(row * 256ull + t) : 0ull;
  const u64 start = granule::block_exclusive_scan<granule::Sum<u64>>(own, digits_total);
  if (t < 256u) start_s[t] = start;
  K kk[RADIX_ITEMS];
  V vv[RADIX_ITEMS];
  u32 places[RADIX_ITEMS / 2u];
  for (;;) {
    GRANULE_WAIT_TICK();
    __syncthreads();  // the previous tile's readers of the tables and the tile are done
    if (t == 0u) tile_s = atomicAdd(tiles, 1u);
    granule::stride_loop(t, WARPS * 256u, RADIX_BLOCK, [&](u64 j) { counts_s[j] = 0u; });
    __syncthreads();
    const u64 tile = tile_s;
    if (tile >= ntiles) return;
    const u64 first = tile * RADIX_TILE;
    const u64 len = n - first < RADIX_TILE ? n - first : RADIX_TILE;
    // 1. each warp loads its consecutive keys, 32 at a time (coalesced)
    const u64 warp_first = (u64)warp * WARP_KEYS;
    const u32 live_keys = len > warp_first ? (u32)(len - warp_first < WARP_KEYS ? len - warp_first : WARP_KEYS) : 0u;
    for (u32 q = 0; q < RADIX_ITEMS; ++q) {
      const u64 e = warp_first + q * 32u + lane;
      kk[q] = e < len ? kin(first + e) : RadixBits<K>::from(~(typename RadixBits<K>::U)0);
      if constexpr (Values) {
        if (e < len) vv[q] = vin(first + e);
      }
    }
    // 2. each key's place among its warp's keys of its digit
    u32* counts = counts_s + warp * 256u;
    rank_in_warp<K>(kk, live_keys, shift, counts, places);
    __syncthreads();
    // 3. the tile's count of each digit and its first place; each warp's
    // first place in each digit; the count published for later tiles
    u64 count = 0ull;
    if (t < 256u) {
      for (u32 w = 0; w < WARPS; ++w) {
        const u32 c = counts_s[w * 256u + t];
        counts_s[w * 256u + t] = (u32)count;
        count += c;
      }
    }
    u64 tile_count;
    const u64 place0 = granule::block_exclusive_scan<granule::Sum<u64>>(count, tile_count);
    if (t < 256u) {
      for (u32 w = 0; w < WARPS; ++w) counts_s[w * 256u + t] += (u32)place0;
      if (tile == 0ull) st.publish((u64)t, granule::TILE_INCLUSIVE, start_s[t] + count);
      else st.publish(tile * 256ull + t, granule::TILE_AGGREGATE, count);
    }
    __syncthreads();
    // 4. the tile sorted by digit in shared memory
    for (u32 q = 0; q < RADIX_ITEMS; ++q) {
      if (q * 32u + lane < live_keys) {
        const u32 at = counts[digit_of(kk[q], shift)] + (places[q / 2u] >> (16u * (q % 2u)) & 0xffffu);
        sk[at] = kk[q];
        if constexpr (Values) sv[at] = vv[q];
      }
    }
    // 5. the digit's keys before the tile, from the tiles before it
    if (t < 256u) {
      u64 before = start_s[t];
      if (tile != 0ull) {
        before = st.look_back(tile, t);
        st.publish(tile * 256ull + t, granule::TILE_INCLUSIVE, before + count);
      }
      base_s[t] = before - place0;  // wraps; adding a place in the digit's run wraps back
    }
    __syncthreads();
    // 6. each key to its digit's offset plus its place in the run:
    // consecutive keys of a run to consecutive positions
    granule::stride_loop(t, len, RADIX_BLOCK, [&](u64 j) {
      const u64 at = base_s[digit_of(sk[j], shift)] + j;
      kout(at) = sk[j];
      if constexpr (Values) vout(at) = sv[j];
    });
    if ((u64)gridDim.x >= ntiles) return;  // every tile had its own block
  }
}

}  // namespace granule_algo
