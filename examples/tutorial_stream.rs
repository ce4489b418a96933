//! kokkos-tutorials `benchmarks/stream`: the STREAM kernels copy
//! (c = a), scale (b = s·c), add (c = a + b) and triad (a = b + s·c) over
//! Views of f64, each timed over several iterations; the best time of
//! each gives its bandwidth in GB/s (bytes read and written, as STREAM
//! counts them).
//!
//! Flags: `-n` elements per array (default 2^18, small for the emulator;
//! the original's is `-n 100000000`), `-iters` iterations (default 10,
//! 20 in the original).
//!
//! It validates the arrays against the values the iterations must give
//! and exits non-zero on a mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// The initial values, set on the space that owns the arrays.
#[kernel]
pub fn stream_init(_i: usize, a: &mut f64, b: &mut f64, c: &mut f64) {
    *a = 1.0;
    *b = 2.0;
    *c = 0.0;
}

/// c = a.
#[kernel]
pub fn stream_copy(i: usize, c: &mut f64, a: &View1<f64>) {
    *c = a[i];
}

/// b = s·c.
#[kernel]
pub fn stream_scale(i: usize, b: &mut f64, c: &View1<f64>, s: f64) {
    *b = s * c[i];
}

/// c = a + b.
#[kernel]
pub fn stream_add(i: usize, c: &mut f64, a: &View1<f64>, b: &View1<f64>) {
    *c = a[i] + b[i];
}

/// a = b + s·c.
#[kernel]
pub fn stream_triad(i: usize, a: &mut f64, b: &View1<f64>, c: &View1<f64>, s: f64) {
    *a = b[i] + s * c[i];
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-n"], "262144", "elements"),
    common::Flag::new(&["-iters"], "10", "iterations"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n: usize = flags.value("-n");
    let iters: usize = flags.value("-iters");
    assert!(iters > 0, "-iters must be positive");
    let scalar = 3.0;
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let mb = (n * std::mem::size_of::<f64>()) as f64 * 1.0e-6;
    println!("Reports fastest timing per kernel");
    println!("Memory Sizes:");
    println!("- Array Size:    {n}");
    println!("- Per Array:     {mb:12.2} MB");
    println!("- Total:         {:12.2} MB", 3.0 * mb);
    println!("Benchmark kernels will be performed for {iters} iterations.");

    let mut a = View1::zeros_on(&space, "a", n)?;
    let mut b = View1::zeros_on(&space, "b", n)?;
    let mut c = View1::zeros_on(&space, "c", n)?;
    let range = || RangePolicy::new(&space, 0..n);
    parallel_for("init", range(), (&mut a, &mut b, &mut c), stream_init());

    let mut best = [f64::INFINITY; 4];
    for _ in 0..iters {
        let (_, t) = common::timed(&space, || {
            parallel_for("copy", range(), &mut c, stream_copy(&a));
        });
        best[0] = best[0].min(t);
        let (_, t) = common::timed(&space, || {
            parallel_for("scale", range(), &mut b, stream_scale(&c, scalar));
        });
        best[1] = best[1].min(t);
        let (_, t) = common::timed(&space, || {
            parallel_for("add", range(), &mut c, stream_add(&a, &b));
        });
        best[2] = best[2].min(t);
        let (_, t) = common::timed(&space, || {
            parallel_for("triad", range(), &mut a, stream_triad(&b, &c, scalar));
        });
        best[3] = best[3].min(t);
    }

    // What every element must hold after the iterations.
    let (mut ea, mut eb, mut ec) = (1.0f64, 2.0f64, 0.0f64);
    for _ in 0..iters {
        ec = ea;
        eb = scalar * ec;
        ec = ea + eb;
        ea = eb + scalar * ec;
    }
    let mut errors = 0usize;
    for (name, view, expect) in [("a", &a, ea), ("b", &b, eb), ("c", &c, ec)] {
        let got = create_mirror_view_and_copy(view)?.to_vec();
        let wrong = got.iter().filter(|&&v| v != expect).count();
        if wrong > 0 {
            println!("  Error: {wrong} element(s) of {name} differ from {expect}");
        }
        errors += wrong;
    }
    if errors == 0 {
        println!("All solutions checked and verified.");
    }
    println!("---------------------------------------------------------");
    let bytes = [2.0, 2.0, 3.0, 3.0].map(|arrays| arrays * 8.0 * n as f64);
    for (k, name) in ["Copy", "Scale", "Add", "Triad"].iter().enumerate() {
        println!("{name:<10}{:12.4} GB/s", 1.0e-9 * bytes[k] / best[k]);
    }
    println!("---------------------------------------------------------");
    if errors > 0 {
        std::process::exit(1);
    }
    Ok(())
}
