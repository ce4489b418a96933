use granule::prelude::*;

#[device]
#[derive(Clone, Copy)]
struct Pair {
    a: f64,
    b: f64,
}

// A `#[device] struct` `&mut` is only a reduction's accumulator.
#[kernel]
fn pairs(i: usize, p: &mut Pair) {
    p.a = i as f64;
}

fn main() {}
