// The XorShift1024* pool's message names its own device functions.
use granule::containers::random::{RandomPool, XorShift1024Pool};
use granule::prelude::*;

#[kernel(reduce)]
fn count(_i: usize, pool: XorShift1024Pool, acc: &mut u64) {
    *acc += pool.num_states() as u64;
}

fn main() {}
