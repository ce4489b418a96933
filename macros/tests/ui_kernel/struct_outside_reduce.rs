use granule::prelude::*;

#[device]
#[derive(Clone, Copy)]
struct Pair {
    a: f64,
    b: f64,
}

// A `#[device] struct` `&mut` is a reduction's accumulator or a written
// View's element, not a scan's partial.
#[kernel(scan)]
fn pairs(i: usize, p: &mut Pair, last: bool) {
    p.a = i as f64;
    let _ = last;
}

fn main() {}
