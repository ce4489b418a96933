//! `RangePolicy`: the flat index range `begin..end`.

use super::Policy;
use crate::error::PolicyError;
use crate::space::ExecutionSpace;
use std::ops::Range;

/// How a range is divided among threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Each thread gets one contiguous, equal share (Kokkos's default).
    #[default]
    Static,
    /// Chunks are handed out on demand (work stealing), for uneven work.
    Dynamic,
}

/// The indices `begin..end` of a one-dimensional dispatch.
///
/// The chunk size is the granularity of work distribution (and of the
/// fixed blocking that makes reductions reproducible); 0 means automatic.
///
/// ```
/// use granule_core::{RangePolicy, Schedule, Serial};
/// let p = RangePolicy::new(&Serial, 10..20)
///     .with_chunk_size(4)
///     .with_schedule(Schedule::Dynamic);;
/// assert_eq!((p.begin(), p.end(), p.len(), p.chunk()), (10, 20, 10, 4));
/// assert_eq!(p.schedule(), Schedule::Dynamic);
/// assert!(RangePolicy::try_new(&Serial, 5..2).is_err());
/// ```
#[derive(Debug)]
pub struct RangePolicy<'s, S: ExecutionSpace> {
    space: &'s S,
    begin: usize,
    end: usize,
    chunk: usize,
    schedule: Schedule,
}

impl<S: ExecutionSpace> Clone for RangePolicy<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: ExecutionSpace> Copy for RangePolicy<'_, S> {}

impl<'s, S: ExecutionSpace> RangePolicy<'s, S> {
    /// The range `range` on `space`.
    ///
    /// # Panics
    /// If `range.start > range.end`, with both bounds in the message; use
    /// [`RangePolicy::try_new`] for a typed error.
    #[track_caller]
    pub fn new(space: &'s S, range: Range<usize>) -> Self {
        match Self::try_new(space, range) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    /// The range `range` on `space`, or [`PolicyError::RangeBounds`] if it
    /// is reversed.
    pub fn try_new(space: &'s S, range: Range<usize>) -> Result<Self, PolicyError> {
        if range.start > range.end {
            return Err(PolicyError::RangeBounds {
                begin: range.start,
                end: range.end,
            });
        }
        Ok(RangePolicy {
            space,
            begin: range.start,
            end: range.end,
            chunk: 0,
            schedule: Schedule::Static,
        })
    }

    /// Sets the chunk size; 0 restores the automatic choice (Kokkos's
    /// `ChunkSize(c)` argument or `set_chunk_size(c)`).
    #[doc(alias = "set_chunk_size")]
    #[doc(alias = "ChunkSize")]
    pub fn with_chunk_size(mut self, chunk: usize) -> Self {
        self.chunk = chunk;
        self
    }

    /// Sets the schedule (Kokkos's `Schedule<..>` template argument).
    pub fn with_schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// The first index.
    pub fn begin(&self) -> usize {
        self.begin
    }
    /// One past the last index.
    pub fn end(&self) -> usize {
        self.end
    }
    /// Number of indices.
    pub fn len(&self) -> usize {
        self.end - self.begin
    }
    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.begin == self.end
    }
    /// The chunk size asked for (0: automatic); Kokkos's `chunk_size()`.
    #[doc(alias = "chunk_size")]
    pub fn chunk(&self) -> usize {
        self.chunk
    }
    /// The chunk size to use: the one asked for, or `auto` when 0.
    pub fn chunk_or(&self, auto: usize) -> usize {
        if self.chunk == 0 {
            auto
        } else {
            self.chunk
        }
    }
    /// The schedule: [`Schedule::Static`] unless
    /// [`with_schedule`](Self::with_schedule) set another.
    #[doc(alias = "get_schedule")]
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }
    /// The execution space.
    pub fn space(&self) -> &'s S {
        self.space
    }
}

impl<S: ExecutionSpace> Policy for RangePolicy<'_, S> {
    type Space = S;
    type WorkIndex<'a> = usize;
    type WriteIndex = usize;
    const KIND: &'static str = "Range";
    fn space(&self) -> &S {
        self.space
    }
    fn write_bound(&self) -> usize {
        if self.begin < self.end {
            self.end
        } else {
            0
        }
    }
}

#[cfg(test)]
#[allow(clippy::reversed_empty_ranges)] // reversed ranges are the input under test
mod tests {
    use super::*;
    use crate::Serial;

    #[test]
    fn reversed_range_names_both_bounds() {
        let e = RangePolicy::try_new(&Serial, 9..4).unwrap_err();
        assert_eq!(e.to_string(), "RangePolicy: begin 9 is greater than end 4");
    }

    #[test]
    #[should_panic(expected = "begin 3 is greater than end 1")]
    fn new_panics_on_reversed_range() {
        let _ = RangePolicy::new(&Serial, 3..1);
    }

    #[test]
    fn chunk_zero_is_automatic() {
        let p = RangePolicy::new(&Serial, 0..5);
        assert_eq!(p.chunk_or(7), 7);
        assert_eq!(p.with_chunk_size(2).chunk_or(7), 2);
        assert!(RangePolicy::new(&Serial, 4..4).is_empty());
    }
}
