// The algorithms have no Cuda implementation yet: calling one on Cuda,
// with Views of the device's memory, is a compile error naming the
// missing implementation, never a run-time stub.
use granule::prelude::*;
use granule::algorithms::inclusive_scan;

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let x = View1::<i64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 8).unwrap();
    let mut y = View1::<i64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "y", 8).unwrap();
    let _ = inclusive_scan(&cuda, &x, &mut y, Sum, None);
}
