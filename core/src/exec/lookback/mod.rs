//! Decoupled look-back (Merrill & Garland 2016) on the host, the one
//! mechanism behind Rayon's `parallel_scan` and granule-algorithms' scans
//! and compactions.
//!
//! A chain of `n` blocks is run by the space's workers, which claim blocks
//! in order. Each block computes its aggregate, publishes it, walks back
//! to the nearest published inclusive prefix, publishes its own inclusive
//! prefix and then writes its outputs. Input is read from memory once; no
//! block waits for another's writes. The prefix is always the same left
//! fold `((seed ⊕ a0) ⊕ a1) ⊕ …` whatever the walk finds, so it is bitwise
//! deterministic for a given block size.
//!
//! # Progress whatever the user code does
//! A block's work calls user code (a scan's functor, a predicate), and
//! user code may block its thread inside rayon: a dispatch on another
//! space waits in `install`, a nested `join` waits for a stolen half.
//! While it waits, rayon runs other jobs on that thread, on top of its
//! stack: possibly a worker of this chain, whose block then waits for the
//! block lower on the same stack, or for one whose progress needs a job
//! that sits below it. Waiting there would never end. So no wait outlasts
//! [`PATIENCE`]: a block whose walk back finds a predecessor still empty
//! after that is *left* ([`Stop`]), its worker returns (unwinding
//! whatever waits below it), and the block runs again, from its start,
//! once its predecessor is done: the worker that finishes block `b - 1`
//! runs a left block `b` next. A left block's aggregate stays published
//! (later blocks walk through it), and what its first run made may be
//! kept for its second ([`Block::leave`]). A worker that starts on a
//! thread where a block of the same chain is already running takes no
//! block at all: it could only wait on that block.
//!
//! Blocks are claimed in order and every block is finished by someone:
//! a running block is finished by its worker; a left block by whoever
//! finishes its predecessor (the two meet through sequentially consistent
//! stores and loads of their turns, so one of them always sees the other),
//! or by its own worker again if the predecessor was done first. A worker
//! that left a block returns, and the others stop claiming when they
//! finish theirs, so the round ends; [`run`] then starts every worker
//! again for the blocks nobody claimed (a predecessor that was merely
//! preempted costs one worker's patience, not the rest of the chain's
//! parallelism).
//!
//! A block whose work panics is abandoned: blocks waiting on it give up,
//! every worker stops, and the panic resumes in the caller.
//!
//! ```
//! use granule_core::exec::lookback::{run, Block, Stop, Workers};
//! use granule_core::reducer::Sum;
//! // Prefix sums of 1..=8 in blocks of two values.
//! let prefixes: Vec<_> = (0..4).map(|_| std::sync::Mutex::new(0u64)).collect();
//! let fan = |workers: usize, f: &(dyn Fn(usize) + Sync)| (0..workers).for_each(f);
//! let total = run(Workers::new(&fan, 2), "sums", 4, &Sum, None, |blk: &Block<'_, '_, u64, Sum>, _: &mut ()| {
//!     let b = blk.index() as u64;
//!     let aggregate = (2 * b + 1) + (2 * b + 2);
//!     *prefixes[blk.index()].lock().unwrap() = blk.prefix(aggregate)?.unwrap_or(0);
//!     Ok::<(), Stop>(())
//! });
//! assert_eq!(total, Some(36));
//! assert_eq!(*prefixes[3].lock().unwrap(), 21);
//! ```

mod block;
mod chain;
mod slot;
#[cfg(test)]
mod tests;

use crate::reducer::Reducer;
pub use block::{Block, Stop};
use chain::*;
use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use slot::*;
use std::panic::resume_unwind;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How long a wait spins before it starts yielding: the awaited block's
/// owner is normally running, and yielding early would give the core away
/// for a whole time slice.
pub const SPIN: Duration = Duration::from_micros(200);

/// How long a block waits for a predecessor before it is left for a
/// later run (see the [module](self)): long enough that a predecessor
/// whose thread was only preempted is rarely given up on.
pub const PATIENCE: Duration = Duration::from_millis(10);

/// Starts `k` workers `f(0)`..`f(k - 1)`, possibly in parallel, and
/// returns when all have returned: how a space runs a chain's workers.
pub type Fan<'a> = &'a dyn Fn(usize, &(dyn Fn(usize) + Sync));

/// The workers that run a chain: up to `count` of them, which `fan`
/// starts.
#[derive(Clone, Copy)]
pub struct Workers<'a> {
    fan: Fan<'a>,
    count: usize,
    ahead: bool,
}

impl<'a> Workers<'a> {
    /// Up to `count` workers started by `fan`, each claiming one block at
    /// a time.
    pub fn new(fan: Fan<'a>, count: usize) -> Self {
        Workers {
            fan,
            count,
            ahead: false,
        }
    }

    /// Workers that claim their next block with the current one (after
    /// their first), so that a body can fetch that block's input early
    /// ([`Block::next`]).
    pub fn claiming_ahead(self) -> Self {
        Workers {
            ahead: true,
            ..self
        }
    }
}

/// Runs `body` for blocks `0..n` on `workers`, and returns the last
/// block's inclusive prefix (`None` when `n == 0`). `label` names the
/// dispatch in panics.
///
/// A body calls [`Block::prefix`] once (or [`Block::finish`] once, after
/// [`Block::known`] gave its prefix), and returns the [`Stop`] that
/// `prefix` may give. Anything it does before its prefix it must be able
/// to do again (a left block runs again, see the [module](self)), unless
/// it keeps it with [`Block::leave`].
///
/// Each worker carries a state `S` from one of its blocks to the next (it
/// starts as `S::default()`; a block run again starts from a fresh one):
/// a body may do part of the work of its worker's
/// [next](Block::next) block and leave the result there.
///
/// # Panics
/// Resumes the panic of a body, once every worker has stopped; panics if
/// a body returns without its prefix published.
pub fn run<T, R, S, L, B>(
    workers: Workers<'_>,
    label: &str,
    n: usize,
    op: &R,
    seed: Option<T>,
    body: B,
) -> Option<T>
where
    T: Copy + Send,
    R: Reducer<T>,
    S: Default,
    L: Send,
    B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
{
    if n == 0 {
        return None;
    }
    let chain = Chain {
        slots: Slots::new(label, n),
        op,
        seed,
        claimed: CachePadded::new(AtomicUsize::new(0)),
        regroup: AtomicBool::new(false),
        ahead: workers.ahead,
        left: Mutex::new(Vec::new()),
        aborted: AtomicBool::new(false),
        panicked: Mutex::new(None),
    };
    // Workers that left a block return; new ones take the blocks nobody
    // claimed (each round finishes at least the lowest unfinished block,
    // whose predecessors are all done).
    loop {
        chain.regroup.store(false, Ordering::Relaxed);
        let remaining = n.saturating_sub(chain.claimed.load(Ordering::Relaxed));
        (workers.fan)(workers.count.clamp(1, remaining.max(1)), &|_| {
            chain.work::<S, B>(&body)
        });
        if let Some(payload) = chain.panicked.lock().take() {
            resume_unwind(payload);
        }
        // Every claimed block is done now (see the module); one that is
        // not was left, and its predecessor is done: a worker runs it.
        let Some(b) = (0..n).find(|&b| chain.slots[b].turn.load(Ordering::SeqCst) != DONE) else {
            break;
        };
        if b < chain.claimed.load(Ordering::Relaxed).min(n) {
            assert!(
                take(&chain.slots[b].turn),
                "\"{label}\": look-back block {b} was claimed but neither finished nor left"
            );
            (workers.fan)(1, &|_| chain.run_taken::<S, B>(b, &body));
            if let Some(payload) = chain.panicked.lock().take() {
                resume_unwind(payload);
            }
        }
    }
    let last = &chain.slots[n - 1];
    assert_eq!(
        last.status.load(Ordering::Acquire),
        INCLUSIVE,
        "\"{label}\": the look-back's last block published no prefix"
    );
    // SAFETY: INCLUSIVE was just seen (Acquire).
    Some(unsafe { Slot::read(&last.inclusive) })
}
