//! ScatterView: scatter contributions (histograms, particle deposition,
//! finite-element assembly) without a data race and, where the space
//! allows, without atomics.
//!
//! A kernel writes a ScatterView through [`ScatterView::access`]; each
//! element takes contributions with the view's operation ([`Sum`] by
//! default, [`Prod`], [`Min`], [`Max`]). When the dispatches are done,
//! [`ScatterView::contribute_into`] combines everything into a View, and
//! [`ScatterView::reset`] starts over.
//!
//! How contributions are kept is the [`ScatterStrategy`], chosen per space
//! as Kokkos does: on a space of one thread (Serial) the thread writes
//! its copy directly; on a pool (Rayon) every thread gets a private copy,
//! written with plain stores and combined in `contribute_into`; in device
//! memory (Cuda) contributions are atomics. `with_strategy_on` chooses
//! explicitly. See `claim.rs` for how a thread finds its copy.
//!
//! On a host space, a ScatterView can also be a `parallel_for`'s written
//! argument (`writes.rs`): work items then receive their handle from the
//! dispatch, which finds the thread's copy once per chunk it runs. A
//! rank-1 handle can be [`fixed`](ScatterAccess::fixed) to a constant
//! extent, checked once, so that a histogram's index needs no check.
//!
//! [`Sum`]: granule_core::reducer::Sum
//! [`Prod`]: granule_core::reducer::Prod
//! [`Min`]: granule_core::reducer::Min
//! [`Max`]: granule_core::reducer::Max

mod access;
mod claim;
mod error;
mod op;
mod space;
mod writes;

pub use access::{FixedAccess, ScatterAccess};
pub use error::ScatterError;
pub use op::{ScatterOp, ScatterValue};
pub use space::ScatterSpace;
pub use writes::ScatterParts;

use claim::Claims;
use granule_core::kernel::check::Rank;
use granule_core::kernel::{DeviceArg, DeviceScatter, ViewArg};
use granule_core::reducer::Sum;
use granule_core::ExecutionSpace;
use granule_views::storage::{Storage, StorageMut};
use granule_views::view::IntoIndex;
use granule_views::{
    HostAccessible, HostSpace, Layout, LayoutRight, MemorySpace, SpaceCopy, View, ViewBase,
};
use std::marker::PhantomData;

/// How a [`ScatterView`] keeps contributions (Kokkos's duplication and
/// contribution traits in one choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterStrategy {
    /// One copy, written with plain stores by the first thread that
    /// accesses it in an epoch (Kokkos's non-duplicated, non-atomic
    /// ScatterView, for a space of one thread). Should another thread
    /// access it anyway, its contributions go to a shared copy atomically,
    /// so nothing races and nothing is lost.
    Direct,
    /// A private copy per thread of the space (`concurrency()` copies),
    /// written with plain stores, combined by `contribute_into`; a thread
    /// beyond them writes the shared copy atomically.
    Duplicated,
    /// One shared copy, every contribution an atomic.
    Atomic,
}

/// Scatter contributions to the elements of a rank-`R` array of `T`,
/// combined with `Op` ([`Sum`] by default), in memory space `M`.
///
/// A histogram on any host space, checked against a sequential count:
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::scatter::ScatterView;
/// let space = DefaultExecutionSpace::default();
/// # #[cfg(not(feature = "cuda"))] {
/// let n = 10_000;
/// let mut counts = View1::<u32>::zeros("counts", 10)?;
/// let sv = ScatterView::<u32, 1>::for_view(&space, &counts)?;
/// parallel_for("hist", RangePolicy::new(&space, 0..n), (), |i: usize, (): ()| {
///     sv.access().add(i * 7 % 10, 1);
/// });
/// let mut sv = sv;
/// sv.contribute_into(&mut counts)?;
/// assert_eq!(counts.to_vec(), vec![1000; 10]);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # As the written argument
/// On a host space a ScatterView may also be the written argument of a
/// `parallel_for` over a range: each work item then receives the handle
/// `access` would give, found once per chunk of items a thread runs
/// rather than once per item. In a tight loop the remaining cost is the
/// index's check against the runtime extent; a rank-1 handle made
/// [`fixed`](ScatterAccess::fixed) to a constant extent drops it where the
/// index is provably in range (a histogram's `v % BINS`).
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::scatter::{ScatterAccess, ScatterView};
/// let space = Rayon::new(2)?;
/// let mut counts = View1::<u32>::zeros("counts", 10)?;
/// let mut sv = ScatterView::<u32, 1>::for_view(&space, &counts)?;
/// parallel_for("hist", RangePolicy::new(&space, 0..10_000), &sv, |i, a: ScatterAccess<'_, u32, 1>| {
///     a.add(i * 7 % 10, 1);
/// });
/// sv.contribute_into(&mut counts)?;
/// assert_eq!(counts.to_vec(), vec![1000; 10]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Its type in kernels and in host code
/// A `#[kernel]` parameter names a ScatterView with the defaults,
/// `&ScatterView<T, R>` (or `&ScatterView<T, R, Op>`): the macro makes
/// the kernel generic over the memory space, so the same kernel takes a
/// ScatterView of host or device memory. Host code has no such help:
/// there `ScatterView<T, R>` is a ScatterView of `HostSpace`, so a
/// portable function or struct field spells all four parameters, the
/// memory space last (`ScatterView<u32, 1, Sum, DefaultMemorySpace>`, or
/// a generic `M`), as it would for a View.
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::scatter::ScatterView;
///
/// #[kernel]
/// fn bin(i: usize, bins: usize, sv: &ScatterView<u32, 1>) {
///     sv.access().add(i * 7 % bins, 1);
/// }
///
/// /// Portable host code: the element, rank, operation and memory space.
/// fn histogram(
///     space: &DefaultExecutionSpace,
///     sv: &ScatterView<u32, 1, Sum, DefaultMemorySpace>,
///     n: usize,
/// ) {
///     parallel_for("hist", RangePolicy::new(space, 0..n), (), bin(10, sv));
/// }
///
/// let space = DefaultExecutionSpace::default();
/// let mut counts = View1::<u32, LayoutRight, _>::zeros_in(space.memory_space(), "counts", 10)?;
/// let mut sv = ScatterView::<u32, 1, Sum, DefaultMemorySpace>::for_view(&space, &counts)?;
/// histogram(&space, &sv, 10_000);
/// sv.contribute_into(&mut counts)?;
/// assert_eq!(create_mirror_view_and_copy(&counts)?.to_vec(), vec![1000; 10]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Copies
/// The contributions live in `copies()` arrays of the ScatterView's
/// extents, each padded to whole cache lines so that the threads' copies
/// share none: the private copies of the strategy, then one shared copy
/// for atomic contributions.
pub struct ScatterView<
    T: ScatterValue,
    const R: usize,
    Op: ScatterOp<T> = Sum,
    M: MemorySpace = HostSpace,
> {
    /// Every copy, `stride` elements apart; the shared copy is the last.
    buf: View<T, 1, LayoutRight, M>,
    extents: [usize; R],
    size: usize,
    stride: usize,
    claims: Claims,
    strategy: ScatterStrategy,
    _op: PhantomData<Op>,
}

// SAFETY: the copies are written through `&self` only by the claim
// protocol (each private copy by the one thread that claimed it for the
// epoch) and by atomics (the shared copy); every other access needs
// `&mut self`. The handles that write them are neither Send nor Sync.
unsafe impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: MemorySpace> Sync
    for ScatterView<T, R, Op, M>
{
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: MemorySpace> ScatterView<T, R, Op, M> {
    /// A ScatterView of `extents` for `space`, with the space's default
    /// strategy: [`Atomic`](ScatterStrategy::Atomic) in memory host
    /// threads cannot write (a device's), [`Direct`](ScatterStrategy::Direct)
    /// on a space of one thread, [`Duplicated`](ScatterStrategy::Duplicated)
    /// otherwise.
    ///
    /// ```
    /// use granule::prelude::*;
    /// use granule::containers::scatter::{ScatterStrategy, ScatterView};
    /// let sv = ScatterView::<f64, 2>::new_on(&Serial, "grid", [4, 4])?;
    /// assert_eq!(sv.strategy(), ScatterStrategy::Direct);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_on<S>(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
    ) -> Result<Self, ScatterError>
    where
        S: ExecutionSpace<MemorySpace = M>,
        M: SpaceCopy<HostSpace>,
    {
        let strategy = if !M::IS_HOST_ACCESSIBLE {
            ScatterStrategy::Atomic
        } else if space.concurrency() <= 1 {
            ScatterStrategy::Direct
        } else {
            ScatterStrategy::Duplicated
        };
        Self::with_strategy_on(space, label, extents, strategy)
    }

    /// A ScatterView with the label and extents of `view`, for `space`,
    /// with the space's default strategy (see [`new_on`](Self::new_on)).
    pub fn for_view<S, St, L>(space: &S, view: &ViewBase<St, R, L>) -> Result<Self, ScatterError>
    where
        S: ExecutionSpace<MemorySpace = M>,
        M: SpaceCopy<HostSpace>,
        St: Storage,
        L: Layout,
    {
        Self::new_on(space, view.label(), view.extents())
    }

    /// A ScatterView of `extents` for `space`, with the strategy given.
    ///
    /// ```
    /// use granule::prelude::*;
    /// use granule::containers::scatter::{ScatterStrategy, ScatterView};
    /// let sv = ScatterView::<u64, 1>::with_strategy_on(&Serial, "h", 8, ScatterStrategy::Atomic)?;
    /// assert_eq!((sv.strategy(), sv.copies()), (ScatterStrategy::Atomic, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ScatterError::StrategyUnavailable`] for a strategy with plain
    /// writes in memory host threads cannot write; [`ScatterError::View`]
    /// when the copies cannot be allocated.
    pub fn with_strategy_on<S>(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        strategy: ScatterStrategy,
    ) -> Result<Self, ScatterError>
    where
        S: ExecutionSpace<MemorySpace = M>,
        M: SpaceCopy<HostSpace>,
    {
        let extents = extents.into_index();
        let private = match strategy {
            ScatterStrategy::Atomic => 0,
            ScatterStrategy::Direct => 1,
            ScatterStrategy::Duplicated => space.concurrency().max(1),
        };
        if private > 0 && !M::IS_HOST_ACCESSIBLE {
            return Err(ScatterError::StrategyUnavailable {
                label: label.into(),
                strategy,
                space: M::NAME,
            });
        }
        let overflow = || granule_views::ViewError::SizeOverflow {
            label: label.into(),
            extents: extents.to_vec(),
            elem_bytes: std::mem::size_of::<T>(),
        };
        let size = extents
            .iter()
            .try_fold(1usize, |a, &e| a.checked_mul(e))
            .ok_or_else(overflow)?;
        // Whole cache lines per copy, so two threads' copies never share one.
        let line = (64 / std::mem::size_of::<T>()).max(1);
        let stride = size.checked_next_multiple_of(line).ok_or_else(overflow)?;
        let total = stride.checked_mul(private + 1).ok_or_else(overflow)?;
        let buf = identity_buffer::<T, Op, S>(space, label, total)?;
        Ok(ScatterView {
            buf,
            extents,
            size,
            stride,
            claims: Claims::new(private, stride * std::mem::size_of::<T>()),
            strategy,
            _op: PhantomData,
        })
    }

    /// The label (given at construction, or the View's).
    pub fn label(&self) -> &str {
        self.buf.label()
    }

    /// The extents.
    pub fn extents(&self) -> [usize; R] {
        self.extents
    }

    /// The number of elements (the product of the extents).
    pub fn size(&self) -> usize {
        self.size
    }

    /// How contributions are kept.
    pub fn strategy(&self) -> ScatterStrategy {
        self.strategy
    }

    /// How many arrays of the extents hold contributions: the private
    /// copies and the shared one.
    pub fn copies(&self) -> usize {
        self.buf.size() / self.stride.max(1)
    }

    /// The shared copy: where atomic contributions go (what a device
    /// kernel writes).
    fn shared_offset(&self) -> usize {
        self.stride * self.claims.shared()
    }
}

/// `total` elements in `space`'s memory, each the identity of `Op`.
fn identity_buffer<T, Op, S>(
    space: &S,
    label: &str,
    total: usize,
) -> Result<View<T, 1, LayoutRight, S::MemorySpace>, ScatterError>
where
    T: ScatterValue,
    Op: ScatterOp<T>,
    S: ExecutionSpace,
    S::MemorySpace: SpaceCopy<HostSpace>,
{
    let mut buf =
        View::<T, 1, LayoutRight, S::MemorySpace>::zeros_in(space.memory_space(), label, total)?;
    space::fill_through_host::<T, Op, _>(&mut buf)?;
    Ok(buf)
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: HostAccessible>
    ScatterView<T, R, Op, M>
{
    /// The calling thread's handle: the only way to contribute. Call it
    /// inside the kernel (once per work item is cheap: a thread-local load
    /// and a compare; in a host `parallel_for`, passing the ScatterView as
    /// the written argument saves even that, see "As the written
    /// argument").
    ///
    /// ```
    /// use granule::prelude::*;
    /// use granule::containers::scatter::ScatterView;
    /// let mut lo = View1::<i32>::from_fn("lo", 2, |_| 0)?;
    /// let mut sv = ScatterView::<i32, 1, Min>::for_view(&Serial, &lo)?;
    /// parallel_for("min", RangePolicy::new(&Serial, 0..10), (), |i: usize, (): ()| {
    ///     sv.access().update(i % 2, 5 - i as i32);
    /// });
    /// sv.contribute_into(&mut lo)?;
    /// assert_eq!(lo.to_vec(), vec![-3, -4]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn access(&self) -> ScatterAccess<'_, T, R, Op> {
        let place = self.claims.mine();
        let base = self.buf.as_ptr().cast_mut();
        // SAFETY: a place is the byte offset of one of the copies (the
        // private ones or the shared one, the last), each `size` elements
        // inside the buffer, which lives as long as `&self` and is never
        // reallocated; a private copy is this thread's alone for the epoch
        // (the claim), which lasts while `&self` does; the shared copy is
        // written only atomically.
        unsafe {
            ScatterAccess::new(
                base.byte_add(place.offset()),
                place.shared(),
                self.extents,
                self.label(),
            )
        }
    }
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: ScatterSpace> ScatterView<T, R, Op, M> {
    /// Combines every contribution into `dst`: each element becomes
    /// `op(dst[i], contributions[i])` (its contents count, as in Kokkos).
    /// The contributions stay; [`reset`](Self::reset) clears them. On a
    /// device the combine goes through host copies.
    ///
    /// # Errors
    /// [`ScatterError::ExtentMismatch`] when `dst`'s extents differ (and
    /// `dst` is left as it was); [`ScatterError::View`] when a device copy
    /// fails.
    pub fn contribute_into<S, L>(&mut self, dst: &mut ViewBase<S, R, L>) -> Result<(), ScatterError>
    where
        S: StorageMut<Elem = T, Space = M>,
        L: Layout,
    {
        self.check_extents(dst.label(), dst.extents())?;
        M::combine_into::<T, Op, S, R, L>(&self.buf, self.stride, dst)?;
        Ok(())
    }

    /// Sets every contribution back to the operation's identity, and
    /// frees the threads' copies for the next dispatches.
    ///
    /// # Errors
    /// [`ScatterError::View`] when the copy to a device fails.
    pub fn reset(&mut self) -> Result<(), ScatterError> {
        M::fill_identity::<T, Op>(&mut self.buf)?;
        self.claims.release_all();
        Ok(())
    }
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: MemorySpace> ScatterView<T, R, Op, M> {
    fn check_extents(&self, target: &str, got: [usize; R]) -> Result<(), ScatterError> {
        if got != self.extents {
            return Err(ScatterError::ExtentMismatch {
                label: self.label().into(),
                target: target.into(),
                expected: self.extents.to_vec(),
                got: got.to_vec(),
            });
        }
        Ok(())
    }
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: MemorySpace> std::fmt::Debug
    for ScatterView<T, R, Op, M>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScatterView")
            .field("label", &self.label())
            .field("extents", &self.extents)
            .field("op", &Op::NAME)
            .field("strategy", &self.strategy)
            .field("copies", &self.copies())
            .finish()
    }
}

// SAFETY: the argument is the shared copy: `size` elements of `T` (32 or
// 64 bits, `ScatterValue`'s types) in LayoutRight with the ScatterView's
// extents, inside `buf`, which lives as long as `&self`. While `self` is
// borrowed shared, the shared copy is written only atomically (handles
// write it with atomics; everything else needs `&mut self`).
unsafe impl<T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: MemorySpace> DeviceScatter
    for ScatterView<T, R, Op, M>
{
    type Elem = T;
    type Rank = Rank<R>;
    type Op = Op;
    fn device_arg(&self) -> DeviceArg<'_> {
        let mut strides = [1usize; R];
        for r in (0..R.saturating_sub(1)).rev() {
            strides[r] = strides[r + 1] * self.extents[r + 1];
        }
        let address = self.buf.as_ptr() as usize + self.shared_offset() * std::mem::size_of::<T>();
        DeviceArg::Atomic(ViewArg::of::<T>(
            self.label(),
            address,
            &self.extents,
            &strides,
        ))
    }
}
