//! The probe kernels: one per scalar type, generated from lists of
//! operations (see the module docs of `semantics`), and the coverage
//! checks that keep the lists exhaustive.

// The probes spell every form on purpose: `a.abs() as u64` records the
// signed result's bits, `a < b` on bools is an operator under test.
#![allow(clippy::cast_abs_to_unsigned, clippy::bool_comparison)]

use super::{bounded32, bounded64, bounded_points, Expected, Lenience, Probes};
use granule::prelude::{kernel, AtomicView, TeamMember};

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

/// Every team thread adds the value of team thread `src` (past the team:
/// the host's assertion fails, and so must the device).
#[kernel]
pub fn broadcast_from(team: &TeamMember, out: &AtomicView<'_, u64, 1>, src: usize) {
    let v = team.team_broadcast(team.team_rank() as u64 + 10, src);
    out.add(team.league_rank(), v);
}

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
