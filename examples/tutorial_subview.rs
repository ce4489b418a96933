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

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-nrepeat"], "10", "repetitions"),
    common::Flag::new(&["-blocks"], "4", "blocks of rows"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[common::YAX_FLAGS, FLAGS]);
    let (n, m) = common::yax_sizes(&flags);
    let nrepeat: usize = flags.value("-nrepeat");
    let blocks: usize = flags.value("-blocks");
    assert!(blocks > 0, "-blocks must be positive");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let y = View1::from_fn_on(&space, "y", n, common::y_at)?;
    let x = View1::from_fn_on(&space, "x", m, common::x_at)?;
    let a = View2::from_fn_on(&space, "A", [n, m], |[j, i]| common::a_at(j, i))?;
    let solution = common::yax_solution(n, m);

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
    let dims = format!("N( {n} ) M( {m} )");
    common::print_bandwidth("", &dims, nrepeat, common::yax_bytes(n, m), time);
    common::exit_if_wrong(wrong, solution);
    Ok(())
}
