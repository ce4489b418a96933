//! The algorithms suite: written once, instantiated for every execution
//! space (Serial; Rayon with 1, 2 and 3 threads; Cuda with the `cuda`
//! feature, on the emulator unless `GRANULE_CUDA` names a GPU), like the
//! conformance suite.
//!
//! `cargo test --test algorithms` (`--features cuda` for Cuda).
//!
//! Portable style: Views are made in `space().memory_space()`, results
//! are read through `create_mirror_view_and_copy`, every check is against
//! a sequential reference computed on the host, and per-element user code
//! is a `#[kernel]` element function (`functions.rs`). The host spaces
//! also run closures, tuples of reducers and closure reducers, which a
//! device does not take. `counts.rs` checks the device drivers' launches
//! and memory traffic against the emulator's counters.

#[macro_use]
mod common;
mod functions;
#[macro_use]
mod scan;
#[macro_use]
mod compact;
#[macro_use]
mod reduce;
#[macro_use]
mod find;
#[macro_use]
mod transform;
#[macro_use]
mod sort;
#[macro_use]
mod bin_sort;
#[macro_use]
mod sparse;
#[macro_use]
mod bad_input;
#[macro_use]
mod soundness;
#[macro_use]
mod props;
#[cfg(feature = "cuda")]
mod coalescing;
#[cfg(feature = "cuda")]
mod counts;
mod determinism;

/// The tests every space runs: user code is `#[kernel]` element
/// functions (`functions.rs`).
macro_rules! portable_tests {
    () => {
        scan_tests!();
        compact_tests!();
        reduce_tests!();
        find_tests!();
        transform_tests!();
        sort_tests!();
        bin_sort_tests!();
        sparse_tests!();
        bad_input_tests!();
        soundness_tests!();
        prop_tests!();
    };
}

/// `algorithm_suite!(module, SpaceType, expression making the space)`:
/// the portable tests and the host spaces' own (closures, tuples).
macro_rules! algorithm_suite {
    ($name:ident, $ty:ty, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use crate::common::*;
            #[allow(unused_imports)]
            use crate::functions::*;
            #[allow(unused_imports)]
            use granule::algorithms::*;
            #[allow(unused_imports)]
            use granule::prelude::*;
            #[allow(dead_code)]
            fn space() -> $ty {
                $make
            }
            /// A host space fails in the dispatch itself, so no test
            /// needs a space of its own.
            #[allow(dead_code)]
            fn own_space() -> $ty {
                $make
            }
            portable_tests!();
            host_scan_tests!();
            host_sort_tests!();
            host_soundness_tests!();
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

/// The portable tests on Cuda (the emulator unless `GRANULE_CUDA` names a
/// GPU), with sizes that cover several tiles of every driver but keep the
/// emulator's runs short: `sizes` and `all_sizes` shadow `common`'s.
#[cfg(feature = "cuda")]
mod cuda {
    #[allow(unused_imports)]
    use crate::common::{read, seq_scan, view_in, Rng};
    #[allow(unused_imports)]
    use crate::functions::*;
    #[allow(unused_imports)]
    use granule::algorithms::*;
    #[allow(unused_imports)]
    use granule::prelude::*;

    fn space() -> granule::Cuda {
        crate::common::cuda_space()
    }

    /// A space no other test shares, for the tests whose user code fails
    /// on purpose: the failure is reported at the space's next
    /// synchronization point, which must be the test's own.
    fn own_space() -> granule::Cuda {
        granule::Cuda::from_env_or(granule::CudaSelection::Emulator).expect("a Cuda space")
    }

    /// The edges, and 2^k, 2^k - 3 around the tiles: 1024 and 2048
    /// elements (scans, compaction, the merge sort's), 8192 (radix).
    fn sizes() -> Vec<usize> {
        vec![
            0, 1, 2, 31, 32, 33, 61, 64, 1021, 1024, 8189, 8192, 16381, 16384,
        ]
    }

    /// [`sizes`] and two larger ones: many tiles and look-back windows.
    fn all_sizes() -> Vec<usize> {
        let mut v = sizes();
        v.extend([(1 << 17) - 3, 1 << 17]);
        v
    }

    /// The host's cache and streaming thresholds mean nothing to a
    /// device: on the emulator, whose runs are slow, the tests sized past
    /// them take 2^18 + 37 elements (still 32 radix tiles and many scan
    /// windows, more than [`all_sizes`]); on a GPU, their full size.
    fn past_the_caches(n: usize) -> usize {
        if space().device().name() == "emulator" {
            n.min((1 << 18) + 37)
        } else {
            n
        }
    }

    portable_tests!();
}
