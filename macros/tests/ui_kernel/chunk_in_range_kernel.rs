use granule::prelude::*;

#[kernel]
fn rows(i: usize, mut row: TeamChunk<f64>) {
    let _ = (i, &mut row);
}

fn main() {}
