// Hole 6: `MapContinuousLinear::new(w)` built per thread with different
// widths handed two threads the same element. A team's map is the same
// for the whole launch.
use granule_core::kernel::kernel;
use granule_core::prelude::*;

#[kernel(crate = granule_core)]
fn widths(m: &TeamMember, mut row: TeamChunk<u32>) {
    let w = m.team_rank() + 1;
    let mut mine = row.chunk_mut(MapContinuousLinear::new(w), m.thread_ids()).unwrap();
    mine[0] = 1;
}

fn main() {}
