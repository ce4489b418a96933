//! Which copy a thread writes: the claim protocol behind the
//! duplicated strategy.
//!
//! Each private copy has an owner word. In one *epoch* (the time between
//! two `&mut` operations on the ScatterView: creation, `reset`,
//! `contribute_into`) a thread takes a free copy with one compare-and-swap
//! and keeps it; no other thread can take it until the epoch ends, and an
//! epoch ends only under `&mut`, when no thread holds a handle. So a
//! private copy has one writer, which is what lets its updates be plain
//! loads and stores. A thread that finds every copy taken (a pool larger
//! than the ScatterView was made for) writes the shared copy atomically.
//!
//! Finding one's copy again must cost next to nothing, since a kernel asks
//! for it once per work item: each thread remembers its last few
//! (epoch, copy) pairs. Epochs come from a process-wide counter, so a
//! remembered pair can never match another ScatterView or a later epoch.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The copy a thread writes in an epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Private copy k: this thread alone writes it in this epoch.
    Private(usize),
    /// The shared copy, written atomically.
    Shared,
}

/// A fresh epoch number, never handed out before.
pub(crate) fn new_epoch() -> u64 {
    static EPOCHS: AtomicU64 = AtomicU64::new(1);
    EPOCHS.fetch_add(1, Ordering::Relaxed)
}

/// This thread's token: nonzero, never shared with another thread.
fn token() -> u64 {
    static TOKENS: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static TOKEN: u64 = TOKENS.fetch_add(1, Ordering::Relaxed);
    }
    TOKEN.with(|t| *t)
}

const REMEMBERED: usize = 3;
/// An encoded `Slot`: `usize::MAX` for the shared one.
const SHARED: usize = usize::MAX;

thread_local! {
    /// The pair `mine` looks at first: the last one used.
    static LAST: Cell<(u64, usize)> = const { Cell::new((0, 0)) };
    /// The ones used before it.
    static RECENT: Cell<[(u64, usize); REMEMBERED]> = const { Cell::new([(0, 0); REMEMBERED]) };
    static NEXT: Cell<usize> = const { Cell::new(0) };
}

/// The owner words of a ScatterView's private copies, for one epoch.
#[derive(Debug)]
pub(crate) struct Claims {
    owners: Box<[AtomicU64]>,
    epoch: u64,
}

impl Claims {
    /// `copies` private copies, all free, in a new epoch.
    pub(crate) fn new(copies: usize) -> Self {
        Claims {
            owners: (0..copies).map(|_| AtomicU64::new(0)).collect(),
            epoch: new_epoch(),
        }
    }

    /// Frees every copy and starts a new epoch (`&mut`: no thread holds a
    /// copy now).
    pub(crate) fn release_all(&mut self) {
        for o in self.owners.iter_mut() {
            *o.get_mut() = 0;
        }
        self.epoch = new_epoch();
    }

    /// The copy the calling thread writes in this epoch, taking one if it
    /// has none yet.
    #[inline(always)]
    pub(crate) fn mine(&self) -> Slot {
        let (epoch, code) = LAST.with(Cell::get);
        if epoch == self.epoch {
            return decode(code);
        }
        self.mine_slow()
    }

    #[cold]
    #[inline(never)]
    fn mine_slow(&self) -> Slot {
        let last = LAST.with(Cell::get);
        let mut recent = RECENT.with(Cell::get);
        let code = match recent.iter().position(|(e, _)| *e == self.epoch) {
            Some(k) => {
                // Swap it with the last one used.
                let code = recent[k].1;
                recent[k] = last;
                code
            }
            None => {
                let code = self.claim();
                let k = NEXT.with(|n| {
                    let k = n.get();
                    n.set((k + 1) % REMEMBERED);
                    k
                });
                recent[k] = last;
                code
            }
        };
        RECENT.with(|r| r.set(recent));
        LAST.with(|l| l.set((self.epoch, code)));
        decode(code)
    }

    /// The copy this thread took earlier in the epoch and forgot (it used
    /// more ScatterViews than it remembers), else a free one, else the
    /// shared one.
    fn claim(&self) -> usize {
        let me = token();
        let held = self
            .owners
            .iter()
            .position(|o| o.load(Ordering::Relaxed) == me);
        let copy = held.or_else(|| {
            self.owners.iter().position(|o| {
                o.compare_exchange(0, me, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            })
        });
        copy.unwrap_or(SHARED)
    }
}

fn decode(code: usize) -> Slot {
    match code {
        SHARED => Slot::Shared,
        k => Slot::Private(k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_gets_its_own_copy_then_the_shared_one() {
        let claims = Claims::new(2);
        let got: Vec<Slot> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..3)
                .map(|_| {
                    s.spawn(|| {
                        let c = claims.mine();
                        // Asking again in the same epoch gives the same copy.
                        assert_eq!(claims.mine(), c);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        c
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut private: Vec<usize> = got
            .iter()
            .filter_map(|c| match c {
                Slot::Private(k) => Some(*k),
                Slot::Shared => None,
            })
            .collect();
        private.sort();
        assert_eq!(private, vec![0, 1]);
        assert_eq!(got.iter().filter(|c| **c == Slot::Shared).count(), 1);
    }

    #[test]
    fn a_thread_finds_its_copy_after_forgetting_it() {
        let many: Vec<Claims> = (0..REMEMBERED + 2).map(|_| Claims::new(1)).collect();
        let first = many[0].mine();
        for c in &many[1..] {
            assert_eq!(c.mine(), Slot::Private(0));
        }
        assert_eq!(many[0].mine(), first);
    }

    #[test]
    fn release_starts_a_new_epoch_with_free_copies() {
        let mut claims = Claims::new(1);
        let old = claims.epoch;
        assert_eq!(claims.mine(), Slot::Private(0));
        claims.release_all();
        assert_ne!(claims.epoch, old);
        let other = std::thread::scope(|s| s.spawn(|| claims.mine()).join().unwrap());
        assert_eq!(other, Slot::Private(0));
    }
}
