use granule::prelude::*;

// A repeat's length is a C++ template argument: a literal or a constant.
#[kernel]
fn zeros(i: usize, y: &mut f64, n: usize) {
    let a = [0.0; n];
    *y = a[i];
}

fn main() {}
