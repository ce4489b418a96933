// The emulator's runtime, part 3: fibers and their stacks. compile.rs joins the parts, in the
// order of its `RUNTIME`, into the one translation unit runtime.cpp.

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
