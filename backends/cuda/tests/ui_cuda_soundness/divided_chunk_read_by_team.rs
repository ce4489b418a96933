// Hole 6: a thread read a `TeamChunk` element that another thread of its
// team was writing through its part, with no barrier. A team reads its
// chunk or divides it among its threads, not both.
use granule_core::kernel::kernel;
use granule_core::prelude::*;

#[kernel(crate = granule_core)]
fn peek(m: &TeamMember, mut row: TeamChunk<u32>) {
    let next = row[(m.team_rank() + 1) % m.team_size()];
    let mut mine = row.chunk_mut(MapContinuousLinear::new(1), m.thread_ids()).unwrap();
    mine[0] = next + 1;
}

fn main() {}
