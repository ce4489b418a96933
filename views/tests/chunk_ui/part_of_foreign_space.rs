// A device-space View can be chunked (a kernel's team writes), but host
// code may not take a part of it.
use granule_views::chunk::{GridToThread, MapLinear, ScopedIds};
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
    let mut c = v.chunked(MapLinear::new(1));
    let _ = c.data_address();
    let ids = ScopedIds::<GridToThread>::linear(4, 0).unwrap();
    let _part = c.part(ids);
}
