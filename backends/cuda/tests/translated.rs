//! Every translated kernel of the golden set, written here as real Rust
//! (so the host side type-checks against granule-views and granule-core),
//! wrapped by the framework drivers, compiles under NVRTC to PTX and to
//! CUBIN for sm_80 and sm_90.

// The kernels below are used through their generated statics only.
#![allow(dead_code)]
// The kernels spell constructs out on purpose, to exercise the translator.
#![allow(
    clippy::assign_op_pattern,
    clippy::manual_clamp,
    clippy::nonminimal_bool
)]

mod common;

use common::{assert_outputs, compile_everywhere};
use granule_core::prelude::*;
use granule_cuda::codegen::{Instance, Pattern, Reducer, TranslationUnit};
use granule_cuda::nvrtc::available_or_skip as nvrtc_or_skip;
use granule_macros::{device, kernel};
use granule_views::AtomicView;

#[kernel(crate = granule_cuda)]
fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a * x[i] + *y;
}

#[kernel(reduce, crate = granule_cuda)]
fn dot(i: usize, acc: &mut f64, x: &View1<f64>, y: &View1<f64, LayoutLeft>) {
    *acc += x[i] * y[i];
}

#[kernel(crate = granule_cuda)]
fn scale<T: granule_views::Pod + std::ops::Mul<Output = T>>(
    i: usize,
    y: &mut T,
    a: T,
    x: &View<T, 1, LayoutRight>,
) {
    *y = a * x[i];
}
#[kernel(crate = granule_cuda)]
fn control(i: usize, y: &mut f32, x: &View2<f32, LayoutLeft>, n: usize) {
    const SCALE: f32 = 0.5;
    let mut acc = 0.0;
    for j in 0..x.extent(1) {
        acc += x[[i, j]];
    }
    for j in (0..n).step_by(2) {
        acc -= (j as f32) * SCALE;
    }
    for j in (1..=n).rev() {
        if j % 3 == 0 {
            continue;
        }
        acc = acc.mul_add(0.99, 1.0);
    }
    for j in (0..n).rev().step_by(3) {
        acc += j as f32;
    }
    let mut k = 0u32;
    while k < 4 {
        k += 1;
    }
    loop {
        if acc > 100.0 {
            break;
        }
        acc *= 2.0;
    }
    let sign = if acc < 0.0 { -1.0 } else { 1.0 };
    let mag = {
        let s = acc.abs().sqrt();
        s.max(0.25).min(4.0).clamp(0.0, 3.0)
    };
    let t = if k > 2 {
        let u = mag.exp().ln();
        u.sin() * u.cos() + u.tanh()
    } else {
        mag.powi(3) + mag.powf(1.5) + mag.floor() + mag.ceil()
    };
    *y = sign * t + (acc as i32) as f32;
}
#[kernel(crate = granule_cuda)]
fn ints(i: usize, y: &mut i64, a: i32, b: u32, c: isize, x: &View1<u64>) {
    let q = a / 7 + a % 7 - (-a);
    let r = (b << 3) >> 1u32 | b & 0xff ^ !b;
    let m = q.min(-3).max(a.abs());
    let w = x[i] * 3 + (c as u64);
    let ok = q > 0 && r != 0 || !(w == 0);
    let f = (w as f64) * 0.5;
    if ok {
        *y = (m as i64) + (f as i64) + (r as i64) + i64::MAX / (i as i64 + 1);
    } else {
        *y = -1;
    }
}
#[device(crate = granule_cuda)]
const BINS: usize = 16;

#[device(crate = granule_cuda)]
fn bin_of(v: f32, lo: f32, width: f32) -> usize {
    let b = ((v - lo) / width) as usize;
    if b >= 16 {
        15
    } else {
        b
    }
}

#[kernel(crate = granule_cuda)]
fn histogram(
    i: usize,
    x: &View1<f32>,
    lo: f32,
    width: f32,
    h: &AtomicView<'_, u32, 1>,
    m: &AtomicView<'_, f32, 1>,
) {
    let b: usize = bin_of(x[i], lo, width);
    h.add(b % BINS, 1);
    let old = h.fetch_add(0, 0);
    m.max(0, x[i]);
    m.min(1, x[i]);
    let prev = m.exchange(2, x[i]);
    if !m.compare_exchange(3, prev, x[i]).is_ok() {
        m.store(4, h.load(5) as f32 + (old as f32));
    }
}
#[kernel(crate = granule_cuda)]
fn rows(
    team: &TeamMember,
    a: &View2<f64>,
    x: &View1<f64>,
    out: &AtomicView<'_, f64, 1>,
    counts: &AtomicView<'_, i64, 1>,
) {
    let row = team.league_rank();
    let n = x.extent(0);
    let mut cache = team.team_scratch::<f64, 1>(0, n).unwrap();
    TeamThreadRange::new(team, 0..n).parallel_for(|j| {
        cache[j] = x[j];
    });
    team.team_barrier();
    let sum =
        TeamThreadRange::new(team, 0..a.extent(1)).parallel_reduce(Sum, |j, acc: &mut f64| {
            let inner =
                ThreadVectorRange::new(team, 0..4).parallel_reduce(Sum, |v, part: &mut f64| {
                    *part += a[[row, j]] * cache[j] * (v as f64);
                });
            *acc += inner;
        });
    let biggest = TeamVectorRange::new(team, 0..n).parallel_reduce(Max, |j, m: &mut f64| {
        *m = m.max(x[j]);
    });
    let total =
        TeamThreadRange::new(team, 0..8).parallel_scan(|j, partial: &mut i64, last: bool| {
            *partial += j as i64;
            if last {
                counts.add(j, *partial);
            }
        });
    let lead = team.team_broadcast(sum, 0);
    let ranks = team.team_reduce(Sum, team.team_rank());
    if team.team_rank() == 0 {
        out.add(
            row,
            lead + biggest
                + (total as f64)
                + (team.league_size() + team.team_size() + ranks) as f64,
        );
    }
}

/// f32 arithmetic, literals, casts, loops and math without trigonometry
/// (CUDA's own `sinf`/`cosf` reduce huge arguments in f64 internally).
// 8- and 16-bit integers (golden `narrow`): casts back after promotion.
#[kernel(crate = granule_cuda)]
fn narrow(i: usize, y: &mut u8, z: &mut i16, a: i8, b: u16, x: &View1<u8>) {
    let s = x[i] + 200;
    let n = !s;
    let t = (b * 3) << 4u32;
    let c = (a - 1).abs().max(-5);
    *y = s.min(n) | (t as u8);
    *z = (c as i16) * 300 + (2.5e9f64 as i16) / 2;
}

// Team chunk outputs with an inner MapContinuousLinear (golden `team_chunks`).
#[kernel(crate = granule_cuda)]
fn chunk_blocks(m: &TeamMember, mut part: TeamChunk<'_, f32, MapContinuousLinear>) {
    let mut mine = part
        .chunk_mut(MapContinuousLinear::new(2), m.thread_ids())
        .unwrap();
    mine[1] = mine[0] * 0.5;
}

// Location and min-max accumulators (golden `loc_reducers`).
#[kernel(reduce, crate = granule_cuda)]
fn peak(i: usize, x: &View1<f32>, a: &mut ValLocScalar<f32, u32>) {
    a.update_max(x[i] * 2.0, i as u32);
}

#[kernel(reduce, crate = granule_cuda)]
fn range_of(i: usize, a: &mut MinMaxScalar<u16>) {
    a.update((i % 7) as u16);
}

// Assertions (golden `asserts`): checked on the device, recorded, trap.
#[kernel(crate = granule_cuda)]
fn checked(i: usize, y: &mut i64, n: usize, x: &View1<i64>) {
    assert!(i < n, "index {i} past {n}");
    assert_eq!(x[i] % 2, 0);
    assert_ne!(x[i], -2, "sentinel");
    *y = x[i] / 2;
}

#[kernel(crate = granule_cuda)]
fn f32_only(i: usize, y: &mut f32, x: &View1<f32>, n: i32) {
    let mut acc = 0.0;
    for k in (0..n).rev().step_by(2) {
        acc += (k as f32) * 0.25 + x[i].mul_add(1.5, -2.0);
    }
    let m = if acc > 1e3 {
        acc.sqrt()
    } else {
        acc.powi(2).max(0.5).exp()
    };
    *y = m.clamp(-1.0, 1.0) / 3.0 + ((m * 1e6) as i64 % 7) as f32;
}

fn instances() -> Vec<Instance> {
    vec![
        Instance::new(&__GRANULE_KERNEL_axpy, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_dot, Pattern::Reduce(Reducer::Sum), &[]),
        Instance::new(&__GRANULE_KERNEL_scale, Pattern::For, &["granule::f32"]),
        Instance::new(&__GRANULE_KERNEL_scale, Pattern::For, &["granule::f64"]),
        Instance::new(&__GRANULE_KERNEL_control, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_f32_only, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_ints, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_narrow, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_checked, Pattern::For, &[]),
        Instance::new(
            &__GRANULE_KERNEL_peak,
            Pattern::Reduce(Reducer::MaxLoc),
            &[],
        ),
        Instance::new(
            &__GRANULE_KERNEL_range_of,
            Pattern::Reduce(Reducer::MinMax),
            &[],
        ),
        Instance::new(&__GRANULE_KERNEL_chunk_blocks, Pattern::Team, &[]),
        Instance::new(&__GRANULE_KERNEL_histogram, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_rows, Pattern::Team, &[]),
    ]
}

#[test]
fn translated_kernels_compile_to_ptx_and_cubin() {
    if !nvrtc_or_skip("translated_kernels_compile_to_ptx_and_cubin") {
        return;
    }
    let unit = TranslationUnit::new(&instances()).unwrap();
    let outputs = compile_everywhere(unit.source(), "translated.cu");
    assert_outputs(&outputs, unit.entries());
}

#[test]
fn the_f32_kernel_does_no_double_math() {
    if !nvrtc_or_skip("the_f32_kernel_does_no_double_math") {
        return;
    }
    let unit =
        TranslationUnit::new(&[Instance::new(&__GRANULE_KERNEL_f32_only, Pattern::For, &[])])
            .unwrap();
    let out = granule_cuda::nvrtc::compile(
        unit.source(),
        "f32.cu",
        granule_cuda::nvrtc::Target::Ptx(80),
        &[],
    )
    .unwrap();
    let ptx = String::from_utf8(out.bytes).unwrap();
    // Any f64 arithmetic or conversion would use a .f64 instruction.
    let doubles: Vec<&str> = ptx.lines().filter(|l| l.contains(".f64")).collect();
    assert!(
        doubles.is_empty(),
        "double math in an f32 kernel:\n{}",
        doubles.join("\n")
    );
}

#[test]
fn host_bodies_are_kept() {
    let x = View1::<f64>::from_fn("x", 4, |i| i as f64).unwrap();
    let mut y = 1.0;
    axpy::body(2, &mut y, 3.0, &x);
    assert_eq!(y, 7.0);
    let mut acc = 0.0;
    let x_left = View1::<f64, LayoutLeft>::from_fn("xl", 4, |i| i as f64).unwrap();
    for i in 0..4 {
        dot::body(i, &mut acc, &x, &x_left);
    }
    assert_eq!(acc, 14.0);
}

#[test]
fn assertions_panic_on_the_host_and_are_recorded_on_the_device() {
    let x = View1::<i64>::from_fn("x", 3, |i| [4, 3, -2][i]).unwrap();
    let mut y = 0;
    checked::body(0, &mut y, 3, &x);
    assert_eq!(y, 2);
    for (i, what) in [(1, "left: 1"), (2, "sentinel"), (0, "index 0 past 0")] {
        let n = if i == 0 { 0 } else { 3 };
        let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            checked::body(i, &mut y, n, &x)
        }))
        .unwrap_err();
        let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains(what), "{msg}");
    }
    let src = __GRANULE_KERNEL_checked.source;
    let line = include_str!("translated.rs")
        .lines()
        .position(|l| l.trim_start().starts_with("assert!(i < n, \"index"))
        .expect("the kernel's first assertion")
        + 1;
    for cond in ["i < n", "x [i] % 2 == 0", "x [i] != - 2"] {
        assert!(
            src.contains(&format!("kernel `checked`: assertion failed: {cond}")),
            "{src}"
        );
    }
    assert!(
        src.contains(&format!("tests/translated.rs:{line}:5: kernel")),
        "line {line}: {src}"
    );
    assert!(src.contains("granule::check((i < n), "), "{src}");
}

#[test]
fn chunk_kernels_run_on_the_host() {
    let mut y = View1::<f32>::from_fn("y", 8, |i| i as f32).unwrap();
    parallel_for(
        "blocks",
        TeamPolicy::new(&Serial, 2, AUTO),
        y.chunked(MapContinuousLinear::new(4)),
        chunk_blocks(),
    );
    assert_eq!(y.to_vec(), [0.0, 0.0, 2.0, 3.0, 4.0, 2.0, 6.0, 7.0]);
}

#[test]
fn accumulator_kernels_run_on_the_host() {
    let x = View1::<f32>::from_fn("x", 5, |i| [1.0, 4.0, -2.0, 4.0, 0.5][i]).unwrap();
    let r = parallel_reduce("peak", RangePolicy::new(&Serial, 0..5), MaxLoc, peak(&x));
    assert_eq!((r.val, r.loc), (8.0, 1));
    let m = parallel_reduce("range", RangePolicy::new(&Serial, 3..6), MinMax, range_of());
    assert_eq!((m.min_val, m.max_val), (3, 5));
}

#[test]
fn generic_kernels_become_templates() {
    assert_eq!(__GRANULE_KERNEL_scale.generics, ["T"]);
    assert!(__GRANULE_KERNEL_scale
        .source
        .starts_with("template <class T>\n__device__ void scale("));
    let unit = TranslationUnit::new(&[Instance::new(
        &__GRANULE_KERNEL_scale,
        Pattern::For,
        &["granule::f32"],
    )])
    .unwrap();
    assert!(
        unit.source()
            .contains("scale<granule::f32>(i__, y(i__), a, x)"),
        "{}",
        unit.source()
    );
}
