// Host code may not index a View whose memory space is not host-accessible.
use granule_views::{HostSpace, LayoutRight, MemorySpace, View1};
use std::ptr::NonNull;

#[derive(Clone, Debug, Default)]
struct Device;

// SAFETY: delegates to HostSpace; claims not to be host-accessible.
unsafe impl MemorySpace for Device {
    const NAME: &'static str = "Device";
    const IS_HOST_ACCESSIBLE: bool = false;
    fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
        HostSpace.allocate(bytes, zeroed)
    }
    unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
        unsafe { HostSpace.deallocate(ptr, bytes) }
    }
}

fn main() {
    let v = View1::<f64, LayoutRight, Device>::zeros("d", 4).unwrap();
    let _x = v[0];
}
