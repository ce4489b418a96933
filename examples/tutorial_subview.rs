//! kokkos-tutorials `subview`: yᵀAx where the work on a part of A goes
//! through a subview of it.
//!
//! The original takes `subview(A, j, ALL)`, row j, inside the functor.
//! A `#[kernel]` cannot make subviews (they are host calls that borrow
//! their parent), so the port takes them on the host: A is cut into
//! blocks of rows, `A.subview((r0..r1, ALL))` and `y.subview(r0..r1)`,
//! which stay LayoutRight and borrow the device memory without copying;
//! each block is one `parallel_reduce` whose kernel sees only its block
//! and indexes it from 0. The blocks' sums add up to yᵀAx.
//!
//! Flags: `-N e` rows = 2^e, `-M e` columns = 2^e, `-S e` total size
//! (default 2^16, 2^22 in the original), `-nrepeat n` (default 10, 100 in
//! the original), `-blocks b` row blocks (default 4).
//!
//! It checks the result against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// Row `j` of a block: yⱼ times the row's product with x. The block's
/// Views are borrowed subviews, so the kernel takes `ViewRef`s.
#[kernel(reduce)]
pub fn subview_block_yax(
    j: usize,
    y_block: &ViewRef<'_, f64, 1>,
    a_block: &ViewRef<'_, f64, 2>,
    x: &View1<f64>,
    acc: &mut f64,
) {
    let mut row = 0.0;
    for i in 0..x.extent(0) {
        row += a_block[[j, i]] * x[i];
    }
    *acc += y_block[j] * row;
}

fn y_at(j: usize) -> f64 {
    (j % 5 + 1) as f64
}
fn x_at(i: usize) -> f64 {
    (i % 7 + 1) as f64
}
fn a_at(j: usize, i: usize) -> f64 {
    ((i + 2 * j) % 3 + 1) as f64
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let s = common::pow2_arg(&["-S", "-Size"]).unwrap_or(1 << 16);
    let m = common::pow2_arg(&["-M", "-Columns"]).unwrap_or(s.min(1024));
    let n = common::pow2_arg(&["-N", "-Rows"]).unwrap_or(s / m);
    println!("  Total size S = {} N = {n} M = {m}", n * m);
    let nrepeat: usize = common::arg_or(&["-nrepeat"], 10);
    let blocks: usize = common::arg_or(&["-blocks"], 4);
    assert!(blocks > 0, "-blocks must be positive");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let y = View1::from_fn_on(&space, "y", n, y_at)?;
    let x = View1::from_fn_on(&space, "x", m, x_at)?;
    let a = View2::from_fn_on(&space, "A", [n, m], |[j, i]| a_at(j, i))?;
    let solution: f64 = (0..n)
        .map(|j| y_at(j) * (0..m).map(|i| a_at(j, i) * x_at(i)).sum::<f64>())
        .sum();

    let per = n.div_ceil(blocks);
    let mut wrong = None;
    let (r, time) = common::timed(&space, || -> Result<()> {
        for _ in 0..nrepeat {
            let mut result = 0.0;
            for r0 in (0..n).step_by(per.max(1)) {
                let r1 = (r0 + per).min(n);
                let a_block = a.subview((r0..r1, ALL))?;
                let y_block = y.subview(r0..r1)?;
                let policy = RangePolicy::new(&space, 0..r1 - r0);
                let part: f64 = parallel_reduce(
                    "yAx block",
                    policy,
                    Sum,
                    subview_block_yax(&y_block, &a_block, &x),
                );
                result += part;
            }
            if result != solution {
                wrong = Some(result);
            }
        }
        Ok(())
    });
    r?;
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
