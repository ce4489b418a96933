//! Starting MPI, and ending the whole job when one rank fails.

use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The exit code a rank gives MPI_Abort when its body panicked.
pub const PANIC_EXIT_CODE: i32 = 101;
/// The exit code a rank gives MPI_Abort when its body returned an error.
pub const ERROR_EXIT_CODE: i32 = 1;

/// Runs `body` on this rank between MPI_Init and MPI_Finalize (rsmpi's
/// universe) and ends the whole job if it fails.
///
/// A rank whose body panics (a kernel's bounds check, an `expect`) or
/// returns an error prints it and calls MPI_Abort: every rank of the job
/// then exits non-zero at once, instead of the others waiting forever
/// for messages that will not come. MPI is initialized with
/// `MPI_THREAD_FUNNELED`: kernels run on any number of threads, MPI is
/// called from the thread that called `run`.
///
/// ```
/// use mpi::traits::*;
/// granule_mpi::run(|world| {
///     println!("rank {} of {}", world.rank(), world.size());
///     Ok::<(), String>(())
/// });
/// ```
pub fn run<E, F>(body: F)
where
    E: std::fmt::Display,
    F: FnOnce(&SimpleCommunicator) -> Result<(), E>,
{
    let (universe, _threading) = mpi::initialize_with_threading(Threading::Funneled)
        .expect("MPI was initialized already: call granule_mpi::run once, from main");
    let world = universe.world();
    let rank = world.rank();
    // Why the job ends goes to stderr, not to `tracing`: it is the
    // program's last word (as a `main` returning `Err` prints its error),
    // and must be seen whether or not a subscriber is installed.
    match catch_unwind(AssertUnwindSafe(|| body(&world))) {
        Ok(Ok(())) => finish(universe),
        Ok(Err(e)) => {
            eprintln!("rank {rank}: error: {e}; aborting every rank");
            world.abort(ERROR_EXIT_CODE)
        }
        Err(_) => {
            // The panic hook has printed the message and location.
            eprintln!("rank {rank}: panicked; aborting every rank");
            world.abort(PANIC_EXIT_CODE)
        }
    }
}

/// MPI_Finalize, when the universe is dropped.
fn finish(universe: Universe) {
    drop(universe);
}
