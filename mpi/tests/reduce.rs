//! all_reduce with every reducer of granule, and of a View.

mod common;

use common::Outcome;
use granule_core::reducer::*;
use granule_mpi::{all_reduce, all_reduce_view};
use granule_views::{View2, ALL};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

fn body(world: &SimpleCommunicator) -> Outcome {
    let r = world.rank() as i64;
    let p = world.size() as i64;
    let ranks = 0..p;
    // Sum, Prod
    assert_eq!(
        all_reduce(world, &Sum, r + 1),
        ranks.clone().map(|x| x + 1).sum::<i64>()
    );
    assert_eq!(
        all_reduce(world, &Prod, (r + 2) as f64),
        ranks.clone().map(|x| (x + 2) as f64).product::<f64>()
    );
    // Min, Max, MinMax
    assert_eq!(all_reduce(world, &Min, 5 - r), 5 - (p - 1));
    assert_eq!(all_reduce(world, &Max, 5 - r), 5);
    let mm = all_reduce(
        world,
        &MinMax,
        MinMaxScalar {
            min_val: r as f64,
            max_val: r as f64,
        },
    );
    assert_eq!((mm.min_val, mm.max_val), (0.0, (p - 1) as f64));
    // MinLoc, MaxLoc, MinMaxLoc: ties go to the lower index on every rank
    let lowest = all_reduce(
        world,
        &MinLoc,
        ValLocScalar {
            val: (r % 2) as f64,
            loc: 100 - r as usize,
        },
    );
    assert_eq!(
        lowest,
        ValLocScalar {
            val: 0.0,
            loc: if p > 2 { 98 } else { 100 }
        }
    );
    // A value with padding (f32 then usize): it travels without it.
    let padded = all_reduce(
        world,
        &MaxLoc,
        ValLocScalar {
            val: r as f32 * 0.5,
            loc: 1000 + r as usize,
        },
    );
    assert_eq!(
        (padded.val, padded.loc),
        ((p - 1) as f32 * 0.5, 1000 + (p - 1) as usize)
    );
    // A bool travels as a u8.
    assert!(all_reduce(world, &LOr, r == p - 1));
    assert!(!all_reduce(world, &LAnd, r == 0 && p > 1));
    let highest = all_reduce(
        world,
        &MaxLoc,
        ValLocScalar {
            val: r as f64,
            loc: [r as usize, 7],
        },
    );
    assert_eq!(
        highest,
        ValLocScalar {
            val: (p - 1) as f64,
            loc: [p as usize - 1, 7]
        }
    );
    let both = all_reduce(
        world,
        &MinMaxLoc,
        MinMaxLocScalar {
            min_val: -r,
            max_val: -r,
            min_loc: r as usize,
            max_loc: r as usize,
        },
    );
    assert_eq!(
        (both.min_val, both.min_loc, both.max_val, both.max_loc),
        (1 - p, p as usize - 1, 0, 0)
    );
    // LAnd, LOr, BAnd, BOr
    assert_eq!(all_reduce(world, &LAnd, r == 0), p == 1);
    assert!(all_reduce(world, &LOr, r == 0));
    assert_eq!(
        all_reduce(world, &BAnd, 0b111u32 ^ (1 << r)),
        if p == 1 { 0b110 } else { 0b100 }
    );
    assert_eq!(all_reduce(world, &BOr, 1u32 << r), (1u32 << p) - 1);
    // custom: non-commutative, so rank order shows: digits of the ranks
    let digits = custom(|| 0u64, |dst: &mut u64, src: &u64| *dst = *dst * 10 + *src);
    let expected = (0..p as u64).fold(0, |acc, x| acc * 10 + x + 1);
    assert_eq!(all_reduce(world, &digits, r as u64 + 1), expected);
    // tuples: several results in one call
    let (s, m, lo) = all_reduce(
        world,
        &(Sum, Max, MinLoc),
        (
            1.5f64,
            r,
            ValLocScalar {
                val: r as f32,
                loc: r as i32,
            },
        ),
    );
    assert_eq!((s, m, lo.loc), (1.5 * p as f64, p - 1, 0));
    // a strided View, element-wise
    let mut grid =
        View2::<i32>::from_fn("grid", [3, 4], |[i, j]| (i * 4 + j) as i32 + 100 * r as i32)?;
    let mut column = grid.subview_mut((ALL, 1))?;
    all_reduce_view(world, &Max, &mut column)?;
    for i in 0..3 {
        assert_eq!(grid[[i, 1]], (i * 4 + 1) as i32 + 100 * (p as i32 - 1));
        assert_eq!(
            grid[[i, 0]],
            (i * 4) as i32 + 100 * r as i32,
            "outside the subview: untouched"
        );
    }
    Ok(())
}

fn main() {
    common::main_for("reduce", body);
}
