use granule::prelude::*;

// A multi-index location is no scalar of the device subset.
#[kernel(reduce)]
fn peak([i, j]: [usize; 2], a: &View2<f64>, acc: &mut ValLocScalar<f64, [usize; 2]>) {
    if acc.loc[0] != i {
        acc.update_max(a[[i, j]], [i, j]);
    }
}

fn main() {}
