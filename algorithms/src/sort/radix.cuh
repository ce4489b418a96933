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
// 1. loads the keys (and values) striped (coalesced) and transposes
//    them through shared memory, so thread t holds the consecutive keys
//    t * RADIX_ITEMS.. of the tile (a partial tile is padded with keys
//    whose digit is 255, which land after every real key);
// 2. sorts the tile by the pass's digit in shared memory, stably, with
//    four 2-bit splits: the four bucket counts of each thread packed in
//    16-bit fields of a u64, scanned across the block
//    (granule::block_exclusive_scan), give every key its place;
// 3. finds each digit's run in the sorted tile, publishes the run
//    lengths (thread d for digit d), looks back to the nearest tile with
//    an inclusive offset for each digit (tile 0's is the digit's start
//    from the histogram), and publishes its own inclusive offsets;
// 4. writes each key to its digit's offset plus its place in the run:
//    consecutive keys of a run to consecutive positions.
// Keys are read once and written once per pass. The status word of
// (tile, digit) holds its state in the top 2 bits and the count or
// offset below, so one access carries both: a u32 when the keys number
// fewer than 2^30, a u64 above (the host picks W).
//
// Workspace (granule-algorithms' sort/radix_cuda.rs sizes it): per pass,
// `status`, ntiles * 256 zeroed words of W, and `tiles`, one zeroed u32;
// the histogram is a View of 8 * sizeof(K) rows of 256 u64, zeroed before
// radix_histogram. Block: RADIX_BLOCK threads. Dynamic shared memory:
// radix_smem(sizeof(K), sizeof(V) or 0) bytes, passed as `smem` and
// checked. Grid: any.

namespace granule_algo {

constexpr granule::u32 RADIX_BLOCK = 512u;
constexpr granule::u32 RADIX_ITEMS = 16u;
constexpr granule::u64 RADIX_TILE = (granule::u64)RADIX_BLOCK * RADIX_ITEMS;

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

// Counts the digits of all 8 * sizeof(K) / 8 passes of the n keys into
// hist(pass * 256 + digit) (zeroed by the host): per block in shared
// memory, then one global atomic add per (pass, digit) the block saw.
template <class K, class Keys, class Hist>
__device__ void radix_histogram(granule::u64 n, const Keys& keys, const Hist& hist) {
  using granule::u32;
  using granule::u64;
  constexpr u32 P = (u32)sizeof(K);
  __shared__ u32 counts[P * 256u];
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

// One stable 2-bit split of the tile in shared memory by bits `s`, `s + 1`
// of each key's digit: thread t holds the tile's keys t * RADIX_ITEMS..
// in `kk` (and values in `vv`) and writes them to their places in `sk`
// (`sv`). Every thread of the block calls it.
template <class K, class V, bool Values>
__device__ void split2(K (&kk)[RADIX_ITEMS], V (&vv)[RADIX_ITEMS], granule::u32 shift, granule::u32 s, K* sk,
                       V* sv) {
  using granule::u32;
  using granule::u64;
  u64 counts = 0ull;  // four 16-bit bucket counts
  for (u32 q = 0; q < RADIX_ITEMS; ++q) counts += 1ull << (16u * ((digit_of(kk[q], shift) >> s) & 3u));
  u64 total;
  const u64 before = granule::block_exclusive_scan<granule::Sum<u64>>(counts, total);
  u64 at[4];
  u64 start = 0ull;
  for (u32 b = 0; b < 4u; ++b) {
    at[b] = start + (before >> (16u * b) & 0xffffull);
    start += total >> (16u * b) & 0xffffull;
  }
  for (u32 q = 0; q < RADIX_ITEMS; ++q) {
    const u32 b = (digit_of(kk[q], shift) >> s) & 3u;
    sk[at[b]] = kk[q];
    if constexpr (Values) sv[at[b]] = vv[q];
    at[b] += 1ull;
  }
}

// One digit pass (digit at bit `shift`) over the n keys of kin (values
// vin) into kout (vout), with the digit starts of row `row` of hist.
template <class K, class V, class W, bool Values, class KIn, class KOut, class VIn, class VOut, class Hist>
__device__ void radix_pass(granule::u64 n, granule::u32 shift, granule::u32 row, granule::u64 smem, const Hist& hist,
                           const KIn& kin, const KOut& kout, const VIn& vin, const VOut& vout, W* status,
                           granule::u32* tiles) {
  using granule::u32;
  using granule::u64;
  const u32 t = threadIdx.x;
  // The splits' packed counts and the digit table assume the block; the
  // tile needs its shared memory.
  if (blockDim.x != RADIX_BLOCK || blockDim.y != 1u || blockDim.z != 1u) __trap();
  if (smem < radix_smem(sizeof(K), Values ? sizeof(V) : 0u)) __trap();
  const DigitStates<W> st{status};
  const u64 ntiles = n / RADIX_TILE + (n % RADIX_TILE != 0ull);
  K* sk = (K*)granule::granule_dyn_smem;
  V* sv = (V*)(sk + RADIX_TILE);
  __shared__ u64 start_s[256];  // the digits' first positions, from the histogram
  __shared__ u32 first_s[256];  // each digit's run in the sorted tile
  __shared__ u32 end_s[256];
  __shared__ u64 base_s[256];  // the digit's keys before the tile
  __shared__ u32 tile_s;
  u64 digits_total;
  const u64 own = t < 256u ? hist(row * 256ull + t) : 0ull;
  const u64 start = granule::block_exclusive_scan<granule::Sum<u64>>(own, digits_total);
  if (t < 256u) start_s[t] = start;
  K kk[RADIX_ITEMS];
  V vv[RADIX_ITEMS];
  for (;;) {
    GRANULE_WAIT_TICK();
    __syncthreads();  // the previous tile's readers of the tables and the tile are done
    if (t == 0u) tile_s = atomicAdd(tiles, 1u);
    if (t < 256u) {
      first_s[t] = 0u;
      end_s[t] = 0u;
    }
    __syncthreads();
    const u64 tile = tile_s;
    if (tile >= ntiles) return;
    const u64 first = tile * RADIX_TILE;
    const u64 len = n - first < RADIX_TILE ? n - first : RADIX_TILE;
    // 1. striped loads, transposed through shared memory
    for (u32 q = 0; q < RADIX_ITEMS; ++q) {
      const u64 e = (u64)q * RADIX_BLOCK + t;
      sk[e] = e < len ? kin(first + e) : RadixBits<K>::from(~(typename RadixBits<K>::U)0);
      if constexpr (Values) {
        if (e < len) sv[e] = vin(first + e);
      }
    }
    __syncthreads();
    for (u32 q = 0; q < RADIX_ITEMS; ++q) {
      kk[q] = sk[(u64)t * RADIX_ITEMS + q];
      if constexpr (Values) vv[q] = sv[(u64)t * RADIX_ITEMS + q];
    }
    // 2. four stable 2-bit splits (each scan has barriers before its writes)
    for (u32 s = 0; s < 8u; s += 2u) {
      split2<K, V, Values>(kk, vv, shift, s, sk, sv);
      __syncthreads();
      if (s < 6u) {
        for (u32 q = 0; q < RADIX_ITEMS; ++q) {
          kk[q] = sk[(u64)t * RADIX_ITEMS + q];
          if constexpr (Values) vv[q] = sv[(u64)t * RADIX_ITEMS + q];
        }
      }
    }
    // 3. the digits' runs in the sorted tile (the padding sorts last)
    granule::stride_loop(t, len, RADIX_BLOCK, [&](u64 j) {
      const u32 d = digit_of(sk[j], shift);
      if (j == 0ull || digit_of(sk[j - 1ull], shift) != d) first_s[d] = (u32)j;
      if (j + 1ull == len || digit_of(sk[j + 1ull], shift) != d) end_s[d] = (u32)(j + 1ull);
    });
    __syncthreads();
    if (t < 256u) {
      const u64 count = (u64)(end_s[t] - first_s[t]);
      u64 before = start_s[t];
      if (tile == 0ull) {
        st.publish((u64)t, granule::TILE_INCLUSIVE, before + count);
      } else {
        st.publish(tile * 256ull + t, granule::TILE_AGGREGATE, count);
        before = st.look_back(tile, t);
        st.publish(tile * 256ull + t, granule::TILE_INCLUSIVE, before + count);
      }
      base_s[t] = before;
    }
    __syncthreads();
    // 4. each key to its digit's offset plus its place in the run
    granule::stride_loop(t, len, RADIX_BLOCK, [&](u64 j) {
      const u32 d = digit_of(sk[j], shift);
      const u64 at = base_s[d] + (j - first_s[d]);
      kout(at) = sk[j];
      if constexpr (Values) vout(at) = sv[j];
    });
    if ((u64)gridDim.x >= ntiles) return;  // every tile had its own block
  }
}

}  // namespace granule_algo
