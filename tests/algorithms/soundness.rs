//! A predicate, transform, operator or comparator that panics unwinds to
//! the caller on every space (no hang, the space stays usable).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;

/// A hang check, not a timing assertion.
const DEADLINE: Duration = Duration::from_secs(120);

/// Runs `f` on its own thread; returns what it returned, or the text of
/// its panic; fails if it hangs.
pub fn outcome<R, F>(what: &str, f: F) -> Result<R, String>
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(returned) => returned.map_err(|payload| payload_text(&*payload)),
        Err(_) => panic!("{what}: still running after {DEADLINE:?}: hung"),
    }
}

/// Runs `f` on its own thread; returns the text of the panic it must end
/// with, or fails if it returns or hangs.
pub fn panic_text<F: FnOnce() + Send + 'static>(what: &str, f: F) -> String {
    match outcome(what, f) {
        Ok(()) => panic!("{what}: returned, but the user code panics"),
        Err(text) => text,
    }
}

/// A panic's message (`panic!` with or without arguments).
fn payload_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

macro_rules! soundness_tests {
    () => {
        fn expect_user_panic<F: FnOnce() + Send + 'static>(what: &str, f: F) {
            let text = crate::soundness::panic_text(what, f);
            assert!(
                text.contains("user code failed"),
                "{what}: unexpected panic {text:?}"
            );
        }

        #[test]
        fn panicking_user_code_unwinds_and_the_space_stays_usable() {
            let n = 300_000usize;
            let at = (n / 2) as i64;
            // A space no other test shares: a device space reports a
            // failure at its next synchronization point, which on a shared
            // space could be another test's. Each case ends with a fence,
            // since sort_by returns without waiting, as parallel_for does.
            let s = own_space();
            let case = |what: &str, run: fn(&_, usize, i64)| {
                let s = s.clone();
                expect_user_panic(what, move || {
                    run(&s, n, at);
                    s.fence();
                });
            };
            case("copy_if", |s, n, at| {
                let x = view_in(s, "x", (0..n as i64).collect());
                let mut y = view_in(s, "y", vec![0i64; n]);
                let _ = copy_if(s, &x, &mut y, even_unless(at));
            });
            case("remove_if", |s, n, at| {
                let mut x = view_in(s, "x", (0..n as i64).collect());
                remove_if(s, &mut x, even_unless(at));
            });
            case("transform scan", |s, n, at| {
                let x = view_in(s, "x", (0..n as i64).collect());
                let mut y = view_in(s, "y", vec![0i64; n]);
                let _ = transform_inclusive_scan(s, &x, &mut y, Sum, None, same_unless(at));
            });
            // Past the streaming size, on some CPUs a block runs its
            // worker's next block's first pass: the panic comes from there.
            case("streamed transform scan", |s, _, _| {
                let n = past_the_caches((1usize << 21) + 37);
                let x = view_in(s, "x", (0..n as i64).collect());
                let mut y = view_in(s, "y", vec![0i64; n]);
                let _ =
                    transform_exclusive_scan(s, &x, &mut y, Sum, None, same_unless(n as i64 / 2));
            });
            case("streamed copy_if", |s, _, _| {
                let n = past_the_caches((1usize << 21) + 37);
                let x = view_in(s, "x", (0..n as i64).collect());
                let mut y = view_in(s, "y", vec![0i64; n]);
                let _ = copy_if(s, &x, &mut y, even_unless(n as i64 / 2));
            });
            case("count_if", |s, n, at| {
                let x = view_in(s, "x", (0..n as i64).collect());
                count_if(s, &x, even_unless(at));
            });
            case("sort_by", |s, n, at| {
                let mut x = view_in(s, "x", (0..n as i64).rev().collect());
                let _ = sort_by(s, &mut x, less_unless(at));
            });
            // Wherever the comparator fails (sorting the runs or tiles, or
            // merging them), the View keeps every element once.
            let m = 20_000usize;
            for at in [0i64, 17, (m / 3) as i64, (m / 2) as i64] {
                let mut x = view_in(&s, "x", (0..m as i64).rev().collect());
                let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let _ = sort_by(&s, &mut x, less_unless(at));
                    s.fence();
                }));
                assert!(failed.is_err(), "the comparator fails at {at}");
                let mut got = read(&x);
                got.sort_unstable();
                assert!(
                    got.iter().copied().eq(0..m as i64),
                    "failing at {at}: elements lost"
                );
            }
            let x = view_in(&s, "x", (0..n as i64).collect());
            let mut y = view_in(&s, "y", vec![0i64; n]);
            assert_eq!(copy_if(&s, &x, &mut y, even_unless(-1)).unwrap(), n / 2);
            let mut z = view_in(&s, "z", (0..n as i64).rev().collect());
            sort_by(&s, &mut z, less()).unwrap();
            assert_eq!(read(&z), read(&x));
        }
    };
}

/// Host-only user code that fails: a closure operator that panics, and a
/// predicate whose answers change between calls.
macro_rules! host_soundness_tests {
    () => {
        /// A predicate that dispatches on another space while its block is
        /// scanned: its thread waits in rayon, which may run another
        /// block's worker on top of it. Every look-back algorithm must
        /// finish regardless, with the right answer.
        #[cfg(feature = "rayon")]
        #[test]
        fn algorithms_whose_user_code_dispatches_elsewhere_finish() {
            let n = 300_000usize;
            let (kept, total, first) = crate::soundness::outcome("nested dispatch", move || {
                let s = space();
                let other = granule::Rayon::new(2).unwrap();
                let nested = |v: i64| {
                    if v % 4096 == 0 {
                        parallel_for("inner", RangePolicy::new(&other, 0..64), (), |_, ()| {});
                    }
                };
                let x = view_in(&s, "x", (0..n as i64).collect());
                let mut y = view_in(&s, "y", vec![0i64; n]);
                let kept = copy_if(&s, &x, &mut y, |v: i64| {
                    nested(v);
                    v % 3 == 0
                })
                .unwrap();
                let first = read(&y)[kept - 1];
                let mut z = view_in(&s, "z", vec![0i64; n]);
                let total = transform_inclusive_scan(&s, &x, &mut z, Sum, None, |v: i64| {
                    nested(v);
                    v
                })
                .unwrap();
                (kept, total, first)
            })
            .unwrap_or_else(|e| panic!("{e}"));
            let n64 = n as i64;
            assert_eq!((kept, total, first), (n / 3, n64 * (n64 - 1) / 2, n64 - 3));
        }

        /// A predicate slower than the look-back's patience on element 0
        /// makes the workers of the next blocks leave them and run them
        /// again; the runs again call the predicate for no element a
        /// second time (it is called once per element), staged, streamed
        /// (an output past the streaming threshold) and in place.
        #[test]
        fn a_block_left_behind_a_slow_predicate_calls_it_once_per_element() {
            use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
            let patience = granule::base::exec::lookback::PATIENCE;
            for (n, in_place) in [(300_000usize, false), (3 << 21, false), (300_000, true)] {
                let s = space();
                let calls: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
                let keep = |v: i64| {
                    calls[v as usize].fetch_add(1, Relaxed);
                    if v == 0 {
                        std::thread::sleep(4 * patience);
                    }
                    v % 3 == 0
                };
                let mut x = view_in(&s, "x", (0..n as i64).collect());
                let (kept, out) = if in_place {
                    let kept = remove_if(&s, &mut x, |v: i64| !keep(v));
                    (kept, read(&x))
                } else {
                    let mut y = view_in(&s, "y", vec![0i64; n]);
                    let kept = copy_if(&s, &x, &mut y, keep).unwrap();
                    (kept, read(&y))
                };
                let want: Vec<i64> = (0..n as i64).filter(|v| v % 3 == 0).collect();
                assert_eq!(kept, want.len(), "n {n}, in place {in_place}");
                assert!(out[..kept] == want[..], "n {n}, in place {in_place}");
                let twice = calls.iter().filter(|c| c.load(Relaxed) != 1).count();
                assert_eq!(
                    twice, 0,
                    "n {n}, in place {in_place}: elements not called once"
                );
            }
        }

        #[test]
        fn a_comparator_that_panics_leaves_the_view_a_permutation() {
            use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
            let s = space();
            let mut panicked = 0;
            for n in [16_384usize, 32_768, 100_003] {
                // A permutation of 0..n (7919 is prime, coprime to each n).
                let data: Vec<i64> = (0..n as i64).map(|i| (i * 7919 + 13) % n as i64).collect();
                let calls = AtomicUsize::new(0);
                let mut x = view_in(&s, "x", data.clone());
                sort_by(&s, &mut x, |a: i64, b: i64| {
                    calls.fetch_add(1, Relaxed);
                    a < b
                })
                .unwrap();
                let total = calls.into_inner();
                // The last merge round writes the View from its scratch.
                for before_end in [1, 200, total / 4, total / 2, total - 1] {
                    let stop = total - before_end;
                    let seen = AtomicUsize::new(0);
                    let mut x = view_in(&s, "x", data.clone());
                    let sorted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        sort_by(&s, &mut x, |a: i64, b: i64| {
                            assert!(seen.fetch_add(1, Relaxed) != stop, "user code failed");
                            a < b
                        })
                    }));
                    panicked += usize::from(sorted.is_err());
                    let mut got = read(&x);
                    got.sort_unstable();
                    assert!(
                        got.iter().copied().eq(0..n as i64),
                        "n {n}, a panic {before_end} comparisons before the end: \
                         the View lost elements"
                    );
                }
            }
            assert!(panicked > 0, "no comparator panicked");
        }

        #[test]
        fn host_closures_that_panic_unwind_and_impure_predicates_are_called_once() {
            let n = 300_000usize;
            let at = (n / 2) as i64;
            let text = crate::soundness::panic_text("scan operator", move || {
                let s = space();
                let x = view_in(&s, "x", (0..n as i64).collect());
                let mut y = view_in(&s, "y", vec![0i64; n]);
                let op = reducer::custom(
                    || 0i64,
                    move |a: &mut i64, b: &i64| {
                        if *b == at {
                            panic!("user code failed")
                        } else {
                            *a += *b
                        }
                    },
                );
                let _ = exclusive_scan(&s, &x, &mut y, op, None);
            });
            assert!(text.contains("user code failed"), "{text}");
            // A predicate whose answers change between calls (safe code,
            // through an atomic) gets the selection it made: every space
            // calls it once per element (a block gathers what it keeps
            // before it knows where that goes), out of place and in place.
            let out_of_place = move || {
                let s = space();
                let x = view_in(&s, "x", (0..n as i64).collect());
                let mut y = view_in(&s, "y", vec![0i64; n]);
                let calls = std::sync::atomic::AtomicUsize::new(0);
                let kept = copy_if(&s, &x, &mut y, |_: i64| {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 1
                })
                .expect("copy_if");
                (kept, read(&y), calls.into_inner())
            };
            let in_place = move || {
                let s = space();
                let mut x = view_in(&s, "x", (0..n as i64).collect());
                let calls = std::sync::atomic::AtomicUsize::new(0);
                let kept = remove_if(&s, &mut x, |_: i64| {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 0
                });
                (kept, read(&x), calls.into_inner())
            };
            for (what, (kept, y, calls)) in [("copy_if", out_of_place()), ("remove_if", in_place())]
            {
                assert_eq!((kept, calls), (n - 1, n), "{what}");
                // The element of the first call is the one left out.
                let first = (0..n - 1).find(|&i| y[i] != i as i64).unwrap_or(n - 1) as i64;
                let want: Vec<i64> = (0..n as i64).filter(|&v| v != first).collect();
                assert_eq!(y[..n - 1], want[..], "{what}: order kept, one left out");
            }
        }
    };
}
