// Host code cannot index a View in device memory: CudaSpace is not
// HostAccessible. Read it through a mirror instead.
use granule_cuda::{Cuda, CudaSpace};
use granule_views::{LayoutRight, View1};

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let v = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "v", 4).unwrap();
    let _x = v[0];
}
