// team.cuh: team scratch, the team member, team collectives, drive_team and the nested ranges.
// --------------------------------------------------------------- teams

// Scratch as a team launch passes it (by value: the entry parameter
// `granule::TeamScratch scratch__`): the exact bytes the policy reserved
// per team and per team thread at levels 0 and 1 (the host's
// `set_scratch_size(level, PerTeam(..))` / `PerThread(..)`), and the
// level-1 memory. The launch must provide
// - dynamic shared memory of reserved_smem(threads) +
//   scratch_block_bytes(s, 0, team_size) bytes: the framework's reserved
//   words, then level 0 (the team region, then one region per team thread
//   in team-rank order, each starting 16-aligned);
// - `level1`: global memory of gridDim.x * scratch_block_bytes(s, 1,
//   team_size) bytes, 16-aligned (null when that is 0), laid out the same
//   way per block. Level 1 lives in global memory, as in Kokkos's CUDA
//   backend: it is the level for what does not fit in shared memory, and
//   a block reuses its slot for the teams it runs one after the other.
struct TeamScratch {
  u64 team_bytes[2];
  u64 thread_bytes[2];
  unsigned char* level1;
};
__host__ __device__ constexpr u64 round16(u64 bytes) { return (bytes + 15) / 16 * 16; }
// Bytes of one block's scratch at `level` for teams of `team_size` threads.
__host__ __device__ inline u64 scratch_block_bytes(const TeamScratch& s, u32 level, u64 team_size) {
  return round16(s.team_bytes[level]) + round16(s.thread_bytes[level]) * team_size;
}

// One scratch region of a team or team thread: a bump allocator over the
// exact bytes reserved, so a request fits exactly where the host's does.
struct ScratchRegion {
  unsigned char* base;
  u64 bytes;
  mutable u64 used;
  // Where `n` bytes aligned to `align` would start; false if they do not fit.
  __device__ __forceinline__ bool fit(u64 align, u64 n, u64& at) const {
    at = (used + align - 1) / align * align;
    return at <= bytes && n <= bytes - at;
  }
};

// The bytes of a scratch View of `ext` elements of T; false on overflow
// (the host's checked_mul).
template <class T, int R> __device__ __forceinline__ bool scratch_size(const usize (&ext)[R], u64& bytes) {
  u64 n = 1;
  for (int k = 0; k < R; ++k) {
    if (ext[k] != 0ull && n > 0xffffffffffffffffull / ext[k]) return false;
    n *= ext[k];
  }
  if (n > 0xffffffffffffffffull / sizeof(T)) return false;
  bytes = n * sizeof(T);
  return true;
}

// A team is a block: team threads are threadIdx.y, vector lanes threadIdx.x.
struct TeamMember {
  u64 league_rank_;
  u64 league_size_;
  ScratchRegion team_[2];    // shared by the team's threads
  ScratchRegion thread_[2];  // this team thread's; its vector lanes share it

  __device__ __forceinline__ usize league_rank() const { return league_rank_; }
  __device__ __forceinline__ usize league_size() const { return league_size_; }
  __device__ __forceinline__ usize team_rank() const { return threadIdx.y; }
  __device__ __forceinline__ usize team_size() const { return blockDim.y; }
  __device__ __forceinline__ usize vector_lane() const { return threadIdx.x; }
  __device__ __forceinline__ usize vector_length() const { return blockDim.x; }
  __device__ __forceinline__ void team_barrier() const { __syncthreads(); }

  // Scratch requests, as the host's `team_scratch::<T, R>(level, extents)`
  // and `thread_scratch`: the next elements of the region as a LayoutRight
  // View, zero-filled (see drive_team). Every thread of a team makes the
  // same requests, so all get the same team memory. Allocation has no
  // barrier, so it may sit in divergent code. `.unwrap()` of a request
  // that does not fit (or of level 2 and above) fails with code 1, View id
  // 0xffffffff, the level as rank, the bytes requested as index and the
  // bytes left as extent (the host's ScratchError); `*_fits` is
  // `.is_ok()`: it neither fails nor takes anything.
  template <class T, int R, class... E> __device__ View<T, R> team_scratch(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    return scratch_take<T, R>(team_, level, e);
  }
  template <class T, int R, class... E> __device__ View<T, R> thread_scratch(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    return scratch_take<T, R>(thread_, level, e);
  }
  template <class T, int R, class... E> __device__ bool team_scratch_fits(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    u64 at, bytes;
    return scratch_at<T, R>(team_, level, e, at, bytes);
  }
  template <class T, int R, class... E> __device__ bool thread_scratch_fits(usize level, E... ext) const {
    const usize e[R] = {(usize)ext...};
    u64 at, bytes;
    return scratch_at<T, R>(thread_, level, e, at, bytes);
  }
  // Where a request would start and its bytes (all ones on overflow).
  template <class T, int R>
  static __device__ bool scratch_at(const ScratchRegion* rs, usize level, const usize (&ext)[R], u64& at, u64& bytes) {
    at = 0;
    bytes = 0;
    if (level > 1ull) return false;
    const bool sized = scratch_size<T, R>(ext, bytes);
    if (!sized) bytes = 0xffffffffffffffffull;
    return rs[level].fit(alignof(T), bytes, at) && sized;
  }
  template <class T, int R>
  static __device__ View<T, R> scratch_take(const ScratchRegion* rs, usize level, const usize (&ext)[R]) {
    static_assert(R == 1 || R == 2, "scratch Views have rank 1 or 2");
    u64 at, bytes;
    if (!scratch_at<T, R>(rs, level, ext, at, bytes)) {
      const u64 left = level > 1ull ? 0ull : rs[level].bytes - rs[level].used;
      const u64 pad = level > 1ull ? 0ull : at - rs[level].used;
      fail(1, 0xffffffffu, level, bytes > ~pad ? bytes : bytes + pad, left);
    }
    rs[level].used = at + bytes;
    View<T, R> v;
    v.data = (T*)(rs[level].base + at);
    usize stride = 1;
    for (int k = R - 1; k >= 0; --k) {
      v.ext[k] = ext[k];
      v.str[k] = stride;
      stride *= ext[k];
    }
    v.id = 0xffffffffu;
    return v;
  }

  // The value of team thread `src` (vector lane 0), on every thread. The
  // slot is static shared memory of T's size, one per instantiation (as
  // team_join's), not the reserved words, which hold only 8 bytes per
  // thread: a larger T would spill into the team's scratch. Only
  // team_broadcast<T> uses the slot, and every call ends with a barrier
  // after its reads, so the next call's write cannot overtake them.
  // A source past the team fails as the host's assertion does: no thread
  // would write the slot, and the others would read a stale value.
  template <class T> __device__ T team_broadcast(T v, usize src) const {
    static_assert(alignof(T) <= 8, "broadcast values are at most 8-aligned");
    if (src >= (usize)blockDim.y) {
      assert_fail("team_broadcast from team rank {}, but the team has {} threads", 0u, 2u, assert_arg(src),
                  assert_arg((usize)blockDim.y));
    }
    __shared__ unsigned long long slot[(sizeof(T) + 7) / 8];
    if (threadIdx.y == src && threadIdx.x == 0) *(T*)slot = v;
    __syncthreads();
    T r = *(T*)slot;
    __syncthreads();
    return r;
  }
  // Reduces `v` over the team threads: vector lanes replicate a team
  // thread (Kokkos semantics), so lane 0's value counts, once per thread.
  template <class Op, class T> __device__ T team_reduce(T v) const {
    return team_join<Op>(threadIdx.x == 0 ? v : Op::identity());
  }
  // This thread's ids in the team (Block -> Thread scope), flat over the
  // team threads and vector lanes, as granule_core's `thread_ids()`.
  __device__ __forceinline__ ThreadIds thread_ids() const { return ThreadIds{threadIdx.y, blockDim.y}; }
  // Exclusive prefix sum of `v` (vector lane 0's) over the team threads in
  // rank order, on every thread; `total` gets the team's sum.
  // The buffer is the reserved words: 8 bytes per thread of the block, so
  // one T per team thread fits when T has at most 8 bytes.
  template <class T> __device__ T team_scan(T v, T* total = nullptr) const {
    static_assert(sizeof(T) <= 8, "team_scan's buffer holds values of up to 8 bytes per team thread");
    T* buf = (T*)granule_dyn_smem;
    __syncthreads();
    if (threadIdx.x == 0) buf[threadIdx.y] = v;
    __syncthreads();
    T prefix = (T)0, sum = (T)0;
    for (u32 k = 0; k < blockDim.y; ++k) {
      GRANULE_LOOP_TICK();
      if (k < threadIdx.y) prefix = wadd(prefix, buf[k]);
      sum = wadd(sum, buf[k]);
    }
    __syncthreads();
    if (total) *total = sum;
    return prefix;
  }
  // team_scan offset by a global accumulator: the team's total is added to
  // `global(index)` once (by the team's first thread), and every thread
  // gets the previous value plus its exclusive prefix.
  template <class T> __device__ T team_scan_global(T v, const AtomicView<T, 1>& global, usize index) const {
    T total;
    const T prefix = team_scan(v, &total);
    T base = (T)0;
    if (flat_thread() == 0) base = atomic_fetch_add(global.at(index), total);
    return wadd(team_broadcast(base, 0), prefix);
  }
};

// The lanes of this team thread within its warp: vector_length must be a
// power of two up to 32, so a thread's lanes are adjacent and aligned.
__device__ __forceinline__ u32 vector_group() {
  const u32 width = blockDim.x;
  const u32 lane = flat_thread() & 31u;
  return width >= 32u ? 0xffffffffu : (((1u << width) - 1u) << (lane / width * width));
}

// A warp shuffle of any trivially copyable value (scalars of every width,
// the reducers' struct accumulators): `s` moves one 32-bit word, since the
// intrinsics take 4- and 8-byte scalars only.
template <class T, class S> __device__ __forceinline__ T shuffle_words(const T& v, S s) {
  constexpr u32 n = (sizeof(T) + 3) / 4;
  u32 w[n];
  for (u32 k = 0; k < n; ++k) w[k] = 0u;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)w)[b] = ((const unsigned char*)&v)[b];
  for (u32 k = 0; k < n; ++k) w[k] = s(w[k]);
  T r;
  for (u32 b = 0; b < sizeof(T); ++b) ((unsigned char*)&r)[b] = ((const unsigned char*)w)[b];
  return r;
}

// The warps of the block: this thread's lane and warp, the lanes its warp
// has (the last warp may be partial) and their mask.
struct WarpPlace {
  u32 lane, warp, lanes, mask, warps;
  __device__ __forceinline__ WarpPlace() {
    const u32 t = flat_thread(), n = block_threads();
    lane = t & 31u;
    warp = t >> 5;
    lanes = n - warp * 32u < 32u ? n - warp * 32u : 32u;
    mask = lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;
    warps = (n + 31u) / 32u;
  }
};

// The join of one value per thread of the block, on every thread, for
// values of any size: a shuffle tree per warp, then the warps' results in
// order through static shared memory (32 slots of T), so the reserved
// words (8 bytes per thread) need not hold a struct accumulator. Every
// thread of the block must call it.
template <class Op, class T> __device__ T team_join(T v) {
  __shared__ unsigned long long slots[32 * ((sizeof(T) + 7) / 8)];
  T* parts = (T*)slots;
  const WarpPlace w;
  for (u32 off = 16; off > 0; off >>= 1) {
    const T x = shuffle_words(v, [&](u32 word) { return __shfl_down_sync(w.mask, word, off); });
    if (w.lane + off < w.lanes) Op::join(v, x);
  }
  if (w.lane == 0) parts[w.warp] = v;
  __syncthreads();
  T r = Op::identity();
  for (u32 k = 0; k < w.warps; ++k) {
    GRANULE_LOOP_TICK();
    Op::join(r, parts[k]);
  }
  __syncthreads();  // before a later call overwrites the slots
  return r;
}

// Exclusive prefix, in flat thread order, of one value per thread of the
// block (Op joins an earlier value with a later one); `total` gets every
// value joined. Warp shuffle scans, then the warps' totals in order
// through static shared memory. Every thread of the block must call it.
template <class Op, class T> __device__ T block_exclusive_scan(T v, T& total) {
  __shared__ unsigned long long slots[32 * ((sizeof(T) + 7) / 8)];
  T* sums = (T*)slots;
  const WarpPlace w;
  T incl = v;
  for (u32 off = 1; off < 32u; off <<= 1) {
    T x = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(w.mask, word, off); });
    if (w.lane >= off) {
      Op::join(x, incl);
      incl = x;
    }
  }
  T before = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(w.mask, word, 1u); });
  if (w.lane == 0) before = Op::identity();
  if (w.lane == w.lanes - 1) sums[w.warp] = incl;
  __syncthreads();
  T prefix = Op::identity();
  total = Op::identity();
  for (u32 k = 0; k < w.warps; ++k) {
    GRANULE_LOOP_TICK();
    if (k == w.warp) prefix = total;
    Op::join(total, sums[k]);
  }
  __syncthreads();  // before a later call overwrites the slots
  Op::join(prefix, before);
  return prefix;
}

// `single(PerTeam(m), || v)`: one thread of the team (team thread 0, lane
// 0) evaluates `f`; every thread of the team gets the value.
template <class F> __device__ auto single_per_team(const TeamMember& m, F f) -> decltype(f()) {
  typedef decltype(f()) T;
  T v{};
  if (flat_thread() == 0) v = f();
  return m.team_broadcast(v, 0);
}

// `single(PerThread(m), || v)`: vector lane 0 of this team thread
// evaluates `f`; the thread's lanes get the value (a shuffle within the
// thread's lanes, see vector_group).
template <class F> __device__ auto single_per_thread(const TeamMember&, F f) -> decltype(f()) {
  typedef decltype(f()) T;
  static_assert(sizeof(T) <= 8, "single(PerThread) broadcasts values of up to 8 bytes");
  T v{};
  if (threadIdx.x == 0) v = f();
  const u32 width = blockDim.x;
  if (width == 1u) return v;
  const u32 group = vector_group();
  return shuffle_words(v, [&](u32 word) { return __shfl_sync(group, word, 0, width); });
}

// `single(PerTeam(m), || { .. })` and `single(PerThread(m), || { .. })`
// with no value: the body runs on team thread 0's lane 0, or on lane 0 of
// each team thread. When the body writes shared memory, the translator
// wraps the call in a phase (below), which orders it with the rest.
template <class F> __device__ __forceinline__ void single_per_team_do(const TeamMember&, F f) {
  if (flat_thread() == 0) f();
}
template <class F> __device__ __forceinline__ void single_per_thread_do(const TeamMember&, F f) {
  if (threadIdx.x == 0) f();
}

// Phases of the team write model (macros/src/kernel/team_rules/): a
// nested pattern or `single` that writes team scratch runs between two
// team barriers, so its writes meet no other thread's accesses of the
// phases before and after it; one that writes a thread's memory runs
// between two barriers of the thread's vector lanes. Every thread (or
// lane) reaches them: the translator admits these constructs only in
// control flow that is the same on all of them. The closing barrier is a
// destructor, so that it runs after `f`'s value is computed, void or not.
struct TeamPhaseEnd {
  __device__ __forceinline__ ~TeamPhaseEnd() { __syncthreads(); }
};
template <class F> __device__ __forceinline__ auto team_phase(const TeamMember&, F f) -> decltype(f()) {
  __syncthreads();
  const TeamPhaseEnd end;
  return f();
}
struct LanePhaseEnd {
  __device__ __forceinline__ ~LanePhaseEnd() { __syncwarp(vector_group()); }
};
template <class F> __device__ __forceinline__ auto lane_phase(F f) -> decltype(f()) {
  __syncwarp(vector_group());
  const LanePhaseEnd end;
  return f();
}

// The part of `c` that team `m` writes (the driver binds it per team).
template <class T, class M> __device__ __forceinline__ TeamChunk<T, M> team_part(const Chunked<T, M>& c, const TeamMember& m) {
  return TeamChunk<T, M>{c.data, c.size, c.id, c.map, ThreadIds{m.league_rank(), m.league_size()}};
}

// Bytes of dynamic shared memory the framework reserves before team scratch.
__host__ __device__ constexpr u64 reserved_smem(u64 threads) { return ((threads * 8 + 15) / 16) * 16; }

// Zeroes `bytes` (a multiple of 16) at the 8-aligned `p`, all threads of
// the block together.
__device__ __forceinline__ void zero_block_bytes(unsigned char* p, u64 bytes) {
  u64* words = (u64*)p;
  stride_loop(flat_thread(), bytes / 8, block_threads(), [&](u64 k) { words[k] = 0ull; });
}

// The member of team `l`, with its regions carved from this block's
// level-0 (shared) and level-1 (global) scratch as TeamScratch describes.
__device__ __forceinline__ TeamMember team_member(u64 l, u64 league_size, const TeamScratch& s, unsigned char* const (&block)[2]) {
  TeamMember m{l, league_size, {}, {}};
  for (u32 level = 0; level < 2; ++level) {
    const u64 team = round16(s.team_bytes[level]);
    const u64 mine = team + round16(s.thread_bytes[level]) * threadIdx.y;
    m.team_[level] = ScratchRegion{block[level], s.team_bytes[level], 0};
    m.thread_[level] = ScratchRegion{block[level] + mine, s.thread_bytes[level], 0};
  }
  return m;
}

// Runs the league, one team per block at a time, with scratch as
// TeamScratch describes. Every team's scratch (both levels, team and
// thread regions) is zeroed before `f` starts, by all the block's threads
// and behind a barrier, so every allocation is zero-filled like the
// host's. Zeroing here rather than at allocation keeps allocation
// barrier-free (it may run in divergent code, and `*_fits` probes touch
// nothing), and without a barrier a zeroing thread would race with the
// team's first writes; the price is a pass over the reserved bytes, used
// or not, per team.
template <class F> __device__ void drive_team(u64 league_size, const TeamScratch& s, F f) {
  const u64 team_size = blockDim.y;
  const u64 bytes[2] = {scratch_block_bytes(s, 0, team_size), scratch_block_bytes(s, 1, team_size)};
  unsigned char* const block[2] = {
      (unsigned char*)granule_dyn_smem + reserved_smem(block_threads()),
      bytes[1] == 0ull ? nullptr : s.level1 + blockIdx.x * bytes[1]};
  // The trip count is the same on every thread of the block, so the
  // barriers inside are reached by all of them.
  stride_loop(blockIdx.x, league_size, gridDim.x, [&](u64 l) {
    zero_block_bytes(block[0], bytes[0]);
    zero_block_bytes(block[1], bytes[1]);
    __syncthreads();
    const TeamMember team = team_member(l, league_size, s, block);
    f(team);
    __syncthreads();
  });
}

// parallel_reduce over a team policy: each team thread folds its teams'
// contributions (vector lanes replicate the kernel, as in Kokkos, so only
// lane 0 contributes), then `finish_reduce`.
template <class Op, class T, class F>
__device__ void drive_team_reduce(u64 league_size, const TeamScratch& s, T* partials, u32* counter, T* result, F f) {
  T acc = Op::identity();
  drive_team(league_size, s, [&](const TeamMember& team) {
    T mine = Op::identity();
    f(team, mine);
    if (threadIdx.x == 0) Op::join(acc, mine);
  });
  finish_reduce<Op>(acc, partials, counter, result);
}

// Nested ranges: the index is the range begin plus the thread's offset,
// offsets striding over [0, e - b) (stride_loop: no wrap near u64's end).
template <class F> __device__ __forceinline__ void team_thread_for(const TeamMember&, u64 b, u64 e, F f) {
  stride_loop(threadIdx.y, span(b, e), blockDim.y, [&](u64 k) { f(b + k); });
}
template <class F> __device__ __forceinline__ void thread_vector_for(const TeamMember&, u64 b, u64 e, F f) {
  stride_loop(threadIdx.x, span(b, e), blockDim.x, [&](u64 k) { f(b + k); });
}
template <class F> __device__ __forceinline__ void team_vector_for(const TeamMember&, u64 b, u64 e, F f) {
  stride_loop(flat_thread(), span(b, e), block_threads(), [&](u64 k) { f(b + k); });
}

// Nested reductions, with any reducer of the header (scalar, location,
// min-max, tuples of them) or a custom one: every thread gets the result,
// finalized as the host's nested reductions finalize theirs. Team-thread:
// vector lanes replicate the body (Kokkos semantics), so lane 0 of each
// team thread contributes.
template <class Op, class T, class F> __device__ T team_thread_reduce(const TeamMember& m, u64 b, u64 e, F f) {
  T acc = Op::identity();
  team_thread_for(m, b, e, [&](u64 i) { f(i, acc); });
  return finalized<Op>(team_join<Op>(threadIdx.x == 0 ? acc : Op::identity()));
}
template <class Op, class T, class F> __device__ T team_vector_reduce(const TeamMember& m, u64 b, u64 e, F f) {
  T acc = Op::identity();
  team_vector_for(m, b, e, [&](u64 i) { f(i, acc); });
  return finalized<Op>(team_join<Op>(acc));
}
// Within the lanes of one team thread (see vector_group), a shuffle tree.
template <class Op, class T, class F> __device__ T thread_vector_reduce(const TeamMember& m, u64 b, u64 e, F f) {
  T acc = Op::identity();
  thread_vector_for(m, b, e, [&](u64 i) { f(i, acc); });
  const u32 width = blockDim.x;
  const u32 group = vector_group();
  for (u32 off = width / 2; off > 0; off >>= 1) {
    GRANULE_LOOP_TICK();
    Op::join(acc, shuffle_words(acc, [&](u32 word) { return __shfl_xor_sync(group, word, off, width); }));
  }
  return finalized<Op>(acc);
}

// Nested scans with the Kokkos contract f(i, partial, final), combined by
// Op: participant k of n scans the k-th contiguous slice of [b, e) from
// the identity (non-final calls), the slice totals are scanned in order,
// and each index gets exactly one final call per participant, its
// partial the join of everything before it. Every participant gets the
// total. Team-thread: the participants are the team threads (vector lanes
// replicate the body, as in team_thread_for); team-vector: every thread of
// the team; thread-vector: the lanes of one team thread.
// Participant k's slice [lo, hi) of [b, e): offsets are clamped to the
// length before they are added to b, and per * k and start + per are
// never formed where they would wrap.
__device__ __forceinline__ void scan_slice(u64 b, u64 e, u64 k, u64 n, u64& lo, u64& hi) {
  const u64 len = span(b, e);
  const u64 per = len / n + (len % n != 0ull);
  const u64 start = k != 0ull && per > len / k ? len : per * k;  // per * k > len: the slice is empty
  const u64 at = start < len ? start : len;
  lo = b + at;
  hi = b + (per < len - at ? at + per : len);
}
// f(i) for i in [lo, hi), in order.
template <class F> __device__ __forceinline__ void for_each_in(u64 lo, u64 hi, F f) {
  for (u64 i = lo; i < hi; ++i) {
    GRANULE_LOOP_TICK();
    f(i);
  }
}
template <class Op, class T, class F> __device__ T team_thread_scan(const TeamMember&, u64 b, u64 e, F f) {
  u64 lo, hi;
  scan_slice(b, e, threadIdx.y, blockDim.y, lo, hi);
  T local = Op::identity();
  for_each_in(lo, hi, [&](u64 i) { f(i, local, false); });
  // The last lane stands for its team thread: the flat-order exclusive
  // prefix of every lane of thread y then covers the threads before y.
  T total;
  T prefix = block_exclusive_scan<Op>(threadIdx.x == blockDim.x - 1 ? local : Op::identity(), total);
  for_each_in(lo, hi, [&](u64 i) { f(i, prefix, true); });
  return total;
}
template <class Op, class T, class F> __device__ T team_vector_scan(const TeamMember&, u64 b, u64 e, F f) {
  u64 lo, hi;
  scan_slice(b, e, flat_thread(), block_threads(), lo, hi);
  T local = Op::identity();
  for_each_in(lo, hi, [&](u64 i) { f(i, local, false); });
  T total;
  T prefix = block_exclusive_scan<Op>(local, total);
  for_each_in(lo, hi, [&](u64 i) { f(i, prefix, true); });
  return total;
}
template <class Op, class T, class F> __device__ T thread_vector_scan(const TeamMember&, u64 b, u64 e, F f) {
  const u32 width = blockDim.x, lane = threadIdx.x, group = vector_group();
  u64 lo, hi;
  scan_slice(b, e, lane, width, lo, hi);
  T local = Op::identity();
  for_each_in(lo, hi, [&](u64 i) { f(i, local, false); });
  T incl = local;
  for (u32 off = 1; off < width; off <<= 1) {
    GRANULE_LOOP_TICK();
    T x = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(group, word, off, width); });
    if (lane >= off) {
      Op::join(x, incl);
      incl = x;
    }
  }
  T prefix = shuffle_words(incl, [&](u32 word) { return __shfl_up_sync(group, word, 1u, width); });
  if (lane == 0) prefix = Op::identity();
  const T total = shuffle_words(incl, [&](u32 word) { return __shfl_sync(group, word, width - 1, width); });
  for_each_in(lo, hi, [&](u64 i) { f(i, prefix, true); });
  return total;
}

