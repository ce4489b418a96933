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

use crate::reducer::Reducer;
use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use std::any::Any;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// What a block has published: its slot's status.
const EMPTY: u32 = 0;
const AGGREGATE: u32 = 1;
const INCLUSIVE: u32 = 2;
const ABANDONED: u32 = 3;

// Who runs a block: its slot's turn.
/// Unclaimed, or being run by the worker that holds it.
const HELD: u8 = 0;
/// Left by its worker; the finisher of the block before runs it.
const LEFT: u8 = 1;
/// Finished: its inclusive prefix is published.
const DONE: u8 = 2;

/// How long a wait spins before it starts yielding: the awaited block's
/// owner is normally running, and yielding early would give the core away
/// for a whole time slice.
pub const SPIN: Duration = Duration::from_micros(200);

/// How long a block waits for a predecessor before it is left for a
/// later run (see the [module](self)): long enough that a predecessor
/// whose thread was only preempted is rarely given up on.
pub const PATIENCE: Duration = Duration::from_millis(10);

/// One block's status and published values. Each value is written once
/// per chain, before its status is stored (Release); readers load the
/// status (Acquire) before reading a value.
struct Slot<T> {
    status: AtomicU32,
    turn: AtomicU8,
    aggregate: UnsafeCell<MaybeUninit<T>>,
    inclusive: UnsafeCell<MaybeUninit<T>>,
}

impl<T: Copy> Slot<T> {
    fn new() -> Self {
        Slot {
            status: AtomicU32::new(EMPTY),
            turn: AtomicU8::new(HELD),
            aggregate: UnsafeCell::new(MaybeUninit::uninit()),
            inclusive: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Writes a value cell, then publishes `status`.
    ///
    /// # Safety
    /// Only the block's current runner calls it, once per cell per chain
    /// (a [`Block`] checks that its body asks once, and a block's second
    /// run publishes no aggregate).
    unsafe fn publish(&self, cell: &UnsafeCell<MaybeUninit<T>>, value: T, status: u32) {
        // SAFETY: the caller's contract: one writer, once, before the
        // Release store; readers read only after seeing that store.
        unsafe { (*cell.get()).write(value) };
        self.status.store(status, Ordering::Release);
    }

    /// The status once it is not empty, or `None` after [`PATIENCE`].
    fn wait(&self) -> Option<u32> {
        let mut spins = 0u32;
        let mut since: Option<Instant> = None;
        loop {
            let s = self.status.load(Ordering::Acquire);
            if s != EMPTY {
                return Some(s);
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(256) {
                std::hint::spin_loop();
                continue;
            }
            let waited = since.get_or_insert_with(Instant::now).elapsed();
            if waited >= PATIENCE {
                return None;
            }
            if waited < SPIN {
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
        // never written again in this chain.
        unsafe { (*cell.get()).assume_init() }
    }
}

/// 128 bytes, 128-byte aligned: the unit of memory [`Slots`] keeps. Its
/// bytes are `MaybeUninit`: the slots written there hold uninitialised
/// value cells.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Room([MaybeUninit<u8>; 128]);

thread_local! {
    /// The slots' memory of the last chain this thread ran, for its next
    /// one: fresh memory for thousands of slots costs page faults on every
    /// call.
    static ROOM: Cell<Vec<Room>> = const { Cell::new(Vec::new()) };
}

/// The most memory [`ROOM`] keeps: the slots of a scan of 2^30 elements
/// in blocks of 16 Ki.
const ROOM_BYTES: usize = 4 << 20;

/// The slots of one chain, each on its own cache lines (`CachePadded`:
/// a block's owner spins on nothing but its own line while neighbours
/// publish), in the memory the calling thread keeps ([`ROOM`]) unless a
/// slot is aligned above it.
enum Slots<T> {
    Kept {
        room: Vec<Room>,
        n: usize,
        _values: PhantomData<T>,
    },
    Own(Vec<CachePadded<Slot<T>>>),
}

impl<T: Copy> Slots<T> {
    /// # Panics
    /// If the slots' size overflows `usize`, naming `label`.
    fn new(label: &str, n: usize) -> Self {
        let (size, align) = (
            std::mem::size_of::<CachePadded<Slot<T>>>(),
            std::mem::align_of::<CachePadded<Slot<T>>>(),
        );
        if align > std::mem::align_of::<Room>() {
            return Slots::Own((0..n).map(|_| CachePadded::new(Slot::new())).collect());
        }
        let Some(bytes) = n.checked_mul(size) else {
            panic!(
                "\"{label}\": the look-back status of {n} blocks ({size} bytes each) overflows \
                 usize; use larger blocks"
            )
        };
        let units = bytes.div_ceil(std::mem::size_of::<Room>());
        let mut room = ROOM.try_with(Cell::take).unwrap_or_default();
        if room.len() < units {
            room = vec![Room([MaybeUninit::uninit(); 128]); units];
        }
        let at = room.as_mut_ptr().cast::<CachePadded<Slot<T>>>();
        for b in 0..n {
            // SAFETY: the room's `units` 128-byte units hold `n` slots; a
            // slot's alignment is a power of two of at most 128, so it
            // divides the room's start and the slot's size, and every slot
            // is aligned. Writing overwrites bytes only (no drop).
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
            // SAFETY: `new` wrote `n` slots from the room's start, and the
            // room lives (unmoved) as long as `self`.
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

thread_local! {
    /// The chains with a block running on this thread, by address: a
    /// worker of one of them that rayon starts here (while that block
    /// waits on user code) takes no block.
    static ACTIVE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Marks the chain at `at` active on this thread while it lives.
struct Active(usize);

impl Active {
    fn enter(at: usize) -> Self {
        ACTIVE.with(|a| a.borrow_mut().push(at));
        Active(at)
    }
    fn on_this_thread(at: usize) -> bool {
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

/// Why a block's body stopped before it finished; its body returns it as
/// it got it (`?`). Only [`Block::prefix`] makes one.
#[derive(Debug, PartialEq, Eq)]
pub struct Stop(Reason);

#[derive(Debug, PartialEq, Eq)]
enum Reason {
    /// A block it depends on was abandoned (its body panicked).
    Abandoned,
    /// It waited too long and will run again (see the module).
    Left,
}

/// What a block's body receives: its index, the block its worker takes
/// next ([`Block::next`]: already claimed, so its input may be fetched
/// early), and its place in the chain.
pub struct Block<'c, 'r, T, R, L = ()> {
    index: usize,
    chain: &'c Chain<'r, T, R, L>,
    next: Cell<Option<usize>>,
    /// The worker claims its next block when [`Block::prefix`] returns (a
    /// worker's first block), not with this one.
    claim_later: bool,
    /// An earlier run of this block left it after publishing its aggregate.
    resumed: bool,
    /// What the body has published: nothing, or its prefix was asked for.
    asked: Cell<bool>,
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

/// The shared state of one chain.
struct Chain<'r, T, R, L> {
    slots: Slots<T>,
    op: &'r R,
    seed: Option<T>,
    /// The next block nobody has claimed (on lines of its own: every
    /// worker writes it once a block).
    claimed: CachePadded<AtomicUsize>,
    /// A worker left a block this round: the others stop claiming, so
    /// that the round ends and a new one starts every worker again.
    regroup: AtomicBool,
    /// Whether workers claim their next block with the current one.
    ahead: bool,
    /// What left blocks keep for their next run.
    left: Mutex<Vec<(usize, L)>>,
    aborted: AtomicBool,
    panicked: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: slots are shared through atomics and the publish/read protocol,
// and T values cross threads through them, so T: Send; the reducer is
// Sync (Reducer: Sync); what blocks leave crosses threads behind a mutex,
// so L: Send.
unsafe impl<T: Send, R: Sync, L: Send> Sync for Chain<'_, T, R, L> {}

/// How a block's run ended.
enum Outcome {
    Done,
    Left,
    Stopped,
}

impl<T: Copy + Send, R: Reducer<T>, L: Send> Chain<'_, T, R, L> {
    fn n(&self) -> usize {
        self.slots.len()
    }

    fn claim(&self) -> Option<usize> {
        Some(self.claimed.fetch_add(1, Ordering::Relaxed)).filter(|&b| b < self.n())
    }

    /// [`Chain::claim`], unless a worker left a block this round.
    fn claim_unless_regrouping(&self) -> Option<usize> {
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

    /// Runs block `b` once, `body` with a [`Block`]; returns how it ended
    /// and the block its worker runs next (claimed with it, or by its
    /// prefix).
    fn run_block<S, B>(
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
    fn finish_from<S: Default, B>(&self, mut b: usize, body: &B)
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
    fn leave_block<S: Default, B>(&self, b: usize, body: &B)
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
    fn run_taken<S: Default, B>(&self, b: usize, body: &B)
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
    fn work<S: Default, B>(&self, body: &B)
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
    fn body_outcome<S, B>(&self, block: &Block<'_, '_, T, R, L>, carry: &mut S, body: &B) -> Outcome
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
fn take(turn: &AtomicU8) -> bool {
    turn.load(Ordering::SeqCst) == LEFT
        && turn
            .compare_exchange(LEFT, HELD, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
}

#[inline(always)]
fn join<T, R: Reducer<T>>(op: &R, mut a: T, b: &T) -> T {
    op.join(&mut a, b);
    a
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reducer::Sum;
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
}
