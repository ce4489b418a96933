//! The conformance suite: written once, instantiated for every execution
//! space (Serial, Rayon, and Cuda with the `cuda` feature: the CPU
//! emulator, or a GPU with `GRANULE_CUDA=gpu`), one file per
//! concept, like Kokkos's per-backend unit tests.
//!
//! Run it with `cargo test --test conformance` (add
//! `--no-default-features` for Serial only, `--features cuda` for Cuda).
//!
//! The tests are portable, so that a device space runs them unchanged:
//! kernels are `#[kernel]`s (closures run only on host spaces); every View
//! a kernel reads or writes, or a dispatch writes, is allocated in
//! `s.memory_space()` (`View1::<T, LayoutRight, _>::zeros_in(s.memory_space(), ..)`
//! and the other `*_in` constructors), atomics and team chunks come from
//! such Views, and the host reads results through
//! `create_mirror_view_and_copy`. Tests that need a host space by nature
//! are in each concept's `*_host_only_tests!`, with the reason beside each.

// The bad-input tests pass reversed ranges on purpose, and axpy is
// written in its usual form, `y[i] = a*x[i] + y[i]`.
#![allow(clippy::reversed_empty_ranges, clippy::assign_op_pattern)]

/// `&[<k as KernelSource>::KERNEL, ..]`: the device side of each kernel.
macro_rules! kernel_list {
    ($($k:path),* $(,)?) => { &[$(<$k as granule::kernel::KernelSource>::KERNEL),*] };
}

#[macro_use]
mod aggregates;
mod container_kernels;
mod kernels;
mod nvrtc;
#[macro_use]
mod portable;

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
#[macro_use]
mod soundness;
#[macro_use]
mod semantics;
#[macro_use]
mod dual_view;
#[macro_use]
mod empty_views;
#[macro_use]
mod unordered_map;
#[macro_use]
mod random;
#[macro_use]
mod scatter;
#[macro_use]
mod unique_token;
#[macro_use]
mod view_ops;

/// Instantiates every concept's tests for one execution space:
/// `conformance_suite!(module_name, SpaceType, expression making the space)`,
/// plus `, host_only` for a host space: the host-only section adds tests of
/// behaviour no device space can have (e.g. dispatching from inside a
/// kernel, or the host spaces' own limits), each with the reason beside it.
/// A device space adds `, own = expression` making a space of its own for
/// each call (see `own_space`).
macro_rules! conformance_suite {
    (@space $name:ident, $ty:ty, $make:expr, $own:expr, { $($host_only:tt)* }) => {
        mod $name {
            #[allow(unused_imports)]
            use crate::kernels::*;
            #[allow(unused_imports)]
            use granule::prelude::*;
            #[allow(dead_code)]
            fn space() -> $ty {
                $make
            }
            /// A space that no other test shares, for the tests whose
            /// kernels fail on purpose. A device space dispatches
            /// asynchronously and reports a kernel's failure at its next
            /// synchronization point, which, on a space shared by tests
            /// running side by side, could be another test's. A host space
            /// fails in the dispatch itself, so its own space is `space()`.
            #[allow(dead_code)]
            fn own_space() -> $ty {
                $own
            }
            for_tests!();
            reduce_tests!();
            scan_tests!();
            mdrange_tests!();
            team_tests!();
            bad_input_tests!();
            soundness_tests!();
            semantics_tests!();
            dual_view_tests!();
            empty_view_tests!();
            unordered_map_tests!();
            random_tests!();
            scatter_tests!();
            unique_token_tests!();
            view_ops_tests!();
            portable_tests!();
            aggregates_tests!();
            $($host_only)*
        }
    };
    ($name:ident, $ty:ty, $make:expr, host_only) => {
        conformance_suite!(@space $name, $ty, $make, $make, {
            // host-only section
            for_host_only_tests!();
            reduce_host_only_tests!();
            scan_host_only_tests!();
            team_host_only_tests!();
            unordered_map_host_only_tests!();
            random_host_only_tests!();
            scatter_host_only_tests!();
            unique_token_host_only_tests!();
        });
    };
    ($name:ident, $ty:ty, $make:expr, own = $own:expr) => {
        conformance_suite!(@space $name, $ty, $make, $own, {});
    };
}

conformance_suite!(
    serial,
    granule::prelude::Serial,
    granule::prelude::Serial,
    host_only
);

#[cfg(feature = "rayon")]
fn rayon_space(threads: usize) -> granule::Rayon {
    use std::sync::OnceLock;
    static SPACES: [OnceLock<granule::Rayon>; 4] = [const { OnceLock::new() }; 4];
    SPACES[threads]
        .get_or_init(|| granule::Rayon::new(threads).expect("a rayon pool"))
        .clone()
}

#[cfg(feature = "rayon")]
conformance_suite!(rayon2, granule::Rayon, crate::rayon_space(2), host_only);
#[cfg(feature = "rayon")]
conformance_suite!(rayon1, granule::Rayon, crate::rayon_space(1), host_only);
#[cfg(feature = "rayon")]
conformance_suite!(rayon3, granule::Rayon, crate::rayon_space(3), host_only);

/// The Cuda space the suite runs on: the CPU emulator, or what
/// `GRANULE_CUDA` names (a GPU run sets `GRANULE_CUDA=gpu`). One per
/// process, so each kernel is compiled once. A device panic leaves the
/// space usable (a failing GPU thread stops without a trap); should a
/// real fault lose a GPU context, the suite takes a fresh space, though
/// on a GPU such a fault can end every context of the process. The tests
/// whose kernels panic use a space of their own (`cuda_space_of_its_own`),
/// so their report reaches only them.
#[cfg(feature = "cuda")]
fn cuda_space() -> granule::Cuda {
    use std::sync::Mutex;
    static SPACE: Mutex<Option<granule::Cuda>> = Mutex::new(None);
    let mut space = SPACE.lock().unwrap_or_else(|e| e.into_inner());
    let lost = |s: &granule::Cuda| s.device().synchronize().is_err();
    match &*space {
        Some(s) if !lost(s) => s.clone(),
        _ => {
            let s = granule::Cuda::from_env_or(granule::CudaSelection::Emulator)
                .unwrap_or_else(|e| panic!("{e}"));
            *space = Some(s.clone());
            s
        }
    }
}

/// A Cuda space of its own: a device (and, on a GPU, a CUDA context and
/// stream) no other test uses, so a failure its kernels report at the
/// next synchronization point reaches only the test that caused it.
/// Compiled kernels come from the emulator's (or NVRTC's) disk cache.
#[cfg(feature = "cuda")]
fn cuda_space_of_its_own() -> granule::Cuda {
    granule::Cuda::from_env_or(granule::CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(feature = "cuda")]
conformance_suite!(
    cuda,
    granule::Cuda,
    crate::cuda_space(),
    own = crate::cuda_space_of_its_own()
);
