// A kernel given a host View cannot be dispatched on Cuda: the error names
// both memory spaces.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;
use granule_views::LayoutRight;

#[kernel(crate = granule_core)]
fn copy(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x[i];
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let x = View1::<f64>::zeros("x", 4).unwrap();
    let mut y = View1::<f64, LayoutRight, _>::zeros_in(cuda.memory_space(), "y", 4).unwrap();
    parallel_for("copy", RangePolicy::new(&cuda, 0..4), &mut y, copy(&x));
}
