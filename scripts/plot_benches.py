"""Plots criterion's saved results as GB/s against size, one PNG per
benchmark family and one line per implementation.

Criterion stores each benchmark under <criterion>/<group>/<function>/new/
with benchmark.json (ids and throughput) and estimates.json (times in ns).
granule's benches name a group "<family>_<size>" where the size is "2^k" or
"2^k-d" (elements), and give every benchmark a throughput in bytes, so
GB/s = bytes / median time. Groups without a size suffix are skipped.
"""

import argparse
import json
import re
import sys
from pathlib import Path

SIZE = re.compile(r"^(?P<family>.+)_2\^(?P<k>\d+)(?:-(?P<d>\d+))?$")


def size_of(group):
    """(family, elements) of a group id, or None when it has no size.

    >>> size_of("scan_exclusive_i64_2^20")
    ('scan_exclusive_i64', 1048576)
    >>> size_of("copy_if_i64_2^10-3")
    ('copy_if_i64', 1021)
    >>> size_of("kernel_overhead") is None
    True
    """
    m = SIZE.match(group)
    if not m:
        return None
    n = (1 << int(m["k"])) - int(m["d"] or 0)
    return m["family"], n


def load(criterion):
    """{family: {function: [(elements, GB/s)]}} from a criterion folder."""
    out = {}
    for bench in sorted(Path(criterion).glob("**/new/benchmark.json")):
        meta = json.loads(bench.read_text())
        fam = size_of(meta.get("group_id") or "")
        throughput = meta.get("throughput") or {}
        nbytes = throughput.get("Bytes") or throughput.get("BytesDecimal")
        if fam is None or not nbytes:
            continue
        est = json.loads((bench.parent / "estimates.json").read_text())
        ns = est["median"]["point_estimate"]
        family, n = fam
        series = out.setdefault(family, {}).setdefault(meta["function_id"], [])
        series.append((n, nbytes / ns))
    for fns in out.values():
        for s in fns.values():
            s.sort()
    return out


# The baselines a group's figures are quoted against: "of bound" is the
# bound's time over the benchmark's, the others are speedups.
BASELINES = (
    ("bound_streaming_copy_2_threads", "of bound {:.3f}"),
    ("sequential_loop", "{:.2f}x loop"),
    ("slice_sort_unstable", "{:.2f}x sort_unstable"),
    ("slice_sort_unstable_by_key_pairs", "{:.2f}x sort_unstable_by_key"),
    ("slice_sort_unstable_by_total_cmp", "{:.2f}x sort_unstable_by(total_cmp)"),
)


def medians(criterion):
    """{group: {function: median ns}} of every benchmark in a criterion
    folder (sized or not)."""
    out = {}
    for bench in sorted(Path(criterion).glob("**/new/benchmark.json")):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        group = out.setdefault(meta["group_id"], {})
        group[meta["function_id"]] = est["median"]["point_estimate"]
    return out


def median_table(groups):
    """Lines of each group's medians, with every benchmark's ratios to the
    group's baselines (criterion prints the mean, which a few slow
    outliers on a shared machine pull up; the median resists them).

    >>> for l in median_table({"sort_u32_2^24": {"granule_sort": 43.5e6,
    ...                        "slice_sort_unstable": 348e6}}):
    ...     print(l)
    sort_u32_2^24
      granule_sort                                   43.5 ms  8.00x sort_unstable
      slice_sort_unstable                             348 ms
    """
    lines = []
    for group, fns in sorted(groups.items()):
        lines.append(group)
        for name, ns in sorted(fns.items()):
            ratios = [fmt.format(fns[base] / ns) for base, fmt in BASELINES
                      if base in fns and base != name]
            row = f"  {name:40s} {ns / 1e6:10.4g} ms"
            lines.append("  ".join([row] + ratios) if ratios else row)
    return lines


def plot(data, out_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for family, fns in sorted(data.items()):
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for name, pts in sorted(fns.items()):
            # Powers of two draw the line; the 2^k - d sizes (odd tails)
            # are hollow marks beside it, so a slow tail shows as a gap.
            pow2 = [(n, g) for n, g in pts if n & (n - 1) == 0]
            odd = [(n, g) for n, g in pts if n & (n - 1) != 0]
            line = None
            if pow2:
                xs, ys = zip(*pow2)
                (line,) = ax.plot(xs, ys, marker="o", markersize=3, label=name)
            if odd:
                xs, ys = zip(*odd)
                color = line.get_color() if line else None
                ax.plot(xs, ys, linestyle="none", marker="o", markersize=5,
                        markerfacecolor="none", color=color,
                        label=None if line else name)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (bytes / median time)")
        ax.set_title(family)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out_dir / f"{family}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--criterion", default="target/criterion")
    p.add_argument("--out", default="benches/plots")
    p.add_argument("--only", help="plot only families starting with this prefix")
    p.add_argument("--medians", action="store_true",
                   help="print each group's medians and ratios instead of plotting")
    a = p.parse_args()
    if a.medians:
        groups = medians(a.criterion)
        if a.only:
            groups = {g: v for g, v in groups.items() if g.startswith(a.only)}
        print("\n".join(median_table(groups)))
        return
    data = load(a.criterion)
    if a.only:
        data = {f: v for f, v in data.items() if f.startswith(a.only)}
    if not data:
        sys.exit(f"plot-benches: no sized benchmark results under {a.criterion}; run a bench first")
    for path in plot(data, a.out):
        print(path)


if __name__ == "__main__":
    main()
