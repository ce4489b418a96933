//! `granule::fence()` and `try_fence()`, Kokkos's global fence, on every
//! space. A test binary of its own: the fence waits for every Cuda space
//! of the process and reports their failures, so it must not meet the
//! failures other tests queue on purpose.

use granule::portable::parallel_for;
use granule::prelude::*;

#[kernel]
fn squares(i: usize, y: &mut u64) {
    *y = (i * i) as u64;
}

#[kernel]
fn shifted(i: usize, y: &mut u64, x: &View1<u64>) {
    *y = x[i + 1];
}

/// The tests of this file one at a time: each fence meets every space.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// After a dispatch and the global fence, the results are there.
fn fenced_on<S: PortableSpace>(space: &S) {
    let mut y = View1::<u64, LayoutRight, S::MemorySpace>::zeros_in(space.memory_space(), "y", 100)
        .unwrap();
    parallel_for(
        "squares",
        RangePolicy::new(space, 0..100),
        &mut y,
        squares(),
    );
    granule::fence();
    granule::try_fence().unwrap();
    let host = create_mirror_view_and_copy(&y).unwrap().to_vec();
    assert_eq!(
        host,
        (0..100u64).map(|i| i * i).collect::<Vec<_>>(),
        "{}",
        space.name()
    );
}

#[test]
fn the_fence_waits_for_every_space() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    fenced_on(&Serial);
    #[cfg(feature = "rayon")]
    fenced_on(&granule::Rayon::new(2).unwrap());
    #[cfg(feature = "cuda")]
    fenced_on(&granule::Cuda::emulated().unwrap());
}

/// A failure queued on one Cuda space is reported by the global fence,
/// once, and a second space's work is done by then too.
#[cfg(feature = "cuda")]
#[test]
fn the_fence_reports_a_failure_queued_on_any_cuda_space() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (good, bad) = (
        granule::Cuda::emulated().unwrap(),
        granule::Cuda::emulated().unwrap(),
    );
    let x = View1::<u64, LayoutRight, granule::CudaSpace>::zeros_in(bad.memory_space(), "x", 8)
        .unwrap();
    let mut y = View1::<u64, LayoutRight, granule::CudaSpace>::zeros_in(bad.memory_space(), "y", 8)
        .unwrap();
    let mut z =
        View1::<u64, LayoutRight, granule::CudaSpace>::zeros_in(good.memory_space(), "z", 8)
            .unwrap();
    parallel_for("squares", RangePolicy::new(&good, 0..8), &mut z, squares());
    parallel_for("shifted", RangePolicy::new(&bad, 0..8), &mut y, shifted(&x));
    let e = granule::try_fence().unwrap_err();
    assert!(
        e.to_string().contains("shifted") && e.to_string().contains("out of bounds"),
        "{e}"
    );
    granule::try_fence().unwrap();
    assert_eq!(create_mirror_view_and_copy(&z).unwrap().to_vec()[7], 49);
}
