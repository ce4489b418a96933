// The emulator's runtime, part 2: coalescing, as a GPU's load/store unit
// does it. compile.rs joins the parts, in the order of its `RUNTIME`, into
// the one translation unit runtime.cpp.
//
// A GPU serves a warp-wide load or store instruction with the 32-byte
// sectors its active lanes' bytes fall in. The emulator runs a warp's
// lanes one after another, so it rebuilds the warp instruction: the n-th
// execution of one instruction site (the call site of the access hook in
// the compiled unit) by each lane of a warp is one warp-wide instruction.
// That holds where the lanes run the site in step, as they do in a
// driver's full tiles; a lane that skips an execution of the site shifts
// its later executions onto later instructions. Per instruction: the
// sectors its bytes touch, and the fewest sectors that could hold those
// bytes (their count over 32, rounded up); their ratio over a launch is
// its sector efficiency.

struct SectorKey {
  uintptr_t site;
  uint32_t warp;
  uint32_t occurrence;
  bool operator==(const SectorKey& o) const {
    return site == o.site && warp == o.warp && occurrence == o.occurrence;
  }
};

struct SiteOfThread {
  uintptr_t site;
  uint32_t thread;
  bool operator==(const SiteOfThread& o) const { return site == o.site && thread == o.thread; }
};

struct SectorHash {
  size_t operator()(const SectorKey& k) const {
    return std::hash<uint64_t>()(k.site * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k.warp << 32 | k.occurrence));
  }
  size_t operator()(const SiteOfThread& k) const {
    return std::hash<uint64_t>()(k.site * 0x9e3779b97f4a7c15ull ^ k.thread);
  }
};

// One warp-wide instruction: the byte ranges its lanes accessed.
struct WarpAccess {
  bool store;
  std::vector<std::pair<uint64_t, uint32_t>> spans;  // (offset in the arena, bytes)
};

// A worker's record of the block it runs.
struct SectorLog {
  std::unordered_map<SiteOfThread, uint32_t, SectorHash> executions;
  std::unordered_map<SectorKey, WarpAccess, SectorHash> accesses;
};

static void note_sectors(Worker* w, uint64_t offset, unsigned size, bool store, const void* site) {
  SectorLog* log = w->sector_log;
  const uint32_t thread = w->cur->flat;
  uint32_t& n = log->executions[SiteOfThread{(uintptr_t)site, thread}];
  WarpAccess& a = log->accesses[SectorKey{(uintptr_t)site, thread / 32, n}];
  n += 1;
  a.store = store;
  a.spans.emplace_back(offset, size);
}

// Counts the block's warp instructions into the worker's totals and
// forgets them.
static void flush_sectors(Worker* w) {
  SectorLog* log = w->sector_log;
  if (!log) return;
  for (auto& [key, a] : log->accesses) {
    std::sort(a.spans.begin(), a.spans.end());
    uint64_t bytes = 0, sectors = 0, covered = 0, last_sector = UINT64_MAX;
    for (const auto& [at, size] : a.spans) {
      const uint64_t end = at + size;
      if (end > covered) bytes += end - (at > covered ? at : covered), covered = end;
      for (uint64_t s = at / 32; s <= (end - 1) / 32; ++s)
        if (last_sector == UINT64_MAX || s > last_sector) ++sectors, last_sector = s;
    }
    const uint64_t ideal = (bytes + 31) / 32;
    (a.store ? w->store_sectors : w->load_sectors) += sectors;
    (a.store ? w->store_ideal : w->load_ideal) += ideal;
  }
  log->accesses.clear();
  log->executions.clear();
}
