//! The `#[kernel]`s of the containers' tests (DualView, UnorderedMap).

use granule::prelude::*;

/// Doubles its element in place.
#[kernel]
pub fn double_in_place(_i: usize, y: &mut f64) {
    *y *= 2.0;
}

/// Every `#[kernel]` of this file; `nvrtc.rs` compiles them as a unit.
pub const KERNELS: &[&granule::kernel::DeviceKernel] = kernel_list![double_in_place];
