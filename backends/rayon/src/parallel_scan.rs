//! `parallel_scan` on Rayon: one pass over memory, cache-sized blocks
//! chained by decoupled look-back. See `README.md` in this folder.

use crate::space::{Line, Rayon, RayonFork};
use granule_core::exec::{block_bounds, block_count, for_blocks, Fork, Sequential, SCAN_BLOCK};
use granule_core::functor::ScanFunctor;
use granule_core::pattern::ParallelScanImpl;
use granule_core::policy::{Policy, RangePolicy};
use granule_core::reducer::Reducer;
use granule_core::write::{assert_covers, fetches_writes, for_each_item_fetching, WriteParts};
use parking_lot::Mutex;
use std::any::Any;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

/// Nothing published yet.
const EMPTY: u32 = 0;
/// The block's aggregate (the join of its own contributions) is published.
const AGGREGATE: u32 = 1;
/// The block's inclusive prefix is published (its aggregate too).
const INCLUSIVE: u32 = 2;
/// The block will publish nothing more: its functor (or one it depends
/// on) panicked. Blocks looking back through it give up, so a panic
/// unwinds instead of leaving the look-back spinning forever.
const ABANDONED: u32 = 3;

/// How long a look-back spins on a slot before it starts yielding.
const SPIN_LIMIT: std::time::Duration = std::time::Duration::from_micros(200);

/// One block's status word and published values, on its own cache line.
///
/// A value is written before its status is stored with `Release`; a
/// reader loads the status with `Acquire` before reading the value. Each
/// value is written once per dispatch, so a reader never races a writer.
#[repr(C, align(64))]
struct Slot<T> {
    status: AtomicU32,
    aggregate: UnsafeCell<MaybeUninit<T>>,
    inclusive: UnsafeCell<MaybeUninit<T>>,
}

impl<T: Copy> Slot<T> {
    fn publish(&self, cell: &UnsafeCell<MaybeUninit<T>>, value: T, status: u32) {
        // SAFETY: only the block's owner writes its cells, once each, and
        // before the Release store below; readers wait for that store.
        unsafe { (*cell.get()).write(value) };
        self.status.store(status, Ordering::Release);
    }

    /// Tells later blocks that this one will publish nothing more.
    fn abandon(&self) {
        self.status.store(ABANDONED, Ordering::Release);
    }

    /// Waits until the status is at least `AGGREGATE`; returns it.
    ///
    /// The owner of the slot is running (blocks are claimed in order), so
    /// the wait is about one block's pass at most: spin for up to
    /// [`SPIN_LIMIT`] before yielding. Yielding sooner would hand the core
    /// to whatever else is runnable for a whole time slice.
    fn wait(&self) -> u32 {
        let mut spins = 0u32;
        let mut since: Option<std::time::Instant> = None;
        loop {
            let s = self.status.load(Ordering::Acquire);
            if s != EMPTY {
                return s;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(256) {
                std::hint::spin_loop();
                continue;
            }
            let start = *since.get_or_insert_with(std::time::Instant::now);
            if start.elapsed() < SPIN_LIMIT {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// # Safety
    /// The status must have been seen (Acquire) at or above the level that
    /// publishes `cell`.
    unsafe fn read(cell: &UnsafeCell<MaybeUninit<T>>) -> T {
        // SAFETY: per the contract the value was written before the status
        // store we synchronized with, and is never written again.
        unsafe { (*cell.get()).assume_init() }
    }
}

/// Slots for `n` blocks: the space's reusable buffer when it is free,
/// a fresh one otherwise (two scans at once on one space).
struct Slots<'b, T> {
    ptr: *const Slot<T>,
    n: usize,
    _buf: std::marker::PhantomData<&'b mut [Line]>,
}

// SAFETY: slots are only touched through atomics and the publish/read
// protocol above; T: Send values cross threads through them.
unsafe impl<T: Send> Sync for Slots<'_, T> {}

impl<'b, T> Slots<'b, T> {
    /// # Panics
    /// If the slots' size overflows `usize` or cannot be allocated (a huge
    /// range cut into tiny chunks), naming the label, the block count and
    /// the bytes.
    #[track_caller]
    fn new(label: &str, buf: &'b mut Vec<Line>, n: usize) -> Self {
        const {
            assert!(
                std::mem::align_of::<Slot<T>>() <= 64,
                "scan values aligned above 64 bytes are not supported"
            )
        };
        let size = std::mem::size_of::<Slot<T>>();
        let Some(bytes) = n.checked_mul(size) else {
            panic!(
                "parallel_scan \"{label}\": the look-back status of {n} blocks ({size} bytes each) overflows usize; use a larger chunk size"
            )
        };
        let lines = bytes.div_ceil(64);
        if buf.len() < lines {
            if buf.try_reserve_exact(lines - buf.len()).is_err() {
                panic!(
                    "parallel_scan \"{label}\": cannot allocate the look-back status of {n} blocks ({bytes} bytes); use a larger chunk size"
                )
            }
            buf.resize(lines, Line([0; 64]));
        }
        let ptr = buf.as_mut_ptr().cast::<Slot<T>>();
        for b in 0..n {
            // SAFETY: the buffer holds `n` slots, 64-byte aligned (Slot's
            // alignment is 64); only the status needs a value, the cells
            // are MaybeUninit.
            unsafe { std::ptr::addr_of_mut!((*ptr.add(b)).status).write(AtomicU32::new(EMPTY)) };
        }
        Slots {
            ptr,
            n,
            _buf: std::marker::PhantomData,
        }
    }

    #[inline]
    fn get(&self, b: usize) -> &Slot<T> {
        assert!(b < self.n);
        // SAFETY: `b < n` slots were initialized in `new`, and the buffer
        // is borrowed for 'b.
        unsafe { &*self.ptr.add(b) }
    }
}

/// The final calls for `lo..hi` (`is_final` is the constant `true`, so
/// the compiler drops the branch the functor makes on it).
#[inline(always)]
fn final_pass<W, T, F>(lo: usize, hi: usize, value: &mut T, writes: &W, f: &F)
where
    W: WriteParts<usize>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    // SAFETY: every `i` is below the checked bound; one item at a time per
    // index (a block's two passes run one after the other on its owner).
    unsafe { writes.for_each_item(lo, hi, |i, item| f.exec(i, item, value, true)) }
}

/// The aggregate of `lo..hi`: the non-final calls, folded left to right
/// into one accumulator. The grouping is fixed, so the result is
/// deterministic; the loop has a single accumulator and one exit per
/// bounds check, which the compiler vectorizes for associative
/// (integer) joins.
///
/// With `fetch`, it also asks for the lines the final pass will write, so
/// that they arrive while the core waits for the block's reads anyway
/// (the block, input and output, stays in L2 between the passes).
#[inline(always)]
fn aggregate_pass<W, T, R, F>(
    lo: usize,
    hi: usize,
    fetch: bool,
    reducer: &R,
    writes: &W,
    f: &F,
) -> T
where
    W: WriteParts<usize>,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    let mut acc = reducer.init();
    let call = |i, item| f.exec(i, item, &mut acc, false);
    // SAFETY: as in `final_pass`; non-final calls do not write the items.
    unsafe {
        if fetch {
            for_each_item_fetching(writes, lo, hi, call)
        } else {
            writes.for_each_item(lo, hi, call)
        }
    };
    acc
}

/// Scans blocks `0..n` of `block` indices with the look-back protocol;
/// `fork` fans out `workers` claimers. Returns the total. A panic in the
/// functor abandons the blocks that depend on it and is resumed here once
/// every worker has stopped.
///
/// # Safety
/// `writes` covers `end`, and nothing else uses it during the call.
#[allow(clippy::too_many_arguments)]
unsafe fn lookback_scan<Fk, W, T, R, F>(
    fork: Fk,
    workers: usize,
    slots: &Slots<'_, T>,
    (begin, end, block): (usize, usize, usize),
    reducer: &R,
    writes: &W,
    f: &F,
) -> T
where
    Fk: Fork,
    W: WriteParts<usize>,
    T: Copy + Send,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    let n = slots.n;
    let next = AtomicUsize::new(0);
    let total: Mutex<Option<T>> = Mutex::new(None);
    let panicked: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
    let aborted = AtomicBool::new(false);
    let worker = || loop {
        // Blocks are claimed in order, so every earlier block is owned by
        // a thread that is running it: waiting on it always ends, with a
        // published value or with ABANDONED.
        let b = next.fetch_add(1, Ordering::Relaxed);
        if b >= n {
            break;
        }
        let slot = slots.get(b);
        if aborted.load(Ordering::Relaxed) {
            // A claimed block must publish something: later blocks wait on it.
            slot.abandon();
            break;
        }
        let run = || scan_block(b, slots, (begin, end, block), reducer, writes, f);
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Some(running)) if b == n - 1 => *total.lock() = Some(running),
            Ok(Some(_)) => {}
            // An earlier block was abandoned, and so was this one.
            Ok(None) => break,
            Err(payload) => {
                slot.abandon();
                aborted.store(true, Ordering::Relaxed);
                panicked.lock().get_or_insert(payload);
                break;
            }
        }
    };
    for_blocks(fork, workers.max(1), &|_| worker());
    if let Some(payload) = panicked.lock().take() {
        resume_unwind(payload);
    }
    let total = total.into_inner();
    total.unwrap_or_else(|| reducer.init())
}

/// Scans block `b`: publishes its aggregate, looks back for its prefix,
/// publishes its inclusive prefix and makes its final calls. Returns the
/// running value after the block, or `None` (having abandoned the block)
/// when a block it looked back at was abandoned.
#[inline(always)]
fn scan_block<W, T, R, F>(
    b: usize,
    slots: &Slots<'_, T>,
    (begin, end, block): (usize, usize, usize),
    reducer: &R,
    writes: &W,
    f: &F,
) -> Option<T>
where
    W: WriteParts<usize>,
    T: Copy + Send,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    let (lo, hi) = block_bounds(begin, end, block, b);
    let slot = slots.get(b);
    // Pass 1 (reads the block from memory): the block's aggregate, from
    // the non-final calls in a fixed grouping, so deterministic. It is
    // published before the final pass, so later blocks never wait for
    // this block's final pass: every block does pass 1, even when its
    // prefix is already known, because a block that skipped it could
    // publish nothing until its final pass ended, serializing the
    // blocks after it.
    let fetch = fetches_writes(writes, end - begin);
    let aggregate = aggregate_pass(lo, hi, fetch, reducer, writes, f);
    let mut running = if b == 0 {
        slot.publish(&slot.inclusive, aggregate, INCLUSIVE);
        reducer.init()
    } else {
        slot.publish(&slot.aggregate, aggregate, AGGREGATE);
        // Look back to the nearest inclusive prefix, then fold the
        // aggregates after it forward: the same left fold whichever
        // statuses we find, so the result is bitwise deterministic.
        let mut k = b - 1;
        loop {
            match slots.get(k).wait() {
                INCLUSIVE => break,
                ABANDONED => {
                    slot.abandon();
                    return None;
                }
                _ => k -= 1,
            }
        }
        // SAFETY: `wait` saw INCLUSIVE for k, AGGREGATE or more for k+1..b
        // (an ABANDONED block among them ended the look-back above).
        let mut prefix = unsafe { Slot::read(&slots.get(k).inclusive) };
        for j in k + 1..b {
            // SAFETY: as above.
            reducer.join(&mut prefix, &unsafe { Slot::read(&slots.get(j).aggregate) });
        }
        let mut inclusive = prefix;
        reducer.join(&mut inclusive, &aggregate);
        slot.publish(&slot.inclusive, inclusive, INCLUSIVE);
        prefix
    };
    // Pass 2 (the block is still in cache): the final calls.
    final_pass(lo, hi, &mut running, writes, f);
    Some(running)
}

impl<W, T, R, F> ParallelScanImpl<W, T, R, F> for Rayon
where
    W: WriteParts<usize>,
    T: Copy + Send,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    unsafe fn parallel_scan_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Rayon>,
        reducer: &R,
        writes: W,
        f: &F,
    ) -> T {
        assert_covers(label, &writes, &policy.write_bound());
        let block = policy.chunk_or(SCAN_BLOCK);
        let n = block_count(policy.len(), block);
        if n == 0 {
            return reducer.init();
        }
        let bounds = (policy.begin(), policy.end(), block);
        let mut local = Vec::new();
        // The space's buffer, unless another scan holds it; after a scan
        // that panicked it is still fine (the lock does not poison), since
        // every dispatch resets the status words it uses.
        let mut shared = self.inner.scan_buf.try_lock();
        let buf = shared.as_deref_mut().unwrap_or(&mut local);
        let slots = Slots::<T>::new(label, buf, n);
        let writes = &writes;
        if self.inline(n) {
            // SAFETY: `writes` covers the range (checked above), and the
            // caller lets nothing else use it during the call.
            return unsafe { lookback_scan(Sequential, 1, &slots, bounds, reducer, writes, f) };
        }
        let threads = self.inner.threads;
        // SAFETY: as above.
        self.install(|| unsafe {
            lookback_scan(RayonFork, threads, &slots, bounds, reducer, writes, f)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_are_reset_per_dispatch() {
        let mut buf = Vec::new();
        let s = Slots::<u64>::new("t", &mut buf, 3);
        s.get(1).publish(&s.get(1).inclusive, 5, INCLUSIVE);
        assert_eq!(s.get(1).wait(), INCLUSIVE);
        let s = Slots::<u64>::new("t", &mut buf, 3);
        assert_eq!(s.get(1).status.load(Ordering::Relaxed), EMPTY);
    }

    #[test]
    #[should_panic(expected = "look-back status of 288230376151711745 blocks")]
    fn slot_sizes_never_wrap() {
        let _ = Slots::<u64>::new("huge", &mut Vec::new(), (1 << 58) + 1);
    }
}
