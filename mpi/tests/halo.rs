//! The halo of 2x1x1 and 1x2x1 decompositions (1x1x1 on one rank)
//! against a single-rank reference grid.

mod common;

use common::Outcome;
use granule_mpi::{CommError, Halo};
use granule_views::View3;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

const GLOBAL: [usize; 3] = [7, 6, 5];

fn value([i, j, k]: [usize; 3]) -> f64 {
    (100 * i + 10 * j + k) as f64 + 0.5
}

/// Fills the owned cells from the reference, exchanges, and checks every
/// ghost face cell against the reference grid at its global index.
fn check(world: &SimpleCommunicator, dims: [usize; 3]) -> Outcome {
    let reference = View3::<f64>::from_fn("reference", GLOBAL, value)?;
    let halo = Halo::new(world, GLOBAL, Some(dims))?;
    let d = halo.decomposition().clone();
    let ext = d.local_extents();
    let own: [_; 3] = std::array::from_fn(|a| d.owned_range(a));
    let global =
        |idx: [usize; 3]| -> [usize; 3] { std::array::from_fn(|a| d.global_index(a, idx[a])) };
    let mut field = View3::<f64>::from_fn("T", ext, |idx| {
        if (0..3).all(|a| own[a].contains(&idx[a])) {
            reference[global(idx)]
        } else {
            -1.0
        }
    })?;
    let (seen, times) = halo.exchange(&mut field, |f| {
        f[[own[0].start, own[1].start, own[2].start]]
    })?;
    assert_eq!(
        seen, reference[d.offset],
        "the overlap closure reads the field"
    );
    assert!(times.communication() >= 0.0);
    let mut ghosts = 0;
    for i in 0..ext[0] {
        for j in 0..ext[1] {
            for k in 0..ext[2] {
                let idx = [i, j, k];
                let outside: Vec<usize> = (0..3).filter(|&a| !own[a].contains(&idx[a])).collect();
                let expect = match outside.len() {
                    0 => reference[global(idx)],
                    1 => {
                        ghosts += 1;
                        reference[global(idx)]
                    }
                    _ => -1.0, // edges and corners are not exchanged
                };
                assert_eq!(
                    field[idx],
                    expect,
                    "{dims:?}: local {idx:?}, global {:?}",
                    global(idx)
                );
            }
        }
    }
    let faces: usize = (0..3)
        .flat_map(|a| (0..2).map(move |s| (a, s)))
        .filter(|&(a, s)| d.has_neighbour(a, s))
        .map(|(a, _)| {
            (0..3)
                .filter(|&b| b != a)
                .map(|b| d.owned[b])
                .product::<usize>()
        })
        .sum();
    assert_eq!(ghosts, faces);
    Ok(())
}

fn body(world: &SimpleCommunicator) -> Outcome {
    if world.size() == 1 {
        check(world, [1, 1, 1])?;
    } else {
        check(world, [2, 1, 1])?;
        check(world, [1, 2, 1])?;
        check(world, [1, 1, 2])?;
    }
    // A field of the wrong shape is an error naming it.
    let halo = Halo::new(world, GLOBAL, None)?;
    let mut wrong = View3::<f64>::zeros("wrong", GLOBAL.map(|n| n + 3))?;
    match halo.exchange(&mut wrong, |_| ()) {
        Err(CommError::FieldShape { label, .. }) => assert_eq!(label, "wrong"),
        other => panic!("a mis-shaped field gave {:?}", other.map(|_| ())),
    }
    assert!(matches!(
        Halo::new(world, GLOBAL, Some([3, 1, 1])),
        Err(CommError::Decomposition(_))
    ));
    Ok(())
}

fn main() {
    common::main_for("halo", body);
}
