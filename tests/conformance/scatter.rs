//! ScatterView: every operation and strategy gives what a sequential loop
//! gives, whatever the pool; bad extents are typed errors.
//!
//! Host-only for now: the kernels here are closures, since the `#[kernel]`
//! translator does not take a ScatterView parameter yet.

/// The bin and the value work item `i` contributes: a scramble, so that
/// threads hit the same bins in no particular order.
#[allow(dead_code)]
pub fn scatter_item(i: usize, bins: usize) -> (usize, u64) {
    let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 40) as usize % bins, (h >> 20) % 1000)
}

macro_rules! scatter_host_only_tests {
    () => {
        mod scatter {
            use super::*;
            use crate::scatter::scatter_item;
            use granule::containers::scatter::{ScatterError, ScatterStrategy, ScatterView};

            const N: usize = 20_000;
            const BINS: usize = 37;
            const STRATEGIES: [ScatterStrategy; 3] = [
                ScatterStrategy::Direct,
                ScatterStrategy::Duplicated,
                ScatterStrategy::Atomic,
            ];

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

            #[test]
            fn scatter_sum_equals_a_sequential_histogram() {
                let s = space();
                for strategy in STRATEGIES {
                    let mut h = View1::<u64>::from_fn("h", BINS, |b| b as u64).unwrap();
                    let sv =
                        ScatterView::<u64, 1>::with_strategy_on(&s, "h", BINS, strategy).unwrap();
                    parallel_for("sum", RangePolicy::new(&s, 0..N), (), |i: usize, (): ()| {
                        let (b, v) = scatter_item(i, BINS);
                        sv.access().add(b, v);
                    });
                    let mut sv = sv;
                    sv.contribute_into(&mut h).unwrap();
                    let mut want = expected(0u64, |a, b| a + b, |v| v);
                    want.iter_mut()
                        .enumerate()
                        .for_each(|(b, w)| *w += b as u64);
                    assert_eq!(h.to_vec(), want, "{strategy:?}");
                }
            }

            #[test]
            fn scatter_prod_equals_a_sequential_product() {
                let s = space();
                for strategy in STRATEGIES {
                    let mut h = View1::<u64>::from_fn("p", BINS, |_| 1).unwrap();
                    let sv = ScatterView::<u64, 1, Prod>::with_strategy_on(&s, "p", BINS, strategy)
                        .unwrap();
                    parallel_for(
                        "prod",
                        RangePolicy::new(&s, 0..N),
                        (),
                        |i: usize, (): ()| {
                            let (b, v) = scatter_item(i, BINS);
                            sv.access().mul(b, v | 1);
                        },
                    );
                    let mut sv = sv;
                    sv.contribute_into(&mut h).unwrap();
                    // Wrapping products modulo 2^64 do not depend on order.
                    let want = expected(1u64, u64::wrapping_mul, |v| v | 1);
                    assert_eq!(h.to_vec(), want, "{strategy:?}");
                }
            }

            #[test]
            fn scatter_min_and_max_equal_sequential_extrema() {
                let s = space();
                for strategy in STRATEGIES {
                    let mut lo = View1::<i64>::from_fn("lo", BINS, |_| 500).unwrap();
                    let mut hi = View1::<f32>::from_fn("hi", BINS, |_| 0.0).unwrap();
                    let svlo =
                        ScatterView::<i64, 1, Min>::with_strategy_on(&s, "lo", BINS, strategy)
                            .unwrap();
                    let svhi =
                        ScatterView::<f32, 1, Max>::with_strategy_on(&s, "hi", BINS, strategy)
                            .unwrap();
                    parallel_for(
                        "minmax",
                        RangePolicy::new(&s, 0..N),
                        (),
                        |i: usize, (): ()| {
                            let (b, v) = scatter_item(i, BINS);
                            svlo.access().update(b, v as i64 - 400);
                            svhi.access().update(b, v as f32 * 0.5);
                        },
                    );
                    let (mut svlo, mut svhi) = (svlo, svhi);
                    svlo.contribute_into(&mut lo).unwrap();
                    svhi.contribute_into(&mut hi).unwrap();
                    assert_eq!(
                        lo.to_vec(),
                        expected(500i64, i64::min, |v| v as i64 - 400),
                        "{strategy:?}"
                    );
                    assert_eq!(
                        hi.to_vec(),
                        expected(0.0f32, f32::max, |v| v as f32 * 0.5),
                        "{strategy:?}"
                    );
                }
            }

            #[test]
            fn scatter_default_strategy_follows_the_space() {
                let s = space();
                let sv = ScatterView::<u32, 1>::new_on(&s, "d", 4).unwrap();
                let want = match s.concurrency() {
                    1 => ScatterStrategy::Direct,
                    _ => ScatterStrategy::Duplicated,
                };
                assert_eq!(sv.strategy(), want);
                assert_eq!(
                    sv.copies(),
                    if want == ScatterStrategy::Direct {
                        2
                    } else {
                        s.concurrency() + 1
                    }
                );
            }

            // Rank 2 into a LayoutLeft View: the copies are row-major, the
            // target is not.
            #[test]
            fn scatter_rank2_into_another_layout() {
                let s = space();
                let mut g = View2::<i32, LayoutLeft>::zeros("g", [5, 7]).unwrap();
                let sv = ScatterView::<i32, 2>::for_view(&s, &g).unwrap();
                parallel_for(
                    "grid",
                    RangePolicy::new(&s, 0..N),
                    (),
                    |i: usize, (): ()| {
                        sv.access().add([i % 5, i % 7], 1);
                    },
                );
                let mut sv = sv;
                sv.contribute_into(&mut g).unwrap();
                let mut want = vec![0; 35];
                (0..N).for_each(|i| want[(i % 5) * 7 + i % 7] += 1);
                assert_eq!(g.to_vec(), want);
            }

            // contribute keeps the contributions (a second contribute adds
            // them again); reset clears them and frees the threads' copies.
            #[test]
            fn scatter_contribute_twice_then_reset() {
                let s = space();
                let mut h = View1::<u32>::zeros("h", 3).unwrap();
                let mut sv = ScatterView::<u32, 1>::for_view(&s, &h).unwrap();
                let fill = |sv: &ScatterView<u32, 1>| {
                    parallel_for(
                        "fill",
                        RangePolicy::new(&s, 0..300),
                        (),
                        |i: usize, (): ()| {
                            sv.access().add(i % 3, 1);
                        },
                    )
                };
                fill(&sv);
                sv.contribute_into(&mut h).unwrap();
                sv.contribute_into(&mut h).unwrap();
                assert_eq!(h.to_vec(), vec![200; 3]);
                sv.reset();
                sv.contribute_into(&mut h).unwrap();
                assert_eq!(h.to_vec(), vec![200; 3]);
                fill(&sv);
                sv.contribute_into(&mut h).unwrap();
                assert_eq!(h.to_vec(), vec![300; 3]);
            }

            // A ScatterView made for fewer threads than the pool that runs
            // it: the extra threads contribute atomically, nothing is lost.
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
                    RangePolicy::new(&s, 0..N).chunk_size(1),
                    (),
                    |i: usize, (): ()| {
                        let (b, v) = scatter_item(i, BINS);
                        sv.access().add(b, v);
                    },
                );
                let mut sv = sv;
                sv.contribute_into(&mut h).unwrap();
                assert_eq!(h.to_vec(), expected(0u64, |a, b| a + b, |v| v));
            }

            #[test]
            fn scatter_bad_extents_are_typed_errors() {
                let s = space();
                let mut sv = ScatterView::<u32, 2>::new_on(&s, "sv", [3, 4]).unwrap();
                sv.access().add([1, 1], 9);
                let mut wrong = View2::<u32>::from_fn("wrong", [4, 3], |_| 7).unwrap();
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
                assert_eq!(wrong.to_vec(), vec![7; 12], "nothing written on error");
                let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    sv.access().add([3, 0], 1)
                }))
                .unwrap_err();
                let msg = p.downcast_ref::<String>().unwrap();
                assert!(
                    msg.contains("\"sv\"") && msg.contains("[3, 0]") && msg.contains("[3, 4]"),
                    "{msg}"
                );
                let e = ScatterView::<u64, 2>::new_on(&s, "big", [usize::MAX, 2]).unwrap_err();
                assert!(
                    matches!(e, ScatterError::View(ViewError::SizeOverflow { .. })),
                    "{e}"
                );
            }
        }
    };
}
