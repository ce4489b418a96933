//! What the `tutorial_*` examples share: the original exercises'
//! command-line flags, their `printf("%g")` number format, and a timer
//! that fences the space, since a Cuda dispatch returns before its kernel
//! ends.

use granule::prelude::*;
use std::time::Instant;

/// The value after `flag` (any of its spellings) on the command line.
pub fn arg(names: &[&str]) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| names.contains(&a.as_str()))?;
    Some(
        args.get(at + 1)
            .unwrap_or_else(|| panic!("{} needs a value", args[at]))
            .clone(),
    )
}

/// A numeric flag, or `default` when it is absent.
pub fn arg_or<T: std::str::FromStr>(names: &[&str], default: T) -> T {
    match arg(names) {
        None => default,
        Some(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{}: `{v}` is not a valid value", names[0])),
    }
}

/// `2^e` for the exponent flags (`-N 12` means 4096 rows).
pub fn pow2_arg(names: &[&str]) -> Option<usize> {
    arg(names).map(|v| {
        let e: u32 = v
            .parse()
            .unwrap_or_else(|_| panic!("{}: `{v}` is not an exponent", names[0]));
        1usize
            .checked_shl(e)
            .unwrap_or_else(|| panic!("{}: 2^{e} does not fit", names[0]))
    })
}

/// The histogram examples' flags: `-N e` elements = 2^e (default 2^18,
/// small for the emulator), `-bins b` (default 100, positive) and
/// `-nrepeat n` (default 10), as `(n, bins, nrepeat)`.
pub fn histogram_flags() -> (usize, usize, usize) {
    let n = pow2_arg(&["-N"]).unwrap_or(1 << 18);
    let bins: usize = arg_or(&["-bins"], 100);
    assert!(bins > 0, "-bins must be positive");
    (n, bins, arg_or(&["-nrepeat"], 10))
}

/// The histogram examples' `time( t s ) rate( r Gupdates/s )` for
/// `updates` increments in `time` seconds.
pub fn update_rate(updates: usize, time: f64) -> String {
    format!(
        "time( {} s ) rate( {} Gupdates/s )",
        g(time),
        g(1.0e-9 * updates as f64 / time)
    )
}

/// C's `%g`: six significant digits, trailing zeros dropped, scientific
/// notation below 1e-4 or from 1e6.
pub fn g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    }
}

/// Seconds taken by `f`, up to the end of every kernel it queued.
pub fn timed<R>(space: &DefaultExecutionSpace, f: impl FnOnce() -> R) -> (R, f64) {
    space.fence();
    let start = Instant::now();
    let r = f();
    space.fence();
    (r, start.elapsed().as_secs_f64())
}

/// The space, its concurrency and, on Cuda, the device (a GPU's name or
/// "emulator"), for the first line of output.
pub fn describe(space: &DefaultExecutionSpace) -> String {
    #[cfg(feature = "cuda")]
    let device = format!(", device {}", space.device().name());
    #[cfg(not(feature = "cuda"))]
    let device = "";
    format!(
        "{} (concurrency {}{device})",
        space.name(),
        space.concurrency()
    )
}

/// The exercises' figure of merit: `{prefix}{dims} nrepeat ( .. ) problem(
/// .. MB ) time( .. s ) bandwidth( .. GB/s )`, for `bytes` moved per
/// repetition.
pub fn print_bandwidth(prefix: &str, dims: &str, nrepeat: usize, bytes: usize, time: f64) {
    let gbytes = 1.0e-9 * bytes as f64;
    println!(
        "  {prefix}{dims} nrepeat ( {nrepeat} ) problem( {} MB ) time( {} s ) bandwidth( {} GB/s )",
        g(gbytes * 1000.0),
        g(time),
        g(gbytes * nrepeat as f64 / time)
    );
}

/// The exercises' error line for a wrong result, then exit status 1.
pub fn exit_if_wrong(wrong: Option<f64>, solution: f64) {
    if let Some(result) = wrong {
        println!("  Error: result( {result:.6} ) != solution( {solution:.6} )");
        std::process::exit(1);
    }
}

// The yᵀAx exercises' values: small integers, so that every sum is exact
// whatever the order of the reduction, and the check is an equality.

/// yⱼ of the yᵀAx exercises.
pub fn y_at(j: usize) -> f64 {
    (j % 5 + 1) as f64
}

/// xᵢ of the yᵀAx exercises.
pub fn x_at(i: usize) -> f64 {
    (i % 7 + 1) as f64
}

/// A(j, i) of the yᵀAx exercises.
pub fn a_at(j: usize, i: usize) -> f64 {
    ((i + 2 * j) % 3 + 1) as f64
}

/// yᵀAx for N rows and M columns, by a host loop.
pub fn yax_solution(n: usize, m: usize) -> f64 {
    (0..n)
        .map(|j| y_at(j) * (0..m).map(|i| a_at(j, i) * x_at(i)).sum::<f64>())
        .sum()
}

/// The exercises' `checkSizes`: N rows and M columns from the exponent
/// flags `-N`, `-M` and `-S` (total size), filling in whichever is
/// missing. `default_s` replaces the original's 2^22 so that the test
/// run stays short. Prints the original's "Total size" line.
pub fn yax_sizes(default_s: usize) -> (usize, usize) {
    let n = pow2_arg(&["-N", "-Rows"]);
    let m = pow2_arg(&["-M", "-Columns"]);
    let mut s = pow2_arg(&["-S", "-Size"]);
    if s.is_none() && (n.is_none() || m.is_none()) {
        s = Some(default_s);
    }
    let s = s.unwrap_or_else(|| n.unwrap_or(1) * m.unwrap_or(1));
    let s = s.max(n.unwrap_or(0)).max(m.unwrap_or(0));
    let (n, m) = match (n, m) {
        (Some(n), Some(m)) => (n, m),
        (Some(n), None) => (n, s / n),
        (None, Some(m)) => (s / m, m),
        (None, None) => {
            let m = s.min(1024);
            (s / m, m)
        }
    };
    println!("  Total size S = {s} N = {n} M = {m}");
    assert_eq!(s, n * m, "S must be N * M");
    (n, m)
}

/// Bytes one yᵀAx reads: y, x and A.
pub fn yax_bytes(n: usize, m: usize) -> usize {
    std::mem::size_of::<f64>() * (n + m + n * m)
}
