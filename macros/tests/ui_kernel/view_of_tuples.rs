use granule::prelude::*;

// The device lays tuples out otherwise than the host: no View of them.
#[kernel]
fn firsts(i: usize, y: &mut f64, x: &View1<(f64, f64)>) {
    *y = x[i].0;
}

fn main() {}
