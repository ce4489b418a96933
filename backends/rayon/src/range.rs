//! Range policies on Rayon: `parallel_for` and `parallel_reduce` over
//! fixed blocks joined in a fixed tree (the same as Serial's, so results
//! are bitwise identical for any thread count), with rayon's `join` as
//! the fork; and `parallel_scan`, one pass over memory in cache-sized
//! blocks chained by granule-core's decoupled look-back
//! ([`granule_core::exec::lookback`]; see `README.md` in this folder).

use crate::space::Rayon;
use granule_core::exec::lookback::{self, Block, Stop, Workers};
use granule_core::exec::{
    block_bounds, block_count, for_blocks, host, range_block, Sequential, SCAN_BLOCK_ELEMS,
};
use granule_core::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl, ParallelScanImpl};
use granule_core::policy::{Policy, RangePolicy};
use granule_core::reducer::Reducer;
use granule_core::write::{assert_covers, fetches_writes, for_each_item_fetching, WriteParts};
use parking_lot::Mutex;

impl<W, F> ParallelForImpl<RangePolicy<'_, Rayon>, W, F> for Rayon
where
    W: WriteParts<usize>,
    F: for<'a> ForFunctor<usize, W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Rayon>,
        writes: W,
        f: &F,
    ) {
        let writes = &writes;
        if self.inline(block_count(
            policy.len(),
            policy.chunk_or(range_block(policy.len())),
        )) {
            // SAFETY: forwarded contract; `writes` is owned by this call.
            return unsafe { host::range_for(Sequential, label, policy, writes, f) };
        }
        // SAFETY: as above.
        self.dispatch(|| unsafe { host::range_for(self.fork(), label, policy, writes, f) })
    }
}

impl<T: Send, R: Reducer<T>, F> ParallelReduceImpl<RangePolicy<'_, Rayon>, T, R, F> for Rayon
where
    F: ReduceFunctor<usize, T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &RangePolicy<'_, Rayon>,
        reducer: &R,
        f: &F,
    ) -> T {
        if self.inline(block_count(
            policy.len(),
            policy.chunk_or(range_block(policy.len())),
        )) {
            return host::range_reduce(Sequential, policy, reducer, f);
        }
        self.dispatch(|| host::range_reduce(self.fork(), policy, reducer, f))
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

/// Scans block `blk` of `block` indices: the aggregate pass, the look-back
/// for its prefix, and the final calls from it. The last block leaves the
/// running value after its final calls in `total`: the scan's total as
/// its own chain ends it (the last inclusive value), which the
/// look-back's regrouped prefix may differ from in a float's last bit.
#[inline(always)]
fn scan_block<W, T, R, F>(
    blk: &Block<'_, '_, T, R>,
    (begin, end, block): (usize, usize, usize),
    total: &Mutex<Option<T>>,
    reducer: &R,
    writes: &W,
    f: &F,
) -> Result<(), Stop>
where
    W: WriteParts<usize>,
    T: Copy + Send,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    let (lo, hi) = block_bounds(begin, end, block, blk.index());
    // Pass 1 (reads the block from memory): the block's aggregate, from
    // the non-final calls in a fixed grouping, so deterministic. It is
    // published before the final pass, so later blocks never wait for
    // this block's final pass: every block does pass 1, even when its
    // prefix is already known, because a block that skipped it could
    // publish nothing until its final pass ended, serializing the blocks
    // after it.
    // A block run again after it was left published its aggregate in its
    // first run: it makes no second round of non-final calls (each index
    // gets at most one).
    let aggregate = if blk.resumed() {
        reducer.init()
    } else {
        let fetch = fetches_writes(writes, end - begin);
        aggregate_pass(lo, hi, fetch, reducer, writes, f)
    };
    let mut running = blk.prefix(aggregate)?.unwrap_or_else(|| reducer.init());
    // Pass 2 (the block is still in cache): the final calls.
    final_pass(lo, hi, &mut running, writes, f);
    if hi == end {
        *total.lock() = Some(running);
    }
    Ok(())
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
        let block = policy.chunk_or(SCAN_BLOCK_ELEMS);
        let n = block_count(policy.len(), block);
        if n == 0 {
            return reducer.init();
        }
        let bounds = (policy.begin(), policy.end(), block);
        let total = Mutex::new(None);
        let writes = &writes;
        // Each block hands its indices' items to its own calls, one at a
        // time (a block's passes run one after the other on its runner,
        // and a block run again after it was left runs alone): the
        // `for_each_item` contract, with the cover checked above.
        let body = |blk: &Block<'_, '_, T, R>, _: &mut ()| {
            scan_block(blk, bounds, &total, reducer, writes, f)
        };
        if self.inline(n) {
            let fan = |k: usize, w: &(dyn Fn(usize) + Sync)| (0..k).for_each(w);
            lookback::run(Workers::new(&fan, 1), label, n, reducer, None, body);
        } else {
            let fan = |k: usize, w: &(dyn Fn(usize) + Sync)| {
                self.dispatch(|| for_blocks(self.fork(), k, &|b| w(b)))
            };
            let workers = Workers::new(&fan, self.inner.threads);
            lookback::run(workers, label, n, reducer, None, body);
        }
        total.into_inner().unwrap_or_else(|| reducer.init())
    }
}
