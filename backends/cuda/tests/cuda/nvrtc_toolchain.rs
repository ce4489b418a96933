//! The toolchain itself: the device header and hand-written kernels that
//! use every driver compile under NVRTC to PTX and CUBIN (sm_80, sm_90),
//! and a broken kernel gives an NvrtcError with the log and the source.

use crate::targets::{assert_outputs, compile_everywhere};
use granule_cuda::codegen::{Instance, Pattern, Reducer, TranslationUnit};
use granule_cuda::kernel::{DeviceKernel, DeviceLayout, KernelPattern, Param, ParamKind};
use granule_cuda::nvrtc::available_or_skip as nvrtc_or_skip;
use granule_cuda::nvrtc::{self, NvrtcError, Target};

// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static SCALE: DeviceKernel = unsafe {
    DeviceKernel::new("scale", KernelPattern::For, &["T"], &[
        Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
        Param { name: "y", kind: ParamKind::Out, cpp: "T" },
        Param { name: "a", kind: ParamKind::Scalar, cpp: "T" },
        Param { name: "x", kind: ParamKind::View { rank: 2, layout: DeviceLayout::Left }, cpp: "T" },
    ], "template <class T>\n__device__ void scale(granule::usize i, T& y, T a, granule::View<const T, 2, granule::LayoutLeft> x) {\n  y = a * x(i, 0);\n}\n", &[])
};

// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static HIST: DeviceKernel = unsafe {
    DeviceKernel::new("hist", KernelPattern::For, &[], &[
        Param { name: "team", kind: ParamKind::Team, cpp: "granule::TeamMember" },
        Param { name: "x", kind: ParamKind::View { rank: 1, layout: DeviceLayout::Right }, cpp: "granule::f32" },
        Param { name: "h", kind: ParamKind::Atomic { rank: 1 }, cpp: "granule::f32" },
    ], "__device__ void hist(const granule::TeamMember& team, granule::View<const granule::f32, 1, granule::LayoutRight> x, granule::AtomicView<granule::f32, 1> h) {\n  granule::f32 s = granule::team_thread_reduce<granule::Sum<granule::f32>, granule::f32>(team, 0, x.extent(0), [&](granule::usize j, granule::f32& acc) { acc += x(j); });\n  granule::atomic_fetch_max(h.at(team.league_rank() % h.extent(0)), s);\n}\n", &[])
};

// Scans whose values the conformance suite does not have: sub-word
// values (packed into the tile state word), and tuples of 12 and 24 bytes
// (the value buffer, 2 items and 1 item per thread).
// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static SCAN_SCALAR: DeviceKernel = unsafe {
    DeviceKernel::new("scan_scalar", KernelPattern::Scan, &["T"], &[
        Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
        Param { name: "x", kind: ParamKind::View { rank: 1, layout: DeviceLayout::Right }, cpp: "T" },
        Param { name: "y", kind: ParamKind::Out, cpp: "T" },
        Param { name: "partial", kind: ParamKind::Out, cpp: "T" },
        Param { name: "last", kind: ParamKind::Final, cpp: "bool" },
    ], "template <class T>\n__device__ void scan_scalar(granule::usize i, granule::View<const T, 1, granule::LayoutRight> x, T& y, T& partial, bool last) {\n  if (last) y = partial;\n  partial = (T)(partial + x(i));\n}\n", &[])
};

// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static SCAN_TUPLE: DeviceKernel = unsafe {
    DeviceKernel::new("scan_tuple", KernelPattern::Scan, &["T"], &[
        Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
        Param { name: "x", kind: ParamKind::View { rank: 1, layout: DeviceLayout::Right }, cpp: "T" },
        Param { name: "y", kind: ParamKind::Out, cpp: "T" },
        Param { name: "partial", kind: ParamKind::Out, cpp: "T" },
        Param { name: "last", kind: ParamKind::Final, cpp: "bool" },
    ], "template <class T>\n__device__ void scan_tuple(granule::usize i, granule::View<const T, 1, granule::LayoutRight> x, T& y, T& partial, bool last) {\n  T v = x(i);\n  granule::get<0>(partial) += granule::get<0>(v);\n  granule::get<1>(partial) = granule::max(granule::get<1>(partial), granule::get<1>(v));\n  if (last) y = partial;\n}\n", &[])
};

fn instances() -> Vec<Instance> {
    vec![
        Instance::new(&SCALE, Pattern::For, &["granule::f32"]),
        Instance::new(&SCALE, Pattern::For, &["granule::f64"]),
        Instance::new(&SCALE, Pattern::Reduce(Reducer::Max), &["granule::i64"]),
        Instance::new(&HIST, Pattern::Team, &[]),
        Instance::new(&SCAN_SCALAR, Pattern::Scan(Reducer::Sum), &["granule::u8"]),
        Instance::new(&SCAN_SCALAR, Pattern::Scan(Reducer::Sum), &["granule::i16"]),
        Instance::new(&SCAN_SCALAR, Pattern::Scan(Reducer::LOr), &["bool"]),
        Instance::new(
            &SCAN_TUPLE,
            Pattern::Scan(Reducer::Tuple(&[Reducer::Sum, Reducer::Max])),
            &["granule::Tuple<granule::f32, granule::i32>"],
        ),
        Instance::new(
            &SCAN_TUPLE,
            Pattern::Scan(Reducer::Tuple(&[Reducer::Sum, Reducer::Max, Reducer::Min])),
            &["granule::Tuple<granule::f64, granule::i64, granule::i32>"],
        ),
    ]
}

#[test]
fn hand_written_kernels_compile_for_every_target() {
    if !nvrtc_or_skip("hand_written_kernels_compile_for_every_target") {
        return;
    }
    let unit = TranslationUnit::new(&instances()).unwrap();
    let outputs = compile_everywhere(unit.source(), "hand.cu");
    assert_outputs(&outputs, unit.entries());
}

#[test]
fn nvrtc_is_version_12() {
    if !nvrtc_or_skip("nvrtc_is_version_12") {
        return;
    }
    assert_eq!(nvrtc::version().unwrap().0, 12);
}

#[test]
fn a_compile_error_carries_the_log_and_the_failing_line() {
    if !nvrtc_or_skip("a_compile_error_carries_the_log_and_the_failing_line") {
        return;
    }
    let source = format!(
        "{}\n__device__ int broken() {{\n  return undefined_name + 1;\n}}\n",
        granule_cuda::device::HEADER
    );
    let bad_line = source
        .lines()
        .position(|l| l.contains("undefined_name"))
        .unwrap()
        + 1;
    let err = nvrtc::compile(&source, "broken.cu", Target::Ptx(80), &[]).unwrap_err();
    let NvrtcError::Compile { log, excerpts, .. } = &err else {
        panic!("not a compile error: {err}")
    };
    assert!(
        log.contains(&format!("broken.cu({bad_line}): error")),
        "{log}"
    );
    assert_eq!(excerpts.len(), 1);
    assert_eq!(excerpts[0].line, bad_line);
    let shown = err.to_string();
    assert!(shown.contains("undefined_name"), "{shown}");
    assert!(
        shown.contains(&format!(">{bad_line:6} |   return undefined_name + 1;")),
        "{shown}"
    );
}

#[test]
fn cubin_checks_resource_limits() {
    if !nvrtc_or_skip("cubin_checks_resource_limits") {
        return;
    }
    // 64 KiB of static shared memory exceeds the 48 KiB static limit:
    // PTX generation accepts it, ptxas (CUBIN) must not.
    let source = "extern \"C\" __global__ void big(float* p) { __shared__ float s[16384]; s[threadIdx.x] = 1.0f; __syncthreads(); p[threadIdx.x] = s[threadIdx.x ^ 1]; }";
    assert!(nvrtc::compile(source, "big.cu", Target::Ptx(80), &[]).is_ok());
    let err = nvrtc::compile(source, "big.cu", Target::Cubin(80), &[]).unwrap_err();
    assert!(matches!(err, NvrtcError::Compile { .. }), "{err}");
}
