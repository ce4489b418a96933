use granule::prelude::*;

// `count_ones` is an integer method: the translator names the receiver's
// type (the host compiler would say the same, later).
#[kernel]
fn ones(i: usize, y: &mut u32, x: &View1<f64>) {
    *y = x[i].count_ones();
}

fn main() {}
