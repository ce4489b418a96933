//! The conformance suite: written once, instantiated for every execution
//! space (Serial and Rayon here; the CUDA emulator later), one file per
//! concept, like Kokkos's per-backend unit tests.
//!
//! Run it with `cargo test --test conformance` (add
//! `--no-default-features` for Serial only).

// The bad-input tests pass reversed ranges on purpose, and axpy is
// written as the issue spells it, `y[i] = a*x[i] + y[i]`.
#![allow(clippy::reversed_empty_ranges, clippy::assign_op_pattern)]

#[macro_use]
mod bad_input;
#[macro_use]
mod for_;
#[macro_use]
mod mdrange;
#[macro_use]
mod reduce;
#[macro_use]
mod scan;
#[macro_use]
mod team;

/// Instantiates every concept's tests for one execution space:
/// `conformance_suite!(module_name, SpaceType, expression making the space)`.
macro_rules! conformance_suite {
    ($name:ident, $ty:ty, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use granule::prelude::*;
            #[allow(dead_code)]
            fn space() -> $ty {
                $make
            }
            for_tests!();
            reduce_tests!();
            scan_tests!();
            mdrange_tests!();
            team_tests!();
            bad_input_tests!();
        }
    };
}

conformance_suite!(serial, granule::prelude::Serial, granule::prelude::Serial);

#[cfg(feature = "rayon")]
fn rayon_space(threads: usize) -> granule::Rayon {
    use std::sync::OnceLock;
    static SPACES: [OnceLock<granule::Rayon>; 4] = [const { OnceLock::new() }; 4];
    SPACES[threads]
        .get_or_init(|| granule::Rayon::new(threads).expect("a rayon pool"))
        .clone()
}

#[cfg(feature = "rayon")]
conformance_suite!(rayon2, granule::Rayon, crate::rayon_space(2));
#[cfg(feature = "rayon")]
conformance_suite!(rayon1, granule::Rayon, crate::rayon_space(1));
#[cfg(feature = "rayon")]
conformance_suite!(rayon3, granule::Rayon, crate::rayon_space(3));
