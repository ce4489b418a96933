//! The same bits as the host, and no surprise on the first GPU launch,
//! checked where no GPU is needed:
//! - NVRTC contracts no multiply-add unless a space opts in (the PTX of
//!   `a * x[i] + y` holds no `fma` by default; `mul_add` always does), and
//!   a space's float mode reaches the compiler;
//! - every entry point carries a parameter table, the same under NVRTC and
//!   the emulator's compiler, that launches are checked against;
//! - a failed device assertion leaves its message in the error record, so
//!   both devices format it alike, and a space reports what became of it.
//!
//! The dispatch tests run on the space `GRANULE_CUDA` names (the emulator
//! by default), so a GPU run checks the GPU's bits and messages too.

// The kernels spell out `a * x + y`, the expression a GPU compiler would
// contract.
#![allow(clippy::assign_op_pattern)]

use granule_core::kernel::{kernel, KernelSource};
use granule_core::prelude::*;
use granule_cuda::codegen::{params_symbol, Instance, Pattern, Reducer, TranslationUnit};
use granule_cuda::device_api::{Device, DeviceError, KernelArgs, LaunchConfig};
use granule_cuda::emu::EmuDevice;
use granule_cuda::nvrtc::{self, available_or_skip as nvrtc_or_skip, FloatMode, Target};
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{create_mirror_view_and_copy, deep_copy, LayoutRight, View2};

#[kernel(crate = granule_core)]
fn axpy_f32(i: usize, y: &mut f32, a: f32, x: &View1<f32>) {
    *y = a * x[i] + *y;
}

#[kernel(crate = granule_core)]
fn axpy_f64(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a * x[i] + *y;
}

#[kernel(crate = granule_core)]
fn fused_f32(i: usize, y: &mut f32, a: f32, x: &View1<f32>) {
    *y = a.mul_add(x[i], *y);
}

#[kernel(crate = granule_core)]
fn fused_f64(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a.mul_add(x[i], *y);
}

#[kernel(crate = granule_core)]
fn ratio(i: usize, y: &mut f32, x: &View1<f32>) {
    *y = x[i] / (x[i] + 3.0);
}

fn for_instance<K: KernelSource>() -> Instance {
    Instance::new(K::KERNEL, Pattern::For, &[])
}

/// The PTX NVRTC makes of `unit` in its float mode.
fn ptx(unit: &TranslationUnit) -> String {
    let out = nvrtc::compile_with(
        unit.source(),
        "fidelity.cu",
        Target::Ptx(90),
        unit.float_mode(),
        &[],
    )
    .unwrap_or_else(|e| panic!("{:?}: {e}", unit.float_mode()));
    String::from_utf8(out.bytes).expect("PTX is text")
}

/// The instructions of entry `name` (the drivers inline the kernel).
fn body<'p>(ptx: &'p str, name: &str) -> &'p str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no entry {name}"));
    let rest = &ptx[start..];
    &rest[..rest.find("\n}\n").expect("an entry ends")]
}

fn fmas(body: &str) -> Vec<&str> {
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("fma."))
        .collect()
}

fn unit_in(mode: FloatMode) -> TranslationUnit {
    TranslationUnit::new(&[
        for_instance::<axpy_f32>(),
        for_instance::<axpy_f64>(),
        for_instance::<fused_f32>(),
        for_instance::<fused_f64>(),
        for_instance::<ratio>(),
    ])
    .unwrap()
    .with_float_mode(mode)
}

#[test]
fn only_an_opted_in_space_contracts_a_multiply_and_an_add() {
    if !nvrtc_or_skip("only_an_opted_in_space_contracts_a_multiply_and_an_add") {
        return;
    }
    for mode in [FloatMode::Exact, FloatMode::Contract, FloatMode::Fast] {
        let ptx = ptx(&unit_in(mode));
        for (entry, ty) in [
            ("granule_for_axpy_f32", "f32"),
            ("granule_for_axpy_f64", "f64"),
        ] {
            let b = body(&ptx, entry);
            let fused = fmas(b);
            if mode == FloatMode::Exact {
                assert!(fused.is_empty(), "{mode:?} {entry}: {fused:?}");
                assert!(b.contains(&format!("mul.rn.{ty}")), "{entry}:\n{b}");
                assert!(b.contains(&format!("add.rn.{ty}")), "{entry}:\n{b}");
            } else {
                assert!(
                    fused
                        .iter()
                        .any(|l| l.starts_with("fma.rn") && l.contains(ty)),
                    "{mode:?} {entry}:\n{b}"
                );
            }
        }
        for (entry, ty) in [
            ("granule_for_fused_f32", "f32"),
            ("granule_for_fused_f64", "f64"),
        ] {
            let fused = fmas(body(&ptx, entry));
            assert!(
                fused
                    .iter()
                    .any(|l| l.starts_with("fma.rn") && l.contains(ty)),
                "{mode:?} {entry}: mul_add is an fma in every mode: {fused:?}"
            );
        }
    }
}

#[test]
fn the_default_compile_is_the_exact_one() {
    if !nvrtc_or_skip("the_default_compile_is_the_exact_one") {
        return;
    }
    let unit = TranslationUnit::new(&[for_instance::<axpy_f32>()]).unwrap();
    assert_eq!(unit.float_mode(), FloatMode::Exact);
    let out = nvrtc::compile(unit.source(), "fidelity.cu", Target::Ptx(90), &[]).unwrap();
    let plain = String::from_utf8(out.bytes).unwrap();
    assert!(fmas(body(&plain, "granule_for_axpy_f32")).is_empty());
    assert_eq!(
        plain,
        ptx(&unit),
        "nvrtc::compile is compile_with(.., Exact, ..)"
    );
}

#[test]
fn fast_math_approximates_f32_division_and_flushes_denormals() {
    if !nvrtc_or_skip("fast_math_approximates_f32_division_and_flushes_denormals") {
        return;
    }
    let exact = ptx(&unit_in(FloatMode::Exact));
    let contract = ptx(&unit_in(FloatMode::Contract));
    let fast = ptx(&unit_in(FloatMode::Fast));
    for p in [&exact, &contract] {
        let b = body(p, "granule_for_ratio");
        assert!(b.contains("div.rn.f32") && !b.contains(".ftz"), "{b}");
    }
    let b = body(&fast, "granule_for_ratio");
    assert!(b.contains("div.approx.ftz.f32"), "{b}");
    // f64 is only contracted.
    let b = body(&fast, "granule_for_axpy_f64");
    assert!(!b.contains(".ftz") && !b.contains("approx"), "{b}");
}

type DView1<T> = View1<T, LayoutRight, CudaSpace>;

fn upload<T: granule_views::Element>(s: &Cuda, label: &str, v: Vec<T>) -> DView1<T> {
    let n = v.len();
    let host = View1::<T>::from_vec(label, n, v).unwrap();
    let mut d = DView1::<T>::zeros_in(s.memory_space(), label, n).unwrap();
    deep_copy(&mut d, &host).unwrap();
    d
}

fn download<T: granule_views::Element>(v: &DView1<T>) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
}

/// The space under test: the emulator, or what `GRANULE_CUDA` names.
fn space() -> Cuda {
    Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
}

/// Values whose `a * x + y` rounds differently once fused: x = 1 + k u,
/// a = 1 - k u (u = 2^-23 for f32), so a * x = 1 - k^2 u^2, which f32
/// rounds to 1 while an fma keeps it, and y = -1 leaves only that part.
fn inputs_f32(n: usize) -> (f32, Vec<f32>, Vec<f32>) {
    let u = f32::EPSILON;
    let x: Vec<f32> = (0..n).map(|k| 1.0 + (k % 64 + 1) as f32 * u).collect();
    (1.0 - 3.0 * u, x, vec![-1.0; n])
}

/// Runs `a * x + y` and `a.mul_add(x, y)` in `mode` and checks the bits:
/// the host's two roundings for the first, unless a GPU was allowed to
/// contract it; `f32::mul_add`'s one rounding for the second, always.
fn check_bits(mode: FloatMode) {
    let s = space().with_float_mode(mode);
    let n = 1000;
    let (a, xs, ys) = inputs_f32(n);
    let x = upload(&s, "x", xs.clone());
    let mut y = upload(&s, "y", ys.clone());
    parallel_for("axpy", RangePolicy::new(&s, 0..n), &mut y, axpy_f32(a, &x));
    let mut z = upload(&s, "z", ys.clone());
    parallel_for(
        "fused",
        RangePolicy::new(&s, 0..n),
        &mut z,
        fused_f32(a, &x),
    );
    let (got_y, got_z) = (download(&y), download(&z));
    let contracted = mode != FloatMode::Exact && s.device().name() != "emulator";
    for i in 0..n {
        let (two, one) = (a * xs[i] + ys[i], a.mul_add(xs[i], ys[i]));
        assert_ne!(
            two.to_bits(),
            one.to_bits(),
            "the inputs tell the two apart"
        );
        let want = if contracted { one } else { two };
        assert_eq!(got_y[i].to_bits(), want.to_bits(), "{mode:?} axpy y[{i}]");
        assert_eq!(got_z[i].to_bits(), one.to_bits(), "{mode:?} mul_add z[{i}]");
    }
}

#[test]
fn exact_spaces_give_the_host_bits() {
    check_bits(FloatMode::Exact);
}

#[test]
fn contracting_spaces_fuse_only_on_a_gpu() {
    check_bits(FloatMode::Contract);
}

// ---------------------------------------------------------- parameter tables

#[kernel(crate = granule_core, reduce)]
fn dot(i: usize, x: &View1<f64>, acc: &mut f64) {
    *acc += x[i] * x[i];
}

#[kernel(crate = granule_core, scan)]
fn prefix(i: usize, x: &View1<i64>, out: &mut i64, p: &mut i64, last: bool) {
    *p += x[i];
    if last {
        *out = *p;
    }
}

#[kernel(crate = granule_core)]
fn cells([i, j]: [usize; 2], y: &mut u32, k: u16) {
    *y = (i * 100 + j) as u32 + k as u32;
}

#[kernel(crate = granule_core, reduce)]
fn team_ranks(m: &TeamMember, flag: bool, acc: &mut usize) {
    let top = m.team_reduce(Max, m.team_rank());
    if flag && m.team_rank() == 0 {
        *acc += top;
    }
}

#[kernel(crate = granule_core)]
fn team_rows(m: &TeamMember, mut row: TeamChunk<u32>) {
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(1), m.thread_ids())
        .unwrap();
    mine[0] = (m.league_rank() * 100 + m.team_rank()) as u32;
}

/// One instance of every driver: range for, reduce and scan, MDRange,
/// team for and team reduce.
fn every_driver() -> Vec<Instance> {
    vec![
        for_instance::<axpy_f32>(),
        Instance::new(
            <dot as KernelSource>::KERNEL,
            Pattern::Reduce(Reducer::Sum),
            &[],
        ),
        Instance::new(
            <prefix as KernelSource>::KERNEL,
            Pattern::Scan(Reducer::Sum),
            &[],
        ),
        for_instance::<cells>(),
        Instance::new(<team_rows as KernelSource>::KERNEL, Pattern::Team, &[]),
        Instance::new(
            <team_ranks as KernelSource>::KERNEL,
            Pattern::Reduce(Reducer::Max),
            &[],
        ),
    ]
}

/// The tables a PTX defines: `.global .align 8 .b8 <symbol>[N] = {bytes};`
/// (trailing zero bytes left out), read as the count and sizes.
fn ptx_table(ptx: &str, entry: &str) -> Vec<usize> {
    let symbol = format!(" {}[", params_symbol(entry));
    let line = ptx
        .lines()
        .find(|l| l.starts_with(".global") && l.contains(&symbol))
        .unwrap_or_else(|| panic!("no table for {entry}"));
    let (decl, init) = line.split_once(" = {").expect("an initialized table");
    let len: usize = decl
        .rsplit_once('[')
        .unwrap()
        .1
        .trim_end_matches(']')
        .parse()
        .unwrap();
    let mut bytes: Vec<u8> = init
        .trim_end_matches("};")
        .split(',')
        .map(|b| b.trim().parse().unwrap())
        .collect();
    bytes.resize(len, 0);
    let words: Vec<usize> = bytes
        .chunks(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()) as usize)
        .collect();
    words[1..=words[0]].to_vec()
}

#[test]
fn parameter_tables_agree_under_nvrtc_and_the_emulator() {
    if !nvrtc_or_skip("parameter_tables_agree_under_nvrtc_and_the_emulator") {
        return;
    }
    let unit = TranslationUnit::new(&every_driver()).unwrap();
    let ptx = ptx(&unit);
    let emu = EmuDevice::new().unwrap();
    let module = emu.compile(&unit, "tables").unwrap();
    for entry in unit.entries() {
        let table = ptx_table(&ptx, entry);
        assert_eq!(
            emu.entry_params(&module, entry),
            Some(table.as_slice()),
            "{entry}"
        );
    }
    // The layouts KernelArgs documents, for the plain range entry:
    // begin, end, y (a rank-1 View: data, extent, stride, id), a, x.
    let mut args = KernelArgs::new();
    args.scalar(0u64)
        .scalar(4u64)
        .view(0, &[4], &[1], 1)
        .scalar(2.0f32)
        .view(0, &[4], &[1], 2);
    let table = ptx_table(&ptx, "granule_for_axpy_f32");
    assert_eq!(table, [8, 8, 32, 4, 32]);
    args.check_params(&table).unwrap();
}

#[test]
fn every_driver_launches_with_the_arguments_its_table_lists() {
    // The device refuses a launch whose arguments differ from the entry's
    // table (emulator and GPU alike), so each dispatch below proves that
    // the launcher packs what the table lists.
    let s = space();
    let n = 64;
    let xf = upload(&s, "xf", vec![1.5f64; n]);
    let got: f64 = parallel_reduce("dot", RangePolicy::new(&s, 0..n), Sum, dot(&xf));
    assert_eq!(got, 1.5 * 1.5 * n as f64);
    let xi = upload(&s, "xi", vec![2i64; n]);
    let mut out = upload(&s, "out", vec![0i64; n]);
    let total: i64 = parallel_scan("prefix", RangePolicy::new(&s, 0..n), &mut out, prefix(&xi));
    assert_eq!((total, download(&out)[n - 1]), (2 * n as i64, 2 * n as i64));
    let mut c =
        View2::<u32, LayoutRight, CudaSpace>::zeros_in(s.memory_space(), "c", [3, 5]).unwrap();
    parallel_for(
        "cells",
        MDRangePolicy::new(&s, [0, 0], [3, 5]),
        &mut c,
        cells(7u16),
    );
    assert_eq!(create_mirror_view_and_copy(&c).unwrap()[[2, 4]], 211);
    let p = TeamPolicy::new(&s, 4, 64);
    let max: usize = parallel_reduce("ranks", p, Max, team_ranks(true));
    assert_eq!(max, 63);
    let mut rows = upload(&s, "rows", vec![0u32; 4 * 32]);
    let p = TeamPolicy::new(&s, 4, 32);
    parallel_for(
        "rows",
        p,
        rows.chunked(MapContinuousLinear::new(32)),
        team_rows(),
    );
    let got = download(&rows);
    assert!(
        (0..4 * 32).all(|k| got[k] == (k / 32 * 100 + k % 32) as u32),
        "{got:?}"
    );
}

#[test]
fn arguments_that_differ_from_the_table_are_refused() {
    let dev = EmuDevice::new().unwrap();
    let unit = TranslationUnit::new(&[for_instance::<axpy_f32>()]).unwrap();
    let module = dev.compile(&unit, "axpy").unwrap();
    let y = dev.alloc_zeroed(16).unwrap();
    let mut args = KernelArgs::new();
    // `a` as an f64: 8 bytes where the entry takes 4.
    args.scalar(0u64)
        .scalar(4u64)
        .view(y.address(), &[4], &[1], 1)
        .scalar(2.0f64)
        .view(y.address(), &[4], &[1], 2);
    let config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: refused before anything runs (that is what is tested); the
    // addresses are a live buffer of 4 f32s.
    let e = unsafe { dev.launch_and_wait(&module, "granule_for_axpy_f32", &config, &args) }
        .unwrap_err();
    assert!(matches!(e, DeviceError::InvalidLaunch { .. }), "{e}");
    assert!(
        e.to_string().contains(
            "the entry takes 5 parameters of [8, 8, 32, 4, 32] bytes, the arguments are 5 of \
             [8, 8, 32, 8, 32] bytes"
        ),
        "{e}"
    );
    dev.free(y).unwrap();
}

// ---------------------------------------------------------- error records

#[kernel(crate = granule_core, reduce)]
fn checked_sum(i: usize, at: usize, half: f32, acc: &mut i64) {
    assert!(i != at, "i={i} half={half:?} left {}", at - i);
    *acc += 1;
}

/// A message longer than the record keeps (511 bytes): cut, and marked.
#[kernel(crate = granule_core, reduce)]
fn long_message(i: usize, at: usize, acc: &mut i64) {
    assert!(i != at, "start xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx end {}", i);
    *acc += 1;
}

/// The panic message of `run` on a fresh space (a GPU run loses the
/// space's context), and that space.
fn device_panic(run: impl FnOnce(&Cuda)) -> (String, Cuda) {
    let s = space();
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&s)))
        .expect_err("the kernel fails");
    let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
    (msg, s)
}

#[test]
fn a_failed_assertion_gives_its_formatted_message() {
    let (msg, s) = device_panic(|s| {
        let _: i64 = parallel_reduce(
            "check",
            RangePolicy::new(s, 0..64),
            Sum,
            checked_sum(9, 0.5),
        );
    });
    assert!(
        msg.contains("kernel `checked_sum`: i=9 half=0.5 left 0"),
        "{msg}"
    );
    assert!(msg.contains("fidelity.rs:"), "{msg}");
    // After a device panic the device goes on, on a GPU too (the failing
    // thread stops without a trap).
    s.device().synchronize().unwrap();
}

#[test]
fn a_message_longer_than_the_record_is_cut_and_marked() {
    let (msg, _) = device_panic(|s| {
        let _: i64 = parallel_reduce("long", RangePolicy::new(s, 0..64), Sum, long_message(5));
    });
    assert!(msg.contains("kernel `long_message`: start xxxx"), "{msg}");
    assert!(!msg.contains(" end "), "the tail is cut: {msg}");
    assert!(
        msg.contains("x [...: the device keeps the first 511 bytes of a message]"),
        "{msg}"
    );
}
