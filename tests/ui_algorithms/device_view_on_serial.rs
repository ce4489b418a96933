// A View in the Cuda device's memory handed to an algorithm dispatched on
// Serial: the memory spaces differ, so it does not compile.
use granule::prelude::*;
use granule::algorithms::reduce;

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let x = View1::<i64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 8).unwrap();
    let _ = reduce(&Serial, &x, Sum, None);
}
