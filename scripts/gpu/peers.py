"""The peers of granule's Cuda benchmarks (benches/cuda_patterns.rs) on the
same GPU: PyTorch's copy_, cumsum and sum (CUB underneath), nonzero and
masked_select (CUB's select) and stable sort, and CuPy's sort (CUB's
keys-only radix sort), at the bench's sizes and on its inputs: i32
values (i % 7) - 3 for the copy, the scans and the sum; i % 3, kept
where below 2, for the compaction; hashed u32 keys for the sorts (PyTorch
sorts them as i32 shifted by 2^31, which keeps their order, since not
every version sorts uint32).

Prints one line per operation and size, `OP n=2^K median_ms=M GB/s=G`
(median of 20 runs; GB/s counts the bytes read and written once), which
scripts/gpu/table.py reads. A library that cannot be imported, or finds
no GPU, is skipped with a message; the script always exits 0.
"""

SIZES = (24, 28)


def median_ms(f, event, elapsed, synchronize, reps=20):
    """Median of `reps` timings of `f` between two events of the library
    (`elapsed(start, end)` in milliseconds)."""
    start, end = event(), event()
    f()
    synchronize()
    times = []
    for _ in range(reps):
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(elapsed(start, end))
    times.sort()
    return times[len(times) // 2]


def report(op, log2, timed, bytes_moved):
    """Times one operation and prints its line; a failure is printed and
    the others go on."""
    try:
        ms = timed()
    except Exception as e:  # one op failing must not hide the rest
        print(f"{op} n=2^{log2} failed: {e}", flush=True)
        return
    print(f"{op} n=2^{log2} median_ms={ms:.4f} GB/s={bytes_moved / ms / 1e6:.1f}", flush=True)


def hashed_keys(i):
    """The bench's keys: (i * 2654435761) rotated left by 7, as u32."""
    k = (i * 2654435761) & 0xFFFFFFFF
    return ((k << 7) | (k >> 25)) & 0xFFFFFFFF


def torch_peers():
    try:
        import torch
    except ImportError:
        print("peers: PyTorch is not importable: its figures are skipped")
        return
    if not torch.cuda.is_available():
        print("peers: PyTorch sees no GPU: its figures are skipped")
        return
    print("PyTorch", torch.__version__, "on", torch.cuda.get_device_name(0), flush=True)

    def timed(f):
        def event():
            return torch.cuda.Event(enable_timing=True)

        return lambda: median_ms(f, event, lambda s, e: s.elapsed_time(e), torch.cuda.synchronize)

    for log2 in SIZES:
        n = 1 << log2
        i = torch.arange(n, device="cuda", dtype=torch.int64)
        x = ((i % 7) - 3).to(torch.int32)
        y = torch.empty_like(x)
        thirds = (i % 3).to(torch.int32)
        kept = int((thirds < 2).sum())
        keys = (hashed_keys(i) - (1 << 31)).to(torch.int32)
        report("copy int32", log2, timed(lambda: y.copy_(x)), 8 * n)
        report("cumsum int32", log2, timed(lambda: torch.cumsum(x, 0, dtype=torch.int32)), 8 * n)
        report("sum int32", log2, timed(lambda: x.sum()), 4 * n)
        report("nonzero int32 (2/3 kept)", log2, timed(lambda: torch.nonzero(thirds < 2)), 4 * n + 8 * kept)
        report("masked_select int32 (2/3 kept)", log2,
               timed(lambda: torch.masked_select(thirds, thirds < 2)), 4 * n + 4 * kept)
        report("sort int32 (stable)", log2, timed(lambda: torch.sort(keys, stable=True)), 8 * n)
        del i, x, y, thirds, keys
        torch.cuda.empty_cache()


def cupy_peers():
    try:
        import cupy as cp
    except ImportError:
        print("peers: CuPy is not importable: its figures are skipped")
        return
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:
        print(f"peers: CuPy sees no GPU ({e}): its figures are skipped")
        return
    print("CuPy", cp.__version__, flush=True)

    def timed(f):
        return lambda: median_ms(f, cp.cuda.Event, cp.cuda.get_elapsed_time, cp.cuda.Device().synchronize)

    for log2 in SIZES:
        n = 1 << log2
        keys = hashed_keys(cp.arange(n, dtype=cp.uint64)).astype(cp.uint32)
        report("cupy sort uint32", log2, timed(lambda: cp.sort(keys)), 8 * n)
        del keys
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    torch_peers()
    cupy_peers()
