// unordered_map.cuh: the device side of granule-containers' UnorderedMap,
// appended to the device header. The same probe loop as the host's
// (containers/src/unordered_map/host.rs): linear probing from the key's
// home slot (MurmurHash3's 64-bit finalizer modulo the capacity); an
// insert claims an empty slot by CAS on its state (EMPTY -> BUSY), writes
// key and value, fences, and publishes it (VALID). Entries are never
// removed, so a probe chain has no holes. Readers of a BUSY slot wait for
// its insert, which waits on nothing. Keys written by one insert are read
// by others with volatile loads after the fence that orders them, as the
// scan's look-back reads its tile values.

namespace granule {

constexpr u32 MAP_EMPTY = 0u;
constexpr u32 MAP_BUSY = 1u;
constexpr u32 MAP_VALID = 2u;
constexpr usize MAP_INVALID_INDEX = ~(usize)0;

// Rust's InsertResult: the slot and what the insert did.
struct InsertResult {
  usize index_;
  u32 status_;  // 0 success, 1 existing, 2 failed
  __device__ __forceinline__ bool success() const { return status_ == 0u; }
  __device__ __forceinline__ bool existing() const { return status_ == 1u; }
  __device__ __forceinline__ bool failed() const { return status_ == 2u; }
  __device__ __forceinline__ usize index() const { return index_; }
};

// The key's bits widened to 64 (sign-extended for signed keys, as Rust's
// `as u64`), then MapKey::hash.
template <class K> __device__ __forceinline__ u64 map_hash(K key) {
  u64 h = (u64)key;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

// A slot that holds no entry was read (key_at / value_at): code 7.
__device__ __noinline__ void map_slot_empty(u32 view, u64 index, u64 capacity) {
  if (ErrorRecord* r = claim_record(7u)) {
    r->view = view;
    r->index = index;
    r->extent = capacity;
    publish_and_stop(r);
  }
  stop_thread();
}

// A map the kernel reads: nothing inserts while it runs.
template <class K, class V> struct UnorderedMap {
  View<u32, 1> states;
  View<K, 1> keys;
  View<V, 1> values;
  View<u64, 1> counters;

  __device__ __forceinline__ usize capacity() const { return states.ext[0]; }
  __device__ __forceinline__ usize size() const { return (usize)counters.data[0]; }
  __device__ __forceinline__ bool failed_insert() const { return counters.data[1] != 0ull; }
  __device__ __forceinline__ usize home(K key) const { return (usize)(map_hash(key) % (u64)capacity()); }
  // The state of slot i once no insert is writing it.
  __device__ __forceinline__ u32 published(usize i) const {
    u32 s = atomic_load(states.data + i);
    while (s == MAP_BUSY) {
      GRANULE_WAIT_TICK();
      __nanosleep(32);
      s = atomic_load(states.data + i);
    }
    __threadfence();  // the state before the key and value it announces
    return s;
  }
  __device__ usize find(K key) const {
    const usize cap = capacity();
    if (cap == 0) return MAP_INVALID_INDEX;
    const usize h = home(key);
    for (usize p = 0; p < cap; ++p) {
      GRANULE_LOOP_TICK();
      const usize i = h + p < cap ? h + p : h + p - cap;
      const u32 s = published(i);
      if (s == MAP_EMPTY) return MAP_INVALID_INDEX;
      if (load_volatile(keys.data + i) == key) return i;
    }
    return MAP_INVALID_INDEX;
  }
  __device__ __forceinline__ bool exists(K key) const { return find(key) != MAP_INVALID_INDEX; }
  __device__ __forceinline__ bool valid_at(usize i) const {
    return i < capacity() && atomic_load(states.data + i) == MAP_VALID;
  }
  __device__ __forceinline__ void check_slot(usize i) const {
    if (!valid_at(i)) map_slot_empty(states.id, (u64)i, (u64)capacity());
    __threadfence();
  }
  __device__ __forceinline__ K key_at(usize i) const {
    check_slot(i);
    return keys.data[i];
  }
  __device__ __forceinline__ V value_at(usize i) const {
    check_slot(i);
    return values.data[i];
  }
};

// Whether V has the device's 32- or 64-bit atomics.
template <class V> struct MapAtomic { static constexpr bool value = false; };
template <> struct MapAtomic<i32> { static constexpr bool value = true; };
template <> struct MapAtomic<u32> { static constexpr bool value = true; };
template <> struct MapAtomic<i64> { static constexpr bool value = true; };
template <> struct MapAtomic<u64> { static constexpr bool value = true; };
template <> struct MapAtomic<f32> { static constexpr bool value = true; };
template <> struct MapAtomic<f64> { static constexpr bool value = true; };

// Whether inserts store the value (not for a set's NoValue, whose View
// holds no bytes).
template <class V> struct MapStores { static constexpr bool value = true; };

// A map the kernel inserts into (MapInserter): the unique borrow of the map.
template <class K, class V> struct MapInserter : UnorderedMap<K, V> {
  template <bool Add> __device__ InsertResult insert_op(K key, V value) const {
    const usize cap = this->capacity();
    const usize h = cap == 0 ? 0 : this->home(key);
    for (usize p = 0; p < cap; ++p) {
      GRANULE_LOOP_TICK();
      const usize i = h + p < cap ? h + p : h + p - cap;
      u32 s = this->published(i);
      if (s == MAP_EMPTY) {
        if (atomicCAS(this->states.data + i, MAP_EMPTY, MAP_BUSY) == MAP_EMPTY) {
          this->keys.data[i] = key;
          // An atomic store where later inserts may add atomically.
          if constexpr (MapAtomic<V>::value) atomic_store(this->values.data + i, value);
          else if constexpr (MapStores<V>::value) this->values.data[i] = value;
          __threadfence();  // key and value before the state that announces them
          atomicExch(this->states.data + i, MAP_VALID);
          atomicAdd((unsigned long long*)this->counters.data, 1ull);
          return InsertResult{i, 0u};
        }
        s = this->published(i);
      }
      if (load_volatile(this->keys.data + i) == key) {
        if constexpr (Add) atomic_fetch_add(this->values.data + i, value);
        return InsertResult{i, 1u};
      }
    }
    atomicAdd((unsigned long long*)(this->counters.data + 1), 1ull);
    return InsertResult{MAP_INVALID_INDEX, 2u};
  }
  __device__ __forceinline__ InsertResult insert(K key, V value) const { return insert_op<false>(key, value); }
  __device__ __forceinline__ InsertResult insert_add(K key, V value) const { return insert_op<true>(key, value); }
};

}  // namespace granule

namespace granule {

// The value of a set (granule_core::kernel::NoValue): never stored.
struct NoValue {};
template <> struct MapStores<NoValue> { static constexpr bool value = false; };

// A set the kernel reads, and one it inserts into.
template <class K> struct UnorderedSet : UnorderedMap<K, NoValue> {};
template <class K> struct SetInserter : MapInserter<K, NoValue> {
  __device__ __forceinline__ InsertResult insert(K key) const {
    return this->template insert_op<false>(key, NoValue{});
  }
};

}  // namespace granule
