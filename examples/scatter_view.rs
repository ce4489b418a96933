//! A histogram two ways (kokkos-tutorials' ScatterView exercise): with an
//! atomic View, where every element adds 1 to a shared counter, and with
//! a ScatterView, where each thread of a pool counts into its own copy
//! and `contribute_into` adds the copies up (on Cuda a ScatterView uses
//! atomics, as Kokkos's does). It prints both times and checks both
//! histograms against a host loop, exiting non-zero on a mismatch.
//!
//! Flags: `-N e` elements = 2^e (default 2^18, small for the emulator),
//! `-bins b` (default 100), `-nrepeat n` (default 10).

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::containers::ScatterView;
use granule::prelude::*;

/// The value element i holds: a scramble of i.
#[device]
pub fn scatter_example_value(i: usize) -> u32 {
    ((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

/// The values, made on the space that bins them.
#[kernel]
pub fn scatter_example_fill(i: usize, v: &mut u32) {
    *v = scatter_example_value(i);
}

/// Adds element i to its bin of the atomic View.
#[kernel]
pub fn scatter_example_atomic(i: usize, v: &View1<u32>, counts: &AtomicView<'_, u64, 1>) {
    counts.add(v[i] as usize % counts.extent(0), 1);
}

/// Adds element i to its bin of the ScatterView.
#[kernel]
pub fn scatter_example_scatter(
    i: usize,
    v: &View1<u32>,
    bins: usize,
    counts: &ScatterView<u64, 1>,
) {
    counts.access().add(v[i] as usize % bins, 1);
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
        scatter_example_fill(),
    );

    let mut expect = vec![0u64; bins];
    for i in 0..n {
        expect[scatter_example_value(i) as usize % bins] += nrepeat as u64;
    }

    let mut atomic_counts = View1::zeros_on(&space, "atomic counts", bins)?;
    let (r, atomic_time) = common::timed(&space, || -> Result<()> {
        let a = atomic_counts.atomic()?;
        for _ in 0..nrepeat {
            let policy = RangePolicy::new(&space, 0..n);
            parallel_for(
                "atomic histogram",
                policy,
                (),
                scatter_example_atomic(&v, &a),
            );
        }
        Ok(())
    });
    r?;

    let mut scatter_counts = View1::zeros_on(&space, "scatter counts", bins)?;
    let mut sv = ScatterView::for_view(&space, &scatter_counts)?;
    let (r, scatter_time) = common::timed(&space, || -> Result<()> {
        for _ in 0..nrepeat {
            let policy = RangePolicy::new(&space, 0..n);
            parallel_for(
                "scatter histogram",
                policy,
                (),
                scatter_example_scatter(&v, bins, &sv),
            );
        }
        sv.contribute_into(&mut scatter_counts)?;
        Ok(())
    });
    r?;

    println!(
        "  N( {n} ) bins( {bins} ) nrepeat( {nrepeat} ) strategy( {:?} )",
        sv.strategy()
    );
    let mut failed = false;
    for (name, counts, time) in [
        ("atomic View", &atomic_counts, atomic_time),
        ("ScatterView", &scatter_counts, scatter_time),
    ] {
        let got = create_mirror_view_and_copy(counts)?.to_vec();
        println!("  {name:<12} {}", common::update_rate(n * nrepeat, time));
        if let Some(b) = (0..bins).find(|&b| got[b] != expect[b]) {
            println!("  Error: {name} bin {b} holds {} != {}", got[b], expect[b]);
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
