//! Transcendental functions and `powi`: a GPU cannot give the host libm's
//! bits, so each device result is checked against the host's within the
//! ulp bound the kernel README documents.

use super::FloatWord;

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
