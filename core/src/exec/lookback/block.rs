//! What a block's body sees: its index, its next block, and the calls that
//! publish its aggregate and fetch its prefix.

use super::chain::{join, Chain};
use super::slot::*;
use crate::reducer::Reducer;
use std::cell::Cell;
use std::sync::atomic::Ordering;

/// Why a block's body stopped before it finished; its body returns it as
/// it got it (`?`). Only [`Block::prefix`] makes one.
#[derive(Debug, PartialEq, Eq)]
pub struct Stop(pub(super) Reason);

#[derive(Debug, PartialEq, Eq)]
pub(super) enum Reason {
    /// A block it depends on was abandoned (its body panicked).
    Abandoned,
    /// It waited too long and will run again (see the module).
    Left,
}

/// What a block's body receives: its index, the block its worker takes
/// next ([`Block::next`]: already claimed, so its input may be fetched
/// early), and its place in the chain.
pub struct Block<'c, 'r, T, R, L = ()> {
    pub(super) index: usize,
    pub(super) chain: &'c Chain<'r, T, R, L>,
    pub(super) next: Cell<Option<usize>>,
    /// The worker claims its next block when [`Block::prefix`] returns (a
    /// worker's first block), not with this one.
    pub(super) claim_later: bool,
    /// An earlier run of this block left it after publishing its aggregate.
    pub(super) resumed: bool,
    /// What the body has published: nothing, or its prefix was asked for.
    pub(super) asked: Cell<bool>,
}

impl<T: Copy + Send, R: Reducer<T>, L: Send> Block<'_, '_, T, R, L> {
    /// The block's index in the chain.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Publishes this block's `aggregate` and returns its exclusive
    /// prefix: the seed joined with every earlier block's aggregate, or
    /// `None` for block 0 without a seed. A body calls it (or
    /// [`Block::finish`]) once.
    ///
    /// A block that runs again after it was left ([`Block::resumed`])
    /// publishes no aggregate: the one its first run published stands.
    ///
    /// # Errors
    /// A [`Stop`] for the body to return: an earlier block was abandoned,
    /// or this one waited too long and will run again.
    ///
    /// # Panics
    /// If the body already asked for its prefix or finished.
    pub fn prefix(&self, aggregate: T) -> Result<Option<T>, Stop> {
        self.ask();
        let prefix = self.look_back(aggregate)?;
        if self.claim_later {
            self.next.set(self.chain.claim());
        }
        Ok(prefix)
    }

    /// This block's exclusive prefix if it is known now, without waiting:
    /// the walk back finds an inclusive prefix with only aggregates after
    /// it (block 0 always knows its prefix, the seed). A body that gets
    /// `Some` may skip its aggregate and call [`Block::finish`] with its
    /// inclusive prefix instead of [`Block::prefix`]; that regroups the
    /// joins, so only for an exact operator ([`Reducer::is_exact`]).
    pub fn known(&self) -> Option<Option<T>> {
        let (b, chain) = (self.index, self.chain);
        let Some(mut k) = b.checked_sub(1) else {
            return Some(chain.seed);
        };
        loop {
            match chain.slots[k].status.load(Ordering::Acquire) {
                INCLUSIVE => break,
                AGGREGATE if k > 0 => k -= 1,
                _ => return None,
            }
        }
        // SAFETY: the walk saw INCLUSIVE for k and AGGREGATE for k + 1..b.
        Some(Some(unsafe { chain.fold_from(k, b) }))
    }

    /// Publishes the inclusive prefix of a block whose prefix was
    /// [`Block::known`], in place of [`Block::prefix`].
    ///
    /// # Panics
    /// If the body already asked for its prefix or finished.
    pub fn finish(&self, inclusive: T) {
        self.ask();
        let slot = &self.chain.slots[self.index];
        // SAFETY: `ask` let this happen once; this run holds the block.
        // (A resumed block's first run published only its aggregate.)
        unsafe { slot.publish(&slot.inclusive, inclusive, INCLUSIVE) };
        if self.claim_later {
            self.next.set(self.chain.claim());
        }
    }

    /// The block this worker runs next, if it has claimed one (a worker
    /// claims it with the current block, or for its first block once that
    /// has its prefix).
    pub fn next(&self) -> Option<usize> {
        self.next.get()
    }

    /// Whether an earlier run of this block was left (see the module):
    /// what it kept is [`Block::take_left`].
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// Keeps `kept` for this block's next run, when [`Block::prefix`]
    /// returned the stop that leaves it: what the run made that the block
    /// cannot make again (an in-place compaction's selected elements,
    /// whose input later blocks may overwrite once this one's count is
    /// published).
    pub fn leave(&self, kept: L) {
        self.chain.left.lock().push((self.index, kept));
    }

    /// What an earlier run of this block kept for it ([`Block::leave`]).
    pub fn take_left(&self) -> Option<L> {
        let mut left = self.chain.left.lock();
        let k = left.iter().position(|(b, _)| *b == self.index)?;
        Some(left.swap_remove(k).1)
    }

    fn ask(&self) {
        assert!(
            !self.asked.replace(true),
            "a look-back block asks for its prefix, or finishes, once"
        );
    }

    fn look_back(&self, aggregate: T) -> Result<Option<T>, Stop> {
        let (b, chain) = (self.index, self.chain);
        let slot = &chain.slots[b];
        if b == 0 {
            let inclusive = match chain.seed {
                Some(s) => join(chain.op, s, &aggregate),
                None => aggregate,
            };
            // SAFETY: `ask` let this happen once; block 0 is never left,
            // so this is its only run.
            unsafe { slot.publish(&slot.inclusive, inclusive, INCLUSIVE) };
            return Ok(chain.seed);
        }
        let aggregate = if self.resumed {
            // SAFETY: a resumed block saw its own AGGREGATE when it was
            // taken (`Chain::take_left`).
            unsafe { Slot::read(&slot.aggregate) }
        } else {
            // SAFETY: once per chain: `ask`, and a resumed run skips it.
            unsafe { slot.publish(&slot.aggregate, aggregate, AGGREGATE) };
            aggregate
        };
        let mut k = b - 1;
        loop {
            match chain.slots[k].wait() {
                Some(INCLUSIVE) => break,
                Some(ABANDONED) => {
                    slot.status.store(ABANDONED, Ordering::Release);
                    return Err(Stop(Reason::Abandoned));
                }
                Some(_) => k -= 1,
                None => return Err(Stop(Reason::Left)),
            }
        }
        // SAFETY: the walk saw INCLUSIVE for k and AGGREGATE for k + 1..b
        // (it stops at the first INCLUSIVE).
        let prefix = unsafe { chain.fold_from(k, b) };
        let inclusive = join(chain.op, prefix, &aggregate);
        // SAFETY: once per chain (`ask`; the block's first run, if it was
        // left, published no inclusive prefix).
        unsafe { slot.publish(&slot.inclusive, inclusive, INCLUSIVE) };
        Ok(Some(prefix))
    }
}
