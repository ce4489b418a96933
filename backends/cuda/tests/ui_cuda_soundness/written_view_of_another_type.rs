// Hole 1: a kernel written for `&mut f64` dispatched over a View of `u8`
// wrote 8 bytes per element, past the View. The dispatch now ties the
// written View's element type to the kernel's `&mut` type, as the host
// spaces do.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;

#[kernel(crate = granule_core)]
fn fill(i: usize, y: &mut f64) {
    *y = i as f64;
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut y = View1::<u8, LayoutRight, _>::zeros_in(cuda.memory_space(), "y", 1024).unwrap();
    parallel_for("fill", RangePolicy::new(&cuda, 0..1024), &mut y, fill());
}
