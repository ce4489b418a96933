// A received message is another process's bytes: only a type whose every
// bit pattern is valid may take them, and a `bool` is only 0 or 1.
use granule_core::Serial;
use granule_mpi::{receive_into, run};
use granule_views::View1;
use mpi::traits::*;

fn main() {
    run(|world| {
        let mut flags = View1::<bool>::zeros("flags", 4)?;
        receive_into(&Serial, &world.process_at_rank(0), 0, &mut flags)?;
        Ok::<(), granule_mpi::CommError>(())
    });
}
