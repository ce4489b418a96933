// A map in device memory gives an inserter (for a kernel), but host code
// may not insert through it, nor read the map's slots.
use granule_containers::UnorderedMap;
use granule_views::{HostSpace, MemorySpace};
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
    let mut map = UnorderedMap::<u64, u32, Device>::new_in(Device, "d", 8).unwrap();
    map.inserter().insert(1, 2);
    let _ = map.size();
}
