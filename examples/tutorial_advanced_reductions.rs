//! kokkos-tutorials `advanced_reductions`: reductions beyond a single sum.
//!
//! - Several results in one pass: the sum, the minimum and the maximum of
//!   x, a tuple accumulator with the reducers `(Sum, Min, Max)`.
//! - A custom reducer: the geometric mean (Πxᵢ)^(1/n), reduced as the sum
//!   of logarithms and a count (the product itself would overflow), with
//!   `init`, `join` and a `finalize` that turns the sum into the mean.
//!   It is a `#[device] impl Reducer`, so it runs on Cuda as well.
//!
//! Flags: `-N e` elements = 2^e (default 2^14, small
//! for the emulator; use `-N 24` or more on a real machine), `-nrepeat n` (default 10).
//!
//! It checks the results against host loops and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// The state of a geometric mean: Σ ln xᵢ and n; `finalize` sets `mean`.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeometricMean {
    /// Σ ln xᵢ so far.
    pub log_sum: f64,
    /// How many elements were joined.
    pub count: u64,
    /// The geometric mean, set by `finalize`.
    pub mean: f64,
}

/// Joins [`GeometricMean`] states; the mean is taken once, at the end.
#[derive(Clone, Copy)]
pub struct GeometricMeanOf;

#[device]
impl Reducer<GeometricMean> for GeometricMeanOf {
    fn init(&self) -> GeometricMean {
        GeometricMean {
            log_sum: 0.0,
            count: 0,
            mean: 0.0,
        }
    }
    fn join(&self, dst: &mut GeometricMean, src: &GeometricMean) {
        dst.log_sum += src.log_sum;
        dst.count += src.count;
    }
    fn finalize(&self, value: &mut GeometricMean) {
        value.mean = (value.log_sum / value.count as f64).exp();
    }
}

/// xᵢ, positive: 1 + (i mod 10) / 4.
#[kernel]
pub fn reductions_fill(i: usize, x: &mut f64) {
    *x = 1.0 + (i % 10) as f64 * 0.25;
}

/// One element's contribution to the geometric mean.
#[kernel(reduce)]
pub fn geometric_mean_term(i: usize, x: &View1<f64>, acc: &mut GeometricMean) {
    acc.log_sum += x[i].ln();
    acc.count += 1;
}

/// Sum, minimum and maximum in one pass.
#[kernel(reduce)]
pub fn sum_min_max(i: usize, x: &View1<f64>, acc: &mut (f64, f64, f64)) {
    acc.0 += x[i];
    acc.1 = acc.1.min(x[i]);
    acc.2 = acc.2.max(x[i]);
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-N"], "14", "elements = 2^N"),
    common::Flag::new(&["-nrepeat"], "10", "repetitions"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n = flags.pow2("-N").expect("-N has a default");
    let nrepeat: usize = flags.value("-nrepeat");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let mut x = View1::zeros_on(&space, "x", n)?;
    parallel_for(
        "fill x",
        RangePolicy::new(&space, 0..n),
        &mut x,
        reductions_fill(),
    );

    let mut geo = GeometricMeanOf.init();
    let mut smm = (0.0, 0.0, 0.0);
    let (_, time) = common::timed(&space, || {
        for _ in 0..nrepeat {
            let policy = RangePolicy::new(&space, 0..n);
            geo = parallel_reduce(
                "geometric mean",
                policy,
                GeometricMeanOf,
                geometric_mean_term(&x),
            );
            let policy = RangePolicy::new(&space, 0..n);
            smm = parallel_reduce("sum min max", policy, (Sum, Min, Max), sum_min_max(&x));
        }
    });

    // The host's values, from the same formula for xᵢ.
    let xs = (0..n).map(|i| 1.0 + (i % 10) as f64 * 0.25);
    let log_sum: f64 = xs.clone().map(f64::ln).sum();
    let expect_mean = (log_sum / n as f64).exp();
    let expect_sum: f64 = xs.clone().sum();
    let expect_min = xs.clone().fold(f64::INFINITY, f64::min);
    let expect_max = xs.fold(f64::NEG_INFINITY, f64::max);

    println!(
        "  geometric mean {:.12} (host {expect_mean:.12}), sum {} min {} max {}",
        geo.mean, smm.0, smm.1, smm.2
    );
    println!(
        "  N( {n} ) nrepeat ( {nrepeat} ) problem( {} MB ) time( {} s ) bandwidth( {} GB/s )",
        common::g(1.0e-6 * (8 * n) as f64),
        common::g(time),
        common::g(1.0e-9 * (2 * 8 * n * nrepeat) as f64 / time)
    );
    // Logarithms differ between the host's libm and the device's in the
    // last bits, and the sums' order differs by space: a relative bound.
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-10 * b.abs();
    let mut ok = geo.count == n as u64 && close(geo.mean, expect_mean);
    // Sums of multiples of 1/4 are exact in any order.
    ok &= smm == (expect_sum, expect_min, expect_max);
    if !ok {
        println!("  Error: results differ from the host's");
        std::process::exit(1);
    }
    Ok(())
}
