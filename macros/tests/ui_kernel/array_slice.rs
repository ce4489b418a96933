use granule::prelude::*;

// Device code has arrays of a constant length, no slices of them.
#[kernel]
fn first_two(i: usize, y: &mut f64) {
    let a = [1.0, 2.0, 3.0];
    let s = a[0..2];
    *y = s[i % 2];
}

fn main() {}
