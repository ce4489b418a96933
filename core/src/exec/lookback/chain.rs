//! The shared state of one chain and the protocol its workers follow:
//! claiming blocks in order, publishing, walking back, leaving a block and
//! running a left one again.

use super::block::{Block, Reason, Stop};
use super::slot::*;
use crate::reducer::Reducer;
use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

thread_local! {
    /// The chains with a block running on this thread, by address: a
    /// worker of one of them that rayon starts here (while that block
    /// waits on user code) takes no block.
    static ACTIVE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Marks the chain at `at` active on this thread while it lives.
pub(super) struct Active(usize);

impl Active {
    pub(super) fn enter(at: usize) -> Self {
        ACTIVE.with(|a| a.borrow_mut().push(at));
        Active(at)
    }
    pub(super) fn on_this_thread(at: usize) -> bool {
        ACTIVE.with(|a| a.borrow().contains(&at))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        let _ = ACTIVE.try_with(|a| {
            let mut a = a.borrow_mut();
            if let Some(k) = a.iter().rposition(|&c| c == self.0) {
                a.remove(k);
            }
        });
    }
}

/// The shared state of one chain.
pub(super) struct Chain<'r, T, R, L> {
    pub(super) slots: Slots<T>,
    pub(super) op: &'r R,
    pub(super) seed: Option<T>,
    /// The next block nobody has claimed (on lines of its own: every
    /// worker writes it once a block).
    pub(super) claimed: CachePadded<AtomicUsize>,
    /// A worker left a block this round: the others stop claiming, so
    /// that the round ends and a new one starts every worker again.
    pub(super) regroup: AtomicBool,
    /// Whether workers claim their next block with the current one.
    pub(super) ahead: bool,
    /// What left blocks keep for their next run.
    pub(super) left: Mutex<Vec<(usize, L)>>,
    pub(super) aborted: AtomicBool,
    pub(super) panicked: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: slots are shared through atomics and the publish/read protocol,
// and T values cross threads through them, so T: Send; the reducer is
// Sync (Reducer: Sync); what blocks leave crosses threads behind a mutex,
// so L: Send.
unsafe impl<T: Send, R: Sync, L: Send> Sync for Chain<'_, T, R, L> {}

/// How a block's run ended.
pub(super) enum Outcome {
    Done,
    Left,
    Stopped,
}

impl<T: Copy + Send, R: Reducer<T>, L: Send> Chain<'_, T, R, L> {
    pub(super) fn n(&self) -> usize {
        self.slots.len()
    }

    pub(super) fn claim(&self) -> Option<usize> {
        Some(self.claimed.fetch_add(1, Ordering::Relaxed)).filter(|&b| b < self.n())
    }

    /// [`Chain::claim`], unless a worker left a block this round.
    pub(super) fn claim_unless_regrouping(&self) -> Option<usize> {
        if self.regroup.load(Ordering::Relaxed) {
            return None;
        }
        self.claim()
    }

    /// `inclusive(k) ⊕ aggregate(k + 1) ⊕ … ⊕ aggregate(b - 1)`, folded
    /// forward: block `b`'s exclusive prefix.
    ///
    /// # Safety
    /// Block `k`'s status was seen (Acquire) as INCLUSIVE, and blocks
    /// `k + 1..b`'s as AGGREGATE. (A walk back stops at the first
    /// INCLUSIVE it sees, so it never reads the aggregate of a block that
    /// [`Block::finish`]ed, which publishes none.)
    pub(super) unsafe fn fold_from(&self, k: usize, b: usize) -> T {
        // SAFETY: the contract: each cell read was written before a
        // status store this thread synchronized with.
        let mut prefix = unsafe { Slot::read(&self.slots[k].inclusive) };
        for j in k + 1..b {
            // SAFETY: as above.
            let a = unsafe { Slot::read(&self.slots[j].aggregate) };
            self.op.join(&mut prefix, &a);
        }
        prefix
    }

    /// Runs block `b` once, `body` with a [`Block`]; returns how it ended
    /// and the block its worker runs next (claimed with it, or by its
    /// prefix).
    pub(super) fn run_block<S, B>(
        &self,
        b: usize,
        next: Option<usize>,
        claim_later: bool,
        carry: &mut S,
        body: &B,
    ) -> (Outcome, Option<usize>)
    where
        B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
    {
        let block = Block {
            index: b,
            chain: self,
            next: Cell::new(next),
            claim_later,
            resumed: self.slots[b].status.load(Ordering::Acquire) == AGGREGATE,
            asked: Cell::new(false),
        };
        let outcome = self.body_outcome(&block, carry, body);
        (outcome, block.next())
    }

    /// Marks block `b` done, then runs the left blocks after it.
    pub(super) fn finish_from<S: Default, B>(&self, mut b: usize, body: &B)
    where
        B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
    {
        loop {
            self.slots[b].turn.store(DONE, Ordering::SeqCst);
            let Some(after) = self.slots.get(b + 1) else {
                return;
            };
            if !take(&after.turn) {
                return;
            }
            // Its predecessor is done, so it cannot wait.
            match self
                .run_block(b + 1, None, false, &mut S::default(), body)
                .0
            {
                Outcome::Done => b += 1,
                // A predecessor that is done has its prefix published, so
                // a run that follows it is never left; abandoned otherwise.
                Outcome::Left | Outcome::Stopped => return,
            }
        }
    }

    /// Leaves block `b` to the finisher of `b - 1`, or runs it again now
    /// when that one is already done.
    pub(super) fn leave_block<S: Default, B>(&self, b: usize, body: &B)
    where
        B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
    {
        let slot = &self.slots[b];
        slot.turn.store(LEFT, Ordering::SeqCst);
        let before_done = self.slots[b - 1].turn.load(Ordering::SeqCst) == DONE;
        if before_done && take(&slot.turn) {
            self.run_taken::<S, B>(b, body);
        }
    }

    /// Runs block `b`, whose turn this thread took, and what follows it.
    pub(super) fn run_taken<S: Default, B>(&self, b: usize, body: &B)
    where
        B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
    {
        if let (Outcome::Done, _) = self.run_block(b, None, false, &mut S::default(), body) {
            self.finish_from::<S, B>(b, body);
        }
    }

    /// A worker: claims blocks in order and runs them, with its state `S`
    /// carried from one block to the next, until none is left or it had to
    /// leave one.
    pub(super) fn work<S: Default, B>(&self, body: &B)
    where
        B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
    {
        if Active::on_this_thread(self as *const Self as usize) {
            return;
        }
        let mut carry = S::default();
        let mut current = self.claim();
        let mut first = true;
        while let Some(b) = current {
            // Claiming ahead, a worker claims its next block before it runs
            // the current one, except the first time: it claims it once its
            // first block has its prefix, so the workers' first blocks are
            // consecutive (claimed at the start, worker 0 would take
            // blocks 0 and 1, and worker 1, given block 2, would wait for
            // all of block 0 and block 1's aggregate).
            let ahead = (self.ahead && !first)
                .then(|| self.claim_unless_regrouping())
                .flatten();
            let (outcome, next) = self.run_block(b, ahead, first && self.ahead, &mut carry, body);
            first = false;
            match outcome {
                Outcome::Done => {
                    self.finish_from::<S, B>(b, body);
                    current = if self.ahead {
                        next
                    } else {
                        self.claim_unless_regrouping()
                    };
                }
                Outcome::Left => {
                    // The other workers end the round: one of them alone
                    // would otherwise finish the chain.
                    self.regroup.store(true, Ordering::Relaxed);
                    self.leave_block::<S, B>(b, body);
                    // The block it claimed ahead has published nothing; it
                    // is left too, to be run in its turn.
                    if let Some(ahead) = next {
                        self.leave_block::<S, B>(ahead, body);
                    }
                    return;
                }
                Outcome::Stopped => return,
            }
        }
    }

    /// Runs `body` on `block`, its panic caught, and publishes what an
    /// abandoned block must.
    pub(super) fn body_outcome<S, B>(
        &self,
        block: &Block<'_, '_, T, R, L>,
        carry: &mut S,
        body: &B,
    ) -> Outcome
    where
        B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
    {
        let slot = &self.slots[block.index];
        let outcome = if self.aborted.load(Ordering::Relaxed) {
            Err(None)
        } else {
            let _active = Active::enter(self as *const Self as usize);
            match catch_unwind(AssertUnwindSafe(|| body(block, carry))) {
                Ok(Ok(())) if slot.status.load(Ordering::Acquire) == INCLUSIVE => Ok(true),
                Ok(Ok(())) => Err(Some(Box::new(
                    "a look-back block's body returned without its prefix published",
                ) as Box<dyn Any + Send>)),
                Ok(Err(Stop(Reason::Left))) => Ok(false),
                Ok(Err(Stop(Reason::Abandoned))) => Err(None),
                Err(payload) => Err(Some(payload)),
            }
        };
        match outcome {
            Ok(true) => Outcome::Done,
            Ok(false) => Outcome::Left,
            Err(payload) => {
                // Every claimed block must publish something: later blocks
                // wait on it.
                for c in [Some(block.index), block.next()].into_iter().flatten() {
                    self.slots[c].status.store(ABANDONED, Ordering::Release);
                }
                if let Some(payload) = payload {
                    self.aborted.store(true, Ordering::Relaxed);
                    self.panicked.lock().get_or_insert(payload);
                }
                Outcome::Stopped
            }
        }
    }
}

/// Takes a left block's turn (`LEFT` to `HELD`): whoever succeeds runs it.
pub(super) fn take(turn: &AtomicU8) -> bool {
    turn.load(Ordering::SeqCst) == LEFT
        && turn
            .compare_exchange(LEFT, HELD, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
}

#[inline(always)]
pub(super) fn join<T, R: Reducer<T>>(op: &R, mut a: T, b: &T) -> T {
    op.join(&mut a, b);
    a
}
