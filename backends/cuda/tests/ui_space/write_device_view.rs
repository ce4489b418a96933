// Nor write one, fill it or borrow it as a slice.
use granule_cuda::{Cuda, CudaSpace};
use granule_views::{LayoutRight, View1};

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut v = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "v", 4).unwrap();
    v[1] = 2.0;
    v.fill(1.0);
    let _s = v.as_slice();
}
