// ScatterView on a device (granule-containers' scatter module): the
// kernel holds an AtomicView of the ScatterView's shared copy, and its
// access() handle applies the view's operation atomically, the only write
// it has. Appended to the device header (device/mod.rs), inside namespace
// granule's scope of definitions.

namespace granule {

struct ScatterSum {
  template <class T> static __device__ __forceinline__ void apply(T* p, T v) { atomic_fetch_add(p, v); }
};
// No instruction multiplies atomically: a CAS loop, integers wrapping.
struct ScatterProd {
  template <class T> static __device__ __forceinline__ void apply(T* p, T v) {
    cas_loop(p, [v](T x, T& n) { n = wmul(x, v); return true; });
  }
};
struct ScatterMin {
  template <class T> static __device__ __forceinline__ void apply(T* p, T v) { atomic_fetch_min(p, v); }
};
struct ScatterMax {
  template <class T> static __device__ __forceinline__ void apply(T* p, T v) { atomic_fetch_max(p, v); }
};

// One element of the handle: `at(i).update(v)` evaluates the index before
// the value, as Rust does (C++17 sequences the callee first).
template <class Op, class T> struct ScatterRef {
  T* p;
  __device__ __forceinline__ void update(T v) const { Op::apply(p, v); }
};

template <class Op, class T, int R> struct ScatterAccess {
  AtomicView<T, R> a;
  template <class... I> __device__ __forceinline__ ScatterRef<Op, T> at(I... is) const {
    return ScatterRef<Op, T>{a.at(is...)};
  }
};

template <class Op, class T, int R>
__device__ __forceinline__ ScatterAccess<Op, T, R> scatter_access(AtomicView<T, R> a) {
  return ScatterAccess<Op, T, R>{a};
}

}  // namespace granule
