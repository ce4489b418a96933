//! Monte-Carlo π with a random number pool (the kokkos-tutorials
//! `random_number` exercise): draw n points uniformly in the unit square
//! and count those inside the quarter circle; 4 · hits / n estimates π.
//!
//! The points come from `fill_random` with an `XorShift64Pool` seeded by
//! the user, so the estimate is the same on Serial, Rayon and Cuda: the
//! value of element i depends on the seed and i only. x and y come from two
//! pools of one seed (`renewed`), whose streams are independent.
//!
//! Flags: `-N e` points = 2^e (default 2^20, small for the emulator),
//! `-seed s` (default 5374857).
//!
//! It checks the estimate within 6 standard deviations of π: hits is
//! binomial with p = π/4, so 4 · hits / n has standard deviation
//! 4 sqrt(p (1 - p) / n) (0.0016 at 2^20); with a fixed seed the check is
//! deterministic, and a miss means a broken generator. It exits non-zero
//! on a miss.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::containers::random::{fill_random_on, XorShift64Pool};
use granule::prelude::*;

/// Counts the points inside the quarter circle.
#[kernel(reduce)]
pub fn random_inside(i: usize, hits: &mut u64, x: &View1<f64>, y: &View1<f64>) {
    if x[i] * x[i] + y[i] * y[i] < 1.0 {
        *hits += 1;
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-N"], "20", "numbers = 2^N"),
    common::Flag::new(&["-seed"], "5374857", "the pool's seed"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n = flags.pow2("-N").expect("-N has a default");
    let seed: u64 = flags.value("-seed");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let pool = XorShift64Pool::new(&space, seed);
    let mut x = View1::zeros_on(&space, "x", n)?;
    let mut y = View1::zeros_on(&space, "y", n)?;
    let (hits, time) = common::timed(&space, || -> Result<u64> {
        fill_random_on(&space, &mut x, &pool, 0.0..1.0)?;
        fill_random_on(&space, &mut y, &pool.renewed(), 0.0..1.0)?;
        Ok(parallel_reduce(
            "inside",
            RangePolicy::new(&space, 0..n),
            Sum,
            random_inside(&x, &y),
        ))
    });
    let hits = hits?;
    let pi = 4.0 * hits as f64 / n as f64;
    let p = std::f64::consts::FRAC_PI_4;
    let sigma = 4.0 * (p * (1.0 - p) / n as f64).sqrt();
    let error = pi - std::f64::consts::PI;
    println!(
        "  pi ~ {pi:.6} from {n} points ({hits} inside): error {error:+.6} = {:+.2} sigma, {time:.4} s",
        error / sigma
    );
    if error.abs() > 6.0 * sigma {
        eprintln!(
            "random_number: the estimate is more than 6 sigma ({:.6}) from pi",
            6.0 * sigma
        );
        std::process::exit(1);
    }
    Ok(())
}
