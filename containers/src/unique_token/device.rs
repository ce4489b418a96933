//! What a `#[kernel]` on a device space receives for a captured token:
//! its locks, as `granule::AtomicView<u32, 1>` (`unique_token.cuh`).

use super::{UniqueToken, LABEL};
use granule_core::kernel::{DeviceToken, ViewArg};
use granule_views::MemorySpace;

// SAFETY: `size` locks of u32, `stride` apart, in the token's own View,
// which lives while `&self` does; the token accesses them only atomically
// (`locks.rs`), as the device does.
unsafe impl<M: MemorySpace> DeviceToken for UniqueToken<M> {
    fn lock_arg(&self) -> ViewArg<'_> {
        ViewArg::of::<u32>(
            LABEL,
            self.locks.as_ptr() as usize,
            &[self.size],
            &[self.stride],
        )
    }
}
