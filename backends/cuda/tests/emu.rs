//! The emulator device runs the generated CUDA C++ (header, drivers,
//! kernels) on the CPU: launch geometry, the reduce and scan drivers across
//! many blocks, warp collectives, the race detector, faults, and the
//! global-memory counts.

// The kernels are used through their generated statics only.
#![allow(dead_code)]
// The golden kernels spell constructs out on purpose, to exercise the
// translator.
#![allow(clippy::nonminimal_bool)]

use granule::prelude::*;
use granule_cuda::codegen::{Instance, Pattern};
use granule_cuda::device_api::{
    as_uninit, Device, DeviceBuffer, DeviceError, Fault, KernelArgs, LaunchConfig, MemoryKind,
    RaceKind, ThreadId,
};
use granule_cuda::emu::{EmuDevice, EmuOptions, EmuStats};
use granule_cuda::kernel::{DeviceKernel, DeviceLayout, KernelPattern, Param, ParamKind};
use std::time::Duration;

mod launches;
use launches::*;

fn device() -> EmuDevice {
    EmuDevice::new().unwrap_or_else(|e| panic!("{e}"))
}

/// A `#[kernel]`-shaped range kernel written by hand: index first, then
/// `outs` u32 outputs, then one u32 atomic View `a` if `atomic`.
fn hand_kernel(
    name: &'static str,
    params: &'static [Param],
    source: &'static str,
) -> &'static DeviceKernel {
    // SAFETY: every caller in this file passes a source that defines the
    // function `params` describe and writes only what they give it.
    Box::leak(Box::new(unsafe {
        DeviceKernel::new(name, KernelPattern::For, &[], params, source, &[])
    }))
}

const INDEX: Param = Param {
    name: "i",
    kind: ParamKind::Index,
    cpp: "granule::usize",
};
const fn out(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Out,
        cpp: "granule::u32",
    }
}
const fn atomic(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::u32",
    }
}

/// Launches the For entry of a kernel with one u32 output over `0..n`.
fn run_one_output(
    dev: &EmuDevice,
    kernel: &'static DeviceKernel,
    n: usize,
    cfg: LaunchConfig,
) -> Result<Vec<u32>, DeviceError> {
    let module = dev.compile(
        &unit(&[Instance::new(kernel, Pattern::For, &[])]),
        kernel.name,
    )?;
    let y = dev.alloc_zeroed(n * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &y, n, 1);
    let entry = format!("granule_for_{}", kernel.name);
    // SAFETY: begin, end and the output View over y's n elements are the
    // entry's parameters.
    let r = unsafe { dev.launch_and_wait(&module, &entry, &cfg, &args) };
    let v = download::<u32, _>(dev, &y, n);
    dev.free(y).unwrap();
    r.map(|()| v)
}

// -------------------------------------------------------------- ranges

#[test]
fn axpy_covers_every_size_and_grid() {
    let dev = device();
    for (n, grid, block) in AXPY_SHAPES {
        check_axpy(&dev, n, grid, block);
    }
    assert_eq!(dev.stats().launches, 8);
}

/// As on a GPU (`gpu.rs` runs the same): launches queued without a wait
/// run in order, and the copy that reads the result waits once.
#[test]
fn queued_launches_run_in_stream_order() {
    let dev = device();
    chained_axpys(&dev, 1000, 50);
    let st = dev.stats();
    assert_eq!(
        (st.launches, st.synchronizations),
        (50, 3),
        "two uploads, one download"
    );
}

/// As on a GPU: a fault is reported at the next synchronization, naming
/// its launch; the emulator then goes on.
#[test]
fn a_fault_among_queued_launches_is_traced_to_its_launch() {
    a_fault_among_queued_launches(&device()).unwrap();
}

/// As on a GPU: copies and zeroings run behind a failed launch that no
/// synchronization has reported yet, and the launches do not.
#[test]
fn copies_run_behind_a_failed_launch_as_on_a_gpu() {
    copies_run_behind_a_failed_launch(&device()).unwrap();
}

#[test]
fn a_copy_loads_and_stores_each_element_once() {
    let dev = device();
    let module = dev
        .compile(
            &unit(&[Instance::new(&__GRANULE_KERNEL_copy, Pattern::For, &[])]),
            "copy",
        )
        .unwrap();
    let n = 1000;
    let x: Vec<i32> = (0..n as i32).map(|i| i * 3 - 7).collect();
    let xb = upload(&dev, &x);
    let yb = dev.alloc_zeroed(n * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &yb, n, 1);
    view1(&mut args, &xb, n, 2);
    dev.take_stats();
    // SAFETY: (begin, end, y, x) over n i32 each.
    unsafe { dev.launch(&module, "granule_for_copy", &config(4, 128, 0), &args) }.unwrap();
    let s = dev.take_stats();
    assert_eq!(download::<i32, _>(&dev, &yb, n), x);
    assert_eq!(
        s,
        EmuStats {
            launches: 1,
            global_loads: n as u64,
            global_stores: n as u64,
            global_load_bytes: 4 * n as u64,
            global_store_bytes: 4 * n as u64,
            global_atomics: 0,
            global_atomic_bytes: 0,
            footprint_read_bytes: 4 * n as u64,
            footprint_written_bytes: 4 * n as u64,
            // The launch is queued; the host has not waited for it yet.
            synchronizations: 0,
            allocations: 0,
        }
    );
    assert_eq!(s.words_per_element(4, n as u64), 2.0);
    dev.free(xb).unwrap();
    dev.free(yb).unwrap();
}

// ------------------------------------------------------ reduce and scan

/// [`launches::reduce_sum`], with the launch's counts.
fn reduce_counted(dev: &EmuDevice, x: &[i64], grid: u32, block: u32) -> (i64, EmuStats) {
    dev.take_stats();
    let total = reduce_sum(dev, x, grid, block);
    (total, dev.take_stats())
}

/// [`launches::scan`], with the launch's counts.
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

// ---------------------------------------------------------- collectives

static WARP_OPS: [Param; 6] = [
    INDEX,
    out("sum"),
    out("up"),
    out("down"),
    out("bcast"),
    out("ballot"),
];

#[test]
fn warp_shuffles_and_ballots_exchange_within_warps() {
    let dev = device();
    let k = hand_kernel(
        "warp_ops",
        &WARP_OPS,
        "__device__ void warp_ops(granule::usize i, granule::u32& sum, granule::u32& up, \
         granule::u32& down, granule::u32& bcast, granule::u32& ballot) {\n\
           const granule::u32 v = (granule::u32)i;\n\
           granule::u32 s = v;\n\
           for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);\n\
           sum = s;\n\
           up = __shfl_up_sync(0xffffffffu, v, 1, 8);\n\
           down = __shfl_down_sync(0xffffffffu, v, 3);\n\
           bcast = __shfl_sync(0xffffffffu, v, 5, 16);\n\
           ballot = __ballot_sync(0xffffffffu, v % 3u == 0u);\n\
         }\n",
    );
    let module = dev
        .compile(&unit(&[Instance::new(k, Pattern::For, &[])]), "warp_ops")
        .unwrap();
    let (grid, block) = (3u32, 64u32);
    let n = (grid * block) as usize;
    let outs: Vec<DeviceBuffer> = (0..5).map(|_| dev.alloc_zeroed(n * 4).unwrap()).collect();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    for (id, b) in outs.iter().enumerate() {
        view1(&mut args, b, n, id as u32);
    }
    // SAFETY: (begin, end, five u32 outputs of n elements).
    unsafe {
        dev.launch_and_wait(
            &module,
            "granule_for_warp_ops",
            &config(grid, block, 0),
            &args,
        )
    }
    .unwrap();
    let got: Vec<Vec<u32>> = outs
        .iter()
        .map(|b| download::<u32, _>(&dev, b, n))
        .collect();
    for i in 0..n as u32 {
        let base = i & !31;
        let ballot = (0..32)
            .filter(|j| (base + j) % 3 == 0)
            .fold(0u32, |m, j| m | 1 << j);
        let expect = [
            32 * base + 496,
            if i % 8 >= 1 { i - 1 } else { i },
            if i % 32 + 3 < 32 { i + 3 } else { i },
            (i & !15) + 5,
            ballot,
        ];
        for (op, e) in expect.iter().enumerate() {
            assert_eq!(got[op][i as usize], *e, "op {op}, i = {i}");
        }
    }
    for b in outs {
        dev.free(b).unwrap();
    }
}

static ROTATE: [Param; 2] = [INDEX, out("y")];

fn rotate_source(barrier: bool) -> &'static str {
    Box::leak(
        format!(
            "__device__ void rotate_{0}(granule::usize i, granule::u32& y) {{\n\
               granule::u32* buf = (granule::u32*)granule::granule_dyn_smem;\n\
               buf[threadIdx.x] = (granule::u32)i;\n\
               {1}\n\
               y = buf[(threadIdx.x + blockDim.x - 1) % blockDim.x];\n\
             }}\n",
            if barrier { "synced" } else { "racy" },
            if barrier { "__syncthreads();" } else { "" }
        )
        .into_boxed_str(),
    )
}

#[test]
fn dynamic_shared_memory_is_per_block_and_barriers_order_it() {
    let dev = device();
    let k = hand_kernel("rotate_synced", &ROTATE, rotate_source(true));
    let (grid, block) = (5, 96);
    let n = (grid * block) as usize;
    let y = run_one_output(&dev, k, n, config(grid, block, block * 4)).unwrap();
    for i in 0..n as u32 {
        let t = i % block;
        assert_eq!(y[i as usize], i - t + (t + block - 1) % block, "i = {i}");
    }
}

#[test]
fn dynamic_shared_memory_past_the_launchs_bytes_fails_the_launch() {
    let dev = device();
    let k = hand_kernel("rotate_synced", &ROTATE, rotate_source(true));
    let err = run_one_output(&dev, k, 96, config(1, 96, 95 * 4)).unwrap_err();
    let DeviceError::Launch { reason, .. } = &err else {
        panic!("expected a launch failure, got {err}");
    };
    assert!(
        reason.contains("thread 95 of block (0, 0, 0) accessed bytes 380..384")
            && reason.contains("past the launch's 380 bytes"),
        "{reason}"
    );
}

// ---------------------------------------------------------- checked mode

#[test]
fn a_read_with_no_barrier_after_another_threads_write_is_a_race() {
    let dev = device();
    let k = hand_kernel("rotate_racy", &ROTATE, rotate_source(false));
    let err = run_one_output(&dev, k, 64, config(1, 64, 256)).unwrap_err();
    let DeviceError::Race { entry, race, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(entry, "granule_for_rotate_racy");
    assert_eq!(race.kind, RaceKind::ReadAfterWrite);
    assert_eq!(race.memory, MemoryKind::DynamicShared { offset: 0 });
    let thread = |t| ThreadId {
        block: (0, 0, 0),
        thread: (t, 0, 0),
    };
    assert_eq!((race.first, race.second), (thread(0), thread(1)));
    let text = err.to_string();
    assert!(
        text.contains("rotate_racy") && text.contains("dynamic shared memory, byte 0"),
        "{text}"
    );
}

static SHARED_RACE: [Param; 2] = [INDEX, out("y")];

#[test]
fn two_threads_writing_one_shared_word_race() {
    let dev = device();
    let k = hand_kernel(
        "shared_race",
        &SHARED_RACE,
        "__device__ void shared_race(granule::usize i, granule::u32& y) {\n\
           __shared__ granule::u32 s;\n\
           s = (granule::u32)i;\n\
           __syncthreads();\n\
           y = s;\n\
         }\n",
    );
    let err = run_one_output(&dev, k, 64, config(2, 32, 0)).unwrap_err();
    match &err {
        DeviceError::Race { race, .. } => {
            assert_eq!(race.kind, RaceKind::WriteWrite);
            assert_eq!(race.memory, MemoryKind::StaticShared);
            assert_eq!(race.first.block, race.second.block);
            assert_ne!(race.first.thread, race.second.thread);
        }
        e => panic!("expected a race, got {e}"),
    }
}

static GLOBAL: [Param; 2] = [INDEX, atomic("h")];

fn global_word_kernel(name: &'static str, body: &str) -> &'static DeviceKernel {
    let source = format!(
        "__device__ void {name}(granule::usize i, granule::AtomicView<granule::u32, 1> h) {{\n  {body}\n}}\n"
    );
    hand_kernel(name, &GLOBAL, Box::leak(source.into_boxed_str()))
}

fn run_on_word(
    dev: &EmuDevice,
    k: &'static DeviceKernel,
    n: usize,
    cfg: LaunchConfig,
) -> Result<u32, DeviceError> {
    let module = dev.compile(&unit(&[Instance::new(k, Pattern::For, &[])]), k.name)?;
    let h = dev.alloc_zeroed(4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &h, 1, 9);
    let entry = format!("granule_for_{}", k.name);
    // SAFETY: (begin, end, an atomic View of one u32 over h).
    let r = unsafe { dev.launch_and_wait(&module, &entry, &cfg, &args) };
    let v = download::<u32, _>(dev, &h, 1)[0];
    dev.free(h).unwrap();
    r.map(|()| v)
}

#[test]
fn plain_writes_of_one_global_word_race_and_atomic_ones_do_not() {
    let dev = device();
    let racy = global_word_kernel("racy_store", "*h.at(0ull) = (granule::u32)i;");
    let err = run_on_word(&dev, racy, 256, config(4, 64, 0)).unwrap_err();
    let DeviceError::Race { label, race, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(label, "racy_store");
    assert_eq!(race.kind, RaceKind::WriteWrite);
    assert!(
        matches!(race.memory, MemoryKind::Global { offset: 0, buffer } if buffer != 0),
        "{race:?}"
    );
    assert_ne!(race.first, race.second);
    let text = err.to_string();
    assert!(
        text.contains("granule_for_racy_store") && text.contains("thread ("),
        "{text}"
    );

    let counted = global_word_kernel("atomic_count", "granule::atomic_fetch_add(h.at(0ull), 1u);");
    assert_eq!(
        run_on_word(&dev, counted, 1000, config(4, 64, 0)).unwrap(),
        1000
    );
}

#[test]
fn unchecked_mode_lets_a_racy_kernel_finish() {
    let dev = EmuDevice::with_options(EmuOptions {
        checked: false,
        ..Default::default()
    })
    .unwrap();
    let racy = global_word_kernel("racy_store", "*h.at(0ull) = (granule::u32)i;");
    let last = run_on_word(&dev, racy, 256, config(4, 64, 0)).unwrap();
    assert!(last < 256);
}

#[test]
fn blocks_run_concurrently_so_they_can_wait_on_each_other() {
    // Each block publishes its flag and waits for the other's: this ends
    // only if both blocks run at once.
    let handshake = global_word_kernel(
        "handshake",
        "volatile granule::u32* f = h.at(0ull);\n\
         if (threadIdx.x != 0) return;\n\
         f[blockIdx.x] = 1u;\n\
         while (f[1u - blockIdx.x] == 0u) {}",
    );
    let two = device();
    let module = two
        .compile(
            &unit(&[Instance::new(handshake, Pattern::For, &[])]),
            "handshake",
        )
        .unwrap();
    let flags = two.alloc_zeroed(8).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(64u64);
    view1(&mut args, &flags, 2, 9);
    // SAFETY: (begin, end, an atomic View of two u32 over flags).
    unsafe { two.launch_and_wait(&module, "granule_for_handshake", &config(2, 32, 0), &args) }
        .unwrap();
    assert_eq!(download::<u32, _>(&two, &flags, 2), [1, 1]);

    // One worker runs the blocks one after the other: the first waits
    // forever, and the time limit ends the launch with a typed error.
    let one = EmuDevice::with_options(EmuOptions {
        workers: 1,
        timeout: Some(Duration::from_millis(300)),
        ..Default::default()
    })
    .unwrap();
    let mine = one.alloc_zeroed(8).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(64u64);
    view1(&mut args, &mine, 2, 9);
    // SAFETY: as above, over `mine`.
    let err =
        unsafe { one.launch_and_wait(&module, "granule_for_handshake", &config(2, 32, 0), &args) }
            .unwrap_err();
    assert!(matches!(err, DeviceError::Timeout { .. }), "{err}");
    two.free(flags).unwrap();
    one.free(mine).unwrap();
}

// ------------------------------------------------------------- failures

static STUCK: [Param; 2] = [INDEX, out("y")];

#[test]
fn a_barrier_some_threads_never_reach_is_a_deadlock_not_a_hang() {
    let dev = device();
    let k = hand_kernel(
        "stuck",
        &STUCK,
        "__device__ void stuck(granule::usize i, granule::u32& y) {\n\
           granule::u32 v = (granule::u32)i;\n\
           if (threadIdx.x == 0) __syncthreads(); else v = __shfl_sync(0xffffffffu, v, 0);\n\
           y = v;\n\
         }\n",
    );
    let err = run_one_output(&dev, k, 32, config(1, 32, 0)).unwrap_err();
    let DeviceError::Deadlock { detail, .. } = &err else {
        panic!("expected a deadlock, got {err}");
    };
    assert!(
        detail.contains("1 threads wait at __syncthreads, 31 at a warp collective"),
        "{detail}"
    );
}

#[test]
fn an_index_past_the_extent_is_a_fault_naming_the_view() {
    let dev = device();
    let module = dev
        .compile(
            &unit(&[Instance::new(&__GRANULE_KERNEL_copy, Pattern::For, &[])]),
            "copy",
        )
        .unwrap();
    let xb = upload(&dev, &[1i32; 10]);
    let yb = dev.alloc_zeroed(12 * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(12u64);
    view1(&mut args, &yb, 12, 1);
    view1(&mut args, &xb, 10, 42);
    // SAFETY: (begin, end, y, x); the View x says 10 elements, so the
    // header's bounds check stops index 10 before it reads past xb.
    let err = unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 16, 0), &args) }
        .unwrap_err();
    assert_eq!(
        err,
        DeviceError::Fault {
            label: "copy".into(),
            entry: "granule_for_copy".into(),
            fault: Fault::OutOfBounds {
                view: 42,
                dim: 0,
                index: 10,
                extent: 10
            },
        }
    );
    // The record was cleared: the next launch in range succeeds.
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(10u64);
    view1(&mut args, &yb, 12, 1);
    view1(&mut args, &xb, 10, 42);
    // SAFETY: as above, within bounds.
    unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 16, 0), &args) }.unwrap();
    dev.free(xb).unwrap();
    dev.free(yb).unwrap();
}

static BROKEN: [Param; 2] = [INDEX, out("y")];

#[test]
fn a_compile_error_shows_the_log_and_the_failing_line() {
    let dev = device();
    let k = hand_kernel(
        "broken",
        &BROKEN,
        "__device__ void broken(granule::usize i, granule::u32& y) {\n\
           y = undefined_name + 1u;\n\
         }\n",
    );
    let u = unit(&[Instance::new(k, Pattern::For, &[])]);
    let err = dev.compile(&u, "broken kernel").unwrap_err();
    let DeviceError::Compile { log, excerpts, .. } = &err else {
        panic!("expected a compile error, got {err}");
    };
    assert!(log.contains("undefined_name"), "{log}");
    let line = u
        .source()
        .lines()
        .position(|l| l.contains("undefined_name"))
        .unwrap()
        + 1;
    assert_eq!(excerpts.first().map(|e| e.line), Some(line), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("--> broken kernel.cu:{line}")),
        "{err}"
    );
}

#[test]
fn launches_the_device_cannot_run_are_refused_before_they_start() {
    let dev = device();
    let module = dev
        .compile(
            &unit(&[Instance::new(&__GRANULE_KERNEL_copy, Pattern::For, &[])]),
            "copy",
        )
        .unwrap();
    let mut short = KernelArgs::new();
    short.scalar(0u64).scalar(1u64);
    // SAFETY: refused before anything runs (checked below).
    let err =
        unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 32, 0), &short) }
            .unwrap_err();
    assert!(
        matches!(&err, DeviceError::InvalidLaunch { reason, .. } if reason.contains("4 parameters of [8, 8, 32, 32] bytes")),
        "{err}"
    );
    // SAFETY: refused before anything runs.
    let err =
        unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 2048, 0), &short) }
            .unwrap_err();
    assert!(matches!(err, DeviceError::InvalidLaunch { .. }), "{err}");
    // SAFETY: refused before anything runs.
    let err =
        unsafe { dev.launch_and_wait(&module, "granule_for_nothing", &config(1, 32, 0), &short) }
            .unwrap_err();
    assert!(
        matches!(&err, DeviceError::UnknownEntry { entries, .. } if entries == &["granule_for_copy"]),
        "{err}"
    );
}

#[test]
fn buffers_are_zeroed_bounds_checked_and_owned() {
    let dev = device();
    let other = device();
    let mut a = dev.alloc_zeroed(100).unwrap();
    let mut out = [7u8; 100];
    // SAFETY: `a` is freshly zeroed.
    unsafe { dev.read_bytes(&mut out, &a, 0) }.unwrap();
    assert_eq!(out, [0; 100]);
    let err = dev
        .copy_to_device(&mut a, 90, as_uninit(&[1; 20]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            DeviceError::OutOfRange {
                offset: 90,
                bytes: 20,
                buffer_bytes: 100,
                ..
            }
        ),
        "{err}"
    );
    dev.copy_to_device(&mut a, 10, as_uninit(&[5; 20])).unwrap();
    let mut b = dev.alloc_zeroed(30).unwrap();
    dev.copy_on_device(&mut b, 0, &a, 5, 30).unwrap();
    let mut got = [0u8; 30];
    // SAFETY: `b` is zeroed, then copied from `a`, itself zeroed and
    // written from plain bytes.
    unsafe { dev.read_bytes(&mut got, &b, 0) }.unwrap();
    assert_eq!(got[..5], [0; 5]);
    assert_eq!(got[5..25], [5; 20]);
    // SAFETY: refused, as `b` is not `other`'s; its bytes are initialized
    // anyway (as above).
    let err = unsafe { other.read_bytes(&mut got, &b, 0) }.unwrap_err();
    assert!(matches!(err, DeviceError::UnknownBuffer { .. }), "{err}");
    dev.free(a).unwrap();
    dev.free(b).unwrap();
}

// ---------------------------------------------------------------- teams

include!("../../../macros/tests/golden/team.rs");

/// Runs the golden team kernel `rows` over `league` teams of `team`
/// threads with `lanes` vector lanes; returns `out` and `counts`.
fn run_rows(
    dev: &EmuDevice,
    a: &[f64],
    x: &[f64],
    league: u32,
    team: u32,
    lanes: u32,
) -> Result<(Vec<f64>, Vec<i64>), DeviceError> {
    let module = dev.compile(
        &unit(&[Instance::new(&__GRANULE_KERNEL_rows, Pattern::Team, &[])]),
        "rows",
    )?;
    let (n, cols) = (x.len(), a.len() / league as usize);
    let ab = upload(dev, a);
    let xb = upload(dev, x);
    let outb = dev.alloc_zeroed(league as usize * 8).unwrap();
    let countsb = dev.alloc_zeroed(8 * 8).unwrap();
    let team_bytes = (n * 8) as u64;
    let mut args = KernelArgs::new();
    args.scalar(u64::from(league))
        .team_scratch([team_bytes, 0], [0, 0], 0);
    args.view(
        ab.address(),
        &[u64::from(league), cols as u64],
        &[cols as u64, 1],
        1,
    );
    view1(&mut args, &xb, n, 2);
    view1(&mut args, &outb, league as usize, 3);
    view1(&mut args, &countsb, 8, 4);
    let threads = u64::from(team * lanes);
    let smem = granule_cuda::device::reserved_smem(threads) + team_bytes.div_ceil(16) * 16;
    let cfg = LaunchConfig {
        grid_dim: (league, 1, 1),
        block_dim: (lanes, team, 1),
        shared_mem_bytes: smem as u32,
    };
    // SAFETY: (league, scratch, a, x, out, counts) as granule_team_rows
    // takes them; level-0 scratch of n f64 per team fits the dynamic shared
    // memory given, and there is no level 1.
    let r = unsafe { dev.launch_and_wait(&module, "granule_team_rows", &cfg, &args) };
    let out = download::<f64, _>(dev, &outb, league as usize);
    let counts = download::<i64, _>(dev, &countsb, 8);
    for b in [ab, xb, outb, countsb] {
        dev.free(b).unwrap();
    }
    r.map(|()| (out, counts))
}

#[test]
fn team_kernels_run_with_teams_of_many_threads() {
    let dev = device();
    let (league, team, n, cols) = (3u32, 4u32, 10usize, 6usize);
    let a: Vec<f64> = (0..league as usize * cols)
        .map(|k| (k % 5) as f64)
        .collect();
    let x: Vec<f64> = (0..n).map(|k| k as f64 * 0.5).collect();
    let (out, counts) = run_rows(&dev, &a, &x, league, team, 1).unwrap_or_else(|e| panic!("{e}"));
    let biggest = x.iter().cloned().fold(f64::MIN, f64::max);
    for row in 0..league as usize {
        let dot: f64 = (0..cols).map(|j| a[row * cols + j] * x[j]).sum();
        let ranks = f64::from(team * (team - 1) / 2);
        let expect = 6.0 * dot + biggest + 28.0 + f64::from(league + team) + ranks;
        assert_eq!(out[row], expect, "row {row}");
    }
    let expect: Vec<i64> = (0..8)
        .map(|j| i64::from(league) * j * (j + 1) / 2)
        .collect();
    assert_eq!(counts, expect);
}

// -------------------------------------------------------------- atomics

include!("../../../macros/tests/golden/histogram.rs");

static ATOMICS64: [Param; 4] = [
    INDEX,
    Param {
        name: "s",
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::i64",
    },
    Param {
        name: "u",
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::u64",
    },
    Param {
        name: "f",
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::f64",
    },
];

#[test]
fn atomics_of_every_width_and_type_combine_across_blocks() {
    let dev = device();
    let k = hand_kernel(
        "atomics64",
        &ATOMICS64,
        "__device__ void atomics64(granule::usize i, granule::AtomicView<granule::i64, 1> s, \
         granule::AtomicView<granule::u64, 1> u, granule::AtomicView<granule::f64, 1> f) {\n\
           const granule::i64 v = (granule::i64)i - 500;\n\
           granule::atomic_fetch_min(s.at(0ull), v);\n\
           granule::atomic_fetch_max(s.at(1ull), v);\n\
           granule::atomic_fetch_min(u.at(0ull), (granule::u64)i + 7ull);\n\
           granule::atomic_fetch_max(u.at(1ull), (granule::u64)i << 40);\n\
           granule::atomic_fetch_add(u.at(2ull), 3ull);\n\
           granule::atomic_fetch_add(f.at(0ull), 0.5);\n\
         }\n",
    );
    let n = 1000usize;
    let module = dev
        .compile(
            &unit(&[
                Instance::new(k, Pattern::For, &[]),
                Instance::new(&__GRANULE_KERNEL_histogram, Pattern::For, &[]),
            ]),
            "atomics",
        )
        .unwrap();
    let s = upload(&dev, &[i64::MAX, i64::MIN]);
    let u = upload(&dev, &[u64::MAX as i64, 0, 0]);
    let f = upload(&dev, &[0.0f64]);
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &s, 2, 1);
    view1(&mut args, &u, 3, 2);
    view1(&mut args, &f, 1, 3);
    // SAFETY: (begin, end, three atomic Views over s, u, f).
    unsafe { dev.launch_and_wait(&module, "granule_for_atomics64", &config(5, 64, 0), &args) }
        .unwrap();
    assert_eq!(download::<i64, _>(&dev, &s, 2), [-500, 499]);
    let got_u: Vec<u64> = download::<i64, _>(&dev, &u, 3)
        .iter()
        .map(|&v| v as u64)
        .collect();
    assert_eq!(got_u, [7, 999 << 40, 3 * n as u64]);
    assert_eq!(download::<f64, _>(&dev, &f, 1), [0.5 * n as f64]);

    // f32 min/max and exchange are CAS loops in the header.
    let x32: Vec<f32> = (0..n)
        .map(|i| ((i * 37) % 101) as f32 * 0.25 + 1.0)
        .collect();
    let xb = upload(&dev, &x32);
    let h = dev.alloc_zeroed(16 * 4).unwrap();
    let m = upload(&dev, &[f32::MIN, f32::MAX, 0.0, 0.0, 0.0]);
    let (lo, width) = (1.0f32, 2.0f32);
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &xb, n, 1);
    args.scalar(lo).scalar(width);
    view1(&mut args, &h, 16, 2);
    view1(&mut args, &m, 5, 3);
    // SAFETY: (begin, end, x, lo, width, h, m) as granule_for_histogram
    // takes them, over 16 bins and 5 f32.
    unsafe { dev.launch_and_wait(&module, "granule_for_histogram", &config(3, 128, 0), &args) }
        .unwrap();
    let mut expect = [0u32; 16];
    for v in &x32 {
        expect[(((v - lo) / width) as usize).min(15)] += 1;
    }
    assert_eq!(download::<u32, _>(&dev, &h, 16), expect);
    let got = download::<f32, _>(&dev, &m, 5);
    let (max, min) = x32
        .iter()
        .fold((f32::MIN, f32::MAX), |(a, b), &v| (a.max(v), b.min(v)));
    assert_eq!((got[0], got[1]), (max, min));
    assert!(x32.contains(&got[2]), "the last exchange stores some x");
    for b in [s, u, f, xb, h, m] {
        dev.free(b).unwrap();
    }
}

#[test]
fn a_thread_that_never_yields_still_stops_at_the_time_limit() {
    let dev = EmuDevice::with_options(EmuOptions {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    })
    .unwrap();
    let forever = global_word_kernel(
        "forever",
        "if (i != 0) return;\n\
         for (granule::u32 k = 0;; ++k) *h.at(0ull) = k;",
    );
    let err = run_on_word(&dev, forever, 64, config(2, 32, 0)).unwrap_err();
    let DeviceError::Timeout { label, detail, .. } = &err else {
        panic!("expected a timeout, got {err}");
    };
    assert_eq!(label, "forever");
    assert!(detail.contains("block (0, 0, 0) thread 0"), "{detail}");
}

// ------------------------------------------------ reads before writes

static WORD: [Param; 3] = [INDEX, out("y"), atomic("h")];

/// A kernel `name(i, y, h)` whose `body` sees `t` (threadIdx.x), `y` (its
/// own u32 output) and `w` (plain access to word 0 of the 4-word `h`).
fn word_kernel(name: &'static str, body: &str) -> &'static DeviceKernel {
    let source = format!(
        "__device__ void {name}(granule::usize i, granule::u32& y, \
         granule::AtomicView<granule::u32, 1> h) {{\n\
           const granule::u32 t = threadIdx.x;\n\
           granule::u32* w = h.at(0ull);\n\
           {body}\n\
         }}\n"
    );
    hand_kernel(name, &WORD, Box::leak(source.into_boxed_str()))
}

/// Runs `k` with one index per thread of `cfg`; returns `h`'s 4 words.
fn run_word(
    dev: &EmuDevice,
    k: &'static DeviceKernel,
    cfg: LaunchConfig,
) -> Result<Vec<u32>, DeviceError> {
    let module = dev.compile(&unit(&[Instance::new(k, Pattern::For, &[])]), k.name)?;
    let n = (cfg.blocks() * cfg.block_threads()) as usize;
    let (y, h) = (
        dev.alloc_zeroed(n * 4).unwrap(),
        dev.alloc_zeroed(16).unwrap(),
    );
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &y, n, 1);
    view1(&mut args, &h, 4, 2);
    let entry = format!("granule_for_{}", k.name);
    // SAFETY: (begin, end, an output View of n u32 over y, an atomic View
    // of 4 u32 over h).
    let r = unsafe { dev.launch_and_wait(&module, &entry, &cfg, &args) };
    let words = download::<u32, _>(dev, &h, 4);
    dev.free(y).unwrap();
    dev.free(h).unwrap();
    r.map(|()| words)
}

fn thread(t: u32) -> ThreadId {
    ThreadId {
        block: (0, 0, 0),
        thread: (t, 0, 0),
    }
}

/// The race `r` must be, with its first and second threads.
fn expect_race(
    r: Result<Vec<u32>, DeviceError>,
    kind: RaceKind,
    first: u32,
    second: u32,
) -> MemoryKind {
    let err = r.expect_err("a race");
    let DeviceError::Race { race, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(race.kind, kind, "{err}");
    assert_eq!(
        (race.first, race.second),
        (thread(first), thread(second)),
        "{err}"
    );
    race.memory
}

#[test]
fn a_write_after_another_threads_read_is_a_race_in_every_memory() {
    let dev = device();
    // Thread 0 runs first (fibers run in order), so its read precedes
    // thread 1's write: a GPU could run them in either order.
    let cases = [
        ("war_global", "if (t == 0u) y = *w;\nif (t == 1u) *w = 5u;"),
        (
            "war_dynamic",
            "granule::u32* s = (granule::u32*)granule::granule_dyn_smem;\n\
             if (t == 0u) y = s[1];\nif (t == 1u) s[1] = 5u;",
        ),
        (
            "war_static",
            "__shared__ granule::u32 s;\nif (t == 0u) y = s;\nif (t == 1u) s = 5u;",
        ),
    ];
    for (name, body) in cases {
        let r = run_word(&dev, word_kernel(name, body), config(1, 32, 16));
        let memory = expect_race(r, RaceKind::WriteAfterRead, 0, 1);
        match name {
            "war_global" => assert!(
                matches!(memory, MemoryKind::Global { offset: 0, .. }),
                "{memory:?}"
            ),
            "war_dynamic" => assert_eq!(memory, MemoryKind::DynamicShared { offset: 4 }),
            _ => assert_eq!(memory, MemoryKind::StaticShared),
        }
    }
    let err = run_word(&dev, word_kernel("war_text", cases[0].1), config(1, 32, 0)).unwrap_err();
    assert!(
        err.to_string()
            .contains("a write of bytes another thread read"),
        "{err}"
    );
}

#[test]
fn a_read_after_another_threads_write_is_a_race_in_global_and_static_shared_memory() {
    let dev = device();
    let global = word_kernel("raw_global", "if (t == 0u) *w = 5u;\nif (t == 1u) y = *w;");
    let memory = expect_race(
        run_word(&dev, global, config(1, 32, 0)),
        RaceKind::ReadAfterWrite,
        0,
        1,
    );
    assert!(
        matches!(memory, MemoryKind::Global { offset: 0, .. }),
        "{memory:?}"
    );
    let shared = word_kernel(
        "raw_static",
        "__shared__ granule::u32 s;\nif (t == 0u) s = 5u;\nif (t == 1u) y = s;",
    );
    let memory = expect_race(
        run_word(&dev, shared, config(1, 32, 0)),
        RaceKind::ReadAfterWrite,
        0,
        1,
    );
    assert_eq!(memory, MemoryKind::StaticShared);
}

#[test]
fn a_word_read_by_several_threads_then_written_by_one_of_them_is_a_race() {
    let dev = device();
    // Every lane reads, then (after a warp collective, so every read came
    // first) lane 0, the first reader, writes: lane 1 read it too.
    let k = word_kernel(
        "several_readers",
        "y = *w;\n__syncwarp();\nif (t == 0u) *w = y + 1u;",
    );
    expect_race(
        run_word(&dev, k, config(1, 32, 0)),
        RaceKind::WriteAfterRead,
        1,
        0,
    );
    // A later reader writes: the first reader names the race.
    let k = word_kernel(
        "later_reader",
        "y = *w;\n__syncwarp();\nif (t == 7u) *w = y + 1u;",
    );
    expect_race(
        run_word(&dev, k, config(1, 32, 0)),
        RaceKind::WriteAfterRead,
        0,
        7,
    );
    let k = word_kernel(
        "several_shared",
        "__shared__ granule::u32 s;\ny = s;\n__syncwarp();\nif (t == 0u) s = y + 1u;",
    );
    expect_race(
        run_word(&dev, k, config(1, 32, 0)),
        RaceKind::WriteAfterRead,
        1,
        0,
    );
}

#[test]
fn reads_and_writes_that_do_not_conflict_are_not_races() {
    let dev = device();
    // Each thread reads and writes its own word, or its own byte of one
    // word (byte masks keep sub-word neighbours apart).
    let own = word_kernel("own_word", "y = y + t;\nif (t < 4u) { w[t] = w[t] + 1u; }");
    assert_eq!(run_word(&dev, own, config(1, 32, 0)).unwrap(), [1, 1, 1, 1]);
    let bytes = word_kernel(
        "own_byte",
        "unsigned char* b = (unsigned char*)w;\nif (t < 4u) b[t] = (unsigned char)(b[t] + t + 1u);",
    );
    assert_eq!(
        run_word(&dev, bytes, config(1, 32, 0)).unwrap()[0],
        0x0403_0201
    );
    // A barrier between the read and the other thread's write, in global
    // and shared memory.
    let synced = word_kernel(
        "synced_war",
        "__shared__ granule::u32 s;\nif (t == 0u) { y = *w + s; }\n__syncthreads();\n\
         if (t == 1u) { *w = 5u; s = 5u; }",
    );
    assert_eq!(run_word(&dev, synced, config(1, 32, 0)).unwrap()[0], 5);
    // Reads and writes of the same shared address by different blocks are
    // different memory: one worker runs both blocks on one thread-local
    // copy.
    let one = EmuDevice::with_options(EmuOptions {
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    let blocks = word_kernel(
        "blocks_war",
        "__shared__ granule::u32 s;\nif (blockIdx.x == 0u && t == 0u) y = s;\n\
         if (blockIdx.x == 1u && t == 1u) s = 5u;",
    );
    run_word(&one, blocks, config(2, 32, 0)).unwrap();
    // Atomics and volatile accesses never race.
    let atomics = word_kernel(
        "atomic_war",
        "if (t == 0u) y = *(volatile granule::u32*)w;\nif (t == 1u) granule::atomic_fetch_add(w, 2u);",
    );
    assert_eq!(run_word(&dev, atomics, config(1, 32, 0)).unwrap()[0], 2);
}

// ------------------------------------------------------------ time limit

#[test]
fn loops_of_arithmetic_or_atomics_alone_stop_at_the_time_limit() {
    let dev = EmuDevice::with_options(EmuOptions {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    })
    .unwrap();
    // The translator starts every loop body with GRANULE_LOOP_TICK().
    let arithmetic = word_kernel(
        "spin_arith",
        "granule::u64 x = i;\nfor (;;) {\n  GRANULE_LOOP_TICK();\n  x = x * 6364136223846793005ull + 1ull;\n}",
    );
    let atomics = word_kernel("spin_atomic", "for (;;) granule::atomic_fetch_add(w, 1u);");
    for k in [arithmetic, atomics] {
        let err = run_word(&dev, k, config(2, 32, 0)).unwrap_err();
        let DeviceError::Timeout { label, detail, .. } = &err else {
            panic!("expected a timeout, got {err}");
        };
        assert_eq!(label, k.name);
        assert!(
            detail.contains("still running at the time limit"),
            "{detail}"
        );
    }
}

// ------------------------------------------------------ divergent barriers

/// The detail of the deadlock `r` must be.
fn deadlock(r: Result<Vec<u32>, DeviceError>) -> String {
    match r {
        Err(DeviceError::Deadlock { detail, .. }) => detail,
        Err(e) => panic!("expected a deadlock, got {e}"),
        Ok(_) => panic!("expected a deadlock, the launch succeeded"),
    }
}

#[test]
fn a_barrier_after_a_thread_exited_is_divergent() {
    let dev = device();
    let k = word_kernel(
        "exit_early",
        "if (t == 0u) return;\n__syncthreads();\ny = 1u;",
    );
    let detail = deadlock(run_word(&dev, k, config(1, 32, 0)));
    assert!(
        detail.starts_with(
            "divergent barrier: in block (0, 0, 0) threads 1-31 wait at the __syncthreads in "
        ) && detail.ends_with("but threads 0 exited before reaching it"),
        "{detail}"
    );
}

#[test]
fn halves_of_a_block_at_different_barriers_are_divergent() {
    let dev = device();
    let k = word_kernel(
        "two_barriers",
        "if (t < 16u) {\n  __syncthreads();\n  y = 1u;\n} else {\n  y = 2u;\n  __syncthreads();\n  y += 1u;\n}",
    );
    let detail = deadlock(run_word(&dev, k, config(1, 32, 0)));
    assert!(
        detail.starts_with(
            "divergent barrier: in block (0, 0, 0) threads 0-15 wait at the __syncthreads in `"
        ) && detail.contains(", threads 16-31 at the one in `"),
        "{detail}"
    );
    // Every thread at one barrier, in a branch they all take, is fine.
    let k = word_kernel(
        "uniform_barrier",
        "if (blockIdx.x == 0u) {\n  __syncthreads();\n  y = 1u;\n}",
    );
    run_word(&dev, k, config(2, 32, 0)).unwrap();
}

#[test]
fn lanes_at_different_warp_collectives_are_divergent() {
    let dev = device();
    let k = word_kernel(
        "two_collectives",
        "if (t < 16u) y = __shfl_sync(0xffffffffu, t, 0);\nelse y = __ballot_sync(0xffffffffu, 1);",
    );
    let detail = deadlock(run_word(&dev, k, config(1, 32, 0)));
    assert!(
        detail.starts_with(
            "divergent warp collective: in block (0, 0, 0) thread 0 waits at __shfl_sync"
        ) && detail.contains("thread 16 at __ballot_sync"),
        "{detail}"
    );
    // A mask may name lanes that have exited (CUDA allows it): they take
    // no part.
    let k = word_kernel(
        "exited_lanes",
        "if (t >= 16u) return;\ny = __shfl_sync(0xffffffffu, t + 100u, 3);",
    );
    run_word(&dev, k, config(1, 32, 0)).unwrap();
}
