//! What the host implementations share: how a space runs work items
//! ([`HostExec`]), raw access to the Views' elements ([`raw`]), their
//! temporaries ([`room`]), per-thread staging buffers ([`buffer`]), non-temporal copies ([`stream`]), the
//! vector instruction sets the kernels take ([`isa`]), and the decoupled
//! look-back that chains blocks in one pass ([`chain`], granule-core's
//! [`lookback`](granule_core::exec::lookback) on the space's workers).
//!
//! The host algorithms are written once against [`HostExec`] and run on
//! Serial and Rayon through the public `parallel_for` pattern, as user
//! code would: each family's `host.rs` implements its trait for both.

pub(crate) mod buffer;
pub(crate) mod isa;
pub(crate) mod raw;
pub(crate) mod room;
pub(crate) mod stream;

use granule_core::exec::lookback::{self, Block, Stop, Workers};
use granule_core::reducer::Reducer;
use granule_core::{parallel_for, ExecutionSpace, RangePolicy, Serial};

/// Elements per block of the compactions: a block's input (128 KiB of
/// 8-byte elements) stays in a core's L2 cache between its two passes.
/// Like every block size here it depends on nothing but the length.
pub(crate) const BLOCK: usize = 16 * 1024;

/// Outputs larger than this many bytes leave through non-temporal stores:
/// they do not fit in the last-level cache anyway, and a streaming store
/// does not read the destination line first. Smaller ones use plain
/// stores and stay in cache for whoever reads them next.
pub(crate) const STREAM_BYTES: usize = 16 << 20;

/// A host execution space as the algorithms use it: `run(n, f)` calls
/// `f(0..n)` once each, possibly in parallel, and returns when all are
/// done; a panic in `f` unwinds to the caller after every call stopped.
pub(crate) trait HostExec: ExecutionSpace {
    /// Calls `f(k)` for every `k` in `0..n`.
    fn run(&self, label: &str, n: usize, f: &(dyn Fn(usize) + Sync));
}

/// Runs `body` for blocks `0..n` chained by granule-core's decoupled
/// look-back, on `exec`'s workers, and returns the last block's inclusive
/// prefix (`None` when `n == 0`); see
/// [`lookback::run`](granule_core::exec::lookback::run) for what a body
/// must do.
pub(crate) fn chain<E, T, R, S, L, B>(
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
    L: Send,
    B: Fn(&Block<'_, '_, T, R, L>, &mut S) -> Result<(), Stop> + Sync,
{
    let fan = |workers: usize, f: &(dyn Fn(usize) + Sync)| exec.run(label, workers, f);
    // Claiming ahead lets a block fetch its worker's next block early.
    let workers = Workers::new(&fan, exec.concurrency()).claiming_ahead();
    lookback::run(workers, label, n, op, seed, body)
}

impl HostExec for Serial {
    fn run(&self, label: &str, n: usize, f: &(dyn Fn(usize) + Sync)) {
        parallel_for(label, RangePolicy::new(self, 0..n), (), |k, ()| f(k));
    }
}

#[cfg(feature = "rayon")]
impl HostExec for granule_rayon::Rayon {
    fn run(&self, label: &str, n: usize, f: &(dyn Fn(usize) + Sync)) {
        // Chunks of one item, handed out by work stealing.
        let policy = RangePolicy::new(self, 0..n).with_chunk_size(1);
        parallel_for(label, policy, (), |k, ()| f(k));
    }
}
