//! What a `#[kernel]` or `#[device]` function carries for the device: its
//! CUDA C++ source and the description of its parameters.
//!
//! The types live in granule-core ([`granule_core::kernel`]), so that
//! kernels depend on no backend; this module re-exports them for the code
//! generator ([`crate::codegen`]), which reads them to write the
//! `extern "C"` entry points.
//!
//! ```
//! use granule_cuda::kernel::DeviceLayout;
//! assert_eq!(DeviceLayout::Stride.cpp(), "granule::LayoutStride");
//! ```

pub use granule_core::kernel::*;
