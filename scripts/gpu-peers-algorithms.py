"""Peers of granule-algorithms on the lent GPU, measured on the same card
as benches/cuda_patterns.rs: PyTorch's cumsum (CUB's scan), masked_select
and nonzero (CUB's select) for compaction, and sort (CUB's radix sort)
with the same inputs the bench uses: i32 values (i % 7) - 3 for the scan,
i % 3 kept where < 2 for the compaction, hashed u32 keys (as int64 masked
to 32 bits, since torch has no uint32 sort on every version) for the sort.
Prints one line per (op, n): median milliseconds over 20 runs and GB/s
counting the bytes read and written once."""
import torch


def bench(f, reps=20):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        start.record()
        f()
        end.record()
        torch.cuda.synchronize()
        ts.append(start.elapsed_time(end))
    ts.sort()
    return ts[len(ts) // 2]


def report(op, log2, f, bytes_moved):
    try:
        ms = bench(f)
    except Exception as e:  # one op failing must not hide the rest
        print(f"{op:28s} n=2^{log2:<3d} failed: {e}")
        return
    print(f"{op:28s} n=2^{log2:<3d} median_ms={ms:.4f} GB/s={bytes_moved / ms / 1e6:.1f}")


print(torch.cuda.get_device_name(0), "torch", torch.__version__)
for log2 in (24, 28):
    n = 1 << log2
    i = torch.arange(n, device="cuda", dtype=torch.int64)
    x = ((i % 7) - 3).to(torch.int32)
    thirds = (i % 3).to(torch.int32)
    keep = thirds < 2
    kept = int(keep.sum())
    keys32 = ((i * 2654435761) & 0xFFFFFFFF)
    keys32 = (((keys32 << 7) | (keys32 >> 25)) & 0xFFFFFFFF).to(torch.int64)
    keys_i32 = (keys32 - (1 << 31)).to(torch.int32)  # same order as the u32 keys
    report("cumsum i32", log2, lambda: torch.cumsum(x, 0, dtype=torch.int32), 8 * n)
    report("masked_select i32 (2/3 kept)", log2, lambda: torch.masked_select(thirds, thirds < 2),
           4 * n + 4 * kept)
    report("nonzero i32 (2/3 kept)", log2, lambda: torch.nonzero(thirds < 2), 4 * n + 8 * kept)
    report("sort i32 keys", log2, lambda: torch.sort(keys_i32, stable=True), 8 * n)
    del i, x, thirds, keep, keys32, keys_i32
    torch.cuda.empty_cache()
