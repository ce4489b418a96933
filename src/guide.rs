#![doc = include_str!("../docs/guide/index.md")]

#[doc = include_str!("../docs/guide/kokkos.md")]
pub mod kokkos {}

#[doc = include_str!("../docs/guide/write_model.md")]
pub mod write_model {}

#[doc = include_str!("../docs/guide/determinism.md")]
pub mod determinism {}

#[doc = include_str!("../docs/guide/cuda.md")]
pub mod cuda {}

#[doc = include_str!("../docs/guide/porting.md")]
pub mod porting {}
