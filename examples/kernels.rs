//! Portable kernels: `#[kernel]` functions run on the default execution
//! space (Serial, Rayon, or Cuda with `--features cuda`), over Views
//! allocated in its memory, unchanged.
//! It checks its own results and exits non-zero if any is wrong.

use granule::prelude::*;

/// `y = a x + y`, one element per work item.
#[kernel]
pub fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y += a * x[i];
}

/// The dot product's contribution of element `i`.
#[kernel(reduce)]
pub fn dot(i: usize, x: &View1<f64>, y: &View1<f64>, acc: &mut f64) {
    *acc += x[i] * y[i];
}

/// Inclusive prefix sum of the squares of the indices.
#[kernel(scan)]
pub fn prefix_squares(i: usize, out: &mut i64, partial: &mut i64, last: bool) {
    *partial += (i * i) as i64;
    if last {
        *out = *partial;
    }
}

/// A 2-D stencil over an MDRange: each interior element averages its
/// four neighbours.
#[kernel]
pub fn smooth([i, j]: [usize; 2], a: &View2<f64>, out: &mut f64) {
    let n = a.extent(0);
    let m = a.extent(1);
    if i > 0 && j > 0 && i + 1 < n && j + 1 < m {
        *out = 0.25 * (a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
    } else {
        *out = a[[i, j]];
    }
}

fn main() -> Result<(), ViewError> {
    // granule reports through `tracing` and leaves the subscriber to the
    // program: warnings by default, and with `RUST_LOG=granule=info` what
    // the CUDA backend compiles and where it caches it.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::builder()
                .with_default_directive(tracing_subscriber::filter::LevelFilter::WARN.into())
                .from_env_lossy(),
        )
        .with_writer(std::io::stderr)
        .init();
    // Serial, Rayon or Cuda, by cargo feature: the code below is the same.
    let space = match granule::default_space() {
        Ok(space) => space,
        Err(e) => {
            eprintln!("kernels: {e}");
            std::process::exit(1);
        }
    };
    let n = 10_000;
    let x = View1::from_fn_on(&space, "x", n, |i| i as f64)?;
    let mut y = View1::full_on(&space, "y", n, 1.0)?;
    parallel_for(
        "axpy",
        RangePolicy::new(&space, 0..n),
        &mut y,
        axpy(2.0, &x),
    );
    assert_eq!(create_mirror_view_and_copy(&y)?[123], 247.0, "axpy");

    let d: f64 = parallel_reduce("dot", RangePolicy::new(&space, 0..n), Sum, dot(&x, &y));
    let expect: f64 = (0..n).map(|i| i as f64 * (2.0 * i as f64 + 1.0)).sum();
    assert_eq!(d, expect, "dot");

    let mut pre = View1::zeros_on(&space, "prefix", 100)?;
    let total = parallel_scan(
        "prefix",
        RangePolicy::new(&space, 0..100),
        &mut pre,
        prefix_squares(),
    );
    assert_eq!(
        (create_mirror_view_and_copy(&pre)?[2], total),
        (5, 328_350),
        "scan"
    );

    let a = View2::from_fn_on(&space, "a", [64, 32], |[i, j]| (i + j) as f64)?;
    let mut s = View2::zeros_on(&space, "s", [64, 32])?;
    let p = MDRangePolicy::new(&space, [0, 0], [64, 32]);
    parallel_for("smooth", p, &mut s, smooth(&a));
    let s = create_mirror_view_and_copy(&s)?;
    assert_eq!((s[[10, 10]], s[[0, 5]]), (20.0, 5.0), "smooth");

    println!(
        "on {}: axpy, dot = {d}, scan total = {total}, smooth: all correct",
        space.name()
    );
    Ok(())
}
