use granule::chunk::MapLinear;
use granule::prelude::*;

#[kernel]
fn rows(m: &TeamMember, mut row: TeamChunk<f64>) {
    let mut mine = row.chunk_mut(MapLinear::new(1), m.thread_ids()).unwrap();
    mine[0] = 1.0;
}

fn main() {}
