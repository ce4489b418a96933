//! # granule-cuda
//!
//! The CUDA side of granule, built without any CUDA toolkit: `#[kernel]`
//! functions are translated to CUDA C++ by granule-macros at compile time;
//! this crate wraps them in framework-owned drivers ([`codegen`]), prepends
//! the self-contained device header ([`device`]) and compiles the result at
//! run time with NVRTC ([`nvrtc`]), loaded dynamically through cudarc.
//! Devices ([`device_api::Device`]) allocate, compile and launch: the
//! cudarc device ([`gpu::GpuDevice`]) on a real GPU, the host emulator
//! ([`emu::EmuDevice`]) on the CPU, from the same generated source.
//!
//! Crates above this one bring drivers of their own (granule-algorithms'
//! scans, compaction and sorts): a [`codegen::driver::DeviceDriver`],
//! made only through an `unsafe` constructor, instantiated with types, a
//! reducer and `#[kernel]` element functions, and launched through a
//! [`DriverLaunch`], which checks every argument as the patterns'
//! dispatch does.
//!
//! ```
//! use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
//! use granule_cuda::kernel::{DeviceKernel, Param, ParamKind};
//!
//! // What `#[kernel] fn twice(i: usize, y: &mut f64)` generates, by hand.
//! // SAFETY: the source defines `twice` with the parameters listed, and
//! // it writes only its output.
//! static TWICE: DeviceKernel = unsafe {
//!     DeviceKernel::new(
//!         "twice",
//!         granule_cuda::kernel::KernelPattern::For,
//!         &[],
//!         &[
//!             Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
//!             Param { name: "y", kind: ParamKind::Out, cpp: "granule::f64" },
//!         ],
//!         "__device__ void twice(granule::usize i, granule::f64& y) { y = 2.0 * (granule::f64)i; }\n",
//!         &[],
//!     )
//! };
//! let unit = TranslationUnit::new(&[Instance::new(&TWICE, Pattern::For, &[])]).unwrap();
//! assert!(unit.source().contains("extern \"C\" __global__ void granule_for_twice("));
//! assert_eq!(unit.entries(), ["granule_for_twice"]);
//! ```

mod cache;
pub mod codegen;
pub mod device;
pub mod device_api;
pub mod emu;
pub mod gpu;
pub mod kernel;
pub mod nvrtc;
pub mod space;

pub use space::{
    fence_all, Cuda, CudaSelection, CudaSpace, DriverLaunch, DriverWorkspace, GRANULE_CUDA,
};
