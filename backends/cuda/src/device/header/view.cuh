// view.cuh: View for ranks 1..=8 and its layouts, and wide loads of View runs.
// ----------------------------------------------------------------- views

struct LayoutRight {};
struct LayoutLeft {};
struct LayoutStride {};

template <class L, int R> struct Offset;
template <int R> struct Offset<LayoutRight, R> {
  static __device__ __forceinline__ usize at(const usize* ext, const usize*, const usize* idx) {
    usize off = idx[0];
    for (int k = 1; k < R; ++k) off = off * ext[k] + idx[k];
    return off;
  }
};
template <int R> struct Offset<LayoutLeft, R> {
  static __device__ __forceinline__ usize at(const usize* ext, const usize*, const usize* idx) {
    usize off = idx[R - 1];
    for (int k = R - 2; k >= 0; --k) off = off * ext[k] + idx[k];
    return off;
  }
};
template <int R> struct Offset<LayoutStride, R> {
  static __device__ __forceinline__ usize at(const usize*, const usize* str, const usize* idx) {
    usize off = 0;
    for (int k = 0; k < R; ++k) off += idx[k] * str[k];
    return off;
  }
};

// A View as passed by value from the host: pointer, extents, strides (in
// elements) and the id that names it in error records. Layout-independent
// layout, so the host packs every View the same way.
template <class T, int R, class L = LayoutRight> struct View {
  static_assert(R >= 1 && R <= 8, "View rank is 1..=8");
  T* data;
  usize ext[R];
  usize str[R];
  u32 id;

  __device__ __forceinline__ usize extent(usize r) const { return r < (usize)R ? ext[r] : (usize)1; }
  template <class... I> __device__ __forceinline__ T& operator()(I... is) const {
    static_assert(sizeof...(I) == R, "index arity must equal the View rank");
    const usize idx[R] = {(usize)is...};
    for (int k = 0; k < R; ++k) {
      if (idx[k] >= ext[k]) fail(1, id, (u64)k, idx[k], ext[k]);
    }
    return data[Offset<L, R>::at(ext, str, idx)];
  }
  // The address of element i of a rank-1 View after checking that the
  // `count` indices from i are in bounds: the first one past the end fails
  // as operator() would. Drivers that read a run of a unit-stride View in
  // wide pieces take the address here, so the run is checked once.
  __device__ __forceinline__ T* span(usize i, usize count) const {
    static_assert(R == 1, "span is for rank-1 Views");
    if (count > 0u && (i >= ext[0] || count > ext[0] - i)) fail(1, id, 0ull, i >= ext[0] ? i : ext[0], ext[0]);
    return data + i * str[0];
  }
};

// Row i of a written rank-R View (R >= 2), as a range kernel's `Row<T, R>`
// parameter: indexed by the R - 1 trailing indices, each checked by the
// View itself (so a failure names the View and the full index).
template <class T, int R> struct Row {
  View<T, R, LayoutStride> v;
  usize i;
  template <class... K> __device__ __forceinline__ T& operator()(K... ks) const { return v(i, ks...); }
  __device__ __forceinline__ usize extent(usize r) const { return v.extent(r + 1); }
  __device__ __forceinline__ usize len() const {
    usize n = 1;
    for (int r = 1; r < R; ++r) n *= v.ext[r];
    return n;
  }
  __device__ __forceinline__ usize index() const { return i; }
};
template <class T, int R> __device__ __forceinline__ Row<T, R> row_of(View<T, R, LayoutStride> v, usize i) {
  return Row<T, R>{v, i};
}

// Segment i of a written rank-1 View, as a range kernel's `Segment<T>`
// parameter: elements offsets(i)..offsets(i + 1), indexed from 0. The host
// checked that the offsets never decrease and end within the View, and
// keeps them borrowed; an index past the segment fails naming it (code 8).
// Below the segment's length the element is within the View, so it is
// read without the View's own check (which, inlined behind this one,
// also overflows NVRTC 12.9's stack on an index that always fails).
template <class T> struct Segment {
  View<T, 1, LayoutStride> v;
  usize lo, n, i;
  __device__ __forceinline__ T& operator()(usize k) const {
    if (k >= n) fail(8, v.id, i, k, n);
    return v.data[(lo + k) * v.str[0]];
  }
  __device__ __forceinline__ usize extent(usize r) const { return r == 0 ? n : (usize)1; }
  __device__ __forceinline__ usize len() const { return n; }
  __device__ __forceinline__ usize index() const { return i; }
  __device__ __forceinline__ usize start() const { return lo; }
};
template <class T>
__device__ __forceinline__ Segment<T> segment_of(View<T, 1, LayoutStride> v, View<const usize, 1, LayoutStride> offsets,
                                                 usize i) {
  const usize lo = offsets(i);
  return Segment<T>{v, lo, offsets(i + 1) - lo, i};
}

// ------------------------------------------------------------ wide loads

// Whether `count` elements of T fill whole 16-byte pieces.
template <class T> __host__ __device__ constexpr bool fills_pieces(u32 count) {
  return ((u64)count * sizeof(T)) % 16ull == 0ull;
}

// Whether a rank-1 View's tiles of N elements a thread, which start at
// multiples of N, can load in 16-byte pieces (load_tile): unit stride,
// data aligned to 16 bytes, and N elements filling whole pieces. Every thread of a launch gets the same
// answer, so a driver branches on it without diverging.
template <u32 N, class T, class L> __device__ __forceinline__ bool loads_in_pieces(const View<const T, 1, L>& x) {
  return fills_pieces<T>(N) && x.str[0] == 1ull && ((u64)x.data & 15ull) == 0ull;
}

// The length of the run of at most N elements that starts at element
// `mine` of a tile of `len`: N, fewer at the end, 0 past it.
template <u32 N> __device__ __forceinline__ u32 run_length(u64 mine, u64 len) {
  return mine >= len ? 0u : len - mine < (u64)N ? (u32)(len - mine) : N;
}

// Loads the tile x(first), .., x(first + len - 1) of a block of threads
// with N elements each, warp-striped, and hands each element to
// put(e, value) (e < len, its place in the tile). A warp's lanes load
// consecutive memory, so every sector a load touches is whole: a full
// tile of a View that loads_in_pieces in 16-byte pieces (N * sizeof(T) /
// 16 a thread, all issued before any value is used; piece k of thread t
// is the tile's piece k * blockDim.x + t), anything else one
// bounds-checked element a lane per step (the pieces unpacked by
// `unpack`). Drivers stage the tile through shared memory to read
// it back in the blocked arrangement.
// 16 bytes loaded at once.
struct alignas(16) Piece {
  u32 w[4];
};

// The elements of T a 16-byte piece holds (16 / sizeof(T) of them), copied
// byte by byte, which the compiler turns into register moves and which
// aliases nothing. `w` is a piece already loaded (a local): a piece in
// global memory would be read a byte at a time.
template <class T, u32 PER> __device__ __forceinline__ void unpack(const Piece& w, T (&v)[PER]) {
  static_assert(PER * sizeof(T) == 16u, "a piece holds whole elements");
  for (u32 b = 0; b < 16u; ++b) ((unsigned char*)v)[b] = ((const unsigned char*)&w)[b];
}

template <u32 N, class T, class L, class Put>
__device__ __forceinline__ void load_tile(const View<const T, 1, L>& x, bool pieces, u64 first, u64 len, Put put) {
  const u32 block = blockDim.x, t = threadIdx.x;
  if constexpr (16u % sizeof(T) == 0u && fills_pieces<T>(N)) {
    constexpr u32 per_piece = 16u / sizeof(T);
    constexpr u32 pieces_per_thread = N * sizeof(T) / 16u;
    if (pieces && len == (u64)block * N) {
      const Piece* p = (const Piece*)x.span(first, len);
      Piece w[pieces_per_thread];
      for (u32 k = 0; k < pieces_per_thread; ++k) w[k] = p[(u64)k * block + t];
      for (u32 k = 0; k < pieces_per_thread; ++k) {
        T v[per_piece];
        unpack(w[k], v);
        const u64 at = ((u64)k * block + t) * per_piece;
        for (u32 j = 0; j < per_piece; ++j) put(at + j, v[j]);
      }
      return;
    }
  }
  for (u32 k = 0; k < N; ++k) {
    const u64 e = (u64)k * block + t;
    if (e < len) put(e, x(first + e));
  }
}

