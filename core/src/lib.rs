//! # granule-core
//!
//! The execution half of granule: [execution spaces](ExecutionSpace),
//! [policies](policy), [patterns](pattern) with [reducers](reducer), the
//! [`team`] API, [profiling hooks](profiling), and the built-in
//! [`Serial`] space. Backends (`granule-rayon`, later CUDA) implement the
//! per-pattern traits of [`pattern`] for their space.
//!
//! ```
//! use granule_core::prelude::*;
//! let space = Serial;
//! let n = 1000;
//! let x = View1::<f64>::from_fn("x", n, |i| i as f64).unwrap();
//! let mut y = View1::<f64>::zeros("y", n).unwrap();
//! parallel_for("axpy", RangePolicy::new(&space, 0..n), &mut y, |i, yi: &mut f64| *yi = 2.0 * x[i] + *yi);
//! let dot: f64 = parallel_reduce("dot", RangePolicy::new(&space, 0..n), Sum, |i, acc: &mut f64| *acc += x[i] * y[i]);
//! assert_eq!(dot, 2.0 * (0..n).map(|i| (i * i) as f64).sum::<f64>());
//! ```

pub mod error;
pub mod exec;
pub mod functor;
pub mod kernel;
pub mod pattern;
pub mod policy;
pub mod portable;
pub mod profiling;
pub mod reducer;
pub mod space;
pub mod team;
pub mod timer;
pub mod write;

pub use error::{PolicyError, ScratchError, SegmentError};
pub use pattern::{
    parallel_for, parallel_reduce, parallel_reduce_into, parallel_scan, parallel_scan_with,
};
pub use policy::{
    Iterate, MDRangePolicy, PerTeam, PerThread, Policy, RangePolicy, Schedule, TeamPolicy,
    TeamSize, AUTO,
};
pub use portable::PortableSpace;
pub use space::{ExecutionSpace, Serial, ViewOn};
pub use team::{
    single, MapIdentity, TeamChunk, TeamMember, TeamThreadRange, TeamVectorRange, ThreadVectorRange,
};
pub use timer::Timer;

/// What kernels need: Views, spaces, policies, patterns, reducers, teams.
pub mod prelude {
    pub use crate::reducer::{
        self, BAnd, BOr, LAnd, LOr, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxFirstLastLoc,
        MinMaxLoc, MinMaxLocScalar, MinMaxScalar, Prod, Reducer, Sum, ValLocScalar,
    };
    pub use crate::write::{Offsets, Row, Segment, Segments};
    pub use crate::{
        parallel_for, parallel_reduce, parallel_reduce_into, parallel_scan, parallel_scan_with,
        single, ExecutionSpace, Iterate, MDRangePolicy, MapIdentity, PerTeam, PerThread,
        PolicyError, PortableSpace, RangePolicy, Schedule, ScratchError, SegmentError, Serial,
        TeamChunk, TeamMember, TeamPolicy, TeamThreadRange, TeamVectorRange, ThreadVectorRange,
        Timer, ViewOn, AUTO,
    };
    pub use granule_views::chunk::{MapContinuousLinear, MapLinear};
    pub use granule_views::{
        Atomic, AtomicView, HostSpace, LayoutLeft, LayoutRight, LayoutStride, View, View1, View2,
        View3, View4, View5, View6, View7, View8, ViewError, ViewMut, ViewRef,
    };
}
