// range.cuh: the drivers' common loops and the range policy's parallel_for and parallel_reduce.
// -------------------------------------------------------------- drivers

__device__ __forceinline__ u32 flat_thread() { return threadIdx.y * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u32 block_threads() { return blockDim.x * blockDim.y; }

// Dynamic shared memory: the framework's reserved words first (team
// reductions and broadcasts), then the user's team scratch.
extern __shared__ unsigned long long granule_dyn_smem[];

// Calls f(k) for k = first, first + stride, ... below n (stride > 0). The
// loop stops before computing a k + stride that would reach n, so it never
// wraps, whatever n (a range ending at u64's maximum, say): every index
// loop of the drivers is a loop over offsets from a base, through this.
template <class F> __device__ __forceinline__ void stride_loop(u64 first, u64 n, u64 stride, F f) {
  for (u64 k = first; k < n; k += stride) {
    GRANULE_LOOP_TICK();
    f(k);
    if (n - k <= stride) break;
  }
}

// The length of [b, e): 0 when e <= b.
__device__ __forceinline__ u64 span(u64 b, u64 e) { return e > b ? e - b : 0ull; }

// parallel_for over [begin, end): a grid-stride loop over the offsets
// from `begin`, so any grid covers any range (up to u64's maximum) and
// consecutive threads touch consecutive indices.
template <class F> __device__ __forceinline__ void drive_for(u64 begin, u64 end, F f) {
  const u64 first = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  stride_loop(first, span(begin, end), (u64)gridDim.x * blockDim.x, [&](u64 k) { f(begin + k); });
}

// A copy of *p read through volatile words (also for the reducers' struct
// accumulators, whose implicit copy cannot read a volatile object).
template <class T> __device__ __forceinline__ T load_volatile(const T* p) {
  T r;
  if constexpr (sizeof(T) % 4 == 0) {
    const volatile u32* src = (const volatile u32*)p;
    u32* dst = (u32*)&r;
    for (u32 w = 0; w < sizeof(T) / 4; ++w) dst[w] = src[w];
  } else {
    const volatile unsigned char* src = (const volatile unsigned char*)p;
    unsigned char* dst = (unsigned char*)&r;
    for (u32 b = 0; b < sizeof(T); ++b) dst[b] = src[b];
  }
  return r;
}

template <class Op, class T> __device__ T team_join(T v);

// Reduces one value per thread of the block; every thread gets the result.
// Values of any size (struct and tuple accumulators, custom reducers'
// values) go through `team_join`'s warp shuffles and static shared memory,
// not the reserved words, which hold only 8 bytes per thread.
template <class Op, class T> __device__ T block_reduce(T v) { return team_join<Op>(v); }

// Combines one value per thread of the grid: blocks reduce in a fixed
// tree, the last block to finish folds the block partials in block order.
// The result is deterministic for a fixed launch geometry. `counter` must
// be 0 on entry and is 0 again on exit. The result is not finalized: the
// host's parallel_reduce applies a custom reducer's finalize once, as it
// does for every space.
template <class Op, class T>
__device__ void finish_reduce(T acc, T* partials, u32* counter, T* result) {
  T block = block_reduce<Op>(acc);
  __shared__ bool last;
  if (flat_thread() == 0) {
    partials[blockIdx.x] = block;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  T total = Op::identity();
  stride_loop(flat_thread(), gridDim.x, block_threads(), [&](u64 b) { Op::join(total, load_volatile(partials + b)); });
  total = block_reduce<Op>(total);
  if (flat_thread() == 0) {
    *result = total;
    *counter = 0;
  }
}

// parallel_reduce over [begin, end): each thread folds a grid-stride slice,
// then `finish_reduce`.
template <class Op, class T, class F>
__device__ void drive_reduce(u64 begin, u64 end, T* partials, u32* counter, T* result, F f) {
  T acc = Op::identity();
  drive_for(begin, end, [&](u64 i) { f(i, acc); });
  finish_reduce<Op>(acc, partials, counter, result);
}

