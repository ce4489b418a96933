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
//!   message run (`semantic_panics_of_*`, apart from the values, since a
//!   failure ends a GPU's context), the others are counted.
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
//! count of probe points.

// The probes spell every form on purpose: `a.abs() as u64` records the
// signed result's bits, `a < b` on bools is an operator under test.
#![allow(clippy::cast_abs_to_unsigned, clippy::bool_comparison)]

use granule::kernel::DeviceKernel;
use granule::prelude::{kernel, AtomicView, TeamMember};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Panicking points run per operation and distinct panic message.
pub const PANICS_PER_CAUSE: usize = 2;

/// Panicking points run per type on a GPU, where each loses the context.
pub const GPU_PANICS: usize = 2;

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

/// `$r` if a release form is given, else `$e`.
macro_rules! release_form {
    ($release:ident, $e:expr) => {
        $e
    };
    ($release:ident, $e:expr, $r:expr) => {
        if $release {
            $r
        } else {
            $e
        }
    };
}

/// One probe module per scalar type: the kernel, the host reference and
/// the operation list, from groups of operations by how their result is
/// recorded: `int` (integers and bool, `as u64`), `float` (`to_bits`, NaN
/// lenient), `bits` (`to_bits`, exact), `zero` (`to_bits`, NaN and zero
/// sign lenient), `pair` (`(v, flag)`), `option` (`unwrap_or_default`,
/// `is_some`). Each operation is `name arity: expression`, with
/// `=> release form` where the written form panics on overflow in a
/// debug build. Groups of one kind may repeat.
macro_rules! probes {
    (
        mod $m:ident, kernel $k:ident, $t:ident, values $values:expr,
        |$a:ident, $b:ident, $c:ident| {
            $(int [$($in:ident $iar:literal : $ie:expr $(=> $ir:expr)?),* $(,)?])*
            $(float [$($fname:ident $far:literal : $fe:expr),* $(,)?])*
            $(bits [$($bn:ident $bar:literal : $be:expr),* $(,)?])*
            $(zero [$($zn:ident $zar:literal : $ze:expr),* $(,)?])*
            $(pair [$($pn:ident $par:literal : $pe:expr),* $(,)?])*
            $(option [$($on:ident $oar:literal : $oe:expr),* $(,)?])*
        }
    ) => {
        pub mod $m {
            #![allow(unused_variables, unused_assignments)]
            use super::*;
            use granule::prelude::*;

            pub const VALUES: &[$t] = &$values;

            /// Work item `i` evaluates operation `op[i]` on
            /// `(xa[i], xb[i], xc[i])`.
            #[kernel]
            pub fn $k(
                i: usize,
                lo: &mut u64,
                hi: &mut u64,
                op: &View1<u32>,
                xa: &View1<$t>,
                xb: &View1<$t>,
                xc: &View1<$t>,
            ) {
                let $a = xa[i];
                let $b = xb[i];
                let $c = xc[i];
                let o = op[i];
                let mut k = 0u32;
                *hi = 0;
                $($(if o == k { *lo = ($ie) as u64; } k += 1;)*)*
                $($(if o == k { *lo = ($fe).to_bits() as u64; } k += 1;)*)*
                $($(if o == k { *lo = ($be).to_bits() as u64; } k += 1;)*)*
                $($(if o == k { *lo = ($ze).to_bits() as u64; } k += 1;)*)*
                $($(if o == k { let (v, f) = $pe; *lo = v as u64; *hi = f as u64; } k += 1;)*)*
                $($(if o == k {
                    *lo = ($oe).unwrap_or_default() as u64;
                    *hi = ($oe).is_some() as u64;
                } k += 1;)*)*
            }

            /// The same expressions in plain Rust.
            pub fn reference($a: $t, $b: $t, $c: $t, op: u32, release: bool) -> Expected {
                let mut k = 0u32;
                $($(if op == k {
                    return Expected::int((release_form!(release, $ie $(, $ir)?)) as u64);
                } k += 1;)*)*
                $($(if op == k { return Expected::float($fe, Lenience::Nan); } k += 1;)*)*
                $($(if op == k { return Expected::float($be, Lenience::None); } k += 1;)*)*
                $($(if op == k { return Expected::float($ze, Lenience::NanAndZeroSign); } k += 1;)*)*
                $($(if op == k { let (v, f) = $pe; return Expected::pair(v as u64, f); } k += 1;)*)*
                $($(if op == k {
                    let r = $oe;
                    return Expected::pair(r.unwrap_or_default() as u64, r.is_some());
                } k += 1;)*)*
                unreachable!("operation {op} of {}", stringify!($t))
            }

            pub const PROBES: Probes<$t> = Probes {
                type_name: stringify!($t),
                values: VALUES,
                ops: &[
                    $($((stringify!($in), $iar),)*)*
                    $($((stringify!($fname), $far),)*)*
                    $($((stringify!($bn), $bar),)*)*
                    $($((stringify!($zn), $zar),)*)*
                    $($((stringify!($pn), $par),)*)*
                    $($((stringify!($on), $oar),)*)*
                ],
                reference: |op, a, b, c, release| reference(a, b, c, op, release),
            };

            /// The source text of the operations, to check that every
            /// method of the translator has a probe.
            pub const SOURCE: &str = concat!(
                $($(stringify!($ie), " ",)*)*
                $($(stringify!($fe), " ",)*)*
                $($(stringify!($be), " ",)*)*
                $($(stringify!($ze), " ",)*)*
                $($(stringify!($pe), " ",)*)*
                $($(stringify!($oe), " ",)*)*
            );
        }
    };
}

/// An integer type's probes: the operations of every integer type, plus
/// those of its signedness (given by the invocation, with the same
/// operand names).
macro_rules! int_probes {
    (
        mod $m:ident, kernel $k:ident, $t:ident, values $values:expr,
        |$a:ident, $b:ident, $c:ident|
        int [$($xi:tt)*] bits [$($xb:tt)*] pair [$($xp:tt)*] option [$($xo:tt)*]
    ) => {
        probes! {
            mod $m, kernel $k, $t, values $values, |$a, $b, $c| {
                int [
                    // Operators, in release form where they can overflow.
                    add 2: $a + $b => $a.wrapping_add($b),
                    sub 2: $a - $b => $a.wrapping_sub($b),
                    mul 2: $a * $b => $a.wrapping_mul($b),
                    div 2: $a / $b,
                    rem 2: $a % $b,
                    and 2: $a & $b,
                    or 2: $a | $b,
                    xor 2: $a ^ $b,
                    not 1: !$a,
                    shl 2: $a << $b => $a.wrapping_shl($b as u32),
                    shr 2: $a >> $b => $a.wrapping_shr($b as u32),
                    shl_u32 2: $a << ($b as u32) => $a.wrapping_shl($b as u32),
                    shr_lit 1: $a >> 3,
                    add_assign 2: { let mut x = $a; x += $b; x } => $a.wrapping_add($b),
                    sub_assign 2: { let mut x = $a; x -= $b; x } => $a.wrapping_sub($b),
                    mul_assign 2: { let mut x = $a; x *= $b; x } => $a.wrapping_mul($b),
                    div_assign 2: { let mut x = $a; x /= $b; x },
                    rem_assign 2: { let mut x = $a; x %= $b; x },
                    and_assign 2: { let mut x = $a; x &= $b; x },
                    or_assign 2: { let mut x = $a; x |= $b; x },
                    xor_assign 2: { let mut x = $a; x ^= $b; x },
                    shl_assign 2: { let mut x = $a; x <<= $b; x } => $a.wrapping_shl($b as u32),
                    shr_assign 2: { let mut x = $a; x >>= $b; x } => $a.wrapping_shr($b as u32),
                    eq 2: $a == $b,
                    ne 2: $a != $b,
                    lt 2: $a < $b,
                    le 2: $a <= $b,
                    gt 2: $a > $b,
                    ge 2: $a >= $b,
                    // Casts to every integer type (to floats: below).
                    as_i8 1: $a as i8,
                    as_i16 1: $a as i16,
                    as_i32 1: $a as i32,
                    as_i64 1: $a as i64,
                    as_isize 1: $a as isize,
                    as_u8 1: $a as u8,
                    as_u16 1: $a as u16,
                    as_u32 1: $a as u32,
                    as_u64 1: $a as u64,
                    as_usize 1: $a as usize,
                    // Methods.
                    wrapping_add 2: $a.wrapping_add($b),
                    wrapping_sub 2: $a.wrapping_sub($b),
                    wrapping_mul 2: $a.wrapping_mul($b),
                    wrapping_div 2: $a.wrapping_div($b),
                    wrapping_rem 2: $a.wrapping_rem($b),
                    wrapping_div_euclid 2: $a.wrapping_div_euclid($b),
                    wrapping_rem_euclid 2: $a.wrapping_rem_euclid($b),
                    wrapping_neg 1: $a.wrapping_neg(),
                    wrapping_shl 2: $a.wrapping_shl($b as u32),
                    wrapping_shr 2: $a.wrapping_shr($b as u32),
                    wrapping_pow 2: $a.wrapping_pow($b as u32),
                    saturating_add 2: $a.saturating_add($b),
                    saturating_sub 2: $a.saturating_sub($b),
                    saturating_mul 2: $a.saturating_mul($b),
                    saturating_div 2: $a.saturating_div($b),
                    saturating_pow 2: $a.saturating_pow($b as u32),
                    pow 2: $a.pow($b as u32) => $a.wrapping_pow($b as u32),
                    count_ones 1: $a.count_ones(),
                    count_zeros 1: $a.count_zeros(),
                    leading_zeros 1: $a.leading_zeros(),
                    trailing_zeros 1: $a.trailing_zeros(),
                    leading_ones 1: $a.leading_ones(),
                    trailing_ones 1: $a.trailing_ones(),
                    rotate_left 2: $a.rotate_left($b as u32),
                    rotate_right 2: $a.rotate_right($b as u32),
                    swap_bytes 1: $a.swap_bytes(),
                    reverse_bits 1: $a.reverse_bits(),
                    abs_diff 2: $a.abs_diff($b),
                    rem_euclid 2: $a.rem_euclid($b),
                    div_euclid 2: $a.div_euclid($b),
                    min 2: $a.min($b),
                    max 2: $a.max($b),
                    clamp 3: $a.clamp($b, $c),
                    // Associated-function syntax, fields of a pair, Options
                    // unwrapped (a None panics on both sides).
                    ufcs_wrapping_add 2: $t::wrapping_add($a, $b),
                    ufcs_max 2: $t::max($a, $b),
                    pair_field_0 2: $a.overflowing_add($b).0,
                    pair_field_1 2: $a.overflowing_mul($b).1,
                    checked_div_unwrap 2: $a.checked_div($b).unwrap(),
                    checked_add_expect 2: $a.checked_add($b).expect("no overflow"),
                    checked_mul_unwrap_or 2: $a.checked_mul($b).unwrap_or($c),
                    ufcs_checked_sub 2: $t::checked_sub($a, $b).unwrap_or_default(),
                    checked_sub_is_none 2: $a.checked_sub($b).is_none(),
                ]
                int [$($xi)*]
                float [
                    as_f32 1: $a as f32,
                    as_f64 1: $a as f64,
                ]
                bits [$($xb)*]
                pair [
                    overflowing_add 2: $a.overflowing_add($b),
                    overflowing_sub 2: $a.overflowing_sub($b),
                    overflowing_mul 2: $a.overflowing_mul($b),
                    overflowing_div 2: $a.overflowing_div($b),
                    overflowing_rem 2: $a.overflowing_rem($b),
                    overflowing_div_euclid 2: $a.overflowing_div_euclid($b),
                    overflowing_rem_euclid 2: $a.overflowing_rem_euclid($b),
                    overflowing_neg 1: $a.overflowing_neg(),
                    overflowing_shl 2: $a.overflowing_shl($b as u32),
                    overflowing_shr 2: $a.overflowing_shr($b as u32),
                    overflowing_pow 2: $a.overflowing_pow($b as u32),
                ]
                pair [$($xp)*]
                option [
                    checked_add 2: $a.checked_add($b),
                    checked_sub 2: $a.checked_sub($b),
                    checked_mul 2: $a.checked_mul($b),
                    checked_div 2: $a.checked_div($b),
                    checked_rem 2: $a.checked_rem($b),
                    checked_div_euclid 2: $a.checked_div_euclid($b),
                    checked_rem_euclid 2: $a.checked_rem_euclid($b),
                    checked_neg 1: $a.checked_neg(),
                    checked_shl 2: $a.checked_shl($b as u32),
                    checked_shr 2: $a.checked_shr($b as u32),
                    checked_pow 2: $a.checked_pow($b as u32),
                ]
                option [$($xo)*]
            }
        }
    };
}

/// A signed integer type's probes.
macro_rules! signed_probes {
    (mod $m:ident, kernel $k:ident, $t:ident, values $values:expr) => {
        int_probes! {
            mod $m, kernel $k, $t, values $values, |a, b, c|
            int [
                neg 1: -a => a.wrapping_neg(),
                abs 1: a.abs() => a.wrapping_abs(),
                wrapping_abs 1: a.wrapping_abs(),
                saturating_neg 1: a.saturating_neg(),
                saturating_abs 1: a.saturating_abs(),
                signum 1: a.signum(),
                unsigned_abs 1: a.unsigned_abs(),
                is_positive 1: a.is_positive(),
                is_negative 1: a.is_negative(),
            ]
            bits []
            pair [overflowing_abs 1: a.overflowing_abs()]
            option [checked_abs 1: a.checked_abs()]
        }
    };
}

/// An unsigned integer type's probes; `bits` adds `from_bits` for u32/u64
/// (over the operand names the invocation gives).
macro_rules! unsigned_probes {
    (
        mod $m:ident, kernel $k:ident, $t:ident, values $values:expr,
        |$a:ident, $b:ident, $c:ident| bits [$($xb:tt)*]
    ) => {
        int_probes! {
            mod $m, kernel $k, $t, values $values, |$a, $b, $c|
            int [is_power_of_two 1: $a.is_power_of_two()]
            bits [$($xb)*]
            pair []
            option []
        }
    };
}

/// A float type's probes.
macro_rules! float_probes {
    (mod $m:ident, kernel $k:ident, $t:ident, values $values:expr, other $o:ident) => {
        probes! {
            mod $m, kernel $k, $t, values $values, |a, b, c| {
                int [
                    eq 2: a == b,
                    ne 2: a != b,
                    lt 2: a < b,
                    le 2: a <= b,
                    gt 2: a > b,
                    ge 2: a >= b,
                    // Saturating casts, NaN to 0.
                    as_i8 1: a as i8,
                    as_i16 1: a as i16,
                    as_i32 1: a as i32,
                    as_i64 1: a as i64,
                    as_isize 1: a as isize,
                    as_u8 1: a as u8,
                    as_u16 1: a as u16,
                    as_u32 1: a as u32,
                    as_u64 1: a as u64,
                    as_usize 1: a as usize,
                    is_nan 1: a.is_nan(),
                    is_finite 1: a.is_finite(),
                    is_infinite 1: a.is_infinite(),
                    is_normal 1: a.is_normal(),
                    is_subnormal 1: a.is_subnormal(),
                    is_sign_negative 1: a.is_sign_negative(),
                    is_sign_positive 1: a.is_sign_positive(),
                    to_bits 1: a.to_bits(),
                ]
                float [
                    add 2: a + b,
                    sub 2: a - b,
                    mul 2: a * b,
                    div 2: a / b,
                    rem 2: a % b,
                    add_assign 2: { let mut x = a; x += b; x },
                    sub_assign 2: { let mut x = a; x -= b; x },
                    mul_assign 2: { let mut x = a; x *= b; x },
                    div_assign 2: { let mut x = a; x /= b; x },
                    rem_assign 2: { let mut x = a; x %= b; x },
                    // No contraction: `a * b + c` rounds twice.
                    mul_then_add 3: a * b + c,
                    mul_add 3: a.mul_add(b, c),
                    floor 1: a.floor(),
                    ceil 1: a.ceil(),
                    round 1: a.round(),
                    round_ties_even 1: a.round_ties_even(),
                    trunc 1: a.trunc(),
                    fract 1: a.fract(),
                    recip 1: a.recip(),
                    sqrt 1: a.sqrt(),
                    rem_euclid 2: a.rem_euclid(b),
                    div_euclid 2: a.div_euclid(b),
                    as_other 1: a as $o,
                    as_self 1: a as $t,
                    f64_from 1: f64::from(a),
                ]
                bits [
                    neg 1: -a,
                    abs 1: a.abs(),
                    copysign 2: a.copysign(b),
                    signum 1: a.signum(),
                    from_bits 1: $t::from_bits(a.to_bits()),
                    ufcs_abs 1: $t::abs(a),
                ]
                zero [
                    min 2: a.min(b),
                    max 2: a.max(b),
                    clamp 3: a.clamp(b, c),
                ]
            }
        }
    };
}

signed_probes!(mod i8s, kernel probe_i8, i8,
    values [0, 1, -1, 2, -2, 3, 7, 8, 9, 16, 17, 100, -100, i8::MIN, i8::MIN + 1, i8::MAX, i8::MAX - 1]);
signed_probes!(mod i16s, kernel probe_i16, i16,
    values [0, 1, -1, 2, -2, 3, 15, 16, 17, 32, 181, 255, 256, -300, i16::MIN, i16::MIN + 1, i16::MAX, i16::MAX - 1]);
signed_probes!(mod i32s, kernel probe_i32, i32,
    values [0, 1, -1, 2, -2, 3, 31, 32, 33, 64, 46341, -46341, 65536, 1 << 30, i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 1]);
signed_probes!(mod i64s, kernel probe_i64, i64,
    values [0, 1, -1, 2, -2, 3, 63, 64, 65, 128, 3_037_000_500, -3_037_000_500, 1 << 32, 1 << 62, i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1]);
signed_probes!(mod isizes, kernel probe_isize, isize,
    values [0, 1, -1, 2, -3, 63, 64, 65, 3_037_000_500, 1 << 40, isize::MIN, isize::MIN + 1, isize::MAX, isize::MAX - 1]);
unsigned_probes!(mod u8s, kernel probe_u8, u8,
    values [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 100, 127, 128, 200, 254, 255],
    |a, b, c| bits []);
unsigned_probes!(mod u16s, kernel probe_u16, u16,
    values [0, 1, 2, 3, 15, 16, 17, 255, 256, 300, 32767, 32768, 65534, 65535],
    |a, b, c| bits []);
unsigned_probes!(mod u32s, kernel probe_u32, u32,
    values [0, 1, 2, 3, 31, 32, 33, 64, 65535, 65536, 0x7f80_0001, 0x7fff_ffff, 0x8000_0000, 0xffc0_0001, u32::MAX - 1, u32::MAX],
    |a, b, c| bits [from_bits 1: f32::from_bits(a)]);
unsigned_probes!(mod u64s, kernel probe_u64, u64,
    values [0, 1, 2, 3, 63, 64, 65, 128, 1 << 32, (1 << 32) + 1, 0x7ff0_0000_0000_0001, i64::MAX as u64, 1 << 63, u64::MAX - 1, u64::MAX],
    |a, b, c| bits [from_bits 1: f64::from_bits(a)]);
unsigned_probes!(mod usizes, kernel probe_usize, usize,
    values [0, 1, 2, 3, 63, 64, 65, 1 << 32, 1 << 63, usize::MAX - 1, usize::MAX],
    |a, b, c| bits []);

float_probes!(mod f32s, kernel probe_f32, f32, values [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.499_999_97, 3.0, -7.25, 1e10, -1e10,
    3e9, 9.223_372e18, 1.844_674_4e19, 8_388_609.0, 128.0, -129.0, 65535.5,
    f32::MAX, f32::MIN, f32::MIN_POSITIVE, f32::from_bits(1), -f32::from_bits(1), f32::from_bits(0x007f_ffff),
    f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::from_bits(0xffc0_0001), f32::from_bits(0x7fa0_0000),
], other f64);
float_probes!(mod f64s, kernel probe_f64, f64, values [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.499_999_999_999_999_94, 3.0, -7.25, 1e10, -1e10,
    3e9, 9.223_372_036_854_776e18, 1.844_674_407_370_955_2e19, 4_503_599_627_370_497.0, 1e300, -3.4e38, 65535.5,
    f64::MAX, f64::MIN, f64::MIN_POSITIVE, f64::from_bits(1), -f64::from_bits(1), f64::from_bits(0x000f_ffff_ffff_ffff),
    f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::from_bits(0xfff8_0000_0000_0001), f64::from_bits(0x7ff4_0000_0000_0000),
], other f32);

probes! {
    mod bools, kernel probe_bool, bool, values [false, true], |a, b, c| {
        int [
            and 2: a & b,
            or 2: a | b,
            xor 2: a ^ b,
            not 1: !a,
            land 2: a && b,
            lor 2: a || b,
            and_assign 2: { let mut x = a; x &= b; x },
            or_assign 2: { let mut x = a; x |= b; x },
            xor_assign 2: { let mut x = a; x ^= b; x },
            eq 2: a == b,
            ne 2: a != b,
            lt 2: a < b,
            le 2: a <= b,
            gt 2: a > b,
            ge 2: a >= b,
            as_i8 1: a as i8,
            as_i16 1: a as i16,
            as_i32 1: a as i32,
            as_i64 1: a as i64,
            as_isize 1: a as isize,
            as_u8 1: a as u8,
            as_u16 1: a as u16,
            as_u32 1: a as u32,
            as_u64 1: a as u64,
            as_usize 1: a as usize,
            min 2: a.min(b),
            max 2: a.max(b),
            clamp 3: a.clamp(b, c),
            u8_from 1: u8::from(a),
            u32_from 1: u32::from(a),
        ]
    }
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

/// The source text of every probe, for the coverage check.
pub const SOURCES: &[&str] = &[
    i8s::SOURCE,
    i16s::SOURCE,
    i32s::SOURCE,
    i64s::SOURCE,
    isizes::SOURCE,
    u8s::SOURCE,
    u16s::SOURCE,
    u32s::SOURCE,
    u64s::SOURCE,
    usizes::SOURCE,
    f32s::SOURCE,
    f64s::SOURCE,
    bools::SOURCE,
    bounded32::SOURCE,
    bounded64::SOURCE,
];

// ------------------------------------------------------------- bounded

/// A function whose device result may differ from the host's: its ulp
/// bound against the host's result, as a function of the operands.
pub struct Bounded<T: 'static> {
    pub name: &'static str,
    pub arity: usize,
    pub bound: fn(T, T) -> u64,
}

/// The transcendental functions (and `powi`) of one float type: a kernel,
/// the host's results and the bounds. `name arity [cuda + host]: expr`:
/// the bound is CUDA's documented maximum error plus the host libm's
/// (glibc's), both in ulps against the correctly rounded result, so their
/// sum bounds the distance between the two (see the kernel README).
macro_rules! bounded {
    (
        mod $m:ident, kernel $k:ident, $t:ident, |$a:ident, $b:ident| [
            $($name:ident $ar:literal [$bound:expr] : $e:expr),* $(,)?
        ]
    ) => {
        pub mod $m {
            #![allow(unused_variables, unused_assignments)]
            use super::*;
            use granule::prelude::*;

            #[kernel]
            pub fn $k(i: usize, y: &mut $t, op: &View1<u32>, xa: &View1<$t>, xb: &View1<$t>) {
                let $a = xa[i];
                let $b = xb[i];
                let o = op[i];
                let mut k = 0u32;
                $(if o == k { *y = $e; } k += 1;)*
            }

            /// The host's result of operation `op`.
            pub fn reference(op: u32, $a: $t, $b: $t) -> $t {
                let mut k = 0u32;
                $(if op == k { return $e; } k += 1;)*
                unreachable!("operation {op}")
            }

            pub const FUNCTIONS: &[Bounded<$t>] = &[
                $(Bounded { name: stringify!($name), arity: $ar, bound: |$a, $b| $bound },)*
            ];

            pub const SOURCE: &str = concat!($(stringify!($e), " ",)*);
        }
    };
}

bounded!(mod bounded32, kernel bounded_f32, f32, |a, b| [
    exp 1 [2 + 1]: a.exp(),
    exp2 1 [2 + 1]: a.exp2(),
    exp_m1 1 [1 + 1]: a.exp_m1(),
    ln 1 [1 + 1]: a.ln(),
    log2 1 [1 + 1]: a.log2(),
    log10 1 [2 + 2]: a.log10(),
    ln_1p 1 [1 + 1]: a.ln_1p(),
    sin 1 [2 + 1]: a.sin(),
    cos 1 [2 + 1]: a.cos(),
    tan 1 [4 + 1]: a.tan(),
    asin 1 [2 + 1]: a.asin(),
    acos 1 [2 + 1]: a.acos(),
    atan 1 [2 + 1]: a.atan(),
    sinh 1 [3 + 2]: a.sinh(),
    cosh 1 [2 + 2]: a.cosh(),
    tanh 1 [2 + 2]: a.tanh(),
    cbrt 1 [1 + 1]: a.cbrt(),
    powf 2 [4 + 1]: a.powf(b),
    atan2 2 [3 + 2]: a.atan2(b),
    hypot 2 [3 + 1]: a.hypot(b),
    powi 2 [powi_bound(b as i32)]: a.powi(b as i32),
]);

bounded!(mod bounded64, kernel bounded_f64, f64, |a, b| [
    exp 1 [1 + 1]: a.exp(),
    exp2 1 [1 + 1]: a.exp2(),
    exp_m1 1 [1 + 1]: a.exp_m1(),
    ln 1 [1 + 1]: a.ln(),
    log2 1 [1 + 2]: a.log2(),
    log10 1 [1 + 2]: a.log10(),
    ln_1p 1 [1 + 1]: a.ln_1p(),
    sin 1 [2 + 1]: a.sin(),
    cos 1 [2 + 1]: a.cos(),
    tan 1 [2 + 1]: a.tan(),
    asin 1 [2 + 1]: a.asin(),
    acos 1 [2 + 1]: a.acos(),
    atan 1 [2 + 1]: a.atan(),
    sinh 1 [2 + 2]: a.sinh(),
    cosh 1 [1 + 2]: a.cosh(),
    tanh 1 [1 + 2]: a.tanh(),
    cbrt 1 [1 + 4]: a.cbrt(),
    powf 2 [2 + 1]: a.powf(b),
    atan2 2 [2 + 1]: a.atan2(b),
    hypot 2 [2 + 1]: a.hypot(b),
    powi 2 [powi_bound(b as i32)]: a.powi(b as i32),
]);

/// `powi`'s bound: Rust leaves its precision unspecified; the host's
/// compiler runtime and the device both square and multiply, each product
/// adding at most half an ulp of relative error, which later squarings
/// double: each result is within |n| ulps of x^n (x exact), plus one for
/// the reciprocal of a negative exponent, so the two are within 2|n| + 1.
pub fn powi_bound(n: i32) -> u64 {
    2 * u64::from(n.unsigned_abs()) + 1
}

/// The distance between two floats in representable steps (0 between the
/// zeros, 0 between two NaNs, `u64::MAX` between a NaN and a number).
pub fn ulps<F: FloatWord>(x: F, y: F) -> u64 {
    let (bx, by) = (x.word(), y.word());
    let ord = |b: u64| -> i128 {
        let sign = b >> (F::WIDTH - 1) != 0;
        let magnitude = i128::from(b & ((1u64 << (F::WIDTH - 1)) - 1));
        if sign {
            -magnitude
        } else {
            magnitude
        }
    };
    let nan = |b: u64| {
        let exp_mask = if F::WIDTH == 32 {
            0x7f80_0000
        } else {
            0x7ff0_0000_0000_0000
        };
        let mant_mask = if F::WIDTH == 32 {
            0x007f_ffff
        } else {
            0x000f_ffff_ffff_ffff
        };
        b & exp_mask == exp_mask && b & mant_mask != 0
    };
    match (nan(bx), nan(by)) {
        (true, true) => 0,
        (false, false) => (ord(bx) - ord(by)).unsigned_abs() as u64,
        _ => u64::MAX,
    }
}

/// Inputs of the bounded functions: special values, then magnitudes from
/// 1e-6 to 1e6 with several mantissas, both signs, and points near the
/// functions' edges (multiples of pi/2, exp's overflow).
pub fn bounded_inputs() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        88.7,
        -87.3,
        -103.0,
        709.7,
        -745.0,
        1e-30,
        1e30,
    ];
    for e in -6..=6 {
        for m in [1.0, 1.37, 2.9, 7.3] {
            let x = m * 10f64.powi(e);
            v.push(x);
            v.push(-x);
        }
    }
    for k in 1..=12 {
        v.push(f64::from(k) * std::f64::consts::FRAC_PI_2);
        v.push(f64::from(k) * std::f64::consts::FRAC_PI_2 + 1e-3);
    }
    v
}

/// Exponents of the `powi` probes.
pub const POWI_EXPONENTS: &[i32] = &[-16, -5, -3, -2, -1, 0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 31];

/// The points of a bounded function: every input, or for two operands a
/// grid of every third input (and `powi`'s exponents).
pub fn bounded_points(f: &str, arity: usize) -> Vec<(f64, f64)> {
    let xs = bounded_inputs();
    if f == "powi" {
        let bases: Vec<f64> = xs.iter().copied().filter(|x| x.abs() < 1e3).collect();
        return bases
            .iter()
            .flat_map(|&a| POWI_EXPONENTS.iter().map(move |&n| (a, f64::from(n))))
            .collect();
    }
    if arity == 1 {
        return xs.iter().map(|&a| (a, 1.0)).collect();
    }
    let grid: Vec<f64> = xs.iter().copied().step_by(3).collect();
    grid.iter()
        .flat_map(|&a| grid.iter().map(move |&b| (a, b)))
        .collect()
}

// -------------------------------------------------------------- tests

/// The methods of the translator's table (`macros/src/kernel/methods.rs`),
/// read from its source.
fn translator_methods() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/macros/src/kernel/methods.rs");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("(\""))
        .filter_map(|l| l.split_once("\", Recv::").map(|(n, _)| n.to_string()))
        .collect()
}

#[test]
fn every_method_of_the_translator_has_a_probe() {
    let methods = translator_methods();
    assert!(
        methods.len() > 90,
        "the method table was not found: {methods:?}"
    );
    let all = SOURCES.concat();
    let missing: Vec<&String> = methods
        .iter()
        .filter(|m| {
            ![".", ". ", "::", ":: "].iter().any(|sep| {
                all.contains(&format!("{sep}{m}(")) || all.contains(&format!("{sep}{m} ("))
            })
        })
        .collect();
    assert!(missing.is_empty(), "methods without a probe: {missing:?}");
}

#[test]
fn probe_points_are_counted() {
    let total: usize = [
        point_count(&i8s::PROBES),
        point_count(&i16s::PROBES),
        point_count(&i32s::PROBES),
        point_count(&i64s::PROBES),
        point_count(&isizes::PROBES),
        point_count(&u8s::PROBES),
        point_count(&u16s::PROBES),
        point_count(&u32s::PROBES),
        point_count(&u64s::PROBES),
        point_count(&usizes::PROBES),
        point_count(&f32s::PROBES),
        point_count(&f64s::PROBES),
        point_count(&bools::PROBES),
    ]
    .iter()
    .sum();
    let bounded32: usize = bounded32::FUNCTIONS
        .iter()
        .map(|f| bounded_points(f.name, f.arity).len())
        .sum();
    let bounded64: usize = bounded64::FUNCTIONS
        .iter()
        .map(|f| bounded_points(f.name, f.arity).len())
        .sum();
    let bounded = bounded32 + bounded64;
    println!("semantics: {total} exact probe points and {bounded} bounded ones per space");
    assert!(total > 100_000, "{total}");
}

fn point_count<T: Copy>(p: &Probes<T>) -> usize {
    p.ops
        .iter()
        .map(|&(_, arity)| p.values.len().pow(arity as u32))
        .sum()
}

#[test]
fn ulps_count_representable_steps() {
    let one = 1.0f32;
    let next = f32::from_bits(one.to_bits() + 1);
    assert_eq!(ulps(one, next), 1);
    assert_eq!(ulps(-0.0f64, 0.0), 0);
    assert_eq!(ulps(f64::from_bits(1), -f64::from_bits(1)), 2);
    assert_eq!(ulps(f32::MAX, f32::INFINITY), 1);
    assert_eq!(ulps(f32::NAN, f32::from_bits(0xffc0_0001)), 0);
    assert_eq!(ulps(f64::NAN, 1.0), u64::MAX);
    assert_eq!(ulps(1.0f64, 2.0), 1 << 52);
}

#[test]
fn the_bound_check_catches_a_result_past_the_bound() {
    // The comparison the device runs face: a result `bound + 1` steps away
    // from the host's fails it, one `bound` steps away passes.
    for f in bounded64::FUNCTIONS.iter().filter(|f| f.name != "powi") {
        let (a, b) = (0.75, 1.25);
        let op = bounded64::FUNCTIONS
            .iter()
            .position(|g| g.name == f.name)
            .unwrap() as u32;
        let host = bounded64::reference(op, a, b);
        let bound = (f.bound)(a, b);
        let far = f64::from_bits(host.to_bits() + bound + 1);
        let near = f64::from_bits(host.to_bits() + bound);
        assert!(
            ulps(far, host) > bound && ulps(near, host) <= bound,
            "{}",
            f.name
        );
    }
}

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

// ------------------------------------------------- undefined behaviour

/// The exact probe kernels, by the type name their harness is run with.
fn exact_kernels() -> [(&'static str, &'static DeviceKernel); 13] {
    let k = KERNELS;
    [
        ("i8", k[0]),
        ("i16", k[1]),
        ("i32", k[2]),
        ("i64", k[3]),
        ("isize", k[4]),
        ("u8", k[5]),
        ("u16", k[6]),
        ("u32", k[7]),
        ("u64", k[8]),
        ("usize", k[9]),
        ("f32", k[10]),
        ("f64", k[11]),
        ("bool", k[12]),
    ]
}

/// The runtime's functions the header's non-template code calls, for a
/// single-threaded host program (a trap aborts), and a `main` that runs
/// one probe kernel over points read from a file.
const UB_HARNESS: &str = r#"
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace granule_emu {
uint3 thread_idx() { return uint3{0, 0, 0}; }
uint3 block_idx() { return uint3{0, 0, 0}; }
uint3 block_dim() { return uint3{1, 1, 1}; }
uint3 grid_dim() { return uint3{1, 1, 1}; }
void sync_threads() {}
void fence() {}
void yield() {}
void loop_tick() {}
[[noreturn]] void trap() { std::abort(); }
uint64_t warp_op(int, unsigned, uint64_t v, int, int) { return v; }
}  // namespace granule_emu
unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) { unsigned o = *p; if (o == c) *p = v; return o; }

template <class T> T* read_all(FILE* f, uint64_t n) {
  T* v = new T[n];
  if (std::fread(v, sizeof(T), n, f) != n) std::abort();
  return v;
}
template <class T, class K> int run(K kernel, const char* in, const char* out) {
  FILE* f = std::fopen(in, "rb");
  uint64_t n = 0;
  if (f == nullptr || std::fread(&n, 8, 1, f) != 1) return 2;
  granule::u32* op = read_all<granule::u32>(f, n);
  T* a = read_all<T>(f, n);
  T* b = read_all<T>(f, n);
  T* c = read_all<T>(f, n);
  std::fclose(f);
  granule::u64* lo = new granule::u64[n];
  granule::u64* hi = new granule::u64[n];
  typedef granule::View<const T, 1, granule::LayoutRight> V;
  const granule::View<const granule::u32, 1, granule::LayoutRight> ops{op, {n}, {1}, 1};
  for (uint64_t i = 0; i < n; ++i) {
    kernel(i, lo[i], hi[i], ops, V{a, {n}, {1}, 2}, V{b, {n}, {1}, 3}, V{c, {n}, {1}, 4});
  }
  FILE* o = std::fopen(out, "wb");
  std::fwrite(lo, 8, n, o);
  std::fwrite(hi, 8, n, o);
  std::fclose(o);
  return 0;
}
"#;

/// Writes `bytes` of `v`'s elements, in memory order.
fn raw_bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: the probe types are plain scalars (integers, floats, bool):
    // every byte of them is initialized, and the slice covers exactly
    // `size_of_val(v)` bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        .to_vec()
}

/// Runs a type's probe kernel, compiled with UndefinedBehaviorSanitizer,
/// over every point that gives a value on a device: `harness <type> <in>
/// <out>` must exit cleanly (no sanitizer report) and give the device's
/// expected words.
fn ub_check<T: Copy + std::fmt::Debug>(
    harness: &std::path::Path,
    ty: &str,
    p: &Probes<T>,
) -> usize {
    let plan = plan(p, true);
    let n = plan.batch.len();
    let mut input = (n as u64).to_le_bytes().to_vec();
    let ops: Vec<u32> = plan.batch.iter().map(|pt| pt.op).collect();
    input.extend(raw_bytes(&ops));
    for pick in [
        |pt: &Point<T>| pt.a,
        |pt: &Point<T>| pt.b,
        |pt: &Point<T>| pt.c,
    ] {
        let v: Vec<T> = plan.batch.iter().map(pick).collect();
        input.extend(raw_bytes(&v));
    }
    let dir = harness.parent().expect("a directory");
    let (inp, out) = (dir.join(format!("{ty}.in")), dir.join(format!("{ty}.out")));
    std::fs::write(&inp, input).unwrap();
    let run = std::process::Command::new(harness)
        .args([ty.as_ref(), inp.as_os_str(), out.as_os_str()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{ty}: {}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let words: Vec<u64> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    let diffs = differences(p, &plan, &words[..n], &words[n..]);
    assert!(
        diffs.is_empty(),
        "{ty}:\n{}",
        diffs[..diffs.len().min(30)].join("\n")
    );
    n
}

/// The probe kernels' C++ (what NVRTC and the emulator compile) in C++17,
/// NVRTC's dialect, under GCC's UndefinedBehaviorSanitizer: no signed
/// overflow, shift past the width or into the sign bit, division overflow
/// or out-of-range float-to-integer conversion happens for any point, and
/// the words are the device's expected ones. Skipped with a reason when
/// the host compiler has no sanitizer runtime.
#[test]
fn the_probe_kernels_have_no_undefined_behaviour() {
    let dir = std::env::temp_dir().join(format!("granule-ub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut src = format!(
        "{}\n{}\n{UB_HARNESS}",
        granule_cuda::emu::SHIM,
        granule_cuda::device::HEADER
    );
    let mut dispatch =
        String::from("int main(int argc, char** argv) {\n  if (argc != 4) return 2;\n");
    for (ty, k) in exact_kernels() {
        src.push_str(k.source);
        let cpp = if ty == "bool" {
            "bool".to_string()
        } else {
            format!("granule::{ty}")
        };
        dispatch.push_str(&format!(
            "  if (std::strcmp(argv[1], \"{ty}\") == 0) return run<{cpp}>({}, argv[2], argv[3]);\n",
            k.name
        ));
    }
    src.push_str(&dispatch);
    src.push_str("  return 2;\n}\n");
    let file = dir.join("harness.cpp");
    std::fs::write(&file, src).unwrap();
    let harness = dir.join("harness");
    let cxx = std::env::var("GRANULE_EMU_CXX").unwrap_or_else(|_| "g++".into());
    let built = std::process::Command::new(&cxx)
        .args([
            "-std=c++17",
            "-O1",
            "-w",
            "-fsanitize=undefined,float-cast-overflow",
        ])
        .args(["-fno-sanitize-recover=all", "-o"])
        .arg(&harness)
        .arg(&file)
        .output();
    let built = match built {
        Ok(b) if b.status.success() => b,
        Ok(b) if String::from_utf8_lossy(&b.stderr).contains("ubsan") => {
            println!("skipped: {cxx} has no UndefinedBehaviorSanitizer runtime (libubsan)");
            return;
        }
        Ok(b) => panic!("{cxx}: {}", String::from_utf8_lossy(&b.stderr)),
        Err(e) => {
            println!("skipped: no host C++ compiler `{cxx}` ({e})");
            return;
        }
    };
    drop(built);
    let points = ub_check(&harness, "i8", &i8s::PROBES)
        + ub_check(&harness, "i16", &i16s::PROBES)
        + ub_check(&harness, "i32", &i32s::PROBES)
        + ub_check(&harness, "i64", &i64s::PROBES)
        + ub_check(&harness, "isize", &isizes::PROBES)
        + ub_check(&harness, "u8", &u8s::PROBES)
        + ub_check(&harness, "u16", &u16s::PROBES)
        + ub_check(&harness, "u32", &u32s::PROBES)
        + ub_check(&harness, "u64", &u64s::PROBES)
        + ub_check(&harness, "usize", &usizes::PROBES)
        + ub_check(&harness, "f32", &f32s::PROBES)
        + ub_check(&harness, "f64", &f64s::PROBES)
        + ub_check(&harness, "bool", &bools::PROBES);
    println!("undefined behaviour: none in {points} probe points under UBSan");
    let _ = std::fs::remove_dir_all(&dir);
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

/// Whether the space's device loses its context with a failure: a GPU
/// (`GRANULE_CUDA` set to anything but `emulator`), where each panicking
/// point costs a new context and a recompile.
fn loses_context(space: &str) -> bool {
    space == "Cuda" && std::env::var("GRANULE_CUDA").is_ok_and(|v| v != "emulator")
}

/// Runs the sampled panicking points of a type alone, each of which must
/// panic on the space too (on a GPU, only the first [`GPU_PANICS`]).
pub fn check_panics<T: Copy + std::fmt::Debug>(
    p: &Probes<T>,
    space: &str,
    run: impl Fn(&[Point<T>]) -> (Vec<u64>, Vec<u64>),
) {
    let plan = plan(p, space == "Cuda");
    let budget = if loses_context(space) {
        GPU_PANICS
    } else {
        usize::MAX
    };
    let run_here: Vec<&(Point<T>, String)> = plan.panics.iter().take(budget).collect();
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

/// Runs the bounded functions of one float type on a space through `run`
/// (operations, first and second operands -> results) and checks each
/// result against the host's within the function's bound. Prints the
/// largest distance seen per function.
pub fn check_bounded<T: FloatWord + std::fmt::Debug + Into<f64>>(
    functions: &[Bounded<T>],
    reference: fn(u32, T, T) -> T,
    narrow: fn(f64) -> T,
    space: &str,
    run: impl Fn(&[u32], &[T], &[T]) -> Vec<T>,
) {
    let (mut ops, mut xa, mut xb) = (Vec::new(), Vec::new(), Vec::new());
    for (op, f) in functions.iter().enumerate() {
        for (a, b) in bounded_points(f.name, f.arity) {
            ops.push(op as u32);
            xa.push(narrow(a));
            xb.push(narrow(b));
        }
    }
    let got = run(&ops, &xa, &xb);
    let mut worst = vec![0u64; functions.len()];
    let mut failures = Vec::new();
    for k in 0..ops.len() {
        let f = &functions[ops[k] as usize];
        let want = reference(ops[k], xa[k], xb[k]);
        let d = ulps(got[k], want);
        let bound = (f.bound)(xa[k], xb[k]);
        if d > bound {
            failures.push(format!(
                "{}({:?}, {:?}) = {:?} on {space}, {:?} on the host: {d} ulps > {bound}",
                f.name, xa[k], xb[k], got[k], want
            ));
        }
        let w = &mut worst[ops[k] as usize];
        *w = (*w).max(d.min(u64::from(u32::MAX)));
    }
    let summary: Vec<String> = functions
        .iter()
        .zip(&worst)
        .map(|(f, w)| format!("{} {w}", f.name))
        .collect();
    println!(
        "bounded functions of f{} on {space}: {} points; largest distance in ulps: {}",
        T::WIDTH,
        ops.len(),
        summary.join(", ")
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(40)].join("\n")
    );
}

/// Every team thread adds the value of team thread `src` (past the team:
/// the host's assertion fails, and so must the device).
#[kernel]
pub fn broadcast_from(team: &TeamMember, out: &AtomicView<'_, u64, 1>, src: usize) {
    let v = team.team_broadcast(team.team_rank() as u64 + 10, src);
    out.add(team.league_rank(), v);
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
                let s = space();
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
                let run = semantics_tests!(@run $m::$k);
                crate::semantics::check_values(probes, space().name(), run);
            }

            #[test]
            fn $panics() {
                let probes = &crate::semantics::$m::PROBES;
                let run = semantics_tests!(@run $m::$k);
                crate::semantics::check_panics(probes, space().name(), run);
            }
        )*
    };
    // Dispatches the probe kernel over points, returns `lo` and `hi`.
    (@run $m:ident :: $k:ident) => {
        |pts: &[crate::semantics::Point<_>]| {
            use crate::semantics::$m;
            let s = space();
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

#[test]
fn every_probe_kernel_is_listed() {
    let text = include_str!("semantics.rs");
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
