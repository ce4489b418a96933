// A random pool is host data: a kernel takes its key and size instead,
// and the message says so, naming the device functions to draw with.
use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
use granule::prelude::*;

#[kernel]
fn draw(_i: usize, y: &mut f64, pool: &XorShift64Pool) {
    *y = pool.get_state().drand();
}

fn main() {}
