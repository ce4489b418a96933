use granule::prelude::*;

#[kernel(reduce)]
fn peak([i, j]: [usize; 2], a: &View2<f64>, acc: &mut ValLocScalar<f64, [usize; 2]>) {
    acc.update_max(a[[i, j]], [i, j]);
}

fn main() {}
