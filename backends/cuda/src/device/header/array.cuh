// array.cuh: Rust arrays and tuples as values in device code.
// ---------------------------------------------------------------- arrays

// A Rust `[T; N]` local, parameter, result or constant: a struct holding
// the elements, so that it copies by value as Rust's does (a C array
// would decay to a pointer when passed or returned). Its layout is
// `T data[N]`, the layout of Rust's `[T; N]`. An index past the end is a
// device failure (code 9, the index and the length), the device form of
// Rust's "index out of bounds: the len is N but the index is K" panic.
template <class T, usize N> struct Array {
  typedef T value_type;
  T data[N];
  __device__ __forceinline__ T& operator[](usize k) {
    if (k >= N) fail(9u, 0u, 0ull, (u64)k, (u64)N);
    return data[k];
  }
  __device__ __forceinline__ const T& operator[](usize k) const {
    if (k >= N) fail(9u, 0u, 0ull, (u64)k, (u64)N);
    return data[k];
  }
};
// `[T; 0]`: no elements (C++ has no arrays of length 0), every index fails.
template <class T> struct Array<T, 0> {
  typedef T value_type;
  __device__ __forceinline__ T& operator[](usize k) const {
    fail(9u, 0u, 0ull, (u64)k, 0ull);
    __builtin_unreachable();
  }
};
// Rust's `==` on arrays: equal lengths, each pair of elements `==`.
template <class T, usize N> __device__ __forceinline__ bool operator==(const Array<T, N>& a, const Array<T, N>& b) {
  for (usize k = 0; k < N; ++k) {
    if (!(a.data[k] == b.data[k])) return false;
  }
  return true;
}
template <class T> __device__ __forceinline__ bool operator==(const Array<T, 0>&, const Array<T, 0>&) { return true; }
template <class T, usize N> __device__ __forceinline__ bool operator!=(const Array<T, N>& a, const Array<T, N>& b) {
  return !(a == b);
}
// `[v; N]`: N copies of one value (evaluated once, as Rust does).
template <class T, usize N> __device__ __forceinline__ constexpr Array<T, N> repeat(T v) {
  Array<T, N> a{};
  if constexpr (N > 0) {
    for (usize k = 0; k < N; ++k) a.data[k] = v;
  }
  return a;
}

// The element type of an array whose type only C++ sees (a `#[device]`
// helper's result, a struct field): `ElemOf<Plain<decltype(f(..))>>`.
template <class A> using ElemOf = typename PlainOf<A>::type::value_type;
// Field N of a tuple whose type only C++ sees.
template <int N, class T> using FieldOf = Plain<decltype(get<N>(val<T>()))>;
