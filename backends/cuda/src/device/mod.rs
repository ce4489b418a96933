//! The device header, `granule.cuh`, that starts every generated
//! translation unit.
//!
//! It is self-contained (NVRTC has no system headers here) and provides:
//! exact-width integer typedefs; Rust-semantics helpers (wrapping signed
//! arithmetic, trapping division by zero, masked shifts, saturating
//! float-to-int casts); math wrappers; `View` for ranks 1..=8 and layouts
//! Right/Left/Stride with bounds checks that record the failure in the
//! error record (`record.rs` holds the host's copy of its layout) and
//! trap; atomics, with CAS loops for float min/max; reducers; and the
//! drivers: grid-stride `drive_for`, `drive_reduce`
//! (block tree + last-block fold), `drive_team` (a team is a block) and the
//! nested team/vector ranges.

mod record;

pub(crate) use record::ErrorRecord;

/// The text of `granule.cuh`, followed by the device side of the
/// containers (`unordered_map.cuh`, `scatter.cuh`, `unique_token.cuh`).
///
/// ```
/// assert!(granule_cuda::device::HEADER.contains("namespace granule"));
/// assert!(granule_cuda::device::HEADER.contains("struct ScatterAccess"));
/// assert!(granule_cuda::device::HEADER.contains("usize token_acquire("));
/// ```
pub const HEADER: &str = concat!(
    include_str!("granule.cuh"),
    // The device side of granule-containers' UnorderedMap, ScatterView
    // and UniqueToken.
    include_str!("unordered_map.cuh"),
    include_str!("scatter.cuh"),
    include_str!("unique_token.cuh")
);

/// Bytes of shared memory a Cuda space keeps, beyond [`reserved_smem`],
/// for the drivers' static `__shared__` variables when it reports the
/// largest team scratch (`scratch_size_max(0)`): each team reduction or
/// scan keeps 256 bytes per 8 bytes of its value type (the conformance
/// suite's team kernels keep up to 2.5 KiB in all, as ptxas reports for
/// sm_90). A GPU checks an entry's actual static use at launch and
/// refuses a launch it does not fit, with the sizes.
///
/// ```
/// assert_eq!(granule_cuda::device::STATIC_SMEM_ALLOWANCE, 4096);
/// ```
pub const STATIC_SMEM_ALLOWANCE: u64 = 4 * 1024;

/// Bytes of dynamic shared memory the drivers reserve, before team scratch,
/// for a block of `threads` threads (one 8-byte word each, 16-aligned).
///
/// ```
/// assert_eq!(granule_cuda::device::reserved_smem(3), 32);
/// ```
pub fn reserved_smem(threads: u64) -> u64 {
    (threads * 8).div_ceil(16) * 16
}
