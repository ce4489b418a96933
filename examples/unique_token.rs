//! Per-token partial histograms (kokkos-tutorials' UniqueToken exercise):
//! each work item acquires an id of a `UniqueToken`, counts its value into
//! row `id` of a partial histogram, and releases the id; a second kernel
//! adds the rows up. The token is sized by the space's concurrency, so
//! the partials take one row per thread that runs at once, whatever the
//! number of elements. The result is checked against a host loop (exit 1
//! on a mismatch).
//!
//! Kokkos writes `partial(id, bin) += 1` as a plain store; granule's write
//! model lends no View element outside a work item's own, so the kernel
//! adds through an atomic View (uncontended: only the holder of `id`
//! touches its row). Host code can also borrow the rows themselves,
//! lent through held guards (`UniqueToken::rows`).
//!
//! Flags: `-N e` elements = 2^e (default 2^16, small for the emulator),
//! `-bins b` (default 32).

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::containers::UniqueToken;
use granule::prelude::*;

/// The bin of element i: a scramble of i.
#[device]
pub fn token_example_bin(i: usize, bins: usize) -> usize {
    (((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % bins as u64) as usize
}

/// Counts element i into the row of the id it holds.
#[kernel]
pub fn token_example_count(
    i: usize,
    bins: usize,
    token: &UniqueToken,
    partial: &AtomicView<'_, u64, 2>,
) {
    let id = token.acquire();
    partial.add([id, token_example_bin(i, bins)], 1);
    token.release(id);
}

/// Bin b of the histogram: the sum of the partials' column b.
#[kernel]
pub fn token_example_combine(b: usize, count: &mut u64, partial: &View2<u64>) {
    let mut sum = 0;
    for id in 0..partial.extent(0) {
        sum += partial[[id, b]];
    }
    *count = sum;
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-N"], "16", "elements = 2^N"),
    common::Flag::new(&["-bins"], "32", "bins"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n = flags.pow2("-N").expect("-N has a default");
    let bins: usize = flags.value("-bins");
    assert!(bins > 0, "-bins must be positive");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let token = UniqueToken::new_on(&space)?;
    let mut partial = View2::zeros_on(&space, "partial", [token.size(), bins])?;
    let mut histogram = View1::zeros_on(&space, "histogram", bins)?;
    let (r, time) = common::timed(&space, || -> Result<()> {
        let policy = RangePolicy::new(&space, 0..n);
        parallel_for(
            "count",
            policy,
            (),
            token_example_count(bins, &token, &partial.atomic()?),
        );
        parallel_for(
            "combine",
            RangePolicy::new(&space, 0..bins),
            &mut histogram,
            token_example_combine(&partial),
        );
        Ok(())
    });
    r?;

    let mut expect = vec![0u64; bins];
    for i in 0..n {
        expect[token_example_bin(i, bins)] += 1;
    }
    let got = create_mirror_view_and_copy(&histogram)?.to_vec();
    println!(
        "  N( {n} ) bins( {bins} ) tokens( {} ) time( {} s )",
        token.size(),
        common::g(time)
    );
    if let Some(b) = (0..bins).find(|&b| got[b] != expect[b]) {
        println!("  Error: bin {b} holds {} != {}", got[b], expect[b]);
        std::process::exit(1);
    }
    println!("  histogram matches the host loop");
    Ok(())
}
