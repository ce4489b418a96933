//! The device header, `granule.cuh`, that starts every generated
//! translation unit.
//!
//! It is self-contained (NVRTC has no system headers here) and provides:
//! exact-width integer typedefs; Rust-semantics helpers (wrapping signed
//! arithmetic, trapping division by zero, masked shifts, saturating
//! float-to-int casts); math wrappers; `View` for ranks 1..=8 and layouts
//! Right/Left/Stride with bounds checks that record the failure in
//! `granule_error` and trap; atomics, with CAS loops for float min/max;
//! reducers; and the drivers: grid-stride `drive_for`, `drive_reduce`
//! (block tree + last-block fold), `drive_team` (a team is a block) and the
//! nested team/vector ranges.

/// The text of `granule.cuh`.
///
/// ```
/// assert!(granule_cuda::device::HEADER.contains("namespace granule"));
/// ```
pub const HEADER: &str = include_str!("granule.cuh");

/// Bytes of dynamic shared memory the drivers reserve, before team scratch,
/// for a block of `threads` threads (one 8-byte word each, 16-aligned).
///
/// ```
/// assert_eq!(granule_cuda::device::reserved_smem(3), 32);
/// ```
pub fn reserved_smem(threads: u64) -> u64 {
    (threads * 8).div_ceil(16) * 16
}
