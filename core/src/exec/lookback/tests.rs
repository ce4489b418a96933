//! The look-back's own tests: prefixes on any workers, left blocks, workers
//! started above their chain, panics, and the slots' memory.

use super::slot::*;
use super::*;
use crate::reducer::Sum;
use std::cell::Cell;
use std::panic::catch_unwind;
use std::sync::mpsc;

fn serial(k: usize, f: &(dyn Fn(usize) + Sync)) {
    (0..k).for_each(f)
}

fn threads(k: usize, f: &(dyn Fn(usize) + Sync)) {
    std::thread::scope(|s| {
        for w in 0..k {
            s.spawn(move || f(w));
        }
    })
}

/// Runs `f` on a thread of its own and fails if it does not return in
/// a minute (a hang check, not a timing assertion).
fn within_a_minute<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the look-back hung")
}

/// Sums `1..=n` in blocks of one value each, each block's prefix
/// recorded; blocks whose prefix is known finish with it.
fn sums(fan: Fan<'_>, workers: usize, n: usize, seed: Option<u64>, known: bool) -> u64 {
    let prefixes: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(usize::MAX)).collect();
    let total = run(
        Workers::new(fan, workers).claiming_ahead(),
        "t",
        n,
        &Sum,
        seed,
        |blk: &Block<'_, '_, u64, Sum>, _: &mut ()| {
            let v = blk.index() as u64 + 1;
            let p = match blk.known().filter(|_| known) {
                Some(p) => {
                    blk.finish(p.unwrap_or(0) + v);
                    p
                }
                None => blk.prefix(v)?,
            };
            prefixes[blk.index()].store(p.unwrap_or(0) as usize, Ordering::Relaxed);
            Ok(())
        },
    );
    let base = seed.unwrap_or(0) as usize;
    for (b, p) in prefixes.iter().enumerate() {
        assert_eq!(
            p.load(Ordering::Relaxed),
            base + b * (b + 1) / 2,
            "block {b}"
        );
    }
    total.or(seed).unwrap_or(0)
}

#[test]
fn prefixes_are_left_folds_on_any_workers() {
    for n in [0usize, 1, 2, 3, 100, 2000] {
        let want = (n * (n + 1) / 2) as u64;
        assert_eq!(sums(&serial, 1, n, None, false), want);
        assert_eq!(sums(&serial, 1, n, Some(7), true), want + 7);
        for workers in [2, 3] {
            assert_eq!(sums(&threads, workers, n, Some(3), false), want + 3);
            assert_eq!(sums(&threads, workers, n, None, true), want);
        }
    }
}

/// Block 0's body waits until a worker has had to leave block 1 (as
/// user code blocked in rayon waits for a job that sits below a
/// waiting worker): the worker returns, block 0 goes on, and block 1
/// runs again after it, with what its first run kept.
#[test]
fn a_block_that_waits_too_long_is_left_and_runs_again() {
    let (prefix_of_1, runs_of_1, kept) = within_a_minute(|| {
        let left = AtomicBool::new(false);
        let runs_of_1 = AtomicUsize::new(0);
        let prefix_of_1 = AtomicUsize::new(0);
        let kept = Mutex::new(None);
        let fan = |k: usize, f: &(dyn Fn(usize) + Sync)| threads(k, f);
        let total = run(
            Workers::new(&fan, 2),
            "t",
            3,
            &Sum,
            None,
            |blk: &Block<'_, '_, u64, Sum, u64>, _: &mut ()| match blk.index() {
                0 => {
                    while !left.load(Ordering::SeqCst) {
                        std::thread::yield_now();
                    }
                    blk.prefix(10).map(drop)
                }
                1 => {
                    runs_of_1.fetch_add(1, Ordering::SeqCst);
                    if blk.resumed() {
                        *kept.lock() = blk.take_left();
                    }
                    match blk.prefix(20) {
                        Err(stop) => {
                            blk.leave(99);
                            left.store(true, Ordering::SeqCst);
                            Err(stop)
                        }
                        Ok(p) => {
                            prefix_of_1.store(p.unwrap() as usize, Ordering::SeqCst);
                            Ok(())
                        }
                    }
                }
                _ => blk.prefix(30).map(drop),
            },
        );
        assert_eq!(total, Some(60));
        (
            prefix_of_1.into_inner(),
            runs_of_1.into_inner(),
            kept.into_inner(),
        )
    });
    assert_eq!((prefix_of_1, runs_of_1, kept), (10, 2, Some(99)));
}

thread_local! {
    /// The worker function of the chain running on this thread.
    static WORKER: Cell<Option<*const (dyn Fn(usize) + Sync + 'static)>> = const { Cell::new(None) };
    /// How deep in block bodies this thread is.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// A worker that starts on a thread already running a block of its
/// chain (as rayon may start one while that block's user code waits)
/// takes no block: it could only wait on the block below it.
#[test]
fn a_worker_started_above_its_own_chain_takes_nothing() {
    let nested_blocks = within_a_minute(|| {
        let fan = |k: usize, f: &(dyn Fn(usize) + Sync)| {
            // SAFETY: the pointer is used only by block bodies of this
            // `run`, while `f` lives, and cleared after.
            let f: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(f) };
            WORKER.set(Some(f as *const _));
            (0..k).for_each(f);
            WORKER.set(None);
        };
        let nested = AtomicUsize::new(0);
        let total = run(
            Workers::new(&fan, 1),
            "t",
            4,
            &Sum,
            None,
            |blk: &Block<'_, '_, u64, Sum>, _: &mut ()| {
                if DEPTH.get() > 0 {
                    nested.fetch_add(1, Ordering::SeqCst);
                }
                if blk.index() == 0 {
                    DEPTH.set(DEPTH.get() + 1);
                    let worker = WORKER.get().expect("the fan set it");
                    // SAFETY: set by the fan running this body, whose `f`
                    // outlives it.
                    unsafe { (*worker)(1) };
                    DEPTH.set(DEPTH.get() - 1);
                }
                blk.prefix(1).map(drop)
            },
        );
        assert_eq!(total, Some(4));
        nested.into_inner()
    });
    assert_eq!(nested_blocks, 0, "a nested worker ran a block");
}

#[test]
fn a_panic_abandons_the_chain_and_resumes_in_the_caller() {
    let text = within_a_minute(|| {
        let r = catch_unwind(|| {
            run(
                Workers::new(&threads, 2),
                "t",
                50,
                &Sum,
                None,
                |blk: &Block<'_, '_, u64, Sum>, _: &mut ()| {
                    assert!(blk.index() != 20, "user code failed");
                    blk.prefix(1).map(drop)
                },
            )
        });
        let payload = r.expect_err("block 20 panics");
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    });
    assert!(text.contains("user code failed"), "{text}");
}

#[test]
fn a_body_that_publishes_nothing_is_an_error_not_a_hang() {
    let text = within_a_minute(|| {
        let r = catch_unwind(|| {
            run(
                Workers::new(&threads, 2),
                "t",
                8,
                &Sum,
                None,
                |blk: &Block<'_, '_, u64, Sum>, _: &mut ()| {
                    if blk.index() == 3 {
                        return Ok(());
                    }
                    blk.prefix(1).map(drop)
                },
            )
        });
        let payload = r.expect_err("block 3 publishes nothing");
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default()
    });
    assert!(text.contains("without its prefix published"), "{text}");
    let twice = catch_unwind(|| {
        run(
            Workers::new(&serial, 1),
            "t",
            1,
            &Sum,
            None,
            |blk: &Block<'_, '_, u64, Sum>, _: &mut ()| {
                blk.prefix(1)?;
                blk.prefix(1).map(drop)
            },
        )
    });
    assert!(twice.is_err(), "a second prefix is refused");
}

/// The slots' memory is kept for the thread's next chain, which starts
/// with every status empty whatever the last one left there.
#[test]
fn kept_slots_start_empty() {
    let room_at = || {
        ROOM.with(|r| {
            let v = r.take();
            let at = v.as_ptr() as usize;
            r.set(v);
            at
        })
    };
    assert_eq!(sums(&serial, 1, 300, None, false), 300 * 301 / 2);
    let at = room_at();
    let slots = Slots::<u64>::new("t", 200);
    assert!(matches!(slots, Slots::Kept { .. }));
    assert!(slots
        .iter()
        .all(|s| s.status.load(Ordering::Relaxed) == EMPTY));
    drop(slots);
    assert_eq!(room_at(), at, "the room was not kept");
}

#[test]
#[should_panic(expected = "look-back status of 288230376151711745 blocks")]
fn slot_sizes_never_wrap() {
    let _ = Slots::<u64>::new("huge", (1 << 58) + 1);
}
