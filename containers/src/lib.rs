//! Kokkos's containers on every execution space (Serial, Rayon, Cuda):
//! the pieces Kokkos users reach for once their code leaves the
//! tutorials. Each keeps granule's write model: nothing here lets safe
//! code race or alias.

pub mod scatter;

pub use scatter::{ScatterStrategy, ScatterView};
