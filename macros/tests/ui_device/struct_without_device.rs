use granule::prelude::*;

// The accumulator's struct must be `#[device]`, so the device knows it.
#[derive(Clone, Copy, Default)]
struct Pair {
    a: f64,
    b: f64,
}

#[kernel(reduce)]
fn pairs(i: usize, acc: &mut Pair) {
    acc.a += i as f64;
    acc.b += 1.0;
}

fn main() {}
