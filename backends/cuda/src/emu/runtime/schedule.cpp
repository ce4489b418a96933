// The emulator's runtime, part 4: the block scheduler and the device calls. compile.rs joins the parts, in the
// order of its `RUNTIME`, into the one translation unit runtime.cpp.

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
  if (l->p->sectors) w->sector_log = new (std::nothrow) SectorLog;
  std::vector<Fiber> fibers(l->nthreads);
  w->fibers = fibers.data();
  if (!take_stacks(w, l->nthreads)) {
    fail_launch(l, INTERNAL, "could not map fiber stacks");
  } else {
    while (!l->abort.load(std::memory_order_relaxed)) {
      const uint64_t b = l->next.fetch_add(1);
      if (b >= l->nblocks) break;
      run_block(w, b);
      flush_sectors(w);
    }
    give_stacks(w);
  }
  free(w->sshadow);
  delete w->sector_log;
  w->sector_log = nullptr;
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
