// The emulator's runtime, part 6: the sanitizer hooks and the launch entry point. compile.rs joins the parts, in the
// order of its `RUNTIME`, into the one translation unit runtime.cpp.

// The ThreadSanitizer entry points GCC's instrumentation calls, in place of
// libtsan's: every load and store of the translation unit passes here.
extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
#define GRANULE_EMU_HOOKS(N)                                                                  \
  void __tsan_read##N(void* p) { granule_emu::on_access(p, N, false, __builtin_return_address(0)); }                       \
  void __tsan_write##N(void* p) { granule_emu::on_access(p, N, true, __builtin_return_address(0)); }                       \
  void __tsan_unaligned_read##N(void* p) { granule_emu::on_access(p, N, false, __builtin_return_address(0)); }             \
  void __tsan_unaligned_write##N(void* p) { granule_emu::on_access(p, N, true, __builtin_return_address(0)); }             \
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
  if (size != 0) granule_emu::on_access(p, (unsigned)size, false, __builtin_return_address(0));
}
void __tsan_write_range(void* p, unsigned long size) {
  if (size != 0) granule_emu::on_access(p, (unsigned)size, true, __builtin_return_address(0));
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
  // Kernels' printf output appears by the time the launch returns, before
  // the host prints anything after it.
  fflush(stdout);
  for (const Worker& w : ws) {
    p->loads += w.loads;
    p->stores += w.stores;
    p->load_bytes += w.load_bytes;
    p->store_bytes += w.store_bytes;
    p->atomics += w.atomics;
    p->atomic_bytes += w.atomic_bytes;
    p->read_bytes += w.read_bytes;
    p->written_bytes += w.written_bytes;
    p->load_sectors += w.load_sectors;
    p->load_ideal += w.load_ideal;
    p->store_sectors += w.store_sectors;
    p->store_ideal += w.store_ideal;
  }
}
}
