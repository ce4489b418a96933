//! A rank whose kernel panics ends the whole job, non-zero, promptly,
//! while the other rank waits for a message that will never come.

mod common;

use common::Outcome;
use granule_core::policy::RangePolicy;
use granule_mpi::receive_into;
use granule_views::View1;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

/// Which failure the ranks play (the launcher sets it).
const CASE: &str = "GRANULE_MPI_ABORT_CASE";

fn body(world: &SimpleCommunicator) -> Outcome {
    if std::env::var(CASE).as_deref() == Ok("overlap") {
        return overlap_panics(world);
    }
    let last = world.size() - 1;
    if world.rank() == last {
        let space = granule_rayon::Rayon::default();
        let x = View1::<f64>::zeros("x", 4)?;
        let mut y = View1::<f64>::zeros("y", 4)?;
        // Reads past the end of "x": the bounds check panics on a worker.
        granule_core::parallel_for(
            "past the end",
            RangePolicy::new(&space, 0..4),
            &mut y,
            |i, yi: &mut f64| *yi = x[i + 4],
        );
    } else {
        let mut never = View1::<f64>::zeros("never", 4)?;
        receive_into(
            &granule_core::Serial,
            &world.process_at_rank(last),
            0,
            &mut never,
        )?;
    }
    Ok(())
}

/// The last rank's work overlapped with a halo exchange panics while
/// the faces are in flight.
fn overlap_panics(world: &SimpleCommunicator) -> Outcome {
    let halo = granule_mpi::Halo::new(world, [8, 8, 8], None)?;
    let mut t = granule_views::View3::<f64>::zeros("T", halo.decomposition().local_extents())?;
    let last = world.rank() == world.size() - 1;
    halo.exchange(&granule_core::Serial, &mut t, |t| {
        if last {
            let _ = t[[99, 0, 0]]; // past the end: panics naming "T"
        }
    })?;
    if last {
        unreachable!("the overlapped work panicked");
    }
    // The other ranks wait here for a message that never comes.
    let mut never = View1::<f64>::zeros("never", 4)?;
    receive_into(
        &granule_core::Serial,
        &world.process_at_rank(world.size() - 1),
        0,
        &mut never,
    )?;
    Ok(())
}

fn main() {
    if common::launched_by_mpirun() {
        granule_mpi::run(|world| body(world).map_err(|e| e.to_string()));
        unreachable!("the panicking rank aborts the job");
    }
    let bound = Duration::from_secs(60);
    for case in ["kernel", "overlap"] {
        for ranks in [1, 2] {
            let (status, took) = common::launch_with(ranks, bound, &[(CASE, case)]);
            let status = status.unwrap_or_else(|| {
                panic!("abort ({case}): the {ranks}-rank job hung past {bound:?}")
            });
            assert!(
                !status.success(),
                "abort ({case}): the {ranks}-rank job exited 0 after a panic"
            );
            println!("abort ({case}): {ranks}-rank job ended with {status} after {took:?} (expected: non-zero)");
        }
    }
}
