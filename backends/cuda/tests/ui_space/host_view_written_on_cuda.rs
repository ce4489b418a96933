// A host View written by a dispatch on Cuda is a compile error that names
// both memory spaces.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;

#[kernel(crate = granule_core)]
fn fill(i: usize, y: &mut f64) {
    *y = i as f64;
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut y = View1::<f64>::zeros("y", 4).unwrap();
    parallel_for("fill", RangePolicy::new(&cuda, 0..4), &mut y, fill());
}
