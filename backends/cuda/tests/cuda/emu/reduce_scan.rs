//! The reduce and scan drivers across many blocks and tiles: their
//! results, their memory traffic, and the scan's documented order.

use super::*;

/// [`crate::launches::reduce_sum`], with the launch's counts.
fn reduce_counted(dev: &EmuDevice, x: &[i64], grid: u32, block: u32) -> (i64, EmuStats) {
    dev.take_stats();
    let total = reduce_sum(dev, x, grid, block);
    (total, dev.take_stats())
}

/// [`crate::launches::scan`], with the launch's counts.
fn scan_counted(dev: &EmuDevice, x: &[i32], block: u32) -> (Vec<i32>, i32, EmuStats) {
    dev.take_stats();
    let (out, total) = scan(dev, x, block);
    (out, total, dev.take_stats())
}

#[test]
fn block_reductions_combine_across_many_blocks() {
    let dev = device();
    for (n, grid, block) in [
        (1, 1, 32),
        (1000, 7, 96),
        (100_000, 97, 256),
        (4096, 64, 1024),
    ] {
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1000 - 500).collect();
        let (total, stats) = reduce_counted(&dev, &x, grid, block);
        assert_eq!(total, x.iter().sum::<i64>(), "n = {n}, grid {grid}x{block}");
        assert_eq!(stats.launches, 1);
        assert_eq!(
            stats.global_atomics,
            u64::from(grid),
            "one counter bump per block"
        );
    }
}

#[test]
fn a_reduce_moves_at_most_1_05_words_per_element() {
    let dev = device();
    let n = 1 << 20;
    let x: Vec<i64> = (0..n as i64).collect();
    let (total, s) = reduce_counted(&dev, &x, 64, 256);
    assert_eq!(total, x.iter().sum::<i64>());
    let words = s.words_per_element(8, n as u64);
    println!("reduce of {n} i64: {s:?}, {words:.4} words per element");
    assert!((1.0..=1.05).contains(&words), "{words} words per element");
}

#[test]
fn the_scan_looks_back_across_many_tiles() {
    let dev = device();
    for (n, block) in [(1usize, 32), (100, 32), (5000, 64), (70_000, 128)] {
        let x: Vec<i32> = (0..n as i32).map(|i| (i * 31) % 17 - 8).collect();
        let (out, total, stats) = scan_counted(&dev, &x, block);
        let mut acc = 0i32;
        let expect: Vec<i32> = x
            .iter()
            .map(|v| {
                acc += v;
                acc
            })
            .collect();
        assert_eq!(out, expect, "n = {n}, block {block}");
        assert_eq!(total, acc);
        assert_eq!(stats.launches, 1);
    }
}

#[test]
fn a_scan_moves_at_most_2_1_words_per_element() {
    let dev = device();
    let n = 1 << 20;
    let x: Vec<i32> = (0..n as i32).map(|i| i % 5).collect();
    let (out, _, s) = scan_counted(&dev, &x, 256);
    assert_eq!(out[n - 1], x.iter().sum::<i32>());
    let words = s.words_per_element(4, n as u64);
    println!("scan of {n} i32: {s:?}, {words:.4} words per element");
    assert!((2.0..=2.1).contains(&words), "{words} words per element");
}

/// The wrapping inclusive scan of integers, as the device computes it.
fn wrapping_inclusive<T: Copy + Default>(x: &[T], add: fn(T, T) -> T) -> (Vec<T>, T) {
    let mut acc = T::default();
    let out = x
        .iter()
        .map(|&v| {
            acc = add(acc, v);
            acc
        })
        .collect();
    (out, acc)
}

#[test]
fn integer_scans_of_every_width_match_the_host_on_any_grid() {
    let dev = device();
    // u8 and i16 share the state word below 4 bytes, i32 fills it, i64
    // goes through the value buffer; a grid smaller than the tile count
    // makes blocks claim several tiles.
    for (n, block, grid) in [
        (0usize, 32u32, None),
        (1, 32, None),
        (257, 32, None),
        (40_000, 64, None),
        (40_000, 32, Some(3)),
    ] {
        let x8: Vec<u8> = (0..n).map(|i| (i * 37 % 251) as u8).collect();
        let got = scan_any(&dev, &x8, block, grid);
        assert_eq!(got, wrapping_inclusive(&x8, u8::wrapping_add), "u8, n {n}");
        let x16: Vec<i16> = (0..n).map(|i| (i as i16).wrapping_mul(7919)).collect();
        let got = scan_any(&dev, &x16, block, grid);
        assert_eq!(
            got,
            wrapping_inclusive(&x16, i16::wrapping_add),
            "i16, n {n}"
        );
        let x32: Vec<i32> = (0..n as i32).map(|i| (i * 31) % 17 - 8).collect();
        let got = scan_any(&dev, &x32, block, grid);
        assert_eq!(
            got,
            wrapping_inclusive(&x32, i32::wrapping_add),
            "i32, n {n}"
        );
        let x64: Vec<i64> = (0..n as i64).map(|i| (i << 33) - i * 12345).collect();
        let got = scan_any(&dev, &x64, block, grid);
        assert_eq!(
            got,
            wrapping_inclusive(&x64, i64::wrapping_add),
            "i64, n {n}"
        );
    }
}

/// Floats for the scan reference: the values of a sum that rounds.
trait Float: Elem + PartialEq + std::fmt::Debug + std::ops::Add<Output = Self> {
    const ZERO: Self;
    fn from_f64(v: f64) -> Self;
    fn bits(self) -> u64;
}
impl Float for f32 {
    const ZERO: f32 = 0.0;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl Float for f64 {
    const ZERO: f64 = 0.0;
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// Lane l of the Hillis-Steele inclusive sum of up to 32 values, the
/// missing ones the identity (scan.cuh, warp_inclusive_scan).
fn hillis_steele<T: Float>(v: &[T]) -> [T; 32] {
    let mut s = [T::ZERO; 32];
    s[..v.len()].copy_from_slice(v);
    for off in [1, 2, 4, 8, 16] {
        let prev = s;
        for l in off..32 {
            s[l] = prev[l - off] + prev[l];
        }
    }
    s
}

/// Each thread's exclusive prefix and the total of one value per thread
/// of a block of whole warps (team.cuh, block_exclusive_scan).
fn block_exclusive<T: Float>(v: &[T]) -> (Vec<T>, T) {
    let warps: Vec<[T; 32]> = v.chunks(32).map(hillis_steele).collect();
    let mut before_warp = Vec::new();
    let mut total = T::ZERO;
    for w in &warps {
        before_warp.push(total);
        total = total + w[31];
    }
    let excl = (0..v.len())
        .map(|t| {
            let lane = if t % 32 == 0 {
                T::ZERO
            } else {
                warps[t / 32][t % 32 - 1]
            };
            before_warp[t / 32] + lane
        })
        .collect();
    (excl, total)
}

/// The tile prefixes excl(t) of the fixed order (scan.cuh, drive_scan)
/// from the tile aggregates, and P_w of every full window.
fn fixed_tile_prefixes<T: Float>(aggs: &[T]) -> (Vec<T>, Vec<T>) {
    let mut excl = Vec::new();
    let mut windows = Vec::new();
    for (w, win) in aggs.chunks(32).enumerate() {
        let hs = hillis_steele(win);
        let prior = windows.last().copied();
        for j in 0..win.len() {
            excl.push(match (prior, j) {
                (None, 0) => T::ZERO,
                (None, j) => hs[j - 1],
                (Some(p), 0) => p,
                (Some(p), j) => p + hs[j - 1],
            });
        }
        if win.len() == 32 {
            windows.push(prior.map_or(hs[31], |p| p + hs[31]));
        }
        assert_eq!(windows.len(), w + usize::from(win.len() == 32));
    }
    (excl, windows)
}

/// The inclusive Sum scan of `x` and its total as the device's fixed
/// order computes it with blocks of `block` threads (what `inclusive_f32`
/// and `inclusive_f64` write: the partial, then the kernel's own `+ x[i]`).
fn fixed_order_scan<T: Float>(x: &[T], block: usize) -> (Vec<T>, T) {
    let items = granule_cuda::codegen::scan_items(T::BYTES) as usize;
    let per_tile = block * items;
    let mut within = vec![T::ZERO; x.len()];
    let mut aggs = Vec::new();
    for (tile, xs) in x.chunks(per_tile).enumerate() {
        // The non-final call's value: the identity plus x[i] (the identity
        // past the end).
        let u = |e: usize| xs.get(e).map_or(T::ZERO, |&v| T::ZERO + v);
        let folds: Vec<T> = (0..block)
            .map(|t| (1..items).fold(u(t * items), |f, q| f + u(t * items + q)))
            .collect();
        let (thread_excl, total) = block_exclusive(&folds);
        for (t, &start) in thread_excl.iter().enumerate() {
            let mut p = start;
            for e in t * items..(t + 1) * items {
                if e < xs.len() {
                    within[tile * per_tile + e] = p;
                }
                p = p + u(e);
            }
        }
        aggs.push(total);
    }
    let (excl, _) = fixed_tile_prefixes(&aggs);
    let out = x
        .iter()
        .enumerate()
        .map(|(i, &v)| (excl[i / per_tile] + within[i]) + v)
        .collect();
    let last = aggs.len() - 1;
    (out, excl[last] + aggs[last])
}

/// Values whose sums round differently in every grouping: magnitudes over
/// many orders, both signs.
fn rounding_values<T: Float>(n: usize) -> Vec<T> {
    (0..n)
        .map(|i| {
            let m = ((i * 2654435761) % 1000003) as f64;
            T::from_f64((m - 500_000.0) * 1e-3 + 1.0 / (1.0 + i as f64))
        })
        .collect()
}

fn check_reproducible<T: Float + ScanElem>(dev: &EmuDevice, n: usize, block: u32) {
    let x = rounding_values::<T>(n);
    let (expect, expect_total) = fixed_order_scan(&x, block as usize);
    // The reference is not the sequential sum: the grouping shows.
    let mut acc = T::ZERO;
    let sequential: Vec<T> = x
        .iter()
        .map(|&v| {
            acc = acc + v;
            acc
        })
        .collect();
    assert!(
        expect.iter().zip(&sequential).any(|(a, b)| a != b),
        "the values do not tell groupings apart"
    );
    // Blocks race on the emulator's workers, so the look-back stops at
    // different tiles from run to run; a small grid changes which block
    // runs which tile as well.
    for grid in [None, None, None, Some(5)] {
        let (out, total) = scan_any(dev, &x, block, grid);
        for (i, (o, e)) in out.iter().zip(&expect).enumerate() {
            assert_eq!(
                o.bits(),
                e.bits(),
                "n {n}, grid {grid:?}, i {i}: {o:?} vs {e:?}"
            );
        }
        assert_eq!(
            total.bits(),
            expect_total.bits(),
            "n {n}, grid {grid:?}: total"
        );
    }
}

#[test]
fn float_scans_are_bitwise_reproducible_in_the_documented_order() {
    let dev = device();
    // f32 shares the state word: tiles of 64 x 8, 10 windows of 32 tiles.
    check_reproducible::<f32>(&dev, 150_000, 64);
    // f64 uses the value buffer: tiles of 32 x 4, 37 windows, so a
    // look-back may walk back further than 32 windows.
    check_reproducible::<f64>(&dev, 150_000, 32);
    check_reproducible::<f64>(&dev, 1000, 64);
}

static PROBE_PARAMS: [Param; 5] = [
    INDEX,
    Param {
        name: "out",
        kind: ParamKind::Out,
        cpp: "T",
    },
    Param {
        name: "status",
        kind: ParamKind::View {
            rank: 1,
            layout: DeviceLayout::Right,
        },
        cpp: "granule::u64",
    },
    Param {
        name: "values",
        kind: ParamKind::View {
            rank: 1,
            layout: DeviceLayout::Right,
        },
        cpp: "T",
    },
    Param {
        name: "probes",
        kind: ParamKind::View {
            rank: 1,
            layout: DeviceLayout::Right,
        },
        cpp: "granule::u64",
    },
];

/// Warp i / 32 computes the fixed-order exclusive prefix of tile
/// probes[i / 32] from tile states prepared by the host.
// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static PROBE: DeviceKernel = unsafe {
    DeviceKernel::new(
        "probe_lookback",
        KernelPattern::For,
        &["T"],
        &PROBE_PARAMS,
        "template <class T>\n\
        __device__ void probe_lookback(granule::usize i, T& out, \
        granule::View<const granule::u64, 1, granule::LayoutRight> status, \
        granule::View<const T, 1, granule::LayoutRight> values, \
        granule::View<const granule::u64, 1, granule::LayoutRight> probes) {\n\
          const granule::TileStates<T> st{(granule::u64*)status.data, (T*)values.data};\n\
          const granule::u64 tile = probes(i / 32);\n\
          T agg = granule::Sum<T>::identity();\n\
          st.read(tile, agg);\n\
          out = granule::lookback_fixed<granule::Sum<T>>(st, tile, agg, (granule::u32)(i % 32));\n\
        }\n",
        &[],
    )
};

fn probe_fixed_lookback<T: Float>(dev: &EmuDevice, cpp: &'static [&'static str]) {
    let windows = 45;
    let ntiles = windows * 32;
    let aggs: Vec<T> = rounding_values(ntiles);
    let (excl, p) = fixed_tile_prefixes(&aggs);
    // Only these windows' last tiles have published P: the walks back
    // stop at window 0 (no P there: P_0 = S_0), after one or a few
    // windows, and from window 36 after exactly 32, where it must wait.
    let published = [3usize, 36, 40];
    let packed = T::BYTES <= 4;
    let mut status = vec![0u64; ntiles];
    let mut values = vec![T::ZERO; if packed { 1 } else { 2 * ntiles }];
    for (t, &a) in aggs.iter().enumerate() {
        let w = t / 32;
        let incl = t % 32 == 31 && published.contains(&w);
        let (state, v) = if incl { (2u64, p[w]) } else { (1, a) };
        status[t] = if packed {
            state << 32 | v.bits()
        } else {
            state
        };
        if !packed {
            values[2 * t] = a;
            if incl {
                values[2 * t + 1] = p[w];
            }
        }
    }
    let probes: Vec<u64> = [0usize, 1, 2, 4, 5, 36, 37, 41, 44]
        .iter()
        .flat_map(|w| [0, 1, 17, 30].map(|j| (w * 32 + j) as u64))
        .collect();
    // Groupings show in these values: the prefixes are not the sequential
    // sums of the aggregates.
    let sequential = |t: usize| aggs[..t].iter().fold(T::ZERO, |s, &a| s + a);
    assert!(probes
        .iter()
        .any(|&t| excl[t as usize] != sequential(t as usize)));
    let instance = Instance::new(&PROBE, Pattern::For, cpp);
    let module = dev.compile(&unit(&[instance]), "probe_lookback").unwrap();
    let n = 32 * probes.len();
    let out = dev.alloc_zeroed(n * T::BYTES).unwrap();
    let bufs = [
        upload(dev, &status),
        upload(dev, &values),
        upload(dev, &probes),
    ];
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &out, n, 1);
    view1(&mut args, &bufs[0], status.len(), 2);
    view1(&mut args, &bufs[1], values.len(), 3);
    view1(&mut args, &bufs[2], probes.len(), 4);
    // SAFETY: (begin, end, out, status, values, probes), each View over
    // its buffer's elements; only tiles below 31 of their window are
    // probed, so nothing publishes.
    unsafe {
        dev.launch_and_wait(
            &module,
            &instance.entry(),
            &config(probes.len() as u32, 32, 0),
            &args,
        )
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let got = download::<T, _>(dev, &out, n);
    for (k, &t) in probes.iter().enumerate() {
        for lane in 0..32 {
            let g = got[32 * k + lane];
            let e = excl[t as usize];
            assert_eq!(
                g.bits(),
                e.bits(),
                "{cpp:?} tile {t}, lane {lane}: {g:?} vs {e:?}"
            );
        }
    }
    dev.free(out).unwrap();
    for b in bufs {
        dev.free(b).unwrap();
    }
}

#[test]
fn the_fixed_order_look_back_gives_the_same_prefix_wherever_it_stops() {
    let dev = device();
    probe_fixed_lookback::<f32>(&dev, &["granule::f32"]);
    probe_fixed_lookback::<f64>(&dev, &["granule::f64"]);
}

const PAIR_TYPE: &str = "granule::Tuple<granule::f32, granule::i32>";
static PAIR_PARAMS: [Param; 6] = [
    INDEX,
    Param {
        name: "a",
        kind: ParamKind::View {
            rank: 1,
            layout: DeviceLayout::Right,
        },
        cpp: "granule::f32",
    },
    Param {
        name: "b",
        kind: ParamKind::View {
            rank: 1,
            layout: DeviceLayout::Right,
        },
        cpp: "granule::i32",
    },
    Param {
        name: "y",
        kind: ParamKind::Out,
        cpp: PAIR_TYPE,
    },
    Param {
        name: "partial",
        kind: ParamKind::Out,
        cpp: PAIR_TYPE,
    },
    Param {
        name: "last",
        kind: ParamKind::Final,
        cpp: "bool",
    },
];

/// An inclusive scan of (sum of a, max of b) pairs: a struct value of
/// more than 4 bytes, so tile values go through the value buffer,
/// combined by a tuple of reducers that is not exactly associative (f32
/// sum).
// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static PAIR: DeviceKernel = unsafe {
    DeviceKernel::new(
        "pair_scan",
        KernelPattern::Scan,
        &[],
        &PAIR_PARAMS,
        "__device__ void pair_scan(granule::usize i, \
        granule::View<const granule::f32, 1, granule::LayoutRight> a, \
        granule::View<const granule::i32, 1, granule::LayoutRight> b, \
        granule::Tuple<granule::f32, granule::i32>& y, \
        granule::Tuple<granule::f32, granule::i32>& partial, bool last) {\n\
          granule::get<0>(partial) += a(i);\n\
          granule::get<1>(partial) = granule::max(granule::get<1>(partial), b(i));\n\
          if (last) y = partial;\n\
        }\n",
        &[],
    )
};

#[test]
fn a_tuple_scan_carries_struct_values_between_tiles() {
    let dev = device();
    let instance = Instance::new(
        &PAIR,
        Pattern::Scan(granule_cuda::codegen::Reducer::Tuple(&[
            granule_cuda::codegen::Reducer::Sum,
            granule_cuda::codegen::Reducer::Max,
        ])),
        &[],
    );
    let module = dev.compile(&unit(&[instance]), "pair_scan").unwrap();
    // Small integers, so every grouping of the f32 sum is exact.
    let n = 30_000;
    let a: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 100_003).collect();
    // The device's Tuple<f32, i32> is 12 bytes: its last field is a
    // Tuple<i32>, which holds an empty Tuple<> (one byte, padded to 4).
    const BYTES: usize = 12;
    let ws = granule_cuda::codegen::scan_workspace(n as u64, BYTES, 4, 32).unwrap();
    assert!(ws.tiles > 32 * 2, "{} tiles", ws.tiles);
    let inputs = [upload(&dev, &a), upload(&dev, &b)];
    let y = dev.alloc_zeroed(n * BYTES).unwrap();
    let tail: Vec<DeviceBuffer> = ws
        .buffers
        .iter()
        .map(|&bytes| dev.alloc_zeroed(bytes).unwrap())
        .collect();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &inputs[0], n, 1);
    view1(&mut args, &inputs[1], n, 2);
    view1(&mut args, &y, n, 3);
    for t in &tail {
        args.pointer(t.address());
    }
    // SAFETY: (begin, end, a, b, y, then status, values, tiles, result)
    // over n elements, the tail zeroed and sized by scan_workspace for the
    // tuple's size, launched with its geometry.
    unsafe {
        dev.launch_and_wait(
            &module,
            &instance.entry(),
            &config(ws.grid, ws.block, ws.shared_bytes),
            &args,
        )
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let pairs = |buf: &DeviceBuffer, count: usize| -> Vec<(f32, i32)> {
        let w = download::<u32, _>(&dev, buf, count * BYTES / 4);
        w.chunks(BYTES / 4)
            .map(|r| (f32::from_bits(r[0]), r[1] as i32))
            .collect()
    };
    let (mut sum, mut max) = (0.0f32, i32::MIN);
    for (i, got) in pairs(&y, n).into_iter().enumerate() {
        sum += a[i];
        max = max.max(b[i]);
        assert_eq!(got, (sum, max), "i {i}");
    }
    assert_eq!(pairs(&tail[3], 1), [(sum, max)]);
    for buf in inputs.into_iter().chain([y]).chain(tail) {
        dev.free(buf).unwrap();
    }
}

static FACTS: [Param; 2] = [INDEX, out("y")];

/// The reducers whose associativity flag the header facts report, after
/// the 40 tile sizes, with the flag expected.
const ASSOCIATIVE: [(&str, bool); 14] = [
    ("granule::Sum<granule::i32>", true),
    ("granule::Sum<granule::u8>", true),
    ("granule::Sum<granule::f32>", false),
    ("granule::Prod<granule::i64>", true),
    ("granule::Prod<granule::f64>", false),
    ("granule::Min<granule::f32>", false),
    ("granule::Max<granule::i16>", true),
    ("granule::LAnd<bool>", true),
    ("granule::BOr<granule::u32>", true),
    (
        "granule::MinLoc<granule::ValLocScalar<granule::f64, granule::usize>>",
        false,
    ),
    (
        "granule::MaxLoc<granule::ValLocScalar<granule::i32, granule::usize>>",
        true,
    ),
    (
        "granule::Reducers<granule::Sum<granule::i32>, granule::Max<granule::u64>>",
        true,
    ),
    (
        "granule::Reducers<granule::Sum<granule::i32>, granule::Sum<granule::f32>>",
        false,
    ),
    ("OpaqueSum", false),
];

#[test]
fn the_header_and_the_workspace_agree_on_tile_sizes_and_reducers_state_associativity() {
    let dev = device();
    let flags: Vec<String> = ASSOCIATIVE
        .iter()
        .map(|(op, _)| format!("granule::is_exactly_associative<{op}>()"))
        .collect();
    let source = format!(
        "struct OpaqueSum {{\n\
           static __device__ granule::f32 identity() {{ return 0.0f; }}\n\
           static __device__ void join(granule::f32& a, granule::f32 b) {{ a += b; }}\n\
         }};\n\
         __device__ void header_facts(granule::usize i, granule::u32& y) {{\n\
           const bool flags[] = {{{}}};\n\
           y = i < 40 ? granule::scan_items(i) : (granule::u32)flags[i - 40];\n\
         }}\n",
        flags.join(", ")
    );
    let k = hand_kernel("header_facts", &FACTS, Box::leak(source.into_boxed_str()));
    let n = 40 + ASSOCIATIVE.len();
    let y = run_one_output(&dev, k, n, config(1, 64, 0)).unwrap();
    for (bytes, &items) in y[..40].iter().enumerate() {
        assert_eq!(
            items,
            granule_cuda::codegen::scan_items(bytes),
            "{bytes} bytes"
        );
    }
    for ((op, expect), &got) in ASSOCIATIVE.iter().zip(&y[40..]) {
        assert_eq!(got == 1, *expect, "{op}");
    }
}
