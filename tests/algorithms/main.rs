//! The algorithms suite: written once, instantiated for every execution
//! space that has the algorithms (Serial, and Rayon with 1, 2 and 3
//! threads), like the conformance suite.
//!
//! `cargo test --test algorithms`.
//!
//! Portable style, so a device space can be added as one more
//! instantiation once its algorithms exist: Views are made in
//! `space().memory_space()`, results are read through
//! `create_mirror_view_and_copy`, and every check is against a sequential
//! reference computed on the host. Per-element user code is a closure
//! here; on a device space it will be a `#[kernel]` function.

#[macro_use]
mod common;
#[macro_use]
mod scan;
#[macro_use]
mod compact;
#[macro_use]
mod reduce;
#[macro_use]
mod sort;
#[macro_use]
mod bad_input;
#[macro_use]
mod soundness;
#[macro_use]
mod props;
mod determinism;

/// `algorithm_suite!(module, SpaceType, expression making the space)`.
macro_rules! algorithm_suite {
    ($name:ident, $ty:ty, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use crate::common::*;
            #[allow(unused_imports)]
            use granule::algorithms::*;
            #[allow(unused_imports)]
            use granule::prelude::*;
            #[allow(dead_code)]
            fn space() -> $ty {
                $make
            }
            scan_tests!();
            compact_tests!();
            reduce_tests!();
            sort_tests!();
            bad_input_tests!();
            soundness_tests!();
            prop_tests!();
        }
    };
}

algorithm_suite!(serial, granule::prelude::Serial, granule::prelude::Serial);
#[cfg(feature = "rayon")]
algorithm_suite!(rayon1, granule::Rayon, crate::common::rayon_space(1));
#[cfg(feature = "rayon")]
algorithm_suite!(rayon2, granule::Rayon, crate::common::rayon_space(2));
#[cfg(feature = "rayon")]
algorithm_suite!(rayon3, granule::Rayon, crate::common::rayon_space(3));
