use granule::prelude::*;

// A ValLocScalar has `val` and `loc`, nothing else.
#[kernel(reduce)]
fn peak(i: usize, x: &View1<f64>, acc: &mut ValLocScalar<f64, usize>) {
    if x[i] > acc.max_val {
        acc.update_max(x[i], i);
    }
}

fn main() {}
