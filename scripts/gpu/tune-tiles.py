#!/usr/bin/env python3
"""Times variants of the Cuda drivers' tiles on a GPU, beside PyTorch and
CuPy on the same card: the scan and compaction drivers' items per thread
and register cap, the radix sort's tile and the way a digit's peers are
found, and the parallel_scan pattern's tile. benches/RESULTS.md ("Device
kernels alone") shows what the product's choices measure.

From the root of a checkout (NVRTC 12.9 comes from scripts/install-nvrtc.sh):

    python3 scripts/gpu/tune-tiles.py build

compiles the product's device code (granule-cuda's device header, as
`granule_cuda::device::HEADER` joins its files, and the algorithms'
scan.cuh, compact.cuh and radix.cuh) once per entry of VARIANTS, SORT_SHAPES, PATTERN_SHAPES and
PATTERN8_SHAPES below, behind raw-pointer entry points, to sm_90 CUBINs
in target/gpu-tune/, and prints each kernel's registers and spilled
bytes. Then, on a machine with a GPU (sm_90: an H100 or H200), CuPy and
PyTorch, with target/gpu-tune copied there:

    PYTHONUNBUFFERED=1 python3 target/gpu-tune/tune-tiles.py bench [sort|pattern]

times every variant's Sum scans (i32, f32, i64, f64) and copy_if (i32,
i64) at 2^28 and 2^24 with CuPy events (median of 15 launches, each with
its workspace zeroing), checks their results, and times PyTorch's cumsum,
nonzero and masked_select; then the radix sorts: the working tree's
radix.cuh, the one at SORT_BASE (a git revision, HEAD unless set when
building) and SORT_SHAPES of the working tree's, each a whole sort of
2^28 and 2^24 random u32 keys and of u32 pairs (the histogram launch and
four digit passes), checked against CuPy's sort; last the parallel_scan
pattern's driver in PATTERN_SHAPES (i32) and PATTERN8_SHAPES (i64, f64)
of items per thread and launch bounds. `bench sort` and `bench pattern`
time only those parts; each part takes about 20 s on an H100. Its output
is the report.
"""
import ctypes, json, os, re, shutil, subprocess, sys

# name, items per thread (values of up to 4 bytes / 8 bytes), launch
# bounds' fewest blocks (exact 4-byte Sum / float 4-byte Sum / 8-byte).
VARIANTS = [
    ("current", None, None, None, None, None),
    ("items16_cap4", 16, 8, 4, 1, 4),
    ("items32_cap2", 32, 16, 2, 1, 2),
    ("items16x16_cap3", 16, 16, 4, 1, 3),
]
ITEMS_SRC = "return bytes <= 4ull ? 32u : bytes >= 128ull ? 1u : (granule::u32)(128ull / bytes);"
OUT = "target/gpu-tune"
# Radix sort tile shapes to time beside the product's: threads, keys per
# thread (even), the fewest blocks of __launch_bounds__ (0: none), and how
# a key's peers are found (PEERS: "xor", the product's ballots, or a
# variant).
SORT_SHAPES = [(512, 16, 2, "ballot"), (512, 16, 2, "xor"), (512, 16, 0, "match"), (512, 16, 2, "match")]
PEERS_LOOP = "    peers &= ones ^ (bit - 1u);"
PEERS_START = "  granule::u32 peers = live;\n"
PEERS = {
    "xor": (PEERS_LOOP, PEERS_LOOP),
    "ballot": (PEERS_LOOP, "    peers &= bit != 0u ? ones : ~ones;"),
    "match": (PEERS_START, "  return __match_any_sync(0xffffffffu, d) & live;\n" + PEERS_START),
}

SORT_ENTRIES = r'''
using granule::u64; using granule::u32;
extern "C" __global__ void hist_u32(u64 n, const u32* kp, u64* hp) {
  GRANULE_ENTRY_CHECK();
  const granule::View<const u32, 1, granule::LayoutStride> keys{kp, {n}, {1}, 1};
  const granule::View<u64, 1, granule::LayoutStride> hist{hp, {4 * 256}, {1}, 2};
  granule_algo::radix_histogram<u32>(n, keys, hist); }
#define PASS_VIEWS \
  const granule::View<const u64, 1, granule::LayoutStride> hist{hp, {4 * 256}, {1}, 1}; \
  const granule::View<const u32, 1, granule::LayoutStride> kin{ki, {n}, {1}, 2}; \
  const granule::View<u32, 1, granule::LayoutStride> kout{ko, {n}, {1}, 3};
extern "C" __global__ void SORT_BOUNDS pass_u32(u64 n, u32 shift, u32 row, u64 smem, const u64* hp, const u32* ki, u32* ko,
    u32* status, u32* tiles) {
  GRANULE_ENTRY_CHECK(); PASS_VIEWS
  granule_algo::radix_pass<u32, u32, u32, false>(n, shift, row, smem, hist, kin, kout, kin, kout, status, tiles); }
extern "C" __global__ void SORT_BOUNDS pairs_u32(u64 n, u32 shift, u32 row, u64 smem, const u64* hp, const u32* ki, u32* ko,
    const u32* vi, u32* vo, u32* status, u32* tiles) {
  GRANULE_ENTRY_CHECK(); PASS_VIEWS
  const granule::View<const u32, 1, granule::LayoutStride> vin{vi, {n}, {1}, 4};
  const granule::View<u32, 1, granule::LayoutStride> vout{vo, {n}, {1}, 5};
  granule_algo::radix_pass<u32, u32, u32, true>(n, shift, row, smem, hist, kin, kout, vin, vout, status, tiles); }
'''

ENTRIES = r'''
using granule::u64; using granule::u32;
#define SCAN_ENTRY(NAME, T, ...) extern "C" __global__ void __launch_bounds__(__VA_ARGS__) NAME(u64 n, u32 inclusive, T init, u32 items, \
    const T* xp, T* op, u64* status, T* values, u32* tiles, T* result) { \
  GRANULE_ENTRY_CHECK(); typedef granule::Sum<T> Op; \
  const granule::View<const T, 1, granule::LayoutStride> x{xp, {n}, {1}, 1}; \
  const granule::View<T, 1, granule::LayoutStride> out{op, {n}, {1}, 2}; \
  granule_algo::scan_view<Op, T>(n, inclusive != 0u, init, items, x, out, status, values, tiles, result, [&](const T& v) { return v; }); }
SCAN_ENTRY(scan_i32, granule::i32, %s)
SCAN_ENTRY(scan_f32, granule::f32, %s)
SCAN_ENTRY(scan_i64, granule::i64, %s)
SCAN_ENTRY(scan_f64, granule::f64, %s)
#define COPY_IF_ENTRY(NAME, T) extern "C" __global__ void NAME(u64 n, u64 smem, const T* xp, T* op, u64* status, u64* values, \
    u32* tiles, u64* result) { \
  GRANULE_ENTRY_CHECK(); \
  const granule::View<const T, 1, granule::LayoutStride> x{xp, {n}, {1}, 1}; \
  const granule::View<T, 1, granule::LayoutStride> out{op, {n}, {1}, 2}; \
  granule_algo::compact<T>(n, smem, false, false, status, values, tiles, result, x, [&](u64, const T& v) { return v != 0; }, \
      [&](u64 at, const T& v) { out(at) = v; }, [&](u64, const T&) {}); }
COPY_IF_ENTRY(copy_if_i32, granule::i32)
COPY_IF_ENTRY(copy_if_i64, granule::i64)
'''


def compile_variant(lib, src, name):
    """Compiles `src` to OUT/name.cubin and prints its kernels' registers."""
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"tune.cu", 0, None, None) == 0
    opts = [b"-std=c++17", b"--fmad=false", b"-arch=sm_90", b"--ptxas-options=-v"]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    log = log.value.decode()
    if rc:
        sys.exit(log)
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetCUBIN(prog, cubin)
    open(f"{OUT}/{name}.cubin", "wb").write(cubin.raw)
    info = []
    for part in log.split("Compiling entry function")[1:]:
        fn = re.search(r"'(\w+)'", part).group(1)
        regs = re.search(r"Used (\d+) registers", part).group(1)
        spill = re.search(r"(\d+) bytes spill stores", part)
        info.append(f"{fn} {regs} regs, {spill.group(1) if spill else '?'} B spilled")
    print(f"{name}: " + "; ".join(info))


# The parallel_scan pattern's driver (drive_scan in the header): items
# per thread for values of up to 4 bytes, the fewest blocks of
# __launch_bounds__(256, ..) (0: none).
PATTERN_SHAPES = [(8, 0), (8, 2), (8, 4), (16, 0), (16, 2), (16, 3), (16, 4)]
PATTERN_ITEMS_SRC = "return bytes <= 4ull ? 16u : bytes == 8ull ? 8u :"

# 8-byte values: items per thread, fewest blocks (0: none).
PATTERN8_SHAPES = [(4, 0), (4, 3), (4, 4), (8, 0), (8, 2), (8, 3), (16, 2)]

# The bench's kernel (benches/cuda_patterns.rs, prefix_i32), as the
# translator's functor would call it: the update, then the write.
PATTERN_ENTRY = r'''
#define PATTERN_KERNEL(NAME, T) \
extern "C" __global__ void PATTERN_BOUNDS NAME(granule::u64 n, const T* xp, T* op, \
    granule::u64* status, T* values, granule::u32* tiles, T* result) { \
  GRANULE_ENTRY_CHECK(); \
  const granule::View<const T, 1, granule::LayoutStride> x{xp, {n}, {1}, 1}; \
  const granule::View<T, 1, granule::LayoutStride> out{op, {n}, {1}, 2}; \
  granule::drive_scan<granule::Sum<T>>(0ull, n, status, values, tiles, result, \
      [&](granule::u64 i, T& p, bool last) { p += x(i); if (last) out(i) = p; }); }
PATTERN_KERNEL(pattern_i32, granule::i32)
PATTERN_KERNEL(pattern_i64, granule::i64)
PATTERN_KERNEL(pattern_f64, granule::f64)
'''


def build_patterns(lib, header):
    """The pattern scan's variants (PATTERN_SHAPES) of the header's items
    per thread and the entry's launch bounds."""
    assert PATTERN_ITEMS_SRC in header, "scan_items changed: update PATTERN_ITEMS_SRC"
    # (name prefix, the product's items in PATTERN_ITEMS_SRC and their
    # replacement, shapes, types)
    groups = [
        ("pattern", "16u :", "{}u :", PATTERN_SHAPES, ["i32"]),
        ("pattern8", "8ull ? 8u", "8ull ? {}u", PATTERN8_SHAPES, ["i64", "f64"]),
    ]
    meta = {}
    for prefix, theirs, mine, shapes, types in groups:
        for items, least in shapes:
            src = header.replace(PATTERN_ITEMS_SRC, PATTERN_ITEMS_SRC.replace(theirs, mine.format(items), 1))
            bounds = f"__launch_bounds__(256, {least})" if least else ""
            name = f"{prefix}_{items}_lb{least}"
            compile_variant(lib, src + f"#define PATTERN_BOUNDS {bounds}\n" + PATTERN_ENTRY, name)
            wide = prefix == "pattern8"
            meta[name] = {"items": 16 if wide else items, "items8": items if wide else 8, "types": types}
    return meta


def bench_patterns(here):
    """Each pattern variant's inclusive Sum scan of values in 0..3 (the
    bench's prefix_i32, for i32 or for i64 and f64), checked, beside
    PyTorch's cumsum of the same type."""
    import numpy as np, cupy as cp, torch
    meta = json.load(open(os.path.join(here, "patterns.json")))
    rng = np.random.default_rng(5)
    for lg in (28, 24):
        n = 1 << lg
        base = rng.integers(0, 3, n, dtype=np.int32)
        xs = {t: cp.asarray(base).astype(d) for t, d in (("i32", cp.int32), ("i64", cp.int64), ("f64", cp.float64))}
        wants = {t: cp.cumsum(x, dtype=x.dtype) for t, x in xs.items()}
        for t, x in xs.items():
            xt = torch.as_tensor(x, device="cuda")
            # The dtype keeps PyTorch from widening an int32 scan to int64.
            report(f"torch cumsum {t}", lg, median_ms(lambda: torch.cumsum(xt, 0, dtype=xt.dtype)), 2 * x.itemsize * n)
        for name, m in meta.items():
            mod = cp.RawModule(path=os.path.join(here, name + ".cubin"))
            for t in m["types"]:
                x, want = xs[t], wants[t]
                fn = mod.get_function("pattern_" + t)
                size = x.itemsize
                per = 256 * (m["items"] if size <= 4 else m["items8"])
                ntiles = (n + per - 1) // per
                out, status = cp.empty_like(x), cp.zeros(ntiles, cp.uint64)
                values, tiles, result = cp.zeros(2 * ntiles, x.dtype), cp.zeros(1, cp.uint32), cp.zeros(1, x.dtype)
                smem = (per + per // 32) * size

                def scan():
                    status.fill(0); tiles.fill(0)
                    fn((ntiles,), (256,), (np.uint64(n), x, out, status, values, tiles, result), shared_mem=smem)
                ms = median_ms(scan)
                report(f"{name} scan {t}", lg, ms, 2 * size * n, bool((out == want).all()))


def build_sorts(lib, header):
    """The radix sort's variants: the working tree's radix.cuh, the one
    at SORT_BASE (a git revision, HEAD unless set), and the working
    tree's with other tile shapes."""
    mine = open("algorithms/src/sort/radix.cuh").read()
    base = os.environ.get("SORT_BASE", "HEAD")
    theirs = subprocess.check_output(["git", "show", f"{base}:algorithms/src/sort/radix.cuh"], text=True)
    meta = {}
    assert PEERS_LOOP in mine and PEERS_START in mine, "digit_peers changed: update PEERS"
    for name, src, block, items, least in [("sort_current", mine, 512, 16, 0), ("sort_" + base, theirs, 512, 16, 0)] + [
        (f"sort_{b}x{i}_lb{m}_{peers}", mine.replace(*PEERS[peers]), b, i, m)
        for b, i, m, peers in SORT_SHAPES
    ]:
        for what, value in (("RADIX_BLOCK", block), ("RADIX_ITEMS", items)):
            line = re.search(rf"constexpr granule::u32 {what} = (\d+)u;", src)
            assert line, f"radix.cuh has no {what}"
            src = src.replace(line.group(0), f"constexpr granule::u32 {what} = {value}u;")
        bounds = f"__launch_bounds__({block}, {least})" if least else ""
        compile_variant(lib, header + src + f"#define SORT_BOUNDS {bounds}\n" + SORT_ENTRIES, name)
        meta[name] = {"block": block, "items": items}
    return meta


def device_header():
    """granule-cuda's device header: the files `HEADER` in
    backends/cuda/src/device/mod.rs joins, in its order."""
    folder = "backends/cuda/src/device"
    source = open(f"{folder}/mod.rs").read()
    block = re.search(r"pub const HEADER: &str = concat!\((.*?)\);", source, re.S)
    assert block, "device/mod.rs has no HEADER: update device_header"
    files = re.findall(r'include_str!\("([^"]+)"\)', block.group(1))
    return "".join(open(f"{folder}/{f}").read() for f in files)


def build():
    # The paths below are the checkout's: build from its root.
    me = os.path.abspath(__file__)
    os.chdir(os.path.dirname(os.path.dirname(os.path.dirname(me))))
    nv = subprocess.check_output(["scripts/install-nvrtc.sh"], text=True).strip()
    lib = ctypes.CDLL(nv + "/libnvrtc.so.12")
    header = device_header()
    scan = open("algorithms/src/scan/scan.cuh").read()
    assert ITEMS_SRC in scan, "scan_run_items changed: update ITEMS_SRC"
    compact = open("algorithms/src/compact/compact.cuh").read()
    os.makedirs(OUT, exist_ok=True)
    meta = {}
    for name, i4, i8, exact4, float4, eight in VARIANTS:
        s = scan
        if i4 is None:
            bounds = ["256, granule_algo::scan_run_min_blocks<%s>()" % t for t in ("granule::i32", "granule::f32", "granule::i64", "granule::f64")]
            i4, i8 = 32, 16
        else:
            s = s.replace(ITEMS_SRC, f"return bytes <= 4ull ? {i4}u : {i8}u;")
            bounds = [f"256, {b}" for b in (exact4, float4, eight, eight)]
        src = header + s + compact + ENTRIES % tuple(bounds)
        compile_variant(lib, src, name)
        meta[name] = {"items4": i4, "items8": i8}
    json.dump(meta, open(f"{OUT}/variants.json", "w"))
    json.dump(build_sorts(lib, header), open(f"{OUT}/sorts.json", "w"))
    json.dump(build_patterns(lib, header), open(f"{OUT}/patterns.json", "w"))
    shutil.copy(me, f"{OUT}/tune-tiles.py")
    print(f"on the GPU machine, with {OUT} copied there: PYTHONUNBUFFERED=1 python3 {OUT}/tune-tiles.py bench")


def median_ms(f, reps=15):
    import cupy as cp
    start, end = cp.cuda.Event(), cp.cuda.Event()
    f(); f(); cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start.record(); f(); end.record(); end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return sorted(times)[reps // 2]


def report(what, lg, ms, moved, ok=True):
    print(f"{what:34s} 2^{lg} {ms:8.4f} ms {moved / ms / 1e6:7.1f} GB/s{'' if ok else ' WRONG'}", flush=True)


def bench_sorts(here):
    """Each radix variant's whole sort of random u32 keys (the histogram
    launch and four digit passes, the product's launches) and of u32
    pairs, checked against CuPy's sort, beside CuPy's (CUB's keys-only
    radix sort) and PyTorch's stable sort (keys with int64 indices)."""
    import numpy as np, cupy as cp, torch
    meta = json.load(open(os.path.join(here, "sorts.json")))
    rng = np.random.default_rng(11)
    for lg in (28, 24):
        n = 1 << lg
        keys = cp.asarray(rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32))
        vals = cp.arange(n, dtype=cp.uint32)
        want = cp.sort(keys)
        report("cupy sort u32", lg, median_ms(lambda: cp.sort(keys), 7), 8 * n)
        kt = torch.as_tensor(keys.astype(cp.int32), device="cuda")
        report("torch sort i32 (stable, indices)", lg, median_ms(lambda: torch.sort(kt, stable=True), 7), 8 * n)
        for name, m in meta.items():
            mod = cp.RawModule(path=os.path.join(here, name + ".cubin"))
            tile = m["block"] * m["items"]
            ntiles = (n + tile - 1) // tile
            hist, tiles = cp.zeros(4 * 256, cp.uint64), cp.zeros(4, cp.uint32)
            status = cp.zeros((4, ntiles * 256), cp.uint32)
            ka, kb, va, vb = keys.copy(), cp.empty_like(keys), vals.copy(), cp.empty_like(vals)
            fh, fp, fv = mod.get_function("hist_u32"), mod.get_function("pass_u32"), mod.get_function("pairs_u32")
            fp.max_dynamic_shared_size_bytes = 4 * tile  # past 48 KiB with the static tables
            fv.max_dynamic_shared_size_bytes = 8 * tile

            def sort(pairs):
                ka[:] = keys
                va[:] = vals
                hist.fill(0); tiles.fill(0); status.fill(0)
                fh((ntiles,), (m["block"],), (np.uint64(n), ka, hist))
                src, dst = (ka, va), (kb, vb)
                for p in range(4):
                    common = (np.uint64(n), np.uint32(8 * p), np.uint32(p))
                    tail = (status[p], tiles[p:])
                    if pairs:
                        fv((ntiles,), (m["block"],), common + (np.uint64(8 * tile), hist, src[0], dst[0], src[1], dst[1]) + tail,
                           shared_mem=8 * tile)
                    else:
                        fp((ntiles,), (m["block"],), common + (np.uint64(4 * tile), hist, src[0], dst[0]) + tail,
                           shared_mem=4 * tile)
                    src, dst = dst, src
            ms = median_ms(lambda: sort(False), 7)
            report(f"{name} sort u32", lg, ms, 8 * n, bool((ka == want).all()))
            ms = median_ms(lambda: sort(True), 7)
            ok = bool((ka == want).all()) and bool((keys[va] == ka).all())
            ok = ok and bool((cp.diff(va.astype(cp.int64))[ka[1:] == ka[:-1]] > 0).all())
            report(f"{name} sort pairs u32", lg, ms, 16 * n, ok)
            hist.fill(0)
            report(f"{name} histogram alone", lg, median_ms(lambda: fh((ntiles,), (m["block"],), (np.uint64(n), ka, hist)), 7), 4 * n)


def bench():
    import numpy as np, cupy as cp, torch
    here = os.path.dirname(os.path.abspath(__file__))
    if "sort" in sys.argv[2:]:
        return bench_sorts(here)
    if "pattern" in sys.argv[2:]:
        return bench_patterns(here)
    meta = json.load(open(os.path.join(here, "variants.json")))
    types = {"i32": cp.int32, "f32": cp.float32, "i64": cp.int64, "f64": cp.float64}

    print(torch.cuda.get_device_name(0), "cupy", cp.__version__, "torch", torch.__version__)
    rng = np.random.default_rng(7)
    for lg in (28, 24):
        n = 1 << lg
        base = rng.integers(0, 3, n, dtype=np.int32)
        xs = {t: cp.asarray(base).astype(d) for t, d in types.items()}
        want = {}
        for t, x in xs.items():
            acc = cp.cumsum(x.astype(cp.float64 if t[0] == "f" else cp.int64))
            want[t] = acc - x
        xt = torch.as_tensor(xs["i32"], device="cuda")
        report("torch cumsum i32", lg, median_ms(lambda: torch.cumsum(xt, 0, dtype=torch.int32)), 8 * n)
        report("torch nonzero i32", lg, median_ms(lambda: torch.nonzero(xt)), 4 * n)
        report("torch masked_select i32", lg, median_ms(lambda: torch.masked_select(xt, xt != 0)), 4 * n + 4 * (2 * n // 3))
        for name, m in meta.items():
            mod = cp.RawModule(path=os.path.join(here, name + ".cubin"))
            for t, x in xs.items():
                size = x.itemsize
                per = 256 * (m["items4"] if size <= 4 else m["items8"])
                tiles_n = (n + per - 1) // per
                out, status = cp.empty_like(x), cp.zeros(tiles_n, cp.uint64)
                values, tiles, result = cp.zeros(2 * tiles_n, x.dtype), cp.zeros(1, cp.uint32), cp.zeros(1, x.dtype)
                fn, smem, init = mod.get_function("scan_" + t), (per + per // 32) * size, np.dtype(x.dtype).type(0)

                def scan():
                    status.fill(0); tiles.fill(0)
                    fn((tiles_n,), (256,), (np.uint64(n), np.uint32(0), init, np.uint32(per // 256), x, out, status, values, tiles, result), shared_mem=smem)
                ms = median_ms(scan)
                if t[0] == "f":
                    ok = bool(cp.allclose(out.astype(cp.float64), want[t], rtol=1e-5, atol=1))
                else:
                    ok = bool((out == want[t].astype(x.dtype)).all())
                report(f"{name} scan {t}", lg, ms, 2 * size * n, ok)
            for t in ("i32", "i64"):
                x = xs[t]
                size = x.itemsize
                per = 256 * (32 if size <= 4 else 128 // size)
                tiles_n = (n + per - 1) // per
                out, status = cp.zeros_like(x), cp.zeros(tiles_n, cp.uint64)
                values, tiles, result = cp.zeros(2 * tiles_n, cp.uint64), cp.zeros(1, cp.uint32), cp.zeros(1, cp.uint64)
                fn, smem = mod.get_function("copy_if_" + t), per * size

                def copy_if():
                    status.fill(0); tiles.fill(0)
                    fn((tiles_n,), (256,), (np.uint64(n), np.uint64(smem), x, out, status, values, tiles, result), shared_mem=smem)
                ms = median_ms(copy_if)
                kept = x[x != 0]
                count = int(result[0])
                ok = count == kept.size and bool((out[:count] == kept).all())
                report(f"{name} copy_if {t}", lg, ms, size * (n + count), ok)
    bench_sorts(here)
    bench_patterns(here)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "build":
        build()
    elif mode == "bench":
        bench()
    else:
        sys.exit(__doc__)
