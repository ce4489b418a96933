//! ScatterView: every operation and strategy gives what a sequential loop
//! gives, on every space and whatever the pool; bad extents are typed
//! errors, and a contribution outside the extents fails naming the label.
//!
//! The portable tests (`scatter_tests!`) use `#[kernel]`s, so that Cuda
//! runs them (atomics, its default); the host-only ones use closures and
//! host memory for what only a host space has: the plain-store strategies
//! with a pool larger than the copies, and panics inside the dispatch.

use granule::containers::ScatterView;
use granule::prelude::*;

/// The bin work item `i` contributes to: a scramble, so that threads hit
/// the same bins in no particular order.
#[device]
pub fn scatter_bin(i: usize, bins: usize) -> usize {
    let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 40) % bins as u64) as usize
}

/// The value work item `i` contributes.
#[device]
pub fn scatter_val(i: usize) -> u64 {
    let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 20) % 1000
}

/// The bin and the value of work item `i`.
#[allow(dead_code)]
pub fn scatter_item(i: usize, bins: usize) -> (usize, u64) {
    (scatter_bin(i, bins), scatter_val(i))
}

/// A histogram of sums.
#[kernel]
pub fn scatter_sum_k(i: usize, bins: usize, sv: &ScatterView<u64, 1>) {
    sv.access().add(scatter_bin(i, bins), scatter_val(i));
}

/// Wrapping products of odd values (their order does not matter).
#[kernel]
pub fn scatter_prod_k(i: usize, bins: usize, sv: &ScatterView<u64, 1, Prod>) {
    let a = sv.access();
    a.mul(scatter_bin(i, bins), scatter_val(i) | 1);
}

/// Minima and maxima, of integers and floats, through `update`.
#[kernel]
pub fn scatter_minmax_k(
    i: usize,
    bins: usize,
    lo: &ScatterView<i64, 1, Min>,
    hi: &ScatterView<f32, 1, Max>,
) {
    let b = scatter_bin(i, bins);
    lo.access().update(b, scatter_val(i) as i64 - 400);
    hi.access().update(b, scatter_val(i) as f32 * 0.5);
}

/// Rank 2: a count per (i mod 5, i mod 7).
#[kernel]
pub fn scatter_grid_k(i: usize, sv: &ScatterView<i32, 2>) {
    sv.access().add([i % 5, i % 7], 1);
}

/// Contributes to bin `i`, past the extents for the last items.
#[kernel]
pub fn scatter_past_end_k(i: usize, sv: &ScatterView<u32, 1>) {
    sv.access().add(i, 1);
}

/// The kernels above, for the NVRTC compile tests.
#[allow(dead_code)]
pub const SCATTER_KERNELS: &[&granule::kernel::DeviceKernel] = kernel_list![
    scatter_sum_k,
    scatter_prod_k,
    scatter_minmax_k,
    scatter_grid_k,
    scatter_past_end_k,
];

macro_rules! scatter_tests {
    () => {
        mod scatter_portable {
            use super::*;
            use crate::scatter::*;
            use granule::containers::scatter::{ScatterError, ScatterStrategy, ScatterView};

            const N: usize = 20_000;
            const BINS: usize = 37;

            fn host_memory<S: ExecutionSpace>(_: &S) -> bool {
                <S::MemorySpace as MemorySpace>::IS_HOST_ACCESSIBLE
            }

            /// The strategies a space can run: all of them in host memory,
            /// atomics only in a device's.
            fn strategies<S: ExecutionSpace>(_: &S) -> Vec<ScatterStrategy> {
                if <S::MemorySpace as MemorySpace>::IS_HOST_ACCESSIBLE {
                    vec![
                        ScatterStrategy::Direct,
                        ScatterStrategy::Duplicated,
                        ScatterStrategy::Atomic,
                    ]
                } else {
                    vec![ScatterStrategy::Atomic]
                }
            }

            /// The sequential reference: `start` combined with every item.
            fn expected<T: Copy>(
                start: T,
                f: impl Fn(T, T) -> T,
                val: impl Fn(u64) -> T,
            ) -> Vec<T> {
                let mut out = vec![start; BINS];
                for i in 0..N {
                    let (b, v) = scatter_item(i, BINS);
                    out[b] = f(out[b], val(v));
                }
                out
            }

            fn host<T: Copy + granule::views::Element, const R: usize, M>(
                v: &View<T, R, LayoutRight, M>,
            ) -> Vec<T>
            where
                M: MemorySpace,
                HostSpace: granule::views::SpaceCopy<M>,
            {
                create_mirror_view_and_copy(v).unwrap().to_vec()
            }

            #[test]
            fn scatter_sum_equals_a_sequential_histogram() {
                let s = space();
                for strategy in strategies::<_>(&s) {
                    let mut h = View1::<u64, LayoutRight, _>::from_fn_in(
                        s.memory_space(),
                        "h",
                        BINS,
                        |b| b as u64,
                    )
                    .unwrap();
                    let mut sv =
                        ScatterView::<u64, 1, Sum, _>::with_strategy_on(&s, "h", BINS, strategy)
                            .unwrap();
                    parallel_for(
                        "sum",
                        RangePolicy::new(&s, 0..N),
                        (),
                        scatter_sum_k(BINS, &sv),
                    );
                    sv.contribute_into(&mut h).unwrap();
                    let mut want = expected(0u64, |a, b| a + b, |v| v);
                    want.iter_mut()
                        .enumerate()
                        .for_each(|(b, w)| *w += b as u64);
                    assert_eq!(host(&h), want, "{strategy:?}");
                }
            }

            #[test]
            fn scatter_prod_equals_a_sequential_product() {
                let s = space();
                for strategy in strategies::<_>(&s) {
                    let mut h = View1::<u64, LayoutRight, _>::from_fn_in(
                        s.memory_space(),
                        "p",
                        BINS,
                        |_| 1,
                    )
                    .unwrap();
                    let mut sv =
                        ScatterView::<u64, 1, Prod, _>::with_strategy_on(&s, "p", BINS, strategy)
                            .unwrap();
                    parallel_for(
                        "prod",
                        RangePolicy::new(&s, 0..N),
                        (),
                        scatter_prod_k(BINS, &sv),
                    );
                    sv.contribute_into(&mut h).unwrap();
                    // Wrapping products modulo 2^64 do not depend on order.
                    assert_eq!(
                        host(&h),
                        expected(1u64, u64::wrapping_mul, |v| v | 1),
                        "{strategy:?}"
                    );
                }
            }

            #[test]
            fn scatter_min_and_max_equal_sequential_extrema() {
                let s = space();
                for strategy in strategies::<_>(&s) {
                    let mut lo = View1::<i64, LayoutRight, _>::from_fn_in(
                        s.memory_space(),
                        "lo",
                        BINS,
                        |_| 500,
                    )
                    .unwrap();
                    let mut hi =
                        View1::<f32, LayoutRight, _>::zeros_in(s.memory_space(), "hi", BINS)
                            .unwrap();
                    let mut svlo =
                        ScatterView::<i64, 1, Min, _>::with_strategy_on(&s, "lo", BINS, strategy)
                            .unwrap();
                    let mut svhi =
                        ScatterView::<f32, 1, Max, _>::with_strategy_on(&s, "hi", BINS, strategy)
                            .unwrap();
                    parallel_for(
                        "minmax",
                        RangePolicy::new(&s, 0..N),
                        (),
                        scatter_minmax_k(BINS, &svlo, &svhi),
                    );
                    svlo.contribute_into(&mut lo).unwrap();
                    svhi.contribute_into(&mut hi).unwrap();
                    assert_eq!(
                        host(&lo),
                        expected(500i64, i64::min, |v| v as i64 - 400),
                        "{strategy:?}"
                    );
                    assert_eq!(
                        host(&hi),
                        expected(0.0f32, f32::max, |v| v as f32 * 0.5),
                        "{strategy:?}"
                    );
                }
            }

            // Rank 2, contributed twice into a View that already holds
            // counts; reset clears the contributions.
            #[test]
            fn scatter_rank2_contribute_twice_then_reset() {
                let s = space();
                let mut g =
                    View2::<i32, LayoutRight, _>::from_fn_in(s.memory_space(), "g", [5, 7], |_| 1)
                        .unwrap();
                let mut sv = ScatterView::<i32, 2, Sum, _>::new_on(&s, "g", [5, 7]).unwrap();
                parallel_for("grid", RangePolicy::new(&s, 0..N), (), scatter_grid_k(&sv));
                sv.contribute_into(&mut g).unwrap();
                sv.contribute_into(&mut g).unwrap();
                let mut want = vec![1; 35];
                (0..N).for_each(|i| want[(i % 5) * 7 + i % 7] += 2);
                assert_eq!(host(&g), want);
                sv.reset().unwrap();
                sv.contribute_into(&mut g).unwrap();
                assert_eq!(host(&g), want);
                parallel_for("grid", RangePolicy::new(&s, 0..35), (), scatter_grid_k(&sv));
                sv.contribute_into(&mut g).unwrap();
                want.iter_mut().for_each(|w| *w += 1);
                assert_eq!(host(&g), want);
            }

            #[test]
            fn scatter_default_strategy_follows_the_space() {
                let s = space();
                let sv = ScatterView::<u32, 1, Sum, _>::new_on(&s, "d", 4).unwrap();
                let want = if !host_memory(&s) {
                    ScatterStrategy::Atomic
                } else if s.concurrency() == 1 {
                    ScatterStrategy::Direct
                } else {
                    ScatterStrategy::Duplicated
                };
                assert_eq!(sv.strategy(), want);
                let copies = match want {
                    ScatterStrategy::Atomic => 1,
                    ScatterStrategy::Direct => 2,
                    ScatterStrategy::Duplicated => s.concurrency() + 1,
                };
                assert_eq!(sv.copies(), copies);
            }

            #[test]
            fn scatter_bad_extents_are_typed_errors() {
                let s = space();
                let mut sv = ScatterView::<u32, 2, Sum, _>::new_on(&s, "sv", [3, 4]).unwrap();
                let mut wrong = View2::<u32, LayoutRight, _>::from_fn_in(
                    s.memory_space(),
                    "wrong",
                    [4, 3],
                    |_| 7,
                )
                .unwrap();
                let e = sv.contribute_into(&mut wrong).unwrap_err();
                assert_eq!(
                    e,
                    ScatterError::ExtentMismatch {
                        label: "sv".into(),
                        target: "wrong".into(),
                        expected: vec![3, 4],
                        got: vec![4, 3],
                    }
                );
                assert!(
                    e.to_string().contains("[3, 4]") && e.to_string().contains("\"wrong\""),
                    "{e}"
                );
                assert_eq!(host(&wrong), vec![7; 12], "nothing written on error");
                let e =
                    ScatterView::<u64, 2, Sum, _>::new_on(&s, "big", [usize::MAX, 2]).unwrap_err();
                assert!(
                    matches!(e, ScatterError::View(ViewError::SizeOverflow { .. })),
                    "{e}"
                );
            }

            // A contribution past the extents fails the dispatch, naming
            // the ScatterView's label (on a device: its bounds check).
            #[test]
            fn scatter_past_the_extents_fails_naming_the_label() {
                let s = own_space();
                let sv = ScatterView::<u32, 1, Sum, _>::new_on(&s, "bins", 8).unwrap();
                let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    parallel_for(
                        "past",
                        RangePolicy::new(&s, 0..9),
                        (),
                        scatter_past_end_k(&sv),
                    );
                    s.fence();
                }))
                .unwrap_err();
                let msg = crate::soundness::message(&*p);
                assert!(msg.contains("bins") && msg.contains('8'), "{msg}");
            }
        }
    };
}

macro_rules! scatter_host_only_tests {
    () => {
        mod scatter_host {
            use super::*;
            use crate::scatter::scatter_item;
            use granule::containers::scatter::{ScatterStrategy, ScatterView};

            const N: usize = 20_000;
            const BINS: usize = 37;
            const STRATEGIES: [ScatterStrategy; 3] = [
                ScatterStrategy::Direct,
                ScatterStrategy::Duplicated,
                ScatterStrategy::Atomic,
            ];

            /// The histogram of `scatter_item` over `0..N`.
            fn want() -> Vec<u64> {
                let mut want = vec![0u64; BINS];
                (0..N).for_each(|i| {
                    let (b, v) = scatter_item(i, BINS);
                    want[b] += v;
                });
                want
            }

            /// What `sv` holds, combined into a zeroed View.
            fn contributed(sv: &mut ScatterView<u64, 1>) -> Vec<u64> {
                let mut h = View1::<u64>::zeros("h", BINS).unwrap();
                sv.contribute_into(&mut h).unwrap();
                h.to_vec()
            }

            /// A ScatterView of `strategy` made for this space, or for
            /// Serial (one private copy, so a pool's other threads take
            /// the shared one).
            fn made_for(serial: bool, strategy: ScatterStrategy) -> ScatterView<u64, 1> {
                if serial {
                    ScatterView::with_strategy_on(&Serial, "h", BINS, strategy)
                } else {
                    ScatterView::with_strategy_on(&space(), "h", BINS, strategy)
                }
                .unwrap()
            }

            // Host-only: a ScatterView made for a space of one thread,
            // run on this space's pool (a device space cannot run a
            // host-memory ScatterView). The threads beyond its one private
            // copy contribute atomically to the shared copy; nothing is
            // lost.
            #[test]
            fn scatter_more_threads_than_copies() {
                let s = space();
                let mut h = View1::<u64>::zeros("h", BINS).unwrap();
                let sv = ScatterView::<u64, 1>::with_strategy_on(
                    &Serial,
                    "h",
                    BINS,
                    ScatterStrategy::Duplicated,
                )
                .unwrap();
                assert_eq!(sv.copies(), 2);
                parallel_for(
                    "sum",
                    RangePolicy::new(&s, 0..N).with_chunk_size(1),
                    (),
                    |i: usize, (): ()| {
                        let (b, v) = scatter_item(i, BINS);
                        sv.access().add(b, v);
                    },
                );
                let mut sv = sv;
                sv.contribute_into(&mut h).unwrap();
                assert_eq!(h.to_vec(), want());
            }

            // Host-only: the ScatterView as the dispatch's written argument
            // (closures, which a device does not run). Every strategy, a
            // pool with more threads than copies (the ScatterView made for
            // Serial), and static shares or chunks of 7 handed out by work
            // stealing: each chunk's handle is found on the thread that
            // runs it.
            #[test]
            fn scatter_as_written_argument_equals_a_sequential_histogram() {
                use granule::containers::scatter::ScatterAccess;
                let s = space();
                let want = want();
                for strategy in STRATEGIES {
                    for serial_made in [false, true] {
                        for chunk in [0, 7] {
                            let mut sv = made_for(serial_made, strategy);
                            parallel_for(
                                "sum",
                                RangePolicy::new(&s, 0..N).with_chunk_size(chunk),
                                &sv,
                                |i: usize, a: ScatterAccess<'_, u64, 1>| {
                                    let (b, v) = scatter_item(i, BINS);
                                    a.add(b, v);
                                },
                            );
                            assert_eq!(
                                contributed(&mut sv),
                                want,
                                "{strategy:?}, made for Serial: {serial_made}, chunk {chunk}"
                            );
                        }
                    }
                }
            }

            // Host-only: the fixed-extent handle, once per chunk of 100
            // items, for every strategy and a pool with more threads than
            // copies (the shared copy's atomics); a wrong length and an
            // index past N panic, naming the label.
            #[test]
            fn scatter_fixed_extent_handle_equals_a_sequential_histogram() {
                let s = space();
                let want = want();
                for strategy in STRATEGIES {
                    for serial_made in [false, true] {
                        let mut sv = made_for(serial_made, strategy);
                        let svr = &sv;
                        parallel_for(
                            "sum",
                            RangePolicy::new(&s, 0..N / 100).with_chunk_size(1),
                            (),
                            |c: usize, (): ()| {
                                let a = svr.access().fixed::<BINS>();
                                for i in c * 100..(c + 1) * 100 {
                                    let (b, v) = scatter_item(i, BINS);
                                    a.add(b, v);
                                }
                            },
                        );
                        assert_eq!(
                            contributed(&mut sv),
                            want,
                            "{strategy:?}, made for Serial: {serial_made}"
                        );
                    }
                }
                let sv = ScatterView::<u32, 1>::new_on(&s, "sv", BINS).unwrap();
                let message = |f: &dyn Fn()| {
                    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
                    p.downcast_ref::<String>().cloned().unwrap_or_default()
                };
                let wrong = message(&|| {
                    let _ = sv.access().fixed::<36>();
                });
                assert!(
                    wrong.contains("\"sv\"") && wrong.contains("36") && wrong.contains("37"),
                    "{wrong}"
                );
                let past = message(&|| sv.access().fixed::<BINS>().add(BINS, 1));
                assert!(past.contains("\"sv\"") && past.contains("[37]"), "{past}");
            }

            // Host-only: the host's message names the index and extents
            // in full (a device reports them through its error record).
            #[test]
            fn scatter_host_bounds_message() {
                let s = space();
                let sv = ScatterView::<u32, 2>::new_on(&s, "sv", [3, 4]).unwrap();
                let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    sv.access().add([3, 0], 1)
                }))
                .unwrap_err();
                let msg = p.downcast_ref::<String>().unwrap();
                assert!(
                    msg.contains("\"sv\"") && msg.contains("[3, 0]") && msg.contains("[3, 4]"),
                    "{msg}"
                );
            }
        }
    };
}
