// runtime.cpp: the emulator's device runtime. Compiled once per compiler
// and flags, without instrumentation, and linked into every emulated
// module next to the instrumented translation unit. README.md in this
// folder describes the design; launch.rs mirrors `Params`.

// The system headers come first: the shim defines CUDA's keywords as
// macros, and libstdc++ 13 spells an attribute `__noinline__`, which the
// shim's macro of that name would break.
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
  // outputs: counts
  uint64_t loads, stores, load_bytes, store_bytes, atomics, atomic_bytes;
  uint64_t read_bytes, written_bytes;  // distinct words touched, in bytes
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

// ------------------------------------------------------------- fibers

// 64 KiB per CUDA thread: device code keeps little on the stack, and a
// guard page below each stack turns an overflow into a fault, not a
// silent overwrite of the neighbour.
static const size_t STACK = 64 * 1024, GUARD = 4096, SLOT = STACK + GUARD;

#if defined(__x86_64__)
// Saves the callee-saved registers and the SSE/x87 control words on the
// current stack, stores the stack pointer in *save and resumes `to`.
extern "C" void granule_emu_switch(void** save, void* to);
asm(R"(
  .text
  .p2align 4
  .globl granule_emu_switch
  .hidden granule_emu_switch
  .type granule_emu_switch,@function
granule_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size granule_emu_switch,.-granule_emu_switch
)");
#endif

[[noreturn]] static void fiber_main();

static void fiber_init(Worker* w, Fiber* f, uint32_t k) {
  char* lo = w->stacks + (size_t)k * SLOT + GUARD;
#if defined(__x86_64__)
  // The frame granule_emu_switch pops: control words, six registers, and
  // the return address fiber_main, entered with rsp = 8 mod 16 as after
  // a call (its own return address is a null sentinel).
  uint64_t* top = (uint64_t*)(lo + STACK);
  uint64_t* sp = top - 9;
  uint32_t csr;
  uint16_t cw;
  asm volatile("stmxcsr %0" : "=m"(csr));
  asm volatile("fnstcw %0" : "=m"(cw));
  sp[0] = (uint64_t)csr | ((uint64_t)cw << 32);
  for (int r = 1; r <= 6; ++r) sp[r] = 0;
  sp[7] = (uint64_t)&fiber_main;
  sp[8] = 0;
  f->sp = sp;
#else
  getcontext(&f->ctx);
  f->ctx.uc_stack.ss_sp = lo;
  f->ctx.uc_stack.ss_size = STACK;
  f->ctx.uc_link = nullptr;
  makecontext(&f->ctx, (void (*)())fiber_main, 0);
#endif
}

static inline void to_fiber(Worker* w, Fiber* f) {
  w->cur = f;
#if defined(__x86_64__)
  granule_emu_switch(&w->sched_sp, f->sp);
#else
  swapcontext(&w->sched, &f->ctx);
#endif
}

static inline void to_scheduler(Worker* w, Fiber* f) {
#if defined(__x86_64__)
  granule_emu_switch(&f->sp, w->sched_sp);
#else
  swapcontext(&f->ctx, &w->sched);
#endif
}

[[noreturn]] static void fiber_main() {
  Worker* w = tw;
  w->p->thunk(w->p->args);
  Fiber* f = w->cur;
  f->state = DONE;
  w->progress = true;
  to_scheduler(w, f);
  __builtin_trap();  // a finished fiber is never resumed
}

// Fiber stacks are mapped once and reused by later launches, of every
// module: each mapping has a guard page per stack, so it costs the
// process two memory maps per thread, and pools per module (a test run
// loads hundreds of modules) would exhaust the kernel's limit on maps.
// The pool lives in memory launch.rs hands every launch (`stack_pool`,
// zeroed, never freed): a spin lock, a count and up to POOL_SLOTS
// mappings; one that does not fit is unmapped.
struct Stacks {
  char* base;
  uint32_t cap;
};
static const uint32_t POOL_SLOTS = 16;
struct StackPool {
  uint32_t lock;
  uint32_t count;
  Stacks slots[POOL_SLOTS];
};
static_assert(sizeof(StackPool) == 8 + 16 * POOL_SLOTS, "launch.rs sizes the pool");

static StackPool* pool_of(Worker* w) { return (StackPool*)w->p->stack_pool; }
static void pool_lock(StackPool* p) {
  while (__atomic_exchange_n(&p->lock, 1u, __ATOMIC_ACQUIRE) != 0u) sched_yield();
}
static void pool_unlock(StackPool* p) { __atomic_store_n(&p->lock, 0u, __ATOMIC_RELEASE); }

static bool take_stacks(Worker* w, uint32_t n) {
  StackPool* p = pool_of(w);
  pool_lock(p);
  for (uint32_t k = 0; k < p->count; ++k) {
    if (p->slots[k].cap >= n) {
      w->stacks = p->slots[k].base;
      w->stack_cap = p->slots[k].cap;
      p->slots[k] = p->slots[--p->count];
      pool_unlock(p);
      return true;
    }
  }
  pool_unlock(p);
  void* m = mmap(nullptr, (size_t)n * SLOT, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  for (uint32_t k = 0; k < n; ++k) mprotect((char*)m + (size_t)k * SLOT, GUARD, PROT_NONE);
  w->stacks = (char*)m;
  w->stack_cap = n;
  return true;
}

static void give_stacks(Worker* w) {
  StackPool* p = pool_of(w);
  pool_lock(p);
  const bool kept = p->count < POOL_SLOTS;
  if (kept) p->slots[p->count++] = Stacks{w->stacks, w->stack_cap};
  pool_unlock(p);
  if (!kept) munmap(w->stacks, (size_t)w->stack_cap * SLOT);
}

// --------------------------------------------------------- scheduling

static inline uint3 unflatten(uint64_t k, const uint32_t* d) {
  return uint3{(unsigned)(k % d[0]), (unsigned)(k / d[0] % d[1]), (unsigned)(k / d[0] / d[1])};
}

static inline unsigned lane_width(int width) {
  return width > 0 && width <= 32 && (width & (width - 1)) == 0 ? (unsigned)width : 32u;
}

// The result lane k of a resolved group receives.
static uint64_t warp_result(Fiber* lanes, uint32_t group, uint32_t k) {
  const Fiber* g = &lanes[k];
  const unsigned w = lane_width(g->width);
  const unsigned a = (unsigned)g->arg;
  unsigned src = k;
  switch (g->op) {
    case SHFL: src = (k & ~(w - 1)) + (a & (w - 1)); break;
    case SHFL_UP: src = (k & (w - 1)) >= a ? k - a : k; break;
    case SHFL_DOWN: src = (k & (w - 1)) + a < w ? k + a : k; break;
    case SHFL_XOR:
      src = k ^ a;
      // A lane may read earlier width-groups, not later ones (CUDA's rule).
      if (src >= 32 || (src & ~(w - 1)) > (k & ~(w - 1))) src = k;
      break;
    case BALLOT: {
      uint64_t bits = 0;
      for (uint32_t j = 0; j < 32; ++j)
        if ((group >> j & 1u) && lanes[j].value != 0) bits |= 1ull << j;
      return bits;
    }
    default: return 0;
  }
  return src < 32 && (group >> src & 1u) ? lanes[src].value : g->value;
}

// Appends the flat ids of the block's threads for which `pick` holds, as
// ranges ("0-15, 17"), at most 6 of them.
template <class P> static void thread_list(Worker* w, char* out, size_t cap, P pick) {
  size_t len = 0;
  int ranges = 0;
  const uint32_t n = w->l->nthreads;
  for (uint32_t k = 0; k < n && len < cap; ++k) {
    if (!pick(k) || (k > 0 && pick(k - 1))) continue;
    uint32_t e = k;
    while (e + 1 < n && pick(e + 1)) ++e;
    const char* sep = ranges == 0 ? "" : ", ";
    int m = ranges == 6 ? snprintf(out + len, cap - len, ", ...")
            : e == k    ? snprintf(out + len, cap - len, "%s%u", sep, k)
                        : snprintf(out + len, cap - len, "%s%u-%u", sep, k, e);
    if (m < 0) break;
    len += (size_t)m;
    if (++ranges > 6) break;
  }
  if (len == 0 && cap > 0) out[0] = '\0';
}

// Names a call site: the function of the module around it (the nearest
// exported symbol) and the offset.
static void site_name(const void* site, char* out, size_t cap) {
  Dl_info info;
  if (site != nullptr && dladdr(site, &info) != 0 && info.dli_sname != nullptr) {
    int status = -1;
    char* plain = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    const char* name = status == 0 && plain != nullptr ? plain : info.dli_sname;
    snprintf(out, cap, "`%.100s%s`+0x%lx", name, strlen(name) > 100 ? "..." : "",
             (unsigned long)((const char*)site - (const char*)info.dli_saddr));
    free(plain);
  } else {
    snprintf(out, cap, "%p", site);
  }
}

// A barrier that does not hold every thread of the block at one
// __syncthreads: undefined behaviour on a GPU (a hang, or threads released
// at different points), so the launch fails as a deadlock, naming who waits
// where. Returns whether the barrier is whole and may complete.
static bool barrier_is_whole(Worker* w, uint32_t done) {
  Fiber* fs = w->fibers;
  const uint32_t n = w->l->nthreads;
  const void* first = nullptr;
  const void* other = nullptr;
  for (uint32_t k = 0; k < n; ++k) {
    if (fs[k].state != BARRIER) continue;
    if (first == nullptr) first = fs[k].site;
    else if (fs[k].site != first && other == nullptr) other = fs[k].site;
  }
  if (done == 0 && other == nullptr) return true;
  char a[160], b[160], at_a[200], at_b[200], msg[512];
  site_name(first, at_a, sizeof at_a);
  thread_list(w, a, sizeof a, [&](uint32_t k) { return fs[k].state == BARRIER && fs[k].site == first; });
  if (other != nullptr) {
    site_name(other, at_b, sizeof at_b);
    thread_list(w, b, sizeof b, [&](uint32_t k) { return fs[k].state == BARRIER && fs[k].site == other; });
    snprintf(msg, sizeof msg,
             "divergent barrier: in block (%u, %u, %u) threads %s wait at the __syncthreads in %s, threads %s at "
             "the one in %s",
             w->bidx.x, w->bidx.y, w->bidx.z, a, at_a, b, at_b);
  } else {
    thread_list(w, b, sizeof b, [&](uint32_t k) { return fs[k].state == DONE; });
    snprintf(msg, sizeof msg,
             "divergent barrier: in block (%u, %u, %u) threads %s wait at the __syncthreads in %s, but threads %s "
             "exited before reaching it",
             w->bidx.x, w->bidx.y, w->bidx.z, a, at_a, b);
  }
  fail_launch(w->l, DEADLOCK, msg);
  return false;
}

static const char* warp_op_name(int op) {
  static const char* const names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                      "__shfl_xor_sync", "__ballot_sync", "__syncwarp"};
  return op >= 0 && op <= SYNC ? names[op] : "a warp collective";
}

// Whether every lane of `group` waits at the same collective with the same
// mask (less exited lanes), as CUDA requires; otherwise the launch fails.
static bool warp_group_agrees(Worker* w, Fiber* lanes, uint32_t base, uint32_t group, uint32_t alive, uint32_t k) {
  for (uint32_t j = 0; j < 32; ++j) {
    if (!(group >> j & 1u)) continue;
    const uint32_t mine = (lanes[j].mask & alive) | (1u << j);
    if (lanes[j].op == lanes[k].op && mine == group) continue;
    char msg[512];
    snprintf(msg, sizeof msg,
             "divergent warp collective: in block (%u, %u, %u) thread %u waits at %s with mask 0x%08x, thread %u "
             "at %s with mask 0x%08x",
             w->bidx.x, w->bidx.y, w->bidx.z, base + k, warp_op_name(lanes[k].op), lanes[k].mask, base + j,
             warp_op_name(lanes[j].op), lanes[j].mask);
    fail_launch(w->l, DEADLOCK, msg);
    return false;
  }
  return true;
}

// Completes every warp collective whose lanes (its mask, less exited
// lanes: CUDA lets a mask name lanes that have exited) have all arrived;
// returns whether one completed. Lanes that disagree on the collective or
// its mask fail the launch.
static bool resolve_warps(Worker* w) {
  bool any = false;
  const uint32_t n = w->l->nthreads;
  for (uint32_t base = 0; base < n; base += 32) {
    Fiber* lanes = w->fibers + base;
    const uint32_t count = n - base < 32 ? n - base : 32;
    uint32_t alive = 0, waiting = 0;
    for (uint32_t k = 0; k < count; ++k) {
      if (lanes[k].state != DONE) alive |= 1u << k;
      if (lanes[k].state == WARP) waiting |= 1u << k;
    }
    uint32_t todo = waiting;
    while (todo != 0) {
      const uint32_t k = (uint32_t)__builtin_ctz(todo);
      const uint32_t group = (lanes[k].mask & alive) | (1u << k);
      todo &= ~(1u << k);
      if ((group & waiting) != group) continue;
      if (!warp_group_agrees(w, lanes, base, group, alive, k)) return false;
      for (uint32_t j = 0; j < 32; ++j)
        if (group >> j & 1u) lanes[j].result = warp_result(lanes, group, j);
      for (uint32_t j = 0; j < 32; ++j)
        if (group >> j & 1u) lanes[j].state = READY;
      todo &= ~group;
      waiting &= ~group;
      any = true;
    }
  }
  return any;
}

static void report_deadlock(Worker* w, uint32_t barrier, uint32_t warp, uint32_t done) {
  char msg[512];
  int at = -1;
  for (uint32_t k = 0; k < w->l->nthreads; ++k)
    if (w->fibers[k].state == WARP) {
      at = (int)k;
      break;
    }
  int len = snprintf(msg, sizeof msg,
                     "block (%u, %u, %u) cannot progress: %u threads wait at __syncthreads, %u at a warp "
                     "collective, %u have exited",
                     w->bidx.x, w->bidx.y, w->bidx.z, barrier, warp, done);
  if (at >= 0 && len > 0 && (size_t)len < sizeof msg)
    snprintf(msg + len, sizeof msg - (size_t)len, "; thread %d waits for the lanes of mask 0x%08x", at,
             w->fibers[at].mask);
  fail_launch(w->l, DEADLOCK, msg);
}

// Runs block `b` to completion (or until the launch aborts).
static void run_block(Worker* w, uint64_t b) {
  Launch* l = w->l;
  const uint32_t n = l->nthreads;
  w->block = b;
  w->bidx = unflatten(b, w->p->grid);
  w->epoch = 0;
  w->phase = next_phase(w);
  w->seq += 1;
  for (uint32_t k = 0; k < n; ++k) {
    Fiber* f = &w->fibers[k];
    f->flat = k;
    f->tid = unflatten(k, w->p->block);
    f->state = READY;
    f->last_volatile = 0;
    f->site = nullptr;
    fiber_init(w, f, k);
  }
  uint64_t passes = 0, idle = 0;
  for (;;) {
    w->progress = false;
    uint32_t ready = 0, barrier = 0, warp = 0, done = 0;
    for (uint32_t k = 0; k < n; ++k) {
      Fiber* f = &w->fibers[k];
      if (f->state == READY) {
        to_fiber(w, f);
        if (l->abort.load(std::memory_order_relaxed)) return;
      }
      switch (f->state) {
        case READY: ++ready; break;
        case BARRIER: ++barrier; break;
        case WARP: ++warp; break;
        default: ++done; break;
      }
    }
    if (warp != 0 && resolve_warps(w)) continue;
    if (l->abort.load(std::memory_order_relaxed)) return;
    if (done == n) return;
    if (ready == 0) {
      if (warp == 0 && barrier != 0) {
        if (!barrier_is_whole(w, done)) return;
        w->epoch += 1;
        w->phase = next_phase(w);
        for (uint32_t k = 0; k < n; ++k)
          if (w->fibers[k].state == BARRIER) w->fibers[k].state = READY;
        continue;
      }
      report_deadlock(w, barrier, warp, done);
      return;
    }
    // Only yielding fibers are left (a spin on memory another block or
    // thread will write): let the other workers run, and watch the clock.
    idle = w->progress ? 0 : idle + 1;
    if (idle != 0 && idle % 64 == 0) sched_yield();
    if (++passes % 256 == 0 && l->deadline_ns != 0 && now_ns() > l->deadline_ns) {
      char msg[160];
      snprintf(msg, sizeof msg, "block (%u, %u, %u) still running at the time limit", w->bidx.x, w->bidx.y, w->bidx.z);
      fail_launch(l, TIMEOUT, msg);
      return;
    }
  }
}

// The calling thread's instance of this module's TLS segment: the static
// and dynamic shared memory of the block the worker runs.
struct TlsQuery {
  uintptr_t probe;
  uintptr_t lo, n;
};
static int find_tls(dl_phdr_info* info, size_t, void* data) {
  TlsQuery* q = (TlsQuery*)data;
  bool mine = false;
  size_t tls = 0;
  for (int k = 0; k < info->dlpi_phnum; ++k) {
    const ElfW(Phdr)& h = info->dlpi_phdr[k];
    const uintptr_t at = info->dlpi_addr + h.p_vaddr;
    if (h.p_type == PT_LOAD && q->probe - at < h.p_memsz) mine = true;
    if (h.p_type == PT_TLS) tls = h.p_memsz;
  }
  if (!mine) return 0;
  q->lo = (uintptr_t)info->dlpi_tls_data;
  q->n = info->dlpi_tls_data ? tls : 0;
  return 1;
}

static void worker_main(Launch* l, Worker* w) {
  tw = w;  // also allocates this thread's TLS block of the module
  w->l = l;
  w->p = l->p;
  w->launch = l->p->launch_id & 0xfffffull;
  w->arena_lo = (uintptr_t)l->p->arena_base;
  w->arena_n = (uintptr_t)l->p->arena_bytes;
  w->shadow = (char*)l->p->shadow_base;
  w->checked = l->p->checked != 0;
  w->dyn_lo = (uintptr_t)granule_emu_dyn_smem();
  TlsQuery q{(uintptr_t)&worker_main, 0, 0};
  dl_iterate_phdr(find_tls, &q);
  w->tls_lo = q.lo;
  w->tls_n = q.n;
  if (w->checked && w->tls_n != 0) {
    w->sshadow = (SharedCell*)calloc(w->tls_n / 4 + 1, sizeof(SharedCell));
    if (!w->sshadow) w->tls_n = 0;
  }
  std::vector<Fiber> fibers(l->nthreads);
  w->fibers = fibers.data();
  if (!take_stacks(w, l->nthreads)) {
    fail_launch(l, INTERNAL, "could not map fiber stacks");
  } else {
    while (!l->abort.load(std::memory_order_relaxed)) {
      const uint64_t b = l->next.fetch_add(1);
      if (b >= l->nblocks) break;
      run_block(w, b);
    }
    give_stacks(w);
  }
  free(w->sshadow);
  tw = nullptr;
}

// ------------------------------------------------------- device calls

uint3 thread_idx() { return tw->cur->tid; }
uint3 block_idx() { return tw->bidx; }
uint3 block_dim() { return uint3{tw->p->block[0], tw->p->block[1], tw->p->block[2]}; }
uint3 grid_dim() { return uint3{tw->p->grid[0], tw->p->grid[1], tw->p->grid[2]}; }

// Never inlined (runtime.cpp is a separate object), so the return address
// is the call site in the translation unit: shim.h's __syncthreads is
// always inlined into its caller, and the barrier check compares sites.
void sync_threads() {
  Worker* w = tw;
  Fiber* f = w->cur;
  f->site = __builtin_return_address(0);
  f->state = BARRIER;
  w->progress = true;
  to_scheduler(w, f);
}

uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width) {
  Worker* w = tw;
  Fiber* f = w->cur;
  f->op = op;
  f->mask = mask;
  f->value = value;
  f->arg = arg;
  f->width = width;
  f->state = WARP;
  w->progress = true;
  to_scheduler(w, f);
  return f->result;
}

void yield() {
  Worker* w = tw;
  Fiber* f = w->cur;
  f->state = READY;
  to_scheduler(w, f);
}

void fence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  yield();
}

// Ends the calling thread and the launch (the whole grid stops, as a trap
// does on a GPU); the host reads granule_error.
[[noreturn]] static void stop(Worker* w) {
  Fiber* f = w->cur;
  f->state = DONE;
  to_scheduler(w, f);
  __builtin_trap();
}

void trap() {
  Worker* w = tw;
  fail_launch(w->l, TRAPPED, "the kernel trapped");
  stop(w);
}

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
static inline void on_access(const void* p, unsigned size, bool store) {
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

// The ThreadSanitizer entry points GCC's instrumentation calls, in place of
// libtsan's: every load and store of the translation unit passes here.
extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
#define GRANULE_EMU_HOOKS(N)                                                                  \
  void __tsan_read##N(void* p) { granule_emu::on_access(p, N, false); }                       \
  void __tsan_write##N(void* p) { granule_emu::on_access(p, N, true); }                       \
  void __tsan_unaligned_read##N(void* p) { granule_emu::on_access(p, N, false); }             \
  void __tsan_unaligned_write##N(void* p) { granule_emu::on_access(p, N, true); }             \
  void __tsan_volatile_read##N(void* p) { granule_emu::on_volatile_read(p, N); }              \
  void __tsan_volatile_write##N(void* p) { granule_emu::on_volatile_write(p, N); }            \
  void __tsan_unaligned_volatile_read##N(void* p) { granule_emu::on_volatile_read(p, N); }    \
  void __tsan_unaligned_volatile_write##N(void* p) { granule_emu::on_volatile_write(p, N); }
GRANULE_EMU_HOOKS(1)
GRANULE_EMU_HOOKS(2)
GRANULE_EMU_HOOKS(4)
GRANULE_EMU_HOOKS(8)
GRANULE_EMU_HOOKS(16)
#undef GRANULE_EMU_HOOKS
void __tsan_read_range(void* p, unsigned long size) {
  if (size != 0) granule_emu::on_access(p, (unsigned)size, false);
}
void __tsan_write_range(void* p, unsigned long size) {
  if (size != 0) granule_emu::on_access(p, (unsigned)size, true);
}

// The launch; returns when every block has run or the launch failed.
uint64_t granule_emu_params_size() { return sizeof(granule_emu::Params); }

void granule_emu_launch(granule_emu::Params* p) {
  using namespace granule_emu;
  Launch l;
  l.p = p;
  l.nblocks = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
  l.nthreads = p->block[0] * p->block[1] * p->block[2];
  l.deadline_ns = p->timeout_ns == 0 ? 0 : now_ns() + p->timeout_ns;
  uint64_t n = p->workers == 0 ? 1 : p->workers;
  if (n > l.nblocks) n = l.nblocks;
  std::vector<Worker> ws(n);
  memset((void*)ws.data(), 0, n * sizeof(Worker));
  std::vector<std::thread> ts;
  try {
    for (uint64_t k = 0; k < n; ++k) ts.emplace_back(worker_main, &l, &ws[k]);
  } catch (...) {
    fail_launch(&l, INTERNAL, "could not start the emulator's worker threads");
  }
  for (auto& t : ts) t.join();
  for (const Worker& w : ws) {
    p->loads += w.loads;
    p->stores += w.stores;
    p->load_bytes += w.load_bytes;
    p->store_bytes += w.store_bytes;
    p->atomics += w.atomics;
    p->atomic_bytes += w.atomic_bytes;
    p->read_bytes += w.read_bytes;
    p->written_bytes += w.written_bytes;
  }
}
}
