// atomic.cuh: atomic operations and AtomicView.
// ------------------------------------------------------------------ atomics

template <class T> struct AtomicWord { typedef T type; };
template <> struct AtomicWord<f32> { typedef u32 type; };
template <> struct AtomicWord<f64> { typedef u64 type; };
template <> struct AtomicWord<i32> { typedef u32 type; };
template <> struct AtomicWord<i64> { typedef u64 type; };

template <class T> __device__ __forceinline__ typename AtomicWord<T>::type to_word(T v) {
  if constexpr (Num<T>::is_float) return bits_of(v);
  else return (typename AtomicWord<T>::type)v;
}
template <class T, class W> __device__ __forceinline__ T from_word(W w) {
  if constexpr (Num<T>::is_float) return from_bits(T(), w);
  else return (T)w;
}
__device__ __forceinline__ u32 cas_word(u32* p, u32 c, u32 n) { return atomicCAS(p, c, n); }
__device__ __forceinline__ u64 cas_word(u64* p, u64 c, u64 n) { return atomicCAS((unsigned long long*)p, c, n); }

// Compare-and-swap loop; `f` returns false to leave the value alone.
template <class T, class F> __device__ __forceinline__ T cas_loop(T* p, F f) {
  typedef typename AtomicWord<T>::type W;
  W* w = (W*)p;
  W cur = *(volatile W*)w;
  while (true) {
    GRANULE_LOOP_TICK();
    T next;
    if (!f(from_word<T>(cur), next)) return from_word<T>(cur);
    W seen = cas_word(w, cur, to_word(next));
    if (seen == cur) return from_word<T>(cur);
    cur = seen;
  }
}

template <class T> __device__ __forceinline__ T atomic_fetch_add(T* p, T v) {
  if constexpr (Num<T>::is_float) return atomicAdd(p, v);
  else if constexpr (Num<T>::bits == 64) return (T)atomicAdd((unsigned long long*)p, (unsigned long long)v);
  else return (T)atomicAdd((u32*)p, (u32)v);
}
template <class T> __device__ __forceinline__ T atomic_fetch_sub(T* p, T v) {
  if constexpr (Num<T>::is_float) return atomic_fetch_add(p, -v);
  else return atomic_fetch_add(p, wneg(v));
}
// Integers use the hardware min/max; floats a CAS loop, like the host.
template <class T> __device__ __forceinline__ T atomic_fetch_min(T* p, T v) {
  if constexpr (Num<T>::is_float) {
    return cas_loop(p, [v](T x, T& n) { n = v; return v < x; });
  } else if constexpr (Num<T>::bits == 64 && Num<T>::is_signed) {
    return (T)atomicMin((long long*)p, (long long)v);
  } else if constexpr (Num<T>::bits == 64) {
    return (T)atomicMin((unsigned long long*)p, (unsigned long long)v);
  } else {
    return atomicMin(p, v);
  }
}
template <class T> __device__ __forceinline__ T atomic_fetch_max(T* p, T v) {
  if constexpr (Num<T>::is_float) {
    return cas_loop(p, [v](T x, T& n) { n = v; return v > x; });
  } else if constexpr (Num<T>::bits == 64 && Num<T>::is_signed) {
    return (T)atomicMax((long long*)p, (long long)v);
  } else if constexpr (Num<T>::bits == 64) {
    return (T)atomicMax((unsigned long long*)p, (unsigned long long)v);
  } else {
    return atomicMax(p, v);
  }
}
template <class T> __device__ __forceinline__ T atomic_exchange(T* p, T v) {
  return cas_loop(p, [v](T, T& n) { n = v; return true; });
}
template <class T> __device__ __forceinline__ T atomic_load(T* p) { return *(volatile T*)p; }
template <class T> __device__ __forceinline__ void atomic_store(T* p, T v) { atomic_exchange(p, v); }
// Returns the previous value; `ok` tells whether it was replaced. Compares
// bits, so -0.0 and 0.0 differ, as on the host.
template <class T> __device__ __forceinline__ T atomic_compare_exchange(T* p, T current, T next, bool& ok) {
  typedef typename AtomicWord<T>::type W;
  W seen = cas_word((W*)p, to_word(current), to_word(next));
  ok = seen == to_word(current);
  return from_word<T>(seen);
}

template <class T> __device__ __forceinline__ bool atomic_cas_ok(T* p, T current, T next) {
  bool ok;
  atomic_compare_exchange(p, current, next, ok);
  return ok;
}
// The device form of granule_views::AtomicView: any mapping, so strides.
template <class T, int R> struct AtomicView {
  View<T, R, LayoutStride> v;
  __device__ __forceinline__ usize extent(usize r) const { return v.extent(r); }
  template <class... I> __device__ __forceinline__ T* at(I... is) const { return &v(is...); }
};

