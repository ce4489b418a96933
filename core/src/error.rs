//! Typed errors of policies, scratch requests and segment offsets.

use std::fmt;

/// An invalid execution policy or scratch request. Every variant names the
/// values that made it invalid; nothing is silently clamped.
///
/// ```
/// use granule_core::{PolicyError, RangePolicy, Serial};
/// let err = RangePolicy::try_new(&Serial, 7..3).unwrap_err();
/// assert_eq!(err, PolicyError::RangeBounds { begin: 7, end: 3 });
/// assert!(err.to_string().contains("begin 7") && err.to_string().contains("end 3"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyError {
    /// A range whose begin lies after its end.
    RangeBounds {
        /// The first index.
        begin: usize,
        /// One past the last index.
        end: usize,
    },
    /// An MDRange of a rank outside 2..=6.
    MDRangeRank {
        /// The rank asked for.
        rank: usize,
    },
    /// An MDRange whose lower bound exceeds its upper bound in some rank.
    MDRangeBounds {
        /// The offending rank.
        rank: usize,
        /// Lower bound in that rank.
        lower: usize,
        /// Upper bound in that rank.
        upper: usize,
    },
    /// An MDRange box with more indices than `usize` can count.
    MDRangeTooLarge {
        /// `upper - lower` per rank.
        extents: Vec<usize>,
    },
    /// An MDRange tile of extent zero.
    ZeroTile {
        /// The offending rank.
        rank: usize,
    },
    /// A team of zero threads, or a vector length of zero.
    ZeroTeamSize {
        /// `"team size"` or `"vector length"`.
        what: &'static str,
    },
    /// A team size above what the execution space supports.
    TeamSizeTooLarge {
        /// Requested threads per team.
        requested: usize,
        /// The space's `team_size_max`.
        max: usize,
        /// The execution space.
        space: &'static str,
    },
    /// A vector length above the maximum, or not a power of two.
    VectorLength {
        /// Requested vector length.
        requested: usize,
        /// The space's maximum.
        max: usize,
    },
    /// A scratch level other than 0 or 1.
    ScratchLevel {
        /// The level asked for.
        level: usize,
    },
    /// More scratch than the level provides.
    ScratchTooLarge {
        /// The scratch level.
        level: usize,
        /// Bytes asked for per team (team scratch plus per-thread scratch times team size).
        requested: usize,
        /// The space's `scratch_size_max(level)`.
        max: usize,
    },
    /// Scratch sizes whose sum does not fit: `per_team + per_thread *
    /// team_size` at one level, or the arena holding both levels (each
    /// region rounded up to 64 bytes) above `isize::MAX` bytes.
    ScratchOverflow {
        /// The scratch level being set.
        level: usize,
        /// Bytes per team at that level.
        per_team: usize,
        /// Bytes per thread at that level.
        per_thread: usize,
        /// Threads per team.
        team_size: usize,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::RangeBounds { begin, end } => {
                write!(f, "RangePolicy: begin {begin} is greater than end {end}")
            }
            PolicyError::MDRangeRank { rank } => {
                write!(f, "MDRangePolicy: rank {rank} is not supported (ranks 2 to 6 are)")
            }
            PolicyError::MDRangeBounds { rank, lower, upper } => write!(
                f,
                "MDRangePolicy: in rank {rank} the lower bound {lower} is greater than the upper bound {upper}"
            ),
            PolicyError::MDRangeTooLarge { extents } => write!(
                f,
                "MDRangePolicy: a box of extents {extents:?} has more indices than usize can count; split it"
            ),
            PolicyError::ZeroTile { rank } => write!(f, "MDRangePolicy: the tile of rank {rank} has extent 0"),
            PolicyError::ZeroTeamSize { what } => write!(f, "TeamPolicy: a {what} of 0 is not allowed"),
            PolicyError::TeamSizeTooLarge { requested, max, space } => write!(
                f,
                "TeamPolicy: team size {requested} is above the maximum {max} of the {space} execution space"
            ),
            PolicyError::VectorLength { requested, max } => write!(
                f,
                "TeamPolicy: vector length {requested} must be a power of two no greater than {max}"
            ),
            PolicyError::ScratchLevel { level } => {
                write!(f, "TeamPolicy: scratch level {level} does not exist (levels are 0 and 1)")
            }
            PolicyError::ScratchTooLarge { level, requested, max } => write!(
                f,
                "TeamPolicy: {requested} bytes of level-{level} scratch per team exceed the maximum {max}"
            ),
            PolicyError::ScratchOverflow { level, per_team, per_thread, team_size } => write!(
                f,
                "TeamPolicy: level-{level} scratch of {per_team} bytes per team plus {per_thread} bytes \
                 per thread x {team_size} threads overflows the address space (isize::MAX bytes for \
                 both levels together, each region rounded up to 64 bytes)"
            ),
        }
    }
}

impl std::error::Error for PolicyError {}

/// A scratch View request that cannot be served.
///
/// ```
/// use granule_core::prelude::*;
/// let space = Serial;
/// let policy = TeamPolicy::new(&space, 1, 1).with_scratch_size(0, PerTeam(64)).unwrap();
/// parallel_for("s", policy, (), |m: &TeamMember, ()| {
///     let err = m.team_scratch::<f64, 1>(0, [100]).unwrap_err();
///     assert!(matches!(err, ScratchError::TooLarge { requested: 800, available: 64, .. }));
///     assert!(err.to_string().contains("800 bytes"));
/// });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScratchError {
    /// The View does not fit in what is left of the region.
    TooLarge {
        /// The scratch level.
        level: usize,
        /// `"team"` or `"thread"`.
        scope: &'static str,
        /// Bytes the View needs, including alignment padding.
        requested: usize,
        /// Bytes still free at that level.
        available: usize,
    },
    /// The View's byte size (elements times element size, plus alignment
    /// padding) does not fit in `usize`.
    SizeOverflow {
        /// The scratch level.
        level: usize,
        /// `"team"` or `"thread"`.
        scope: &'static str,
        /// The View's extents.
        extents: Vec<usize>,
        /// Size of one element in bytes.
        elem_bytes: usize,
        /// Alignment of the element type in bytes.
        align: usize,
    },
    /// A scratch level other than 0 and 1.
    Level {
        /// The level asked for.
        level: usize,
        /// `"team"` or `"thread"`.
        scope: &'static str,
    },
}

impl fmt::Display for ScratchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScratchError::TooLarge {
                level,
                scope,
                requested,
                available,
            } => write!(
                f,
                "{scope} scratch level {level}: a View of {requested} bytes does not fit in the \
                 {available} bytes left; reserve more with TeamPolicy::with_scratch_size"
            ),
            ScratchError::SizeOverflow {
                level,
                scope,
                extents,
                elem_bytes,
                align,
            } => write!(
                f,
                "{scope} scratch level {level}: a View of extents {extents:?} of {elem_bytes}-byte \
                 elements (aligned to {align}) has a byte size that overflows usize"
            ),
            ScratchError::Level { level, scope } => write!(
                f,
                "{scope} scratch level {level} does not exist (levels are 0 and 1)"
            ),
        }
    }
}

impl std::error::Error for ScratchError {}

/// Offsets that cannot divide a View into segments
/// ([`Offsets`](crate::write::Offsets)). Each variant names the offsets
/// View and the entries at fault.
///
/// ```
/// use granule_core::prelude::*;
/// let starts = View1::<usize>::from_vec("row_starts", 3, vec![0, 27, 54]).unwrap();
/// let mut cols = View1::<i64>::zeros("cols", 50).unwrap();
/// let err = Offsets::new(&starts).unwrap().segments(&mut cols).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "offsets \"row_starts\" end at 54, past the extent 50 of View \"cols\""
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SegmentError {
    /// An offsets View with no entries (`n` segments take `n + 1`).
    NoEntries {
        /// The offsets View's label.
        offsets: String,
    },
    /// An entry greater than the next one: segments would overlap.
    Decreasing {
        /// The offsets View's label.
        offsets: String,
        /// The entry's index.
        index: usize,
        /// Its value.
        value: usize,
        /// The value of entry `index + 1`.
        next: usize,
    },
    /// A last offset past the written View's extent.
    PastView {
        /// The offsets View's label.
        offsets: String,
        /// The written View's label.
        view: String,
        /// The last offset.
        end: usize,
        /// The written View's extent.
        extent: usize,
    },
    /// Copying offsets the host cannot read to the host failed.
    Copy(granule_views::ViewError),
}

impl fmt::Display for SegmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentError::NoEntries { offsets } => write!(
                f,
                "offsets \"{offsets}\" have no entries: n segments take n + 1 offsets"
            ),
            SegmentError::Decreasing {
                offsets,
                index,
                value,
                next,
            } => write!(
                f,
                "offsets \"{offsets}\" decrease at entry {index}: {value} then {next}, so segments \
                 {index} and {} would overlap",
                index + 1
            ),
            SegmentError::PastView {
                offsets,
                view,
                end,
                extent,
            } => write!(
                f,
                "offsets \"{offsets}\" end at {end}, past the extent {extent} of View \"{view}\""
            ),
            SegmentError::Copy(e) => write!(f, "reading offsets to the host for their check: {e}"),
        }
    }
}

impl std::error::Error for SegmentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SegmentError::Copy(e) => Some(e),
            _ => None,
        }
    }
}
