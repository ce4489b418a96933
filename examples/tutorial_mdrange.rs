//! kokkos-tutorials `mdrange`: yᵀAx with the matrix filled by a 2-D
//! MDRangePolicy and the inner product reduced over the (row, column)
//! index space by an MDRange `parallel_reduce`, instead of a RangePolicy
//! over rows with a loop inside.
//!
//! Flags as in the original: `-N e` rows = 2^e, `-M e` columns = 2^e,
//! `-S e` total size 2^e (default 2^16 here, 2^22 in the original),
//! `-nrepeat n` (default 10, 100 in the original).
//!
//! It checks the result against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// A(j, i): each work item of the 2-D range owns its element.
#[kernel]
pub fn mdrange_fill_a([j, i]: [usize; 2], a: &mut f64) {
    *a = ((i + 2 * j) % 3 + 1) as f64;
}

/// yⱼ, small integers so that sums are exact.
#[kernel]
pub fn mdrange_fill_y(j: usize, y: &mut f64) {
    *y = (j % 5 + 1) as f64;
}

/// xᵢ, small integers so that sums are exact.
#[kernel]
pub fn mdrange_fill_x(i: usize, x: &mut f64) {
    *x = (i % 7 + 1) as f64;
}

/// One term yⱼ A(j, i) xᵢ per (j, i).
#[kernel(reduce)]
pub fn mdrange_yax(
    [j, i]: [usize; 2],
    y: &View1<f64>,
    a: &View2<f64>,
    x: &View1<f64>,
    acc: &mut f64,
) {
    *acc += y[j] * a[[j, i]] * x[i];
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let s = common::pow2_arg(&["-S", "-Size"]);
    let n_arg = common::pow2_arg(&["-N", "-Rows"]);
    let m_arg = common::pow2_arg(&["-M", "-Columns"]);
    let (n, m) = match (n_arg, m_arg) {
        (Some(n), Some(m)) => (n, m),
        (n, m) => {
            let s = s.unwrap_or(1 << 16);
            match (n, m) {
                (Some(n), _) => (n, s / n),
                (_, Some(m)) => (s / m, m),
                _ => (s / s.min(1024), s.min(1024)),
            }
        }
    };
    println!("  Total size S = {} N = {n} M = {m}", n * m);
    let nrepeat: usize = common::arg_or(&["-nrepeat"], 10);
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let mut y = View1::zeros_on(&space, "y", n)?;
    let mut x = View1::zeros_on(&space, "x", m)?;
    let mut a = View2::zeros_on(&space, "A", [n, m])?;
    parallel_for(
        "fill y",
        RangePolicy::new(&space, 0..n),
        &mut y,
        mdrange_fill_y(),
    );
    parallel_for(
        "fill x",
        RangePolicy::new(&space, 0..m),
        &mut x,
        mdrange_fill_x(),
    );
    let fill = MDRangePolicy::new(&space, [0, 0], [n, m]);
    parallel_for("fill A", fill, &mut a, mdrange_fill_a());

    let solution: f64 = (0..n)
        .map(|j| {
            let row: f64 = (0..m)
                .map(|i| ((i + 2 * j) % 3 + 1) as f64 * (i % 7 + 1) as f64)
                .sum();
            (j % 5 + 1) as f64 * row
        })
        .sum();

    let mut wrong = None;
    let (_, time) = common::timed(&space, || {
        for _ in 0..nrepeat {
            let policy = MDRangePolicy::new(&space, [0, 0], [n, m]);
            let result: f64 = parallel_reduce("yAx MDRange", policy, Sum, mdrange_yax(&y, &a, &x));
            if result != solution {
                wrong = Some(result);
            }
        }
    });
    let gbytes = 1.0e-9 * (std::mem::size_of::<f64>() * (n + m + n * m)) as f64;
    println!(
        "  N( {n} ) M( {m} ) nrepeat ( {nrepeat} ) problem( {} MB ) time( {} s ) bandwidth( {} GB/s )",
        common::g(gbytes * 1000.0),
        common::g(time),
        common::g(gbytes * nrepeat as f64 / time)
    );
    if let Some(result) = wrong {
        println!("  Error: result( {result:.6} ) != solution( {solution:.6} )");
        std::process::exit(1);
    }
    Ok(())
}
