//! The device header that starts every generated translation unit.
//!
//! It is self-contained (NVRTC has no system headers here) and is one text,
//! kept as one file per concern under `header/` and concatenated in order
//! (each file names itself in its first line). `prelude.cuh` states the
//! conventions that keep Rust semantics on the device, defines the loop
//! and entry macros and exact-width integer typedefs, and opens
//! `namespace granule`, which `scan.cuh` closes; every file between them
//! continues its definitions, so a file's definitions may use those of the
//! files before it. In order:
//! - `prelude.cuh`: conventions, the tick macros, typedefs, `Num` traits;
//! - `error.cuh`: the error record (`record.rs` holds the host's copy of its
//!   layout), failing threads and failed assertions;
//! - `int.cuh`: Rust-semantics integer operators (wrapping arithmetic,
//!   trapping division by zero, masked shifts) and range lengths;
//! - `cast.cuh`: `as`, with saturating float-to-int casts;
//! - `math.cuh`: float functions and classification;
//! - `core_methods.cuh`: core's integer and float methods;
//! - `view.cuh`: `View` for ranks 1..=8 and layouts Right/Left/Stride with
//!   bounds checks that record the failure in the error record and stop the
//!   thread, and wide loads of View runs;
//! - `atomic.cuh`: atomics, with CAS loops for float min/max;
//! - `reducer.cuh`: reducers, location and tuple accumulators;
//! - `array.cuh`: `Array<T, N>`, Rust's arrays as values, with checked
//!   indexing (code 9), and the element and field types of values only C++
//!   sees;
//! - `range.cuh`: the drivers' loops, grid-stride `drive_for` and
//!   `drive_reduce` (block tree + last-block fold);
//! - `mdrange.cuh`: the MDRange drivers;
//! - `chunk.cuh`: chunk maps and team and thread chunks;
//! - `team.cuh`: `drive_team` (a team is a block), its scratch and
//!   collectives, and the nested team/vector ranges;
//! - `scan.cuh`: the one-pass scan with a decoupled look-back.

mod record;

pub(crate) use record::ErrorRecord;

/// The device header (the files of `header/`, in order), followed by the
/// device side of the containers (`unordered_map.cuh`, `scatter.cuh`,
/// `unique_token.cuh`).
///
/// ```
/// assert!(granule_cuda::device::HEADER.contains("namespace granule"));
/// assert!(granule_cuda::device::HEADER.contains("struct ScatterAccess"));
/// assert!(granule_cuda::device::HEADER.contains("usize token_acquire("));
/// ```
pub const HEADER: &str = concat!(
    include_str!("header/prelude.cuh"),
    include_str!("header/error.cuh"),
    include_str!("header/int.cuh"),
    include_str!("header/cast.cuh"),
    include_str!("header/math.cuh"),
    include_str!("header/core_methods.cuh"),
    include_str!("header/view.cuh"),
    include_str!("header/atomic.cuh"),
    include_str!("header/reducer.cuh"),
    include_str!("header/array.cuh"),
    include_str!("header/range.cuh"),
    include_str!("header/mdrange.cuh"),
    include_str!("header/chunk.cuh"),
    include_str!("header/team.cuh"),
    include_str!("header/scan.cuh"),
    // The device side of granule-containers' UnorderedMap, ScatterView
    // and UniqueToken.
    include_str!("unordered_map.cuh"),
    include_str!("scatter.cuh"),
    include_str!("unique_token.cuh")
);

/// CudaSpace's fill kernels, a translation unit of their own after
/// [`HEADER`] (`space/fill.rs` launches them).
///
/// ```
/// assert!(granule_cuda::device::FILL.contains("struct FillShape"));
/// ```
pub const FILL: &str = include_str!("fill.cuh");

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
