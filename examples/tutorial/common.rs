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
