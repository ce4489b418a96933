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

fn body(world: &SimpleCommunicator) -> Outcome {
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
        receive_into(&world.process_at_rank(last), 0, &mut never)?;
    }
    Ok(())
}

fn main() {
    if common::launched_by_mpirun() {
        granule_mpi::run(|world| body(world).map_err(|e| e.to_string()));
        unreachable!("the panicking rank aborts the job");
    }
    let bound = Duration::from_secs(60);
    for ranks in [1, 2] {
        let (status, took) = common::launch(ranks, bound);
        let status =
            status.unwrap_or_else(|| panic!("abort: the {ranks}-rank job hung past {bound:?}"));
        assert!(
            !status.success(),
            "abort: the {ranks}-rank job exited 0 although a kernel panicked"
        );
        println!("abort: {ranks}-rank job ended with {status} after {took:?} (expected: non-zero)");
    }
}
