// runtime.cpp: the emulator's device runtime, which compile.rs joins from
// the parts in this folder, this one first (headers, state, helpers).
// Compiled once per compiler and flags, without instrumentation, and
// linked into every emulated module next to the instrumented translation
// unit. ../README.md describes the design; launch.rs mirrors `Params`.

// The system headers come first: the shim defines CUDA's keywords as
// macros, and libstdc++ 13 spells an attribute `__noinline__`, which the
// shim's macro of that name would break.
#include <algorithm>
#include <atomic>
#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <thread>
#include <time.h>
#include <unordered_map>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#define GRANULE_EMU_RUNTIME 1
#include "shim.h"

// Defined by shim.h in the translation unit's half of the module.
extern "C" void* granule_emu_dyn_smem();

namespace granule_emu {

// One launch, as launch.rs fills it; the runtime writes the outputs.
struct Params {
  // inputs
  void (*thunk)(void**);
  void** args;
  uint32_t grid[3];
  uint32_t block[3];
  uint64_t smem_bytes;
  uint64_t arena_base;
  uint64_t arena_bytes;
  uint64_t shadow_base;
  uint64_t launch_id;  // 1..2^20, names this launch in the global shadow
  uint64_t timeout_ns;
  uint64_t phase_counter;  // address of the process's u64 counter of barrier phases
  uint64_t stack_pool;     // address of the process's StackPool of fiber stacks
  uint32_t workers;
  uint32_t checked;
  uint32_t sectors;  // whether to count the sectors of warp-wide accesses (sectors.cpp)
  uint32_t unused;
  // outputs: counts
  uint64_t loads, stores, load_bytes, store_bytes, atomics, atomic_bytes;
  uint64_t read_bytes, written_bytes;  // distinct words touched, in bytes
  uint64_t load_sectors, load_ideal, store_sectors, store_ideal;  // see sectors.cpp
  // outputs: the first failure
  uint32_t status;
  uint32_t race_kind;   // 1 two plain writes, 2 a read of another thread's write,
                        // 3 a write of bytes another thread read
  uint32_t race_space;  // 1 global, 2 dynamic shared, 3 static shared
  uint32_t race_size;
  uint64_t race_addr;
  uint64_t race_offset;  // into the arena, or into dynamic shared memory
  uint64_t first_block, first_thread, second_block, second_thread;
  char message[512];
};

enum Status : uint32_t { OK = 0, TRAPPED = 1, RACE = 2, DEADLOCK = 3, TIMEOUT = 4, INTERNAL = 5, SHARED_BOUNDS = 6 };
enum State : uint8_t { READY, BARRIER, WARP, DONE };

struct Fiber {
#if defined(__x86_64__)
  void* sp;
#else
  ucontext_t ctx;
#endif
  uint3 tid;
  uint32_t flat;
  uint8_t state;
  int op;
  unsigned mask;
  int arg;
  int width;
  uint64_t value;
  uint64_t result;
  uintptr_t last_volatile;  // a spin's repeated loads are counted once
  const void* site;         // the __syncthreads call it waits at
};

// Shadow of one 4-byte word of global memory: the last writer, packed so
// that one exchange publishes it to other blocks (launch 20 bits | block
// 30 | thread 10 | byte mask 4; the mask is 0 for writes that are not
// plain, checked writes), the barrier epoch of that write (read only by
// the writer's own block, whose fibers share one OS thread), the readers
// of the current barrier phase (see Readers), and the last launch that
// read the word. The launch ids also give each launch's footprint: a word
// counts once for reading and once for writing.
struct GlobalCell {
  std::atomic<uint64_t> who;
  std::atomic<uint64_t> reader;
  uint32_t epoch;
  std::atomic<uint32_t> read;
  std::atomic<uint32_t> partner;  // see Readers
  uint32_t unused;
};
static_assert(sizeof(GlobalCell) == 32, "arena.rs sizes the shadow at 32 bytes per word");
// Shadow of one 4-byte word of shared memory, private to a worker: `seq`
// names the block (per worker), `who` is thread << 4 | byte mask; `reader`
// and `partner` as in GlobalCell.
struct SharedCell {
  uint64_t seq;
  uint32_t who;
  uint32_t epoch;
  uint64_t reader;
  uint32_t partner;
  uint32_t unused;
};

// The plain reads of a word in one barrier phase of one block, packed in a
// 64-bit word so that blocks on other workers update it atomically:
// phase 46 bits | thread 10 | single 4 | multi 4. A phase is one block
// between two barriers, numbered across the process (Worker::phase), so a
// word read in an earlier phase, launch or block reads as unread. Per
// byte: `multi` holds the bytes at least two threads read, `single` those
// only `thread` read. A write of bytes in `multi` always conflicts (at
// most one of their readers is the writer), and one of bytes in `single`
// does unless the writer is `thread`; so the answer is exact for
// whole-word and same-bytes reads. Only when threads read different bytes
// of one word can a reader go unrecorded (a race missed, never invented).
// `partner` is another thread that read the word in the phase, only to
// name one in the report when the writer is `thread` itself.
namespace readers {
constexpr int PHASE_SHIFT = 18;
constexpr uint64_t MAX_PHASE = (1ull << 46) - 1;
constexpr uint32_t NONE = 0xffffffffu;

inline uint64_t pack(uint64_t phase, uint64_t thread, uint32_t single, uint32_t multi) {
  return phase << PHASE_SHIFT | thread << 8 | (uint64_t)single << 4 | multi;
}
inline uint64_t thread_of(uint64_t r) { return r >> 8 & 0x3ffull; }
inline uint32_t single_of(uint64_t r) { return (uint32_t)(r >> 4 & 0xfu); }
inline uint32_t multi_of(uint64_t r) { return (uint32_t)(r & 0xfu); }

// `old` after thread `t` of `phase` read the bytes `m`; `partner` gets a
// reader other than the result's `thread`, or NONE.
inline uint64_t after_read(uint64_t old, uint64_t phase, uint64_t t, uint32_t m, uint32_t& partner) {
  partner = NONE;
  if (old >> PHASE_SHIFT != phase) return pack(phase, t, m, 0);
  const uint64_t ot = thread_of(old);
  uint32_t single = single_of(old), multi = multi_of(old);
  if (ot == t) return pack(phase, t, single | (m & ~multi), multi);
  multi |= single & m;
  single &= ~multi;
  const uint32_t fresh = m & ~multi & ~single;
  if (fresh != 0 && single == 0) {
    // `ot` holds no byte alone any more: `t` takes the slot.
    partner = (uint32_t)ot;
    return pack(phase, t, fresh, multi);
  }
  // Bytes only `t` read go unrecorded when `ot` still holds some alone.
  partner = (uint32_t)t;
  return pack(phase, ot, single, multi);
}

// Whether a write of the bytes `m` by thread `w` of `phase` conflicts with
// the reads `r`; `other` gets a thread that read them.
inline bool conflict(uint64_t r, uint32_t partner, uint64_t phase, uint64_t w, uint32_t m, uint64_t& other) {
  if (phase == 0 || r >> PHASE_SHIFT != phase) return false;
  const uint64_t ot = thread_of(r);
  if (ot != w && (single_of(r) & m) != 0) {
    other = ot;
    return true;
  }
  if ((multi_of(r) & m) == 0) return false;
  other = ot != w ? ot : partner;
  return true;
}
}  // namespace readers

struct Launch {
  Params* p;
  uint64_t nblocks;
  uint32_t nthreads;
  uint64_t deadline_ns;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> abort{false};
  std::mutex lock;
};

struct SectorLog;

struct Worker {
  Launch* l;
  Params* p;
#if defined(__x86_64__)
  void* sched_sp;
#else
  ucontext_t sched;
#endif
  Fiber* fibers;
  Fiber* cur;
  char* stacks;
  uint32_t stack_cap;
  uint3 bidx;
  uint64_t block;
  uint32_t epoch;
  uint64_t phase;  // this block's barrier phase (see readers); 0: reads untracked
  uint64_t seq;
  uint64_t launch;
  uintptr_t arena_lo, arena_n;
  char* shadow;
  uintptr_t tls_lo, tls_n, dyn_lo;
  SharedCell* sshadow;
  bool checked;
  bool progress;
  uint32_t ticks;  // memory accesses, loop iterations and atomics since the last poll
  uint64_t loads, stores, load_bytes, store_bytes, atomics, atomic_bytes;
  uint64_t read_bytes, written_bytes;
  SectorLog* sector_log;  // null unless the launch counts sectors
  uint64_t load_sectors, load_ideal, store_sectors, store_ideal;
};

static thread_local Worker* tw = nullptr;

static uint64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

// Records the launch's first failure; later ones are dropped. Returns
// whether this call recorded.
static bool fail_launch(Launch* l, uint32_t status, const char* message) {
  std::lock_guard<std::mutex> g(l->lock);
  if (l->p->status != OK) return false;
  l->p->status = status;
  snprintf(l->p->message, sizeof l->p->message, "%s", message);
  l->abort.store(true);
  return true;
}

// A fresh barrier phase, unique in the process (the counter is the
// arena's, shared by every module); 0 once the 46 bits run out, which
// turns read tracking off (races missed, never invented).
static uint64_t next_phase(Worker* w) {
  uint64_t* counter = (uint64_t*)w->p->phase_counter;
  const uint64_t p = __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
  return p <= readers::MAX_PHASE ? p : 0;
}
