// A device-space View gives an AtomicView (its address, for a kernel), but
// host code may not operate on its elements.
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
    let mut v = View1::<u32, LayoutRight, Device>::zeros_in(Device, "d", 4).unwrap();
    let a = v.atomic().unwrap();
    let _ = a.data_address();
    a.add(0, 1);
}
