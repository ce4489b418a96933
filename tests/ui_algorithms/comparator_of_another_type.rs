// A comparator's elements must be the View's: the device code was made
// for them.
use granule::prelude::*;
use granule::algorithms::sort_by;

#[kernel(binary)]
fn less(a: i32, b: i32) -> bool {
    a < b
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut x = View1::<u32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 8).unwrap();
    let _ = sort_by(&cuda, &mut x, less());
}
