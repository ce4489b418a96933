// Hole 4: a generic kernel instantiated with `u8` got past the refusal of
// 8- and 16-bit atomic Views and did a 32-bit atomicAdd at the element's
// address, writing the next element. A generic atomic element must be
// `DeviceAtomic`, which `u8` is not.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;

#[kernel(crate = granule_core)]
fn count<T: Atomic>(i: usize, h: &AtomicView<'_, T, 1>, one: T) {
    h.add(i, one);
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut h = View1::<u8, LayoutRight, _>::zeros_in(cuda.memory_space(), "h", 8).unwrap();
    let a = h.atomic().unwrap();
    parallel_for("count", RangePolicy::new(&cuda, 0..8), (), count(&a, 1u8));
}
