// The emulator's runtime, part 5: memory access hooks and atomics. compile.rs joins the parts, in the
// order of its `RUNTIME`, into the one translation unit runtime.cpp.

// ------------------------------------------------- memory access hooks

static inline bool in_arena(const Worker* w, uintptr_t a) { return a - w->arena_lo < w->arena_n; }

static inline uint32_t byte_mask(uint64_t lo, uint64_t hi, uint64_t word) {
  return ((1u << (hi - lo)) - 1u) << (lo - word * 4);
}

[[noreturn]] static void race(Worker* w, uint32_t kind, uint32_t space, uintptr_t a, unsigned size,
                              uint64_t other_block, uint64_t other_thread) {
  Launch* l = w->l;
  Params* p = w->p;
  char msg[64];
  snprintf(msg, sizeof msg, "data race");
  if (fail_launch(l, RACE, msg)) {
    std::lock_guard<std::mutex> g(l->lock);
    p->race_kind = kind;
    p->race_space = space;
    p->race_size = size;
    p->race_addr = a;
    p->race_offset = space == 1 ? a - w->arena_lo : space == 2 ? a - w->dyn_lo : 0;
    p->first_block = other_block;
    p->first_thread = other_thread;
    p->second_block = w->block;
    p->second_thread = w->cur->flat;
  }
  stop(w);
}

// Records a plain read of the bytes `m` in the phase's readers of a word
// (a CAS only when the record changes, so re-reads cost a load).
static inline void note_read(Worker* w, std::atomic<uint64_t>& reader, std::atomic<uint32_t>& partner, uint32_t m) {
  if (w->phase == 0) return;
  uint64_t old = reader.load(std::memory_order_relaxed);
  for (;;) {
    uint32_t other;
    const uint64_t next = readers::after_read(old, w->phase, w->cur->flat, m, other);
    if (next == old) return;
    if (reader.compare_exchange_weak(old, next, std::memory_order_relaxed)) {
      if (other != readers::NONE) partner.store(other, std::memory_order_relaxed);
      return;
    }
  }
}

static inline GlobalCell* cell(Worker* w, uint64_t word) {
  return (GlobalCell*)(w->shadow + word * sizeof(GlobalCell));
}

// Counts the word in the launch's read footprint the first time.
static inline void mark_read(Worker* w, GlobalCell* c) {
  const uint32_t id = (uint32_t)w->launch;
  if (c->read.load(std::memory_order_relaxed) != id && c->read.exchange(id, std::memory_order_relaxed) != id)
    w->read_bytes += 4;
}

// A write that names no plain writer (volatile, atomic, or unchecked):
// counts the word in the launch's write footprint the first time.
static inline void mark_written(Worker* w, GlobalCell* c) {
  if (c->who.load(std::memory_order_relaxed) >> 44 != w->launch) {
    const uint64_t old = c->who.exchange(w->launch << 44, std::memory_order_relaxed);
    if (old >> 44 != w->launch) w->written_bytes += 4;
  }
}

enum Access { LOAD, STORE, VOLATILE_LOAD, VOLATILE_STORE, ATOMIC };

// Footprint and, for checked plain accesses, the race check of an access
// of `size` bytes at global address `a`.
static void global_access(Worker* w, uintptr_t a, unsigned size, Access kind) {
  const uint64_t off = a - w->arena_lo, end = off + size;
  const bool checked = w->checked && (kind == LOAD || kind == STORE);
  const uint64_t me_thread = w->cur->flat;
  for (uint64_t word = off >> 2; word <= (end - 1) >> 2; ++word) {
    GlobalCell* c = cell(w, word);
    if (kind != STORE && kind != VOLATILE_STORE) mark_read(w, c);
    if (kind != LOAD && kind != VOLATILE_LOAD && !checked) mark_written(w, c);
    if (!checked) continue;
    const uint64_t lo = word * 4 > off ? word * 4 : off;
    const uint64_t hi = word * 4 + 4 < end ? word * 4 + 4 : end;
    const uint32_t mask = byte_mask(lo, hi, word);
    const bool write = kind == STORE;
    if (write) {
      uint64_t reader = 0;
      if (readers::conflict(c->reader.load(std::memory_order_relaxed), c->partner.load(std::memory_order_relaxed),
                            w->phase, me_thread, mask, reader))
        race(w, 3, 1, a, size, w->block, reader);
    } else {
      note_read(w, c->reader, c->partner, mask);
    }
    const uint64_t me = w->launch << 44 | (w->block & 0x3fffffffull) << 14 | me_thread << 4 | mask;
    const uint64_t old = write ? c->who.exchange(me, std::memory_order_relaxed) : c->who.load(std::memory_order_relaxed);
    const uint32_t old_epoch = c->epoch;
    if (write) {
      c->epoch = w->epoch;
      if (old >> 44 != w->launch) w->written_bytes += 4;
    }
    if (old >> 44 != w->launch || (old & mask & 0xfu) == 0) continue;
    const uint64_t ob = old >> 14 & 0x3fffffffull, ot = old >> 4 & 0x3ffull;
    const bool same_block = ob == (w->block & 0x3fffffffull);
    if (same_block && (ot == me_thread || old_epoch != w->epoch)) continue;
    // Reads only conflict within a block: across blocks, order comes from
    // flags and fences the detector does not follow.
    if (!write && !same_block) continue;
    race(w, write ? 1 : 2, 1, a, size, ob, ot);
  }
}

// An access past the launch's dynamic shared memory (the worker's array
// is the H100's maximum, so it would otherwise go unnoticed, where a GPU
// faults): the launch fails, naming the thread and the bytes.
[[noreturn]] static void shared_out_of_bounds(Worker* w, uint64_t at, unsigned size) {
  char msg[256];
  snprintf(msg, sizeof msg,
           "thread %u of block (%u, %u, %u) accessed bytes %llu..%llu of dynamic shared memory, past the "
           "launch's %llu bytes",
           w->cur->flat, w->bidx.x, w->bidx.y, w->bidx.z, (unsigned long long)at, (unsigned long long)(at + size),
           (unsigned long long)w->p->smem_bytes);
  fail_launch(w->l, SHARED_BOUNDS, msg);
  stop(w);
}

static void check_shared(Worker* w, uintptr_t a, unsigned size, bool write) {
  const uint64_t dyn = a - w->dyn_lo;
  if (dyn < GRANULE_EMU_MAX_DYN_SMEM && dyn + size > w->p->smem_bytes) shared_out_of_bounds(w, dyn, size);
  const uint64_t off = a - w->tls_lo, end = off + size;
  const uint32_t me_thread = w->cur->flat;
  for (uint64_t word = off >> 2; word <= (end - 1) >> 2 && word * 4 < w->tls_n; ++word) {
    const uint64_t lo = word * 4 > off ? word * 4 : off;
    const uint64_t hi = word * 4 + 4 < end ? word * 4 + 4 : end;
    const uint32_t mask = byte_mask(lo, hi, word);
    SharedCell* c = &w->sshadow[word];
    const SharedCell old = *c;
    const bool dynamic = a - w->dyn_lo < GRANULE_EMU_MAX_DYN_SMEM;
    uint64_t reader = 0;
    if (write && readers::conflict(old.reader, old.partner, w->phase, me_thread, mask, reader))
      race(w, 3, dynamic ? 2 : 3, a, size, w->block, reader);
    if (write) {
      c->seq = w->seq;
      c->who = me_thread << 4 | mask;
      c->epoch = w->epoch;
    } else if (w->phase != 0) {
      // As note_read: the partner changes only with the record.
      uint32_t other;
      const uint64_t next = readers::after_read(old.reader, w->phase, me_thread, mask, other);
      if (next != old.reader && other != readers::NONE) c->partner = other;
      c->reader = next;
    }
    if (old.seq != w->seq || (old.who & mask & 0xfu) == 0) continue;
    if (old.who >> 4 == me_thread || old.epoch != w->epoch) continue;
    race(w, write ? 1 : 2, dynamic ? 2 : 3, a, size, w->block, old.who >> 4);
  }
}

// A thread that never reaches a yield point (a loop over plain memory,
// arithmetic or atomics) still notices, every 65536 ticks (accesses, loop
// iterations, atomics), that the launch failed elsewhere or ran out of
// time, and ends.
static void poll(Worker* w) {
  Launch* l = w->l;
  if (l->deadline_ns != 0 && now_ns() > l->deadline_ns) {
    char msg[160];
    snprintf(msg, sizeof msg, "block (%u, %u, %u) thread %u still running at the time limit", w->bidx.x, w->bidx.y,
             w->bidx.z, w->cur->flat);
    fail_launch(l, TIMEOUT, msg);
  }
  if (l->abort.load(std::memory_order_relaxed)) stop(w);
}

static inline void tick(Worker* w) {
  if (++w->ticks == 0x10000) {
    w->ticks = 0;
    poll(w);
  }
}

// GRANULE_LOOP_TICK() (shim.h): one iteration of a device loop.
void loop_tick() {
  Worker* w = tw;
  if (w && w->cur) tick(w);
}

// One hook for loads and stores: inlined at each call site with `store`
// constant, so the branch on it costs nothing.
static inline void on_access(const void* p, unsigned size, bool store, const void* site) {
  Worker* w = tw;
  if (!w || !w->cur) return;
  tick(w);
  const uintptr_t a = (uintptr_t)p;
  if (in_arena(w, a)) {
    if (store) {
      w->stores += 1;
      w->store_bytes += size;
    } else {
      w->loads += 1;
      w->load_bytes += size;
    }
    w->cur->last_volatile = 0;
    if (w->sector_log) note_sectors(w, a - w->arena_lo, size, store, site);
    global_access(w, a, size, store ? STORE : LOAD);
  } else if (w->checked && a - w->tls_lo < w->tls_n) {
    check_shared(w, a, size, store);
  }
}

// Volatile accesses are the header's flags and look-back reads: counted,
// never races (CUDA treats them as relaxed atomics), and a volatile load is
// a yield point, so a thread spinning on a flag lets the others run. A
// spin's repeated loads of one address count as one load.
static inline void on_volatile_read(const void* p, unsigned size) {
  Worker* w = tw;
  if (!w || !w->cur) return;
  const uintptr_t a = (uintptr_t)p;
  if (in_arena(w, a) && w->cur->last_volatile != a) {
    w->cur->last_volatile = a;
    w->loads += 1;
    w->load_bytes += size;
    global_access(w, a, size, VOLATILE_LOAD);
  }
  yield();
}

static inline void on_volatile_write(void* p, unsigned size) {
  Worker* w = tw;
  if (!w || !w->cur) return;
  const uintptr_t a = (uintptr_t)p;
  if (in_arena(w, a)) {
    w->stores += 1;
    w->store_bytes += size;
    w->cur->last_volatile = 0;
    global_access(w, a, size, VOLATILE_STORE);
  }
}

// Every atomic ticks, so a loop of atomics alone still stops.
template <class T> static inline void count_atomic(T* p) {
  Worker* w = tw;
  if (!w || !w->cur) return;
  tick(w);
  if (in_arena(w, (uintptr_t)p)) {
    w->atomics += 1;
    w->atomic_bytes += sizeof(T);
    global_access(w, (uintptr_t)p, sizeof(T), ATOMIC);
  }
}

template <class T, class F> static inline T cas_update(T* p, F f) {
  count_atomic(p);
  T cur = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &cur, f(cur), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return cur;
}

template <class F, class W> static inline F float_add(F* p, F v) {
  W* w = (W*)p;
  const W old = cas_update(w, [v](W bits) { return __builtin_bit_cast(W, __builtin_bit_cast(F, bits) + v); });
  return __builtin_bit_cast(F, old);
}

}  // namespace granule_emu

using granule_emu::cas_update;
using granule_emu::count_atomic;

#define GRANULE_EMU_FETCH(NAME, T, BUILTIN)                                                   \
  T NAME(T* p, T v) {                                                                         \
    count_atomic(p);                                                                          \
    return BUILTIN(p, v, __ATOMIC_SEQ_CST);                                                   \
  }
GRANULE_EMU_FETCH(atomicAdd, unsigned, __atomic_fetch_add)
GRANULE_EMU_FETCH(atomicAdd, int, __atomic_fetch_add)
GRANULE_EMU_FETCH(atomicAdd, unsigned long long, __atomic_fetch_add)
GRANULE_EMU_FETCH(atomicSub, unsigned, __atomic_fetch_sub)
GRANULE_EMU_FETCH(atomicSub, int, __atomic_fetch_sub)
GRANULE_EMU_FETCH(atomicExch, unsigned, __atomic_exchange_n)
GRANULE_EMU_FETCH(atomicExch, int, __atomic_exchange_n)
GRANULE_EMU_FETCH(atomicExch, unsigned long long, __atomic_exchange_n)
#undef GRANULE_EMU_FETCH

float atomicAdd(float* p, float v) { return granule_emu::float_add<float, uint32_t>(p, v); }
double atomicAdd(double* p, double v) { return granule_emu::float_add<double, uint64_t>(p, v); }
float atomicExch(float* p, float v) {
  count_atomic(p);
  return __builtin_bit_cast(float, __atomic_exchange_n((uint32_t*)p, __builtin_bit_cast(uint32_t, v), __ATOMIC_SEQ_CST));
}

#define GRANULE_EMU_CAS(T)                                                                    \
  T atomicCAS(T* p, T compare, T value) {                                                     \
    count_atomic(p);                                                                          \
    __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return compare;                                                                           \
  }
GRANULE_EMU_CAS(unsigned)
GRANULE_EMU_CAS(int)
GRANULE_EMU_CAS(unsigned long long)
#undef GRANULE_EMU_CAS

#define GRANULE_EMU_MINMAX(T)                                                                 \
  T atomicMin(T* p, T v) { return cas_update(p, [v](T x) { return v < x ? v : x; }); }        \
  T atomicMax(T* p, T v) { return cas_update(p, [v](T x) { return v > x ? v : x; }); }
GRANULE_EMU_MINMAX(int)
GRANULE_EMU_MINMAX(unsigned)
GRANULE_EMU_MINMAX(long long)
GRANULE_EMU_MINMAX(unsigned long long)
#undef GRANULE_EMU_MINMAX
