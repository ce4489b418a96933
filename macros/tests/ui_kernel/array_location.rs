use granule::prelude::*;

// Array locations are `[usize; R]` with R in 1..=6, as MDRange indices.
#[kernel(reduce)]
fn peak([i, j]: [usize; 2], a: &View2<f64>, acc: &mut ValLocScalar<f64, [usize; 7]>) {
    acc.update_max(a[[i, j]], [i, j, 0, 0, 0, 0, 0]);
}

fn main() {}
