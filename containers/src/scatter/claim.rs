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
//! (epoch, place) pairs, the place being the copy's byte offset in the
//! buffer, ready to add to the buffer's address. Epochs come from a
//! process-wide counter, so a remembered pair can never match another
//! ScatterView or a later epoch. The hot path is then two thread-local
//! loads, a compare with the ScatterView's epoch, and an add: no copy
//! number to multiply, no lock, no thread id.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Where a thread's copy lies: its byte offset in the ScatterView's
/// buffer, with the low bit set for the shared copy (offsets are whole
/// cache lines, so that bit is free). One word, so that the thread-local
/// pair stays two words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place(usize);

impl Place {
    /// The copy's byte offset from element 0 of the buffer.
    #[inline(always)]
    pub(crate) fn offset(self) -> usize {
        self.0 & !1
    }

    /// Whether it is the shared copy, written atomically.
    #[inline(always)]
    pub(crate) fn shared(self) -> bool {
        self.0 & 1 != 0
    }
}

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
    /// Bytes from one copy to the next: a whole number of cache lines.
    stride_bytes: usize,
}

impl Claims {
    /// `copies` private copies `stride_bytes` apart (a multiple of 2),
    /// then the shared one, all free, in a new epoch.
    pub(crate) fn new(copies: usize, stride_bytes: usize) -> Self {
        debug_assert!(
            stride_bytes.is_multiple_of(2),
            "the low bit of a Place is the shared flag"
        );
        Claims {
            owners: (0..copies).map(|_| AtomicU64::new(0)).collect(),
            epoch: new_epoch(),
            stride_bytes,
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

    /// The number of private copies, which is also the number of the
    /// shared copy: copies lie in buffer order, the shared one last.
    pub(crate) fn shared(&self) -> usize {
        self.owners.len()
    }

    /// Where the copy the calling thread writes in this epoch lies, taking
    /// a private copy if it has none yet.
    #[inline(always)]
    pub(crate) fn mine(&self) -> Place {
        let (epoch, place) = LAST.with(Cell::get);
        if epoch == self.epoch {
            return Place(place);
        }
        self.mine_slow()
    }

    #[cold]
    #[inline(never)]
    fn mine_slow(&self) -> Place {
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
        Place(code)
    }

    /// The place of the copy this thread took earlier in the epoch and
    /// forgot (it used more ScatterViews than it remembers), else of a free
    /// one, else of the shared one.
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
        match copy {
            Some(k) => k * self.stride_bytes,
            None => (self.shared() * self.stride_bytes) | 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRIDE: usize = 128;

    #[test]
    fn each_thread_gets_its_own_copy_then_the_shared_one() {
        let claims = Claims::new(2, STRIDE);
        let got: Vec<Place> = std::thread::scope(|s| {
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
        let mut got: Vec<(usize, bool)> = got.iter().map(|p| (p.offset(), p.shared())).collect();
        got.sort();
        // Two private copies, then the shared one after them.
        assert_eq!(got, vec![(0, false), (STRIDE, false), (2 * STRIDE, true)]);
    }

    #[test]
    fn a_thread_finds_its_copy_after_forgetting_it() {
        let many: Vec<Claims> = (0..REMEMBERED + 2)
            .map(|_| Claims::new(1, STRIDE))
            .collect();
        let first = many[0].mine();
        for c in &many[1..] {
            assert_eq!(c.mine(), Place(0));
        }
        assert_eq!(many[0].mine(), first);
    }

    #[test]
    fn release_starts_a_new_epoch_with_free_copies() {
        let mut claims = Claims::new(1, STRIDE);
        let old = claims.epoch;
        assert_eq!(claims.mine(), Place(0));
        claims.release_all();
        assert_ne!(claims.epoch, old);
        let other = std::thread::scope(|s| s.spawn(|| claims.mine()).join().unwrap());
        assert_eq!(other, Place(0));
    }
}
