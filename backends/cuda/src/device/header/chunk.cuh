// chunk.cuh: chunk maps and a team's and a thread's chunks of a View.
// ---------------------------------------------------------- chunk maps

// A thread's place in a scope: its linear id and the scope's thread count
// (granule_views' ThreadIds, flattened; the maps below only use these).
struct ThreadIds {
  u64 id;
  u64 count;
};

// The maps of granule_views::chunk: `check` is the map's precondition on
// the scope, `map` gives the global index a local index reaches, or false
// where Rust's map returns None.
struct MapIdentity {
  __device__ __forceinline__ bool check(u64 count) const { return count == 1ull; }
  __device__ __forceinline__ bool map(u64 k, const ThreadIds& t, u64& g) const {
    if (t.count != 1ull) return false;
    g = k;
    return true;
  }
};
struct MapContinuousLinear {
  u64 width;
  __device__ __forceinline__ bool check(u64) const { return width != 0ull; }
  __device__ __forceinline__ bool map(u64 k, const ThreadIds& t, u64& g) const {
    if (k >= width) return false;
    if (t.id != 0ull && width > 0xffffffffffffffffull / t.id) return false;  // checked_mul
    const u64 base = t.id * width;
    if (base > 0xffffffffffffffffull - k) return false;  // checked_add
    g = base + k;
    return true;
  }
};

template <class T, class O, class I> struct ThreadChunk;

// A team's part of a chunked View (granule_core's TeamChunk): the outer
// map evaluated with the league rank among the league. Readable by local
// index; threads take their writable part with `chunk_mut`. An access the
// map does not give this team, or past the View, is an out-of-bounds
// failure (code 1, rank 0, the local index and the View's size).
template <class T, class M> struct TeamChunk {
  T* data;
  usize size;
  u32 id;
  M map;
  ThreadIds ids;
  __device__ __forceinline__ usize global(u64 k) const {
    u64 g = 0;
    if (!map.map(k, ids, g) || g >= size) fail(1, id, 0, k, size);
    return g;
  }
  __device__ __forceinline__ const T& operator()(usize k) const { return data[global(k)]; }
  // `chunk_mut(inner, ids).unwrap()`: a map whose precondition fails on
  // the scope is code 6 (a failed unwrap of a ChunkError on the host).
  template <class I> __device__ __forceinline__ ThreadChunk<T, M, I> chunk_mut(I inner, ThreadIds t) const {
    if (!inner.check(t.count)) fail(6, id, 0, t.id, t.count);
    return ThreadChunk<T, M, I>{*this, inner, t};
  }
};

// A thread's writable part of a team's part: `inner` within the team,
// then the team's map.
template <class T, class O, class I> struct ThreadChunk {
  TeamChunk<T, O> outer;
  I inner;
  ThreadIds ids;
  __device__ __forceinline__ T& operator()(usize k) const {
    u64 j = 0;
    if (!inner.map(k, ids, j)) fail(1, outer.id, 0, k, outer.size);
    return outer.data[outer.global(j)];
  }
};

// A chunked View as the host passes it: the elements in row-major order,
// their count, the View's id and the outer (Grid -> Block) map.
template <class T, class M> struct Chunked {
  T* data;
  usize size;
  u32 id;
  M map;
};

