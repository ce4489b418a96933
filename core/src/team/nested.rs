//! Nested ranges inside a team: `TeamThreadRange` (split over the team's
//! threads), `ThreadVectorRange` (over one thread's vector lanes) and
//! `TeamVectorRange` (over both), each with for, reduce and scan.
//!
//! On the host a team is one thread, so each is a loop on the calling
//! thread: closures may be `FnMut` (e.g. to write the thread's own chunk).
//! Reductions use several independent accumulators, like the top-level
//! pattern, so vector loops stay bound by memory, not by add latency.

use super::member::TeamMember;
use crate::exec::reduce_leaf;
use crate::reducer::{Reducer, ReductionIdentity, Sum};
use std::ops::{AddAssign, Range};

macro_rules! nested_range {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name<'m> {
            member: &'m TeamMember,
            begin: usize,
            end: usize,
        }

        impl<'m> $name<'m> {
            /// The indices `range` within `member`'s team.
            ///
            /// # Panics
            /// If `range.start > range.end`, naming both bounds.
            #[track_caller]
            pub fn new(member: &'m TeamMember, range: Range<usize>) -> Self {
                assert!(
                    range.start <= range.end,
                    concat!(stringify!($name), ": begin {} is greater than end {}"),
                    range.start,
                    range.end
                );
                $name { member, begin: range.start, end: range.end }
            }

            /// The team member the range belongs to.
            pub fn member(&self) -> &'m TeamMember {
                self.member
            }

            /// Calls `f(i)` for every index.
            #[inline(always)]
            pub fn parallel_for(self, mut f: impl FnMut(usize)) {
                for i in self.begin..self.end {
                    f(i)
                }
            }

            /// Reduces `f(i, &mut acc)` over the range with `reducer`
            /// (finalized); the identity when empty.
            #[inline(always)]
            pub fn parallel_reduce<T, R: Reducer<T>>(self, reducer: R, f: impl FnMut(usize, &mut T)) -> T {
                let mut v = reduce_leaf(self.begin, self.end, &reducer, f);
                reducer.finalize(&mut v);
                v
            }

            /// A sum scan with the Kokkos contract (`f(i, &mut partial,
            /// is_final)`, one final call per index); returns the total.
            #[inline(always)]
            pub fn parallel_scan<T: ReductionIdentity + AddAssign>(self, f: impl FnMut(usize, &mut T, bool)) -> T {
                self.parallel_scan_with(Sum, f)
            }

            /// A scan combined by `reducer`; returns the total.
            #[inline(always)]
            pub fn parallel_scan_with<T, R: Reducer<T>>(self, reducer: R, mut f: impl FnMut(usize, &mut T, bool)) -> T {
                let mut partial = reducer.init();
                for i in self.begin..self.end {
                    f(i, &mut partial, true)
                }
                partial
            }
        }
    };
}

nested_range!(
    /// Indices split among the threads of a team.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// let a = View2::<f64>::from_fn("a", [3, 4], |[i, j]| (i * 4 + j) as f64).unwrap();
    /// let total: f64 = parallel_reduce("rows", TeamPolicy::new(&Serial, 3, AUTO), Sum, |m: &TeamMember, acc: &mut f64| {
    ///     let r = m.league_rank();
    ///     *acc += TeamThreadRange::new(m, 0..4).parallel_reduce(Sum, |j, s: &mut f64| *s += a[[r, j]]);
    /// });
    /// assert_eq!(total, 66.0);
    /// ```
    TeamThreadRange
);
nested_range!(
    /// Indices split among the vector lanes of one thread.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// parallel_for("lanes", TeamPolicy::new(&Serial, 1, AUTO), (), |m: &TeamMember, ()| {
    ///     let total: i64 = ThreadVectorRange::new(m, 0..5).parallel_scan(|i, p: &mut i64, _| *p += i as i64);
    ///     assert_eq!(total, 10);
    /// });
    /// ```
    ThreadVectorRange
);
nested_range!(
    /// Indices split among every vector lane of every thread of a team.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// parallel_for("all", TeamPolicy::new(&Serial, 1, AUTO), (), |m: &TeamMember, ()| {
    ///     let mut seen = vec![];
    ///     TeamVectorRange::new(m, 2..5).parallel_for(|i| seen.push(i));
    ///     assert_eq!(seen, [2, 3, 4]);
    /// });
    /// ```
    TeamVectorRange
);
