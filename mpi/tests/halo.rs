//! The halo of 2x1x1, 1x2x1 and 1x1x2 decompositions (1x1x1 on one
//! rank) against a single-rank reference grid, on Serial, Rayon and Cuda
//! (the CPU emulator: faces packed and unpacked by device kernels).

mod common;

use common::Outcome;
use granule_core::{ExecutionSpace, Serial};
use granule_cuda::Cuda;
use granule_mpi::{CommError, Halo, Pack};
use granule_rayon::Rayon;
use granule_views::{
    create_mirror_view_and_copy, HostSpace, LayoutRight, MemorySpace, SpaceCopy, View3,
};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

const GLOBAL: [usize; 3] = [7, 6, 5];

fn value([i, j, k]: [usize; 3]) -> f64 {
    (100 * i + 10 * j + k) as f64 + 0.5
}

/// Fills the owned cells from the reference, exchanges, and checks every
/// ghost face cell against the reference grid at its global index.
fn check<X, M>(world: &SimpleCommunicator, space: &X, dims: [usize; 3]) -> Outcome
where
    X: Pack<f64, 2, MemorySpace = M> + ExecutionSpace,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    HostSpace: SpaceCopy<M>,
{
    let reference = View3::<f64>::from_fn("reference", GLOBAL, value)?;
    let halo = Halo::new(world, GLOBAL, Some(dims))?;
    let d = halo.decomposition().clone();
    let ext = d.local_extents();
    let own: [_; 3] = std::array::from_fn(|a| d.owned_range(a));
    let global =
        |idx: [usize; 3]| -> [usize; 3] { std::array::from_fn(|a| d.global_index(a, idx[a])) };
    let mut field =
        View3::<f64, LayoutRight, M>::from_fn_in(space.memory_space(), "T", ext, |idx| {
            if (0..3).all(|a| own[a].contains(&idx[a])) {
                reference[global(idx)]
            } else {
                -1.0
            }
        })?;
    let (seen, times) = halo.exchange(space, &mut field, |f| f.extents())?;
    assert_eq!(seen, ext, "the overlap closure sees the field");
    let field = create_mirror_view_and_copy(&field)?;
    let field = field.as_view();
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

fn on<X, M>(world: &SimpleCommunicator, space: &X) -> Outcome
where
    X: Pack<f64, 2, MemorySpace = M> + ExecutionSpace,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    HostSpace: SpaceCopy<M>,
{
    if world.size() == 1 {
        check(world, space, [1, 1, 1])?;
    } else {
        check(world, space, [2, 1, 1])?;
        check(world, space, [1, 2, 1])?;
        check(world, space, [1, 1, 2])?;
    }
    Ok(())
}

fn body(world: &SimpleCommunicator) -> Outcome {
    on(world, &Serial)?;
    on(world, &Rayon::default())?;
    on(world, &Cuda::emulated()?)?;
    // A field of the wrong shape is an error naming it.
    let halo = Halo::new(world, GLOBAL, None)?;
    let mut wrong = View3::<f64>::zeros("wrong", GLOBAL.map(|n| n + 3))?;
    match halo.exchange(&Serial, &mut wrong, |_| ()) {
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
