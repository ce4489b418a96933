//! Decoupled look-back (Merrill & Garland 2016) on the host: blocks are
//! claimed in order by the space's workers; each block computes its
//! aggregate, publishes it, walks back to the nearest published inclusive
//! prefix, and publishes its own inclusive prefix before it writes. Input
//! is read from memory once; no block waits for another's writes.
//!
//! The prefix is always the same left fold `((seed ⊕ a0) ⊕ a1) ⊕ …`
//! whatever the walk finds, so it is bitwise deterministic for a given
//! block size. A block whose body panics is abandoned: blocks waiting on
//! it give up, every worker stops, and the panic resumes in the caller.
//! This is the mechanism of `granule-rayon`'s `parallel_scan` (see its
//! README), for values the algorithms choose (sums, counts, histograms).

use super::HostExec;
use crossbeam::utils::CachePadded;
use granule_core::reducer::Reducer;
use parking_lot::Mutex;
use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const EMPTY: u32 = 0;
const AGGREGATE: u32 = 1;
const INCLUSIVE: u32 = 2;
const ABANDONED: u32 = 3;

/// How long a wait spins before it starts yielding: the awaited block's
/// owner is running, and yielding early would give the core away for a
/// whole time slice.
const SPIN_LIMIT: Duration = Duration::from_micros(200);

/// One block's status and published values. Each value is written once,
/// before its status is stored (Release); readers load the status
/// (Acquire) before reading a value. Slots are `CachePadded`: a block's
/// owner spins on nothing but its own line while neighbours publish
/// (crossbeam pads to the prefetcher's pair of lines where it has one).
struct Slot<T> {
    status: AtomicU32,
    aggregate: UnsafeCell<MaybeUninit<T>>,
    inclusive: UnsafeCell<MaybeUninit<T>>,
}

impl<T: Copy> Slot<T> {
    fn new() -> Self {
        Slot {
            status: AtomicU32::new(EMPTY),
            aggregate: UnsafeCell::new(MaybeUninit::uninit()),
            inclusive: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Writes a value cell, then publishes `status`. Only the block's
    /// owner calls it, once per cell.
    fn publish(&self, cell: &UnsafeCell<MaybeUninit<T>>, value: T, status: u32) {
        // SAFETY: only the owner writes its cells, once each, before the
        // Release store; readers read only after seeing that store.
        unsafe { (*cell.get()).write(value) };
        self.status.store(status, Ordering::Release);
    }

    fn wait(&self) -> u32 {
        let mut spins = 0u32;
        let mut since: Option<Instant> = None;
        loop {
            let s = self.status.load(Ordering::Acquire);
            if s != EMPTY {
                return s;
            }
            spins = spins.wrapping_add(1);
            let spinning = !spins.is_multiple_of(256)
                || since.get_or_insert_with(Instant::now).elapsed() < SPIN_LIMIT;
            if spinning {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// # Safety
    /// The status was seen (Acquire) at a level that publishes `cell`.
    unsafe fn read(cell: &UnsafeCell<MaybeUninit<T>>) -> T {
        // SAFETY: written before the status store we synchronized with,
        // never written again.
        unsafe { (*cell.get()).assume_init() }
    }
}

/// The block whose look-back saw an abandoned predecessor gives up too.
#[derive(Debug)]
pub(crate) struct Abandoned;

/// 128 bytes, 128-byte aligned: the unit of memory [`Slots`] keeps.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Room([u8; 128]);

thread_local! {
    /// The slots' memory of the last chain this thread ran, for its next
    /// one. On a 2-core Xeon VM, a fresh vector of the 4096 slots of a
    /// 2^27-element scan took 1.4-1.6 ms to make, of a 60 ms scan, and the
    /// kept memory 0.06-0.07 ms.
    static ROOM: Cell<Vec<Room>> = const { Cell::new(Vec::new()) };
}

/// The most memory [`ROOM`] keeps: the slots of 2^30-element scans.
const ROOM_BYTES: usize = 4 << 20;

/// The slots of one dispatch, in the memory the calling thread keeps
/// ([`ROOM`]) unless a slot is aligned above it.
enum Slots<T> {
    Kept {
        room: Vec<Room>,
        n: usize,
        _values: PhantomData<T>,
    },
    Own(Vec<CachePadded<Slot<T>>>),
}

impl<T: Copy> Slots<T> {
    fn new(n: usize) -> Self {
        let (size, align) = (
            std::mem::size_of::<CachePadded<Slot<T>>>(),
            std::mem::align_of::<CachePadded<Slot<T>>>(),
        );
        if align > std::mem::align_of::<Room>() {
            return Slots::Own((0..n).map(|_| CachePadded::new(Slot::new())).collect());
        }
        let bytes = n.checked_mul(size).expect("look-back slots overflow usize");
        let units = bytes.div_ceil(std::mem::size_of::<Room>());
        let mut room = ROOM.try_with(Cell::take).unwrap_or_default();
        if room.len() < units {
            room = vec![Room([0; 128]); units];
        }
        let at = room.as_mut_ptr().cast::<CachePadded<Slot<T>>>();
        for b in 0..n {
            // SAFETY: the room's `units` 128-byte units hold `n` slots;
            // a slot's alignment is a power of two of at most 128, so it
            // divides the room's start and the slot's size, and every
            // slot is aligned.
            unsafe { at.add(b).write(CachePadded::new(Slot::new())) };
        }
        Slots::Kept {
            room,
            n,
            _values: PhantomData,
        }
    }
}

impl<T> std::ops::Deref for Slots<T> {
    type Target = [CachePadded<Slot<T>>];

    fn deref(&self) -> &Self::Target {
        match self {
            // SAFETY: `new` wrote `n` slots from the room's start, and
            // the room lives (unmoved) as long as `self`.
            Slots::Kept { room, n, .. } => unsafe {
                std::slice::from_raw_parts(room.as_ptr().cast(), *n)
            },
            Slots::Own(slots) => slots,
        }
    }
}

impl<T> Drop for Slots<T> {
    fn drop(&mut self) {
        // Slots need no drop (atomics and `MaybeUninit` cells); the room
        // goes back to the thread, unless a nested chain left a larger one.
        if let Slots::Kept { room, .. } = self {
            let room = std::mem::take(room);
            if room.len() * std::mem::size_of::<Room>() > ROOM_BYTES {
                return;
            }
            // A thread that is ending has no room to keep it in.
            let _ = ROOM.try_with(|kept| {
                let old = kept.take();
                kept.set(if old.len() > room.len() { old } else { room });
            });
        }
    }
}

/// The slots of one dispatch.
pub(crate) struct Chain<'r, T, R> {
    slots: Slots<T>,
    op: &'r R,
    seed: Option<T>,
}

// SAFETY: slots are shared through atomics and the publish/read protocol;
// T values cross threads, so T: Send. The reducer is Sync (Reducer: Sync).
unsafe impl<T: Send, R: Sync> Sync for Chain<'_, T, R> {}

/// What a block's body receives: its index, the block its worker takes
/// next ([`Block::next`]: already claimed, so its input may be
/// prefetched), and its place in the chain.
pub(crate) struct Block<'c, 'r, T, R> {
    pub(crate) index: usize,
    chain: &'c Chain<'r, T, R>,
    next: Cell<Option<usize>>,
    /// Claims the next block when [`Block::prefix`] returns (a worker's
    /// first block), `None` when it was claimed with this one.
    claim: Option<&'c (dyn Fn() -> Option<usize> + Sync)>,
}

impl<T: Copy + Send, R: Reducer<T>> Block<'_, '_, T, R> {
    /// Publishes this block's `aggregate` and returns its exclusive
    /// prefix: the seed joined with every earlier block's aggregate, or
    /// `None` for block 0 without a seed. Every block calls it exactly once.
    pub(crate) fn prefix(&self, aggregate: T) -> Result<Option<T>, Abandoned> {
        let prefix = self.look_back(aggregate);
        if let (Some(claim), Ok(_)) = (self.claim, &prefix) {
            self.next.set(claim());
        }
        prefix
    }

    /// This block's exclusive prefix if it is known now, without waiting:
    /// the walk back finds an inclusive prefix with only aggregates after
    /// it (block 0 always knows its prefix, the seed). A body that gets
    /// `Some` may skip its aggregate and call [`Block::finish`] with its
    /// inclusive prefix instead of [`Block::prefix`]; that regroups the
    /// joins, so only for an exact operator ([`Reducer::is_exact`]).
    pub(crate) fn known(&self) -> Option<Option<T>> {
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
    /// [`Block::known`]: its place of [`Block::prefix`] (a body calls one
    /// of the two, once).
    pub(crate) fn finish(&self, inclusive: T) {
        let slot = &self.chain.slots[self.index];
        slot.publish(&slot.inclusive, inclusive, INCLUSIVE);
        if let Some(claim) = self.claim {
            self.next.set(claim());
        }
    }

    /// The block this worker runs next, if it has claimed one (a worker
    /// claims it with the current block, or for its first block, once
    /// that has its prefix).
    pub(crate) fn next(&self) -> Option<usize> {
        self.next.get()
    }

    fn look_back(&self, aggregate: T) -> Result<Option<T>, Abandoned> {
        let (b, chain) = (self.index, self.chain);
        let slot = &chain.slots[b];
        if b == 0 {
            let inclusive = match chain.seed {
                Some(s) => join(chain.op, s, &aggregate),
                None => aggregate,
            };
            slot.publish(&slot.inclusive, inclusive, INCLUSIVE);
            return Ok(chain.seed);
        }
        slot.publish(&slot.aggregate, aggregate, AGGREGATE);
        let mut k = b - 1;
        loop {
            match chain.slots[k].wait() {
                INCLUSIVE => break,
                ABANDONED => {
                    slot.status.store(ABANDONED, Ordering::Release);
                    return Err(Abandoned);
                }
                _ => k -= 1,
            }
        }
        // SAFETY: the walk saw INCLUSIVE for k and AGGREGATE for k + 1..b
        // (it stops at the first INCLUSIVE).
        let prefix = unsafe { chain.fold_from(k, b) };
        slot.publish(
            &slot.inclusive,
            join(chain.op, prefix, &aggregate),
            INCLUSIVE,
        );
        Ok(Some(prefix))
    }
}

impl<T: Copy, R: Reducer<T>> Chain<'_, T, R> {
    /// `inclusive(k) ⊕ aggregate(k + 1) ⊕ … ⊕ aggregate(b - 1)`, folded
    /// forward: block `b`'s exclusive prefix.
    ///
    /// # Safety
    /// Block `k`'s status was seen (Acquire) as INCLUSIVE, and blocks
    /// `k + 1..b`'s as AGGREGATE. (A walk back stops at the first
    /// INCLUSIVE it sees, so it never reads the aggregate of a block that
    /// [`Block::finish`]ed, which publishes none.)
    unsafe fn fold_from(&self, k: usize, b: usize) -> T {
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
}

#[inline(always)]
fn join<T, R: Reducer<T>>(op: &R, mut a: T, b: &T) -> T {
    op.join(&mut a, b);
    a
}

/// Runs `body` for blocks `0..n` in order of claim on `exec`'s workers
/// and returns the last block's inclusive prefix (`None` when `n == 0`).
/// A body must call [`Block::prefix`] once (or [`Block::finish`] once,
/// after [`Block::known`] gave its prefix), and return `Err(Abandoned)`
/// when `prefix` does.
///
/// Each worker also carries a state `S` from one of its blocks to the
/// next (it starts as `S::default()`): a body may do part of the work of
/// its worker's [next](Block::next) block and leave the result there.
pub(crate) fn run<E, T, R, S, B>(
    exec: &E,
    label: &str,
    n: usize,
    op: &R,
    seed: Option<T>,
    body: B,
) -> Option<T>
where
    E: HostExec,
    T: Copy + Send,
    R: Reducer<T>,
    S: Default,
    B: Fn(&Block<'_, '_, T, R>, &mut S) -> Result<(), Abandoned> + Sync,
{
    if n == 0 {
        return None;
    }
    let chain = Chain {
        slots: Slots::new(n),
        op,
        seed,
    };
    let next = AtomicUsize::new(0);
    let aborted = AtomicBool::new(false);
    let panicked: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
    let claim = || Some(next.fetch_add(1, Ordering::Relaxed)).filter(|&b| b < n);
    // Each worker claims its next block before it runs the current one,
    // except the first time: it claims it once its first block has its
    // prefix, so the workers' first blocks are consecutive (claimed at
    // the start, worker 0 would take blocks 0 and 1, and worker 1, given
    // block 2, would wait for all of block 0 and block 1's aggregate).
    // Blocks are still claimed in order, and the lowest unfinished block
    // is always running (a worker holding a claimed block ahead is busy
    // with a lower one, past its look-back), so every wait ends, with a
    // value or ABANDONED.
    let worker = |_| {
        let mut carry = S::default();
        let mut current = claim();
        let mut first = true;
        while let Some(b) = current {
            let block = Block {
                index: b,
                chain: &chain,
                next: Cell::new(if first { None } else { claim() }),
                claim: first.then_some(&claim as &(dyn Fn() -> Option<usize> + Sync)),
            };
            first = false;
            let outcome = if aborted.load(Ordering::Relaxed) {
                Err(None)
            } else {
                match catch_unwind(AssertUnwindSafe(|| body(&block, &mut carry))) {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(Abandoned)) => Err(None),
                    Err(payload) => Err(Some(payload)),
                }
            };
            let ahead = block.next();
            if let Err(payload) = outcome {
                // Every claimed block must publish something: later blocks
                // wait on it.
                for c in [Some(b), ahead].into_iter().flatten() {
                    chain.slots[c].status.store(ABANDONED, Ordering::Release);
                }
                if let Some(payload) = payload {
                    aborted.store(true, Ordering::Relaxed);
                    panicked.lock().get_or_insert(payload);
                }
                break;
            }
            current = ahead;
        }
    };
    let workers = exec.concurrency().clamp(1, n);
    exec.run(label, workers, &worker);
    if let Some(payload) = panicked.lock().take() {
        resume_unwind(payload);
    }
    let last = &chain.slots[n - 1];
    assert_eq!(
        last.status.load(Ordering::Acquire),
        INCLUSIVE,
        "look-back: the last block published no prefix"
    );
    // SAFETY: INCLUSIVE was just seen (Acquire).
    Some(unsafe { Slot::read(&last.inclusive) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use granule_core::reducer::Sum;
    use granule_core::Serial;

    /// Sums `1..=n` in blocks of one value each: blocks whose prefix is
    /// [`Block::known`] finish with it, the others publish their value and
    /// look back. Returns the total and how many blocks knew their prefix.
    fn sum_with_known<E: HostExec>(exec: &E, n: usize, seed: Option<u64>) -> (u64, usize) {
        let knew = AtomicUsize::new(0);
        let prefixes: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(usize::MAX)).collect();
        let total = run(exec, "t", n, &Sum, seed, |blk, _: &mut ()| {
            let v = blk.index as u64 + 1;
            let p = if let Some(p) = blk.known() {
                knew.fetch_add(1, Ordering::Relaxed);
                blk.finish(p.unwrap_or(0) + v);
                p
            } else {
                blk.prefix(v)?
            };
            prefixes[blk.index].store(p.unwrap_or(0) as usize, Ordering::Relaxed);
            Ok(())
        });
        let base = seed.unwrap_or(0) as usize;
        for (b, p) in prefixes.iter().enumerate() {
            assert_eq!(
                p.load(Ordering::Relaxed),
                base + b * (b + 1) / 2,
                "block {b}"
            );
        }
        (total.unwrap_or(0), knew.into_inner())
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
        assert_eq!(
            run(&Serial, "t", 300, &Sum, None, |blk, _: &mut ()| {
                blk.prefix(1u64).map(drop)
            }),
            Some(300)
        );
        let at = room_at();
        let slots = Slots::<u64>::new(200);
        assert!(matches!(slots, Slots::Kept { .. }));
        assert!(slots
            .iter()
            .all(|s| s.status.load(Ordering::Relaxed) == EMPTY));
        drop(slots);
        assert_eq!(room_at(), at, "the room was not kept");
    }

    #[test]
    fn blocks_that_know_their_prefix_finish_with_it() {
        let n = 2000;
        let want = (n * (n + 1) / 2) as u64;
        // One worker always knows the prefix.
        assert_eq!(sum_with_known(&Serial, n, None), (want, n));
        assert_eq!(sum_with_known(&Serial, n, Some(7)), (want + 7, n));
        #[cfg(feature = "rayon")]
        for _ in 0..20 {
            let two = granule_rayon::Rayon::new(2).expect("rayon");
            let (total, knew) = sum_with_known(&two, n, Some(3));
            assert_eq!(total, want + 3);
            // Block 0 always knows its prefix, the seed.
            assert!(knew >= 1);
        }
    }
}
