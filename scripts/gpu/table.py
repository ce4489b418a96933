"""Prints the results of a GPU run (scripts/gpu/run.sh) as one Markdown
table: each test group's verdict and counts, then each benchmark of
cuda_patterns beside the PyTorch or CuPy operation that does the same work
on the same card (scripts/gpu/peers.py), with the ratio of their speeds.

    python3 table.py RESULTS_DIR

RESULTS_DIR holds what run.sh wrote: about.txt, groups.tsv, bench.txt and
peers.txt; a missing file leaves its rows out. Bench times are criterion's
estimates (the middle of its three figures).
"""

import re
import sys
from pathlib import Path

UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1e3}
TIME = re.compile(r"time:\s+\[\S+ \S+ (?P<v>[\d.]+) (?P<u>ns|µs|us|ms|s) ")
BENCH = re.compile(r"^cuda_\w+?_2\^(?P<k>\d+)/(?P<f>\S+)")
PEER = re.compile(r"^(?P<op>.+?) n=2\^(?P<k>\d+) median_ms=(?P<ms>[\d.]+)")

# What each benchmark measures, and the peers that do the same work.
WORKLOADS = {
    "copy_d2d": ("deep_copy i32", ["copy int32"]),
    "scan": ("parallel_scan pattern i32", ["cumsum int32"]),
    "reduce": ("parallel_reduce Sum i32", ["sum int32"]),
    "algorithms::exclusive_scan": ("exclusive_scan i32", ["cumsum int32"]),
    "algorithms::copy_if": ("copy_if i32, 2/3 kept",
                            ["nonzero int32 (2/3 kept)", "masked_select int32 (2/3 kept)"]),
    "algorithms::sort": ("radix sort u32, with a copy of the keys", ["sort int32 (stable)", "cupy sort uint32"]),
    "algorithms::sort_by": ("merge sort_by u32, with a copy of the keys", []),
}


def parse_bench(lines):
    """{(function, log2): ms} from criterion's output; a time line belongs
    to the benchmark named last, and its change report (percentages) is
    skipped.

    >>> b = parse_bench([
    ...     "cuda_i32_2^24/copy_d2d  time:   [56.320 µs 57.662 µs 59.167 µs]",
    ...     "cuda_i32_2^28/algorithms::sort (with a copy of the keys)",
    ...     "                        time:   [12.605 ms 12.620 ms 12.636 ms]",
    ...     "                        time:   [-1.29% +0.69% +2.59%] (p = 0.51 > 0.05)"])
    >>> {k: round(v, 6) for k, v in b.items()}
    {('copy_d2d', 24): 0.057662, ('algorithms::sort', 28): 12.62}
    """
    out, name = {}, None
    for line in lines:
        m = BENCH.match(line)
        if m:
            name = (m["f"], int(m["k"]))
        t = TIME.search(line)
        if t and name and name not in out:
            out[name] = float(t["v"]) * UNITS[t["u"]]
    return out


def parse_peers(lines):
    """{(op, log2): ms} from peers.py's lines.

    >>> parse_peers(["cumsum int32 n=2^28 median_ms=1.0359 GB/s=2073.1",
    ...              "sort int32 (stable) n=2^24 failed: out of memory"])
    {('cumsum int32', 28): 1.0359}
    """
    out = {}
    for line in lines:
        m = PEER.match(line)
        if m:
            out[(m["op"], int(m["k"]))] = float(m["ms"])
    return out


def shown(ms):
    """A time in its natural unit.

    >>> shown(0.057662), shown(12.62)
    ('57.7 µs', '12.62 ms')
    """
    return f"{ms * 1e3:.1f} µs" if ms < 1 else f"{ms:.2f} ms"


def rows(groups, bench, peers):
    """The table's rows: (what, result, granule, peer, speed ratio)."""
    out = []
    for line in groups:
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 4:
            name, verdict, seconds, counts = parts
            what = name if name == "bench" else f"tests: {name}"
            out.append((what, f"{verdict}: {counts}", f"{seconds} s", "", ""))
    order = list(WORKLOADS)
    for (fn, k), ms in sorted(bench.items(), key=lambda kv: (kv[0][1], order.index(kv[0][0])
                                                             if kv[0][0] in order else len(order))):
        what, ops = WORKLOADS.get(fn, (fn, []))
        label = f"{what}, 2^{k}"
        found = [(op, peers[(op, k)]) for op in ops if (op, k) in peers]
        if not found:
            out.append((label, "", shown(ms), "", ""))
        for op, peer_ms in found:
            out.append((label, "", shown(ms), f"{op} {shown(peer_ms)}", f"{peer_ms / ms:.2f}"))
    return out


def read_lines(path):
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = Path(sys.argv[1])
    print("# GPU run")
    print()
    for line in read_lines(d / "about.txt"):
        print(f"- {line}")
    print()
    print("| what | result | granule | peer | granule's speed / peer's |")
    print("| --- | --- | --- | --- | --- |")
    table = rows(read_lines(d / "groups.tsv"), parse_bench(read_lines(d / "bench.txt")),
                 parse_peers(read_lines(d / "peers.txt")))
    for row in table:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
