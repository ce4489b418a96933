// reducer.cuh: reducers, location accumulators, tuples and tuples of reducers.
// ------------------------------------------------------------- reducers

// Each reducer says whether its join is exactly associative: whether every
// grouping of a sequence of joins gives the same bits. Integer wrapping
// arithmetic, bitwise and logical joins, and min/max over a total order
// are; float + and * round, and float comparisons are not a total order
// once a NaN takes part, so their grouping shows in the result. The scan
// driver uses this to pick its look-back (see drive_scan). A reducer that
// does not say (a custom one) counts as not exactly associative.
template <class T> struct Sum {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = wadd(a, b); }
};
template <class T> struct Prod {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return (T)1; }
  static __device__ __forceinline__ void join(T& a, T b) { a = wmul(a, b); }
};
template <class T> struct Min {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return Num<T>::max_value(); }
  static __device__ __forceinline__ void join(T& a, T b) { if (b < a) a = b; }
};
template <class T> struct Max {
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ T identity() { return Num<T>::min_value(); }
  static __device__ __forceinline__ void join(T& a, T b) { if (a < b) a = b; }
};
template <class T> struct LAnd {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)1; }
  static __device__ __forceinline__ void join(T& a, T b) { a = (T)(a && b); }
};
template <class T> struct LOr {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = (T)(a || b); }
};
template <class T> struct BAnd {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)~(T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = a & b; }
};
template <class T> struct BOr {
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& a, T b) { a = a | b; }
};

// `Op::exactly_associative` where Op declares it, false otherwise.
template <class Op>
__host__ __device__ constexpr auto exactly_associative_of(int) -> decltype((bool)Op::exactly_associative) {
  return Op::exactly_associative;
}
template <class Op> __host__ __device__ constexpr bool exactly_associative_of(long) { return false; }
template <class Op> __host__ __device__ constexpr bool is_exactly_associative() { return exactly_associative_of<Op>(0); }

// Accumulators of the location reducers (granule_core's ValLocScalar,
// MinMaxLocScalar, MinMaxScalar), with the host's update rules: a tie in
// value keeps the smaller location.
// A multi-index location (`[usize; R]` on the host): compared
// lexicographically, as Rust compares arrays; "nowhere" is every index at
// usize's maximum.
template <int R> struct Loc {
  usize at[R];
};
template <int R> __device__ __forceinline__ bool operator==(const Loc<R>& a, const Loc<R>& b) {
  for (int d = 0; d < R; ++d)
    if (a.at[d] != b.at[d]) return false;
  return true;
}
template <int R> __device__ __forceinline__ bool operator<(const Loc<R>& a, const Loc<R>& b) {
  for (int d = 0; d < R; ++d)
    if (a.at[d] != b.at[d]) return a.at[d] < b.at[d];
  return false;
}
template <int R> struct Num<Loc<R>> {
  static __device__ __forceinline__ Loc<R> max_value() {
    Loc<R> l;
    for (int d = 0; d < R; ++d) l.at[d] = Num<usize>::max_value();
    return l;
  }
};
template <class T, class L> __device__ __forceinline__ void take_min(T& val, L& loc, T v, L l) {
  if (v < val || (v == val && l < loc)) { val = v; loc = l; }
}
template <class T, class L> __device__ __forceinline__ void take_max(T& val, L& loc, T v, L l) {
  if (v > val || (v == val && l < loc)) { val = v; loc = l; }
}
// Ties to the larger location; "nowhere" (the largest) loses every tie.
template <class T, class L> __device__ __forceinline__ void take_max_last(T& val, L& loc, T v, L l) {
  const L none = Num<L>::max_value();
  if (v > val || (v == val && !(l == none) && (loc == none || loc < l))) { val = v; loc = l; }
}
template <class T, class L> struct ValLocScalar {
  T val;
  L loc;
  __device__ __forceinline__ void update_min(T v, L l) { take_min(val, loc, v, l); }
  __device__ __forceinline__ void update_max(T v, L l) { take_max(val, loc, v, l); }
};
template <class T, class L> struct MinMaxLocScalar {
  T min_val;
  T max_val;
  L min_loc;
  L max_loc;
  __device__ __forceinline__ void update(T v, L l) {
    take_min(min_val, min_loc, v, l);
    take_max(max_val, max_loc, v, l);
  }
  __device__ __forceinline__ void update_first_last(T v, L l) {
    take_min(min_val, min_loc, v, l);
    take_max_last(max_val, max_loc, v, l);
  }
};
template <class T> struct MinMaxScalar {
  T min_val;
  T max_val;
  __device__ __forceinline__ void update(T v) {
    if (v < min_val) min_val = v;
    if (v > max_val) max_val = v;
  }
};

// The location reducers, over their accumulators; "nowhere" is the
// location type's maximum, as on the host.
template <class A> struct MinLoc;
template <class T, class L> struct MinLoc<ValLocScalar<T, L>> {
  typedef ValLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return A{Num<T>::max_value(), Num<L>::max_value()}; }
  static __device__ __forceinline__ void join(A& a, A b) { take_min(a.val, a.loc, b.val, b.loc); }
};
template <class A> struct MaxLoc;
template <class T, class L> struct MaxLoc<ValLocScalar<T, L>> {
  typedef ValLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return A{Num<T>::min_value(), Num<L>::max_value()}; }
  static __device__ __forceinline__ void join(A& a, A b) { take_max(a.val, a.loc, b.val, b.loc); }
};
template <class A> struct MinMaxLoc;
template <class T, class L> struct MinMaxLoc<MinMaxLocScalar<T, L>> {
  typedef MinMaxLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() {
    return A{Num<T>::max_value(), Num<T>::min_value(), Num<L>::max_value(), Num<L>::max_value()};
  }
  static __device__ __forceinline__ void join(A& a, A b) {
    take_min(a.min_val, a.min_loc, b.min_val, b.min_loc);
    take_max(a.max_val, a.max_loc, b.max_val, b.max_loc);
  }
};
template <class A> struct MinMaxFirstLastLoc;
template <class T, class L> struct MinMaxFirstLastLoc<MinMaxLocScalar<T, L>> {
  typedef MinMaxLocScalar<T, L> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return MinMaxLoc<A>::identity(); }
  static __device__ __forceinline__ void join(A& a, A b) {
    take_min(a.min_val, a.min_loc, b.min_val, b.min_loc);
    take_max_last(a.max_val, a.max_loc, b.max_val, b.max_loc);
  }
};
template <class A> struct MinMax;
template <class T> struct MinMax<MinMaxScalar<T>> {
  typedef MinMaxScalar<T> A;
  static constexpr bool exactly_associative = !Num<T>::is_float;
  static __device__ __forceinline__ A identity() { return A{Num<T>::max_value(), Num<T>::min_value()}; }
  static __device__ __forceinline__ void join(A& a, A b) {
    if (b.min_val < a.min_val) a.min_val = b.min_val;
    if (a.max_val < b.max_val) a.max_val = b.max_val;
  }
};

// `v` after Op's `final_` (a custom reducer's `finalize`), or `v` itself
// for a reducer without one.
template <class Op, class T> __device__ __forceinline__ auto finalize_with(T& v, int) -> decltype(Op::final_(v)) {
  Op::final_(v);
}
template <class Op, class T> __device__ __forceinline__ void finalize_with(T&, long) {}
template <class Op, class T> __device__ __forceinline__ T finalized(T v) {
  finalize_with<Op>(v, 0);
  return v;
}

// Tuple accumulators (a Rust tuple reduced by a tuple of reducers): a
// head and the tuple of the rest; `get<N>(t)` is field N, by reference.
template <class... Ts> struct Tuple;
template <> struct Tuple<> {};
template <class T, class... Ts> struct Tuple<T, Ts...> {
  T head;
  Tuple<Ts...> tail;
};
template <int N> struct TupleField {
  template <class T, class... Ts>
  static __device__ __forceinline__ auto& of(Tuple<T, Ts...>& t) { return TupleField<N - 1>::of(t.tail); }
};
template <> struct TupleField<0> {
  template <class T, class... Ts>
  static __device__ __forceinline__ T& of(Tuple<T, Ts...>& t) { return t.head; }
};
template <int N, class... Ts> __device__ __forceinline__ auto& get(Tuple<Ts...>& t) { return TupleField<N>::of(t); }
// A field's value from a constant or temporary tuple (`let (v, o) = ..`,
// `x.overflowing_add(y).0`).
template <int N, class... Ts> __device__ __forceinline__ auto get(const Tuple<Ts...>& t) {
  Tuple<Ts...> copy = t;
  return TupleField<N>::of(copy);
}

// A tuple of reducers (`Reducers<Sum<f64>, Max<f64>, ..>`): reducer k
// reduces field k, as the host's tuple of reducers does.
template <class R> struct ReducerValue;
template <template <class> class R, class T> struct ReducerValue<R<T>> { typedef T type; };
template <class... Rs> struct Reducers;
template <> struct Reducers<> {
  typedef Tuple<> A;
  static constexpr bool exactly_associative = true;
  static __device__ __forceinline__ A identity() { return A{}; }
  static __device__ __forceinline__ void join(A&, A) {}
};
template <class R, class... Rs> struct Reducers<R, Rs...> {
  typedef Tuple<typename ReducerValue<R>::type, typename ReducerValue<Rs>::type...> A;
  static constexpr bool exactly_associative =
      is_exactly_associative<R>() && is_exactly_associative<Reducers<Rs...>>();
  static __device__ __forceinline__ A identity() {
    A a;
    a.head = R::identity();
    a.tail = Reducers<Rs...>::identity();
    return a;
  }
  static __device__ __forceinline__ void join(A& a, A b) {
    R::join(a.head, b.head);
    Reducers<Rs...>::join(a.tail, b.tail);
  }
};

