//! Soundness regressions: a panicking kernel unwinds to its caller (no
//! hang, the space stays usable), write parts never reach past what they
//! were checked for, and no bound or size computation wraps.
//!
//! A device space dispatches asynchronously, so a kernel's panic reaches
//! its caller at the space's next synchronization point rather than in
//! `parallel_for`: the tests below fence after a `parallel_for` whose
//! kernel panics (a no-op on host spaces, which panic in the dispatch),
//! while a reduction or scan waits for its own result. Kernels that panic
//! run on `own_space()`, so that the report reaches their test only.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;

/// How long a dispatch that should unwind may take before the test calls
/// it hung. Generous: it is a hang check, not a timing assertion.
const DEADLINE: Duration = Duration::from_secs(120);

/// Runs `f` on its own thread and returns the payload of the panic it must
/// end with; fails if it returns normally or does not finish by the deadline.
pub fn panic_of<F: FnOnce() + Send + 'static>(what: &str, f: F) -> Box<dyn Any + Send> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = catch_unwind(AssertUnwindSafe(f));
        let _ = tx.send(outcome.err());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(Some(payload)) => payload,
        Ok(None) => panic!("{what}: returned, but the kernel panics"),
        Err(_) => panic!("{what}: still running after {DEADLINE:?}: the dispatch hung"),
    }
}

/// Runs `f` on its own thread and returns what it returned; fails if it
/// panics or does not finish by the deadline (a dispatch that hangs).
pub fn within_deadline<R: Send + 'static, F: FnOnce() -> R + Send + 'static>(
    what: &str,
    f: F,
) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(Ok(r)) => r,
        Ok(Err(payload)) => panic!("{what}: panicked: {}", message(&*payload)),
        Err(_) => panic!("{what}: still running after {DEADLINE:?}: the dispatch hung"),
    }
}

/// The text of a panic payload.
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else {
        "<not a string>".to_owned()
    }
}

macro_rules! soundness_tests {
    () => {
        /// Runs `what` (which panics) on a fresh thread and checks that the
        /// panic came from the kernel at index `at`: on a host space the
        /// kernel's own panic, on a device space the dispatch's, which
        /// carries the device's formatted assertion message.
        fn expect_kernel_panic<F: FnOnce() + Send + 'static>(what: &str, at: usize, f: F) {
            let payload = crate::soundness::panic_of(what, f);
            let text = crate::soundness::message(&*payload);
            assert!(
                text.contains(&format!("kernel failed at index {at}")),
                "{what}: unexpected panic {text:?}"
            );
        }

        #[test]
        fn panic_in_for_unwinds_and_the_space_stays_usable() {
            let n = 200_000;
            for chunk in [0, 1000] {
                expect_kernel_panic("for", n / 2, move || {
                    let s = own_space();
                    let mut y =
                        View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
                    let p = RangePolicy::new(&s, 0..n).with_chunk_size(chunk);
                    parallel_for("fails", p, &mut y, fail_for_at(n / 2));
                    // Where an asynchronous space reports the panic.
                    s.fence();
                });
            }
            let s = space();
            let mut y = View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for("after", RangePolicy::new(&s, 0..n), &mut y, fail_for_at(n));
            let y = create_mirror_view_and_copy(&y).unwrap();
            assert!((0..n).all(|i| y[i] == i as i64));
        }

        #[test]
        fn panic_in_reduce_unwinds_and_the_space_stays_usable() {
            let n = 200_000;
            expect_kernel_panic("reduce", n / 2 + 1, move || {
                let s = own_space();
                let _: i64 = parallel_reduce(
                    "fails",
                    RangePolicy::new(&s, 0..n),
                    Sum,
                    fail_reduce_at(n / 2 + 1),
                );
            });
            let s = space();
            let sum: i64 =
                parallel_reduce("after", RangePolicy::new(&s, 0..n), Sum, fail_reduce_at(n));
            assert_eq!(sum, (n as i64) * (n as i64 - 1) / 2);
        }

        #[test]
        fn panic_in_scan_unwinds_and_the_space_stays_usable() {
            let n = 300_000;
            for final_only in [false, true] {
                for chunk in [0, 1000] {
                    expect_kernel_panic("scan", n / 2, move || {
                        let s = own_space();
                        let mut y =
                            View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n)
                                .unwrap();
                        let p = RangePolicy::new(&s, 0..n).with_chunk_size(chunk);
                        let _: i64 =
                            parallel_scan("fails", p, &mut y, fail_scan_at(n / 2, final_only));
                    });
                }
            }
            let s = space();
            let mut y = View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            let total: i64 = parallel_scan(
                "after",
                RangePolicy::new(&s, 0..n),
                &mut y,
                fail_scan_at(n, false),
            );
            assert_eq!(total, n as i64);
            let y = create_mirror_view_and_copy(&y).unwrap();
            assert!((0..n).all(|i| y[i] == i as i64));
        }

        #[test]
        fn panic_in_team_unwinds_and_the_space_stays_usable() {
            let league = 64;
            expect_kernel_panic("team", league / 2, move || {
                let s = own_space();
                let mut hits =
                    View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "hits", league)
                        .unwrap();
                let h = hits.atomic().unwrap();
                let p = TeamPolicy::new(&s, league, AUTO);
                parallel_for("fails", p, (), fail_team_at(league / 2, &h));
                // Where an asynchronous space reports the panic.
                s.fence();
            });
            let s = space();
            let mut hits =
                View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "hits", league).unwrap();
            let h = hits.atomic().unwrap();
            let p = TeamPolicy::new(&s, league, AUTO);
            parallel_for("after", p, (), fail_team_at(league, &h));
            assert_eq!(
                create_mirror_view_and_copy(&hits).unwrap().to_vec(),
                vec![1; league]
            );
        }

        #[test]
        fn parts_checked_for_fewer_indices_are_refused_by_the_driver() {
            use granule::base::pattern::ParallelForImpl;
            use granule::base::write::Writes;
            let s = space();
            let mut y = View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "y", 8).unwrap();
            let parts = (&mut y).into_parts("small", 8usize);
            let policy = RangePolicy::new(&s, 0..16);
            let f = store_index();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: `parts` is used by nothing else. The bound is
                // deliberately too small: the driver must refuse it.
                unsafe { s.parallel_for_impl("too far", &policy, parts, &f) }
            }));
            let text = crate::soundness::message(&*r.unwrap_err());
            assert!(
                text.contains("\"too far\"") && text.contains("do not cover"),
                "{text}"
            );
            assert_eq!(
                create_mirror_view_and_copy(&y).unwrap().to_vec(),
                vec![0; 8],
                "nothing may be written"
            );
        }

        #[test]
        fn chunk_sizes_near_usize_max_skip_nothing() {
            let s = space();
            for chunk in [usize::MAX, usize::MAX - 1, usize::MAX / 2 + 1] {
                let count: usize = parallel_reduce(
                    "count",
                    RangePolicy::new(&s, 1..5).with_chunk_size(chunk),
                    Sum,
                    count_index(),
                );
                assert_eq!(count, 4, "chunk {chunk}");
                let mut y =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", 5).unwrap();
                for schedule in [Schedule::Static, Schedule::Dynamic] {
                    let p = RangePolicy::new(&s, 1..5)
                        .with_chunk_size(chunk)
                        .with_schedule(schedule);
                    parallel_for("ones", p, &mut y, set_one());
                }
                assert_eq!(
                    create_mirror_view_and_copy(&y).unwrap().to_vec(),
                    [0.0, 1.0, 1.0, 1.0, 1.0],
                    "chunk {chunk}"
                );
                let mut calls =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "calls", 5).unwrap();
                let mut non_final =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "non_final", 5)
                        .unwrap();
                let nf = non_final.atomic().unwrap();
                let p = RangePolicy::new(&s, 1..5).with_chunk_size(chunk);
                let total: u64 = parallel_scan("calls", p, &mut calls, count_calls(&nf));
                assert_eq!(
                    create_mirror_view_and_copy(&calls).unwrap().to_vec(),
                    [0, 1, 1, 1, 1],
                    "one final call each"
                );
                assert_eq!(total, 4);
            }
        }

        #[test]
        fn a_huge_scan_range_panics_instead_of_overflowing() {
            // 2^58 + 1 blocks of one index: the look-back status would need
            // 2^64 bytes. A space either refuses the size up front or runs
            // the kernel, which stops at index 1000; neither may wrap.
            let payload = crate::soundness::panic_of("huge scan", || {
                let s = own_space();
                let p = RangePolicy::new(&s, 0..(1usize << 58) + 1).with_chunk_size(1);
                let _: i64 = parallel_scan("huge", p, (), count_until(1000));
            });
            let text = crate::soundness::message(&*payload);
            assert!(
                text.contains("kernel failed at index 1000")
                    || (text.contains("\"huge\"") && text.contains("overflows")),
                "{text}"
            );
        }
    };
}
