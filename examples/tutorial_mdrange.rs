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

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[common::Flag::new(&["-nrepeat"], "10", "repetitions")];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[common::YAX_FLAGS, FLAGS]);
    let (n, m) = common::yax_sizes(&flags);
    let nrepeat: usize = flags.value("-nrepeat");
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

    let solution = common::yax_solution(n, m);

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
    let dims = format!("N( {n} ) M( {m} )");
    common::print_bandwidth("", &dims, nrepeat, common::yax_bytes(n, m), time);
    common::exit_if_wrong(wrong, solution);
    Ok(())
}
