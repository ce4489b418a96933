// A closure is host code: given to an algorithm on Cuda it does not
// compile, and the message says to write a `#[kernel]` element function.
use granule::prelude::*;
use granule::algorithms::{copy_if, count_if, sort_by, transform_inclusive_scan};

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let x = View1::<i64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 8).unwrap();
    let mut y = View1::<i64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "y", 8).unwrap();
    let _ = copy_if(&cuda, &x, &mut y, |v: i64| v > 0);
    let _ = count_if(&cuda, &x, |v: i64| v > 0);
    let _ = transform_inclusive_scan(&cuda, &x, &mut y, Sum, None, |v: i64| v * 2);
    let _ = sort_by(&cuda, &mut y, |a: i64, b: i64| a > b);
}
