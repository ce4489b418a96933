//! Every kernel of the golden set (`macros/tests/golden/*.rs`, included
//! here as real Rust, so the host side type-checks against granule), wrapped
//! by the framework drivers, compiles under NVRTC to PTX and to CUBIN for
//! sm_80 and sm_90; the host bodies run.

// The kernels below are used through their generated statics only.
#![allow(dead_code)]
// The kernels spell constructs out on purpose, to exercise the translator.
#![allow(
    clippy::assign_op_pattern,
    clippy::manual_clamp,
    clippy::nonminimal_bool
)]

use crate::targets::{assert_outputs, compile_everywhere};
use granule::prelude::*;
use granule_cuda::codegen::{self, Instance, Pattern, TranslationUnit};
use granule_cuda::nvrtc::available_or_skip as nvrtc_or_skip;

// The golden inputs, one file each; the translator's text output for them
// is checked in granule-macros.
include!("../../../../macros/tests/golden/axpy.rs");
include!("../../../../macros/tests/golden/reduce_sum.rs");
include!("../../../../macros/tests/golden/generic.rs");
include!("../../../../macros/tests/golden/f32_control.rs");
include!("../../../../macros/tests/golden/integers.rs");
include!("../../../../macros/tests/golden/histogram.rs");
include!("../../../../macros/tests/golden/team.rs");
include!("../../../../macros/tests/golden/narrow.rs");
include!("../../../../macros/tests/golden/team_chunks.rs");
include!("../../../../macros/tests/golden/loc_reducers.rs");
include!("../../../../macros/tests/golden/asserts.rs");
include!("../../../../macros/tests/golden/custom_reducer.rs");
include!("../../../../macros/tests/golden/team_scratch.rs");
include!("../../../../macros/tests/golden/team_nested.rs");
include!("../../../../macros/tests/golden/core_methods.rs");

#[kernel]
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

#[device]
const SCALE: f32 = 0.25;

#[device]
fn halve(v: f32) -> f32 {
    v * 0.5
}

/// Untyped literals meet `#[device]` results and constants only: they
/// must take the f32 types the helpers give.
#[kernel]
fn f32_helpers(i: usize, y: &mut f32, x: &View1<f32>) {
    let mut t = 0.0f32;
    if halve(x[i]) > 0.5 {
        t = 1.0;
    }
    if SCALE * 2.0 < 1.0 {
        t += 2.0;
    }
    *y = t + (halve(x[i]) * 3.0) as i32 as f32;
}

fn instances() -> Vec<Instance> {
    vec![
        Instance::new(&__GRANULE_KERNEL_axpy, Pattern::For, &[]),
        Instance::new(
            &__GRANULE_KERNEL_dot,
            Pattern::Reduce(codegen::Reducer::Sum),
            &[],
        ),
        Instance::new(&__GRANULE_KERNEL_scale, Pattern::For, &["granule::f32"]),
        Instance::new(&__GRANULE_KERNEL_scale, Pattern::For, &["granule::f64"]),
        Instance::new(&__GRANULE_KERNEL_control, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_f32_only, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_ints, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_narrow, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_core_methods, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_device_literals, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_checked, Pattern::For, &[]),
        Instance::new(
            &__GRANULE_KERNEL_peak,
            Pattern::Reduce(codegen::Reducer::MaxLoc),
            &[],
        ),
        Instance::new(
            &__GRANULE_KERNEL_range_of,
            Pattern::Reduce(codegen::Reducer::MinMax),
            &[],
        ),
        Instance::new(&__GRANULE_KERNEL_blocks, Pattern::Team, &[]),
        Instance::new(&__GRANULE_KERNEL_chunk_rows, Pattern::Team, &[]),
        Instance::new(&__GRANULE_KERNEL_histogram, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_rows, Pattern::Team, &[]),
        stats_instance(),
        Instance::new(&__GRANULE_KERNEL_staged, Pattern::Team, &[]),
        // A team reduction over a 16-byte accumulator.
        Instance::new(
            &__GRANULE_KERNEL_nested_folds,
            Pattern::Reduce(codegen::Reducer::MaxLoc),
            &[],
        ),
    ]
}

fn stats_instance() -> Instance {
    use granule::kernel::DeviceReducer;
    let reducer = codegen::Reducer::Custom(<StatsOf as DeviceReducer>::DEVICE);
    Instance::new(&__GRANULE_KERNEL_stats, Pattern::Reduce(reducer), &[])
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
fn the_f32_kernels_do_no_double_math() {
    if !nvrtc_or_skip("the_f32_kernels_do_no_double_math") {
        return;
    }
    // `stats` meets untyped float literals through f32 struct fields.
    let unit = TranslationUnit::new(&[
        Instance::new(&__GRANULE_KERNEL_f32_only, Pattern::For, &[]),
        Instance::new(&__GRANULE_KERNEL_f32_helpers, Pattern::For, &[]),
        stats_instance(),
    ])
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
    let mut x_strided = View1::<f64, LayoutStride>::with_strides("xs", [4], [2]).unwrap();
    x_strided.for_each_mut(|[i], x| *x = i as f64);
    for i in 0..4 {
        dot::body(i, &mut acc, &x, &x_strided);
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
    let line = include_str!("../../../../macros/tests/golden/asserts.rs")
        .lines()
        .position(|l| l.trim_start().starts_with("assert!(i < n, \"index"))
        .expect("the kernel's first assertion")
        + 1;
    for cond in ["x [i] % 2 == 0", "x [i] != - 2: sentinel"] {
        assert!(
            src.contains(&format!("kernel `checked`: assertion failed: {cond}")),
            "{src}"
        );
    }
    assert!(
        src.contains(&format!(
            "golden/asserts.rs:{line}:5: kernel `checked`: index {{}} past {{}}"
        )),
        "line {line}: {src}"
    );
    assert!(src.contains("(!((i < n)) ? granule::assert_fail("), "{src}");
}

#[kernel(reduce)]
fn formatted_failure(i: usize, at: usize, half: f32, acc: &mut i64) {
    let d = i as i64 - 3;
    assert!(
        i != at,
        "i={i} d={} half={half:?} hit={hit} {{x}} hex={:x}",
        d,
        i,
        hit = i == at
    );
    *acc += 1;
}

#[kernel(reduce)]
fn formatted_ne(i: usize, at: u32, acc: &mut i64) {
    assert_ne!(i as u32, at, "{} {} {} {} {}", 1, 2.5, true, -4, 5);
    *acc += 1;
}

/// The panic of a reduction on the emulator that fails at index 1.
fn device_panic(run: impl FnOnce(&granule_cuda::Cuda)) -> String {
    let s = granule_cuda::Cuda::from_setting(Some("emulator")).unwrap_or_else(|e| panic!("{e}"));
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&s)))
        .expect_err("the assertion fails at index 1");
    p.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn device_assertions_format_their_scalar_arguments() {
    let msg = device_panic(|s| {
        let _: i64 = parallel_reduce(
            "fmt",
            RangePolicy::new(s, 0..4),
            Sum,
            formatted_failure(1, 1.0),
        );
    });
    // A negative signed value, an f32 with `{:?}`, a bool, an escaped
    // brace and a placeholder the device does not render (`{:x}`).
    assert!(
        msg.contains("kernel `formatted_failure`: i=1 d=-2 half=1.0 hit=true {x} hex={:x}"),
        "{msg}"
    );
    let msg = device_panic(|s| {
        let _: i64 = parallel_reduce("ne", RangePolicy::new(s, 0..4), Sum, formatted_ne(1));
    });
    // Four values are recorded; the fifth placeholder stays as written,
    // and the operands follow as Rust's assert_ne! shows them.
    assert!(
        msg.contains(
            "kernel `formatted_ne`: assertion failed: i as u32 != at: 1 2.5 true -4 {}\n  left: 1\n right: 1"
        ),
        "{msg}"
    );
}

#[test]
fn chunk_kernels_run_on_the_host() {
    let mut y = View1::<f32>::from_fn("y", 8, |i| i as f32).unwrap();
    parallel_for(
        "blocks",
        TeamPolicy::new(&Serial, 2, AUTO),
        y.chunked(MapContinuousLinear::new(4)),
        blocks(),
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
fn helper_results_keep_rust_semantics_on_the_host() {
    let x = View1::<f32>::from_fn("x", 2, |i| [4.0, -1e12][i]).unwrap();
    let (mut a, mut b) = (0.0, 0.0);
    f32_helpers::body(0, &mut a, &x);
    f32_helpers::body(1, &mut b, &x);
    // 2 + 1 + 6; then 2 + the saturated cast of -1.5e12.
    assert_eq!((a, b), (9.0, 2.0 + i32::MIN as f32));
    assert!(__GRANULE_KERNEL_f32_helpers
        .source
        .contains("granule::cast<granule::i32>"));
}

#[test]
fn custom_reducer_kernels_run_on_the_host() {
    let x = View1::<f32>::from_fn("x", 4, |i| [2.0, -4.0, 6.0, 8.0][i]).unwrap();
    let s = parallel_reduce("stats", RangePolicy::new(&Serial, 0..4), StatsOf, stats(&x));
    // v = x / 2 = [1, -2, 3, 4]: mean 1.5, mean of squares 7.5.
    assert_eq!(
        (s.sum, s.sum_sq, s.n, s.negative),
        (1.5, 7.5 - 2.25, 4, true)
    );
    let unit = TranslationUnit::new(&[stats_instance()]).unwrap();
    let src = unit.source();
    let (def, reducer, kernel) = (
        src.find("struct Stats {").expect("the struct"),
        src.find("struct StatsOf {").expect("the reducer"),
        src.find("__device__ void stats(").expect("the kernel"),
    );
    assert!(
        def < reducer && reducer < kernel,
        "definitions out of order"
    );
    assert!(src.contains("granule::drive_reduce<StatsOf"), "{src}");
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
