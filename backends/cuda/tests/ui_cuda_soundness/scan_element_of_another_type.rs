// Hole 1, for scans: the scan's written element type must be the kernel's.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;

#[kernel(scan, crate = granule_core)]
fn prefix(i: usize, e: &mut i64, partial: &mut i64, last: bool) {
    if last {
        *e = *partial;
    }
    *partial += i as i64;
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut e = View1::<u16, LayoutRight, _>::zeros_in(cuda.memory_space(), "e", 64).unwrap();
    let _ = parallel_scan("scan", RangePolicy::new(&cuda, 0..64), &mut e, prefix());
}
