// Closures run on host spaces only: on Cuda the error says to write a
// `#[kernel]`.
use granule_core::prelude::*;
use granule_cuda::Cuda;
use granule_views::LayoutRight;

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut y = View1::<f64, LayoutRight, _>::zeros_in(cuda.memory_space(), "y", 4).unwrap();
    parallel_for("fill", RangePolicy::new(&cuda, 0..4), &mut y, |i, y: &mut f64| {
        *y = i as f64
    });
}
