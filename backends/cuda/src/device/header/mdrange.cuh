// mdrange.cuh: the MDRange policy's tiles, parallel_for and parallel_reduce.
// ------------------------------------------------------------- MDRange

// The box [lo, hi) of a rank-R MDRange policy, cut into tiles of
// `tile` indices per dimension (the last tile of a dimension may be cut
// short by the box). `order` bit 0: tiles are numbered with the first
// dimension fastest (Iterate::Left), else the last; bit 1: the same for
// the indices within a tile. The host checked that the box's size fits
// in u64 (MDRangePolicy refuses larger boxes) and that every tile extent
// is at least 1; every count below is at most the box's size, so none
// wraps, whatever the tile extents (up to u64's maximum).
template <int R> struct MdRange {
  u64 lo[R];
  u64 hi[R];
  u64 tile[R];
  u64 order;
  // ceil(e / tile) without computing e + tile - 1.
  __device__ __forceinline__ u64 tiles_along(int r) const {
    const u64 e = span(lo[r], hi[r]);
    return e / tile[r] + (e % tile[r] != 0ull);
  }
  __device__ __forceinline__ u64 num_tiles() const {
    u64 n = 1;
    for (int r = 0; r < R; ++r) n *= tiles_along(r);
    return n;
  }
  // Splits k into digits of the given radices, the first dimension
  // fastest when `left`, else the last.
  static __device__ __forceinline__ void digits(u64 k, const u64* radix, bool left, u64* out) {
    for (int s = 0; s < R; ++s) {
      const int r = left ? s : R - 1 - s;
      out[r] = k % radix[r];
      k /= radix[r];
    }
  }
};

// parallel_for over an MDRange: tiles become blocks (grid-stride over the
// tiles), and a block's threads stride over its tile's indices in the
// inner order, so consecutive threads touch consecutive elements of a
// View laid out in that order. A tile is walked over its extents clipped
// to the box, never over the nominal tile: the clipped tile holds at most
// the box's indices, however large the tile extents are.
template <int R, class F> __device__ __forceinline__ void drive_md_for(const MdRange<R>& range, F f) {
  u64 counts[R];
  for (int r = 0; r < R; ++r) counts[r] = range.tiles_along(r);
  stride_loop(blockIdx.x, range.num_tiles(), gridDim.x, [&](u64 t) {
    u64 at[R], lo[R], ext[R];
    MdRange<R>::digits(t, counts, (range.order & 1ull) != 0ull, at);
    u64 cells = 1;
    for (int r = 0; r < R; ++r) {
      // at[r] < ceil(e / tile), so at[r] * tile < e: lo[r] < hi[r].
      lo[r] = range.lo[r] + at[r] * range.tile[r];
      ext[r] = min(range.tile[r], range.hi[r] - lo[r]);
      cells *= ext[r];
    }
    stride_loop(threadIdx.x, cells, blockDim.x, [&](u64 k) {
      u64 idx[R];
      MdRange<R>::digits(k, ext, (range.order & 2ull) != 0ull, idx);
      for (int r = 0; r < R; ++r) idx[r] += lo[r];
      f(idx);
    });
  });
}

template <class Op, int R, class T, class F>
__device__ void drive_md_reduce(const MdRange<R>& range, T* partials, u32* counter, T* result, F f) {
  T acc = Op::identity();
  drive_md_for(range, [&](const u64* idx) { f(idx, acc); });
  finish_reduce<Op>(acc, partials, counter, result);
}

