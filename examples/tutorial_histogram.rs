//! A histogram with an atomic View (the atomics of the kokkos-tutorials
//! exercises): every element adds 1 to its bin with `AtomicView::add`.
//! In granule a work item may write only what it owns, so scattered
//! increments go through `counts.atomic()`, the safe form of Kokkos's
//! `atomic_add` on a shared View.
//!
//! Flags: `-N e` elements = 2^e (default 2^18, small
//! for the emulator), `-bins b` (default 100),
//! `-nrepeat n` (default 10).
//!
//! It checks every bin against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// A deterministic scramble of i into [0, 1): the data to bin.
#[device]
pub fn histogram_value(i: usize) -> f64 {
    let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
    h as f64 / 9_007_199_254_740_992.0
}

/// The values, made on the space that bins them.
#[kernel]
pub fn histogram_fill(i: usize, v: &mut f64) {
    *v = histogram_value(i);
}

/// Adds element i to its bin.
#[kernel]
pub fn histogram_count(i: usize, v: &View1<f64>, counts: &AtomicView<'_, u64, 1>) {
    let bins = counts.extent(0);
    let b = ((v[i] * bins as f64) as usize).min(bins - 1);
    counts.add(b, 1);
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[common::HISTOGRAM_FLAGS]);
    let (n, bins, nrepeat) = common::histogram_flags(&flags);
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let mut v = View1::zeros_on(&space, "values", n)?;
    parallel_for(
        "fill",
        RangePolicy::new(&space, 0..n),
        &mut v,
        histogram_fill(),
    );
    let mut counts = View1::zeros_on(&space, "counts", bins)?;

    let (r, time) = common::timed(&space, || -> Result<()> {
        let atomic = counts.atomic()?;
        for _ in 0..nrepeat {
            let policy = RangePolicy::new(&space, 0..n);
            parallel_for("histogram", policy, (), histogram_count(&v, &atomic));
        }
        Ok(())
    });
    r?;

    let mut expect = vec![0u64; bins];
    for i in 0..n {
        let b = ((histogram_value(i) * bins as f64) as usize).min(bins - 1);
        expect[b] += nrepeat as u64;
    }
    let got = create_mirror_view_and_copy(&counts)?.to_vec();
    let (lo, hi) = (got.iter().min(), got.iter().max());
    println!(
        "  N( {n} ) bins( {bins} ) nrepeat ( {nrepeat} ) counts( min {} max {} ) {}",
        lo.copied().unwrap_or(0),
        hi.copied().unwrap_or(0),
        common::update_rate(n * nrepeat, time)
    );
    if got != expect {
        let first = (0..bins).find(|&b| got[b] != expect[b]).unwrap_or(0);
        println!(
            "  Error: bin {first} holds {} != {}",
            got[first], expect[first]
        );
        std::process::exit(1);
    }
    Ok(())
}
