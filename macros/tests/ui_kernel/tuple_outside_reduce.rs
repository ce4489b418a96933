use granule::prelude::*;

// A tuple `&mut` is only a reduction's accumulator.
#[kernel]
fn pair(i: usize, p: &mut (f64, usize)) {
    p.0 = 1.0;
    p.1 = i;
}

fn main() {}
