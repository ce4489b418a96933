//! One body, one semantics: every operator, cast and method the kernel
//! translator accepts, for every scalar type it accepts, evaluated by a
//! `#[kernel]` over edge values (0, ±1, MIN, MAX, NaN, ±inf, -0.0,
//! subnormals, shift amounts at and past the width, divisors 0 and -1) on
//! every space, and compared bitwise with the same expression evaluated by
//! plain Rust on the host.
//!
//! - One kernel per scalar type ([`probes!`]): work item `i` evaluates
//!   operation `op[i]` on `(a[i], b[i], c[i])` and writes its result's bits
//!   (`lo`, and `hi` for the flag of a pair or an Option).
//! - The host reference ([`Expected`]) evaluates the same expression in
//!   plain Rust twice: as written (what the host spaces run, with this
//!   build's overflow checks) and in its release form (the `=> ..` beside
//!   an operator, what a device computes: Rust's release profile wraps).
//!   In a release build both must agree; in a debug build they may differ
//!   only where the written form panics on overflow.
//! - A point whose expected outcome is a panic runs alone and must panic
//!   on the space too (a device failure, reported as the dispatch's
//!   panic); up to [`PANICS_PER_CAUSE`] points per operation and panic
//!   message run (`semantic_panics_of_*`, apart from the values), the
//!   others are counted.
//! - Floats compare bit for bit, except where Rust leaves the bits open:
//!   the payload and sign of a NaN that arithmetic makes (`float` ops), and
//!   the sign of a zero that `min`/`max`/`clamp` return from zeros of both
//!   signs (`zero` ops). Sign-bit operations (`-x`, `abs`, `copysign`,
//!   `from_bits`, `signum`) keep NaN bits exactly (`bits` ops).
//! - Transcendental functions and `powi` cannot match the host's libm on a
//!   GPU: [`bounded!`] checks them against the ulp bounds the kernel README
//!   documents (CUDA's, plus the host libm's own error).
//!
//! `semantics_tests!()` instantiates the checks per space; each prints its
//! count of probe points. The probes are in `probes.rs`, the bounded
//! functions in `bounded.rs`, and `undefined.rs` runs the probe kernels'
//! C++ under UndefinedBehaviorSanitizer.

mod bounded;
mod probes;
mod undefined;

pub use bounded::*;
pub use probes::*;

use granule::kernel::DeviceKernel;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Panicking points run per operation and distinct panic message.
pub const PANICS_PER_CAUSE: usize = 2;

/// What the two result words of a point must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub lo: u64,
    pub hi: u64,
    /// For a float result, its width and how leniently it compares.
    pub float: Option<(u32, Lenience)>,
}

/// Where Rust leaves a float result's bits open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lenience {
    /// Every bit counts, NaN payloads included.
    None,
    /// Any NaN matches a NaN.
    Nan,
    /// Any NaN matches a NaN, and either zero a zero.
    NanAndZeroSign,
}

/// A float result as the probes record it.
pub trait FloatWord: Copy {
    const WIDTH: u32;
    fn word(self) -> u64;
}
impl FloatWord for f32 {
    const WIDTH: u32 = 32;
    fn word(self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl FloatWord for f64 {
    const WIDTH: u32 = 64;
    fn word(self) -> u64 {
        self.to_bits()
    }
}

impl Expected {
    pub fn int(lo: u64) -> Self {
        Expected {
            lo,
            hi: 0,
            float: None,
        }
    }
    pub fn pair(lo: u64, hi: bool) -> Self {
        Expected {
            lo,
            hi: u64::from(hi),
            float: None,
        }
    }
    pub fn float<F: FloatWord>(v: F, lenience: Lenience) -> Self {
        Expected {
            lo: v.word(),
            hi: 0,
            float: Some((F::WIDTH, lenience)),
        }
    }

    /// Whether the words a space wrote mean this result.
    pub fn matches(&self, lo: u64, hi: u64) -> bool {
        if (lo, hi) == (self.lo, self.hi) {
            return true;
        }
        let Some((width, lenience)) = self.float else {
            return false;
        };
        // (is NaN, is zero) of a word of this width.
        let class = |w: u64| {
            if width == 32 {
                let f = f32::from_bits(w as u32);
                (f.is_nan(), f == 0.0)
            } else {
                let f = f64::from_bits(w);
                (f.is_nan(), f == 0.0)
            }
        };
        let (want, got) = (class(self.lo), class(lo));
        let nans = want.0 && got.0;
        hi == self.hi
            && match lenience {
                Lenience::None => false,
                Lenience::Nan => nans,
                Lenience::NanAndZeroSign => nans || (want.1 && got.1),
            }
    }
}

/// The outcome of evaluating a point on the host: its result or the
/// message of its panic.
pub type Outcome = Result<Expected, String>;

/// Silences the panics the probes expect: the reference evaluations and
/// the dispatches of panicking points (their payloads are checked, their
/// messages would only flood the output).
pub mod quiet {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Once;

    thread_local!(static QUIET: Cell<bool> = const { Cell::new(false) });
    /// Dispatches of panicking points under way: their panics on Rayon
    /// workers are expected too.
    static PROBING: AtomicUsize = AtomicUsize::new(0);
    static HOOK: Once = Once::new();

    fn install() {
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let probing = PROBING.load(Ordering::SeqCst) > 0;
                if QUIET.with(Cell::get) || (probing && rayon::current_thread_index().is_some()) {
                    return;
                }
                previous(info)
            }));
        });
    }

    /// Restores the thread's flag (and the dispatch count) on the way out,
    /// unwinding included.
    struct Reset {
        quiet: bool,
        probing: bool,
    }
    impl Drop for Reset {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.quiet));
            if self.probing {
                PROBING.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    fn quietly<R>(probing: bool, f: impl FnOnce() -> R) -> R {
        install();
        if probing {
            PROBING.fetch_add(1, Ordering::SeqCst);
        }
        let _reset = Reset {
            quiet: QUIET.with(|q| q.replace(true)),
            probing,
        };
        f()
    }

    /// Runs `f` with this thread's expected panics unprinted (the host
    /// reference).
    pub fn run<R>(f: impl FnOnce() -> R) -> R {
        quietly(false, f)
    }

    /// Runs `f`, a dispatch of a panicking point, with this thread's and
    /// (while it runs) Rayon's workers' panics unprinted.
    pub fn dispatch<R>(f: impl FnOnce() -> R) -> R {
        quietly(true, f)
    }
}

/// The text of a panic payload.
fn message(payload: &(dyn Any + Send)) -> String {
    crate::soundness::message(payload)
}

/// `f()`, or the message it panicked with.
pub fn outcome(f: impl FnOnce() -> Expected) -> Outcome {
    quiet::run(|| catch_unwind(AssertUnwindSafe(f)).map_err(|p| message(&*p)))
}

/// One point: the operation and its operands.
#[derive(Clone, Copy, Debug)]
pub struct Point<T> {
    pub op: u32,
    pub a: T,
    pub b: T,
    pub c: T,
}

/// A space's work for one scalar type: the points that must give values,
/// with their values, and the points that must panic.
pub struct Plan<T> {
    pub batch: Vec<Point<T>>,
    pub expected: Vec<Expected>,
    /// Points to run alone, each with (the start of) the message the host
    /// panics with.
    pub panics: Vec<(Point<T>, String)>,
    /// Every panicking point, run or not.
    pub panicking: usize,
}

/// What a probe module provides to [`plan`].
pub struct Probes<T: 'static> {
    pub type_name: &'static str,
    pub values: &'static [T],
    /// Name and arity of each operation, in the kernel's order.
    pub ops: &'static [(&'static str, usize)],
    /// The host reference: `(op, a, b, c, release form?)`.
    pub reference: fn(u32, T, T, T, bool) -> Expected,
}

/// Whether this build checks integer overflow (a debug build), which the
/// host spaces then do in kernel bodies.
pub fn overflow_checks() -> bool {
    let max = std::hint::black_box(i8::MAX);
    quiet::run(|| catch_unwind(|| max + std::hint::black_box(1i8)).is_err())
}

/// Every point of every operation over the type's edge values, with the
/// outcome the space must show: the release form on a device, the form
/// as written (this build's profile) on a host space.
pub fn plan<T: Copy + std::fmt::Debug>(p: &Probes<T>, device: bool) -> Plan<T> {
    let checks = overflow_checks();
    let mut plan = Plan {
        batch: Vec::new(),
        expected: Vec::new(),
        panics: Vec::new(),
        panicking: 0,
    };
    let mut causes: Vec<(u32, String, usize)> = Vec::new();
    for (op, &(name, arity)) in p.ops.iter().enumerate() {
        let op = op as u32;
        for pt in points(p.values, arity, op) {
            let written = outcome(|| (p.reference)(op, pt.a, pt.b, pt.c, false));
            let release = outcome(|| (p.reference)(op, pt.a, pt.b, pt.c, true));
            check_release_form(p.type_name, name, &pt, &written, &release, checks);
            match if device { release } else { written } {
                Ok(e) => {
                    plan.batch.push(pt);
                    plan.expected.push(e);
                }
                Err(m) => {
                    plan.panicking += 1;
                    // The cause: the message without the values in it
                    // (clamp's names its bounds).
                    let m =
                        m[..m.find(|c: char| c.is_ascii_digit()).unwrap_or(m.len())].to_string();
                    match causes.iter_mut().find(|(o, c, _)| *o == op && *c == m) {
                        Some((_, _, n)) if *n >= PANICS_PER_CAUSE => {}
                        Some((_, _, n)) => {
                            *n += 1;
                            plan.panics.push((pt, m));
                        }
                        None => {
                            causes.push((op, m.clone(), 1));
                            plan.panics.push((pt, m));
                        }
                    }
                }
            }
        }
    }
    plan
}

/// The written and release forms agree, except that with overflow checks
/// the written one may panic on overflow where the release one wraps.
fn check_release_form<T: std::fmt::Debug>(
    ty: &str,
    name: &str,
    pt: &Point<T>,
    written: &Outcome,
    release: &Outcome,
    checks: bool,
) {
    let overflow_only = matches!((written, release), (Err(m), Ok(_)) if m.contains("overflow"));
    assert!(
        written == release || (checks && overflow_only),
        "{ty}::{name} at {pt:?}: the release form gives {release:?}, the written one {written:?}"
    );
}

/// The operand triples of an operation of `arity` (unused operands are the
/// first value).
fn points<T: Copy>(values: &[T], arity: usize, op: u32) -> Vec<Point<T>> {
    let v0 = values[0];
    let mut out = Vec::new();
    let (na, nb, nc) = match arity {
        1 => (values.len(), 1, 1),
        2 => (values.len(), values.len(), 1),
        _ => (values.len(), values.len(), values.len()),
    };
    for i in 0..na {
        for j in 0..nb {
            for k in 0..nc {
                out.push(Point {
                    op,
                    a: values[i],
                    b: if arity >= 2 { values[j] } else { v0 },
                    c: if arity >= 3 { values[k] } else { v0 },
                });
            }
        }
    }
    out
}

/// The differences between what a space wrote and the plan, described.
pub fn differences<T: Copy + std::fmt::Debug>(
    p: &Probes<T>,
    plan: &Plan<T>,
    lo: &[u64],
    hi: &[u64],
) -> Vec<String> {
    plan.batch
        .iter()
        .zip(&plan.expected)
        .enumerate()
        .filter(|(i, (_, e))| !e.matches(lo[*i], hi[*i]))
        .map(|(i, (pt, e))| {
            format!(
                "{}::{}{:?}: got ({:#x}, {}), want ({:#x}, {}) {:?}",
                p.type_name,
                p.ops[pt.op as usize].0,
                (pt.a, pt.b, pt.c),
                lo[i],
                hi[i],
                e.lo,
                e.hi,
                e.float
            )
        })
        .collect()
}

/// Runs a type's probes on a space through `run` (which dispatches the
/// probe kernel over the points and reads back `lo` and `hi`): the points
/// that give values, in one dispatch, compared bitwise. Prints the probe
/// count.
pub fn check_values<T: Copy + std::fmt::Debug>(
    p: &Probes<T>,
    space: &str,
    run: impl Fn(&[Point<T>]) -> (Vec<u64>, Vec<u64>),
) {
    let plan = plan(p, space == "Cuda");
    let (lo, hi) = run(&plan.batch);
    let diffs = differences(p, &plan, &lo, &hi);
    println!(
        "semantics of {} on {space}: {} probe points ({} values compared bitwise, {} panicking), {} differences",
        p.type_name,
        plan.batch.len() + plan.panicking,
        plan.batch.len(),
        plan.panicking,
        diffs.len()
    );
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs[..diffs.len().min(40)].join("\n")
    );
}

/// Runs the sampled panicking points of a type alone, each of which must
/// panic on the space too.
pub fn check_panics<T: Copy + std::fmt::Debug>(
    p: &Probes<T>,
    space: &str,
    run: impl Fn(&[Point<T>]) -> (Vec<u64>, Vec<u64>),
) {
    let plan = plan(p, space == "Cuda");
    let run_here: Vec<&(Point<T>, String)> = plan.panics.iter().collect();
    let quiet_ones: Vec<String> = run_here
        .iter()
        .filter(|(pt, _)| {
            quiet::dispatch(|| catch_unwind(AssertUnwindSafe(|| run(&[*pt])))).is_ok()
        })
        .map(|(pt, m)| {
            format!(
                "{}::{}{:?} panics on the host ({m}..) but not on {space}",
                p.type_name,
                p.ops[pt.op as usize].0,
                (pt.a, pt.b, pt.c)
            )
        })
        .collect();
    println!(
        "semantics of {} on {space}: {} panicking probe points, {} run alone, {} did not panic",
        p.type_name,
        plan.panicking,
        run_here.len(),
        quiet_ones.len()
    );
    assert!(quiet_ones.is_empty(), "{}", quiet_ones.join("\n"));
}

/// The probe kernels, for the NVRTC compile of the suite.
pub const KERNELS: &[&DeviceKernel] = kernel_list![
    i8s::probe_i8,
    i16s::probe_i16,
    i32s::probe_i32,
    i64s::probe_i64,
    isizes::probe_isize,
    u8s::probe_u8,
    u16s::probe_u16,
    u32s::probe_u32,
    u64s::probe_u64,
    usizes::probe_usize,
    f32s::probe_f32,
    f64s::probe_f64,
    bools::probe_bool,
    bounded32::bounded_f32,
    bounded64::bounded_f64,
    broadcast_from,
];

#[test]
fn expected_floats_compare_as_rust_specifies() {
    let nan = Expected::float(f32::NAN, Lenience::Nan);
    assert!(nan.matches(0x7fff_ffff, 0), "any NaN of the width");
    assert!(!nan.matches(0x7f80_0000, 0), "not an infinity");
    let exact = Expected::float(f32::from_bits(0x7fa0_0001), Lenience::None);
    assert!(
        !exact.matches(0x7fc0_0001, 0),
        "sign-bit operations keep payloads"
    );
    let zero = Expected::float(-0.0f64, Lenience::NanAndZeroSign);
    assert!(zero.matches(0, 0) && !Expected::float(-0.0f64, Lenience::Nan).matches(0, 0));
    assert!(Expected::pair(5, true).matches(5, 1) && !Expected::pair(5, true).matches(5, 0));
}

#[test]
fn every_probe_kernel_is_listed() {
    let text = [include_str!("probes.rs"), include_str!("bounded.rs")].concat();
    let generated = text
        .lines()
        .filter(|l| {
            [
                "signed_probes!(",
                "unsigned_probes!(",
                "float_probes!(",
                "probes! {",
                "bounded!(",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .count();
    let written = text.lines().filter(|l| l.starts_with("#[kernel")).count();
    assert_eq!(KERNELS.len(), generated + written);
}

/// The semantics checks, per space (see the module docs).
macro_rules! semantics_tests {
    () => {
        semantics_tests!(@exact
            semantics_of_i8, semantic_panics_of_i8: i8s::probe_i8,
            semantics_of_i16, semantic_panics_of_i16: i16s::probe_i16,
            semantics_of_i32, semantic_panics_of_i32: i32s::probe_i32,
            semantics_of_i64, semantic_panics_of_i64: i64s::probe_i64,
            semantics_of_isize, semantic_panics_of_isize: isizes::probe_isize,
            semantics_of_u8, semantic_panics_of_u8: u8s::probe_u8,
            semantics_of_u16, semantic_panics_of_u16: u16s::probe_u16,
            semantics_of_u32, semantic_panics_of_u32: u32s::probe_u32,
            semantics_of_u64, semantic_panics_of_u64: u64s::probe_u64,
            semantics_of_usize, semantic_panics_of_usize: usizes::probe_usize,
            semantics_of_f32, semantic_panics_of_f32: f32s::probe_f32,
            semantics_of_f64, semantic_panics_of_f64: f64s::probe_f64,
            semantics_of_bool, semantic_panics_of_bool: bools::probe_bool
        );
        semantics_tests!(@bounded
            bounded_functions_of_f32: bounded32::bounded_f32, f32,
            bounded_functions_of_f64: bounded64::bounded_f64, f64
        );

        #[test]
        fn team_broadcast_from_past_the_team_fails() {
            use crate::semantics::broadcast_from;
            let s = space();
            let league = 3;
            let team = 4.min(s.team_size_max());
            let run = move |src: usize| {
                let s = own_space();
                let mut out = View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "out", league).unwrap();
                {
                    let a = out.atomic().unwrap();
                    parallel_for("broadcast", TeamPolicy::new(&s, league, team), (), broadcast_from(&a, src));
                }
                create_mirror_view_and_copy(&out).unwrap().to_vec()
            };
            let last = team - 1;
            let expected = (team as u64) * (10 + last as u64);
            assert_eq!(run(last), vec![expected; league]);
            let payload = crate::soundness::panic_of("broadcast", move || {
                run(team);
            });
            let text = crate::soundness::message(&*payload);
            let want = format!("team_broadcast from team rank {team}, but the team has {team} threads");
            assert!(text.contains(&want), "{text}");
        }
    };
    (@exact $($test:ident, $panics:ident: $m:ident :: $k:ident),*) => {
        $(
            #[test]
            fn $test() {
                let probes = &crate::semantics::$m::PROBES;
                let run = semantics_tests!(@run $m::$k, space());
                crate::semantics::check_values(probes, space().name(), run);
            }

            #[test]
            fn $panics() {
                let probes = &crate::semantics::$m::PROBES;
                // The panicking points on a space of their own, one after
                // another: each failure is reported at its own readback,
                // never at another test's, and the space goes on (a new
                // space per point would cost a GPU context each, minutes
                // per type on a GPU).
                let own = own_space();
                let run = semantics_tests!(@run $m::$k, own.clone());
                crate::semantics::check_panics(probes, space().name(), run);
            }
        )*
    };
    // Dispatches the probe kernel over points, returns `lo` and `hi`.
    (@run $m:ident :: $k:ident, $space:expr) => {
        |pts: &[crate::semantics::Point<_>]| {
            use crate::semantics::$m;
            let s = $space;
            let n = pts.len();
            let view = |label, f: &dyn Fn(&crate::semantics::Point<_>) -> _| {
                View1::<_, LayoutRight, _>::from_fn_in(s.memory_space(), label, n, |i| f(&pts[i]))
                    .unwrap()
            };
            let op = View1::<u32, LayoutRight, _>::from_fn_in(s.memory_space(), "op", n, |i| pts[i].op)
                .unwrap();
            let (xa, xb, xc) = (view("a", &|p| p.a), view("b", &|p| p.b), view("c", &|p| p.c));
            let mut lo = View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "lo", n).unwrap();
            let mut hi = View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "hi", n).unwrap();
            parallel_for(
                "semantics",
                RangePolicy::new(&s, 0..n),
                (&mut lo, &mut hi),
                $m::$k(&op, &xa, &xb, &xc),
            );
            (
                create_mirror_view_and_copy(&lo).unwrap().to_vec(),
                create_mirror_view_and_copy(&hi).unwrap().to_vec(),
            )
        }
    };
    (@bounded $($test:ident: $m:ident :: $k:ident, $t:ident),*) => {
        $(
            #[test]
            fn $test() {
                use crate::semantics::{self as sem, $m};
                let run = |ops: &[u32], xa: &[$t], xb: &[$t]| {
                    let s = space();
                    let n = ops.len();
                    let op = View1::<u32, LayoutRight, _>::from_fn_in(s.memory_space(), "op", n, |i| ops[i]).unwrap();
                    let a = View1::<$t, LayoutRight, _>::from_fn_in(s.memory_space(), "a", n, |i| xa[i]).unwrap();
                    let b = View1::<$t, LayoutRight, _>::from_fn_in(s.memory_space(), "b", n, |i| xb[i]).unwrap();
                    let mut y = View1::<$t, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
                    parallel_for("bounded", RangePolicy::new(&s, 0..n), &mut y, $m::$k(&op, &a, &b));
                    create_mirror_view_and_copy(&y).unwrap().to_vec()
                };
                sem::check_bounded($m::FUNCTIONS, $m::reference, |x| x as $t, space().name(), run);
            }
        )*
    };
}
