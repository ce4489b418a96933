//! `DualView`: a View in an execution space's memory and a host mirror,
//! with flags saying which side holds changes the other has not seen
//! (Kokkos's `DualView`).
//!
//! The flags cannot go stale: the only way to write a side is
//! [`DualView::view_host_mut`] or [`DualView::view_device_mut`], and
//! getting either marks that side modified. Writing one side while the
//! other holds changes it has not received is refused with
//! [`DualViewError::ConcurrentModification`] (the next sync would
//! otherwise overwrite one of them), on every space, so a program that
//! works on Serial works on Cuda.
//!
//! When the device memory is host memory (Serial, Rayon) the two sides
//! are one allocation: syncs only clear flags and copy nothing. On Cuda
//! the sides are separate and a sync copies exactly when the other side
//! was modified; every copy is reported to the profiling hooks
//! ([`ProfilingHooks::begin_deep_copy`](granule_core::profiling::ProfilingHooks::begin_deep_copy)).

use granule_core::profiling;
use granule_core::ExecutionSpace;
use granule_views::view::IntoIndex;
use granule_views::{
    create_mirror, deep_copy, Element, HostSpace, Layout, LayoutRight, MemorySpace, SpaceCopy,
    View, ViewError,
};
use std::any::Any;
use std::fmt;

/// One side of a [`DualView`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The host mirror.
    Host,
    /// The View in the execution space's memory.
    Device,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Host => "host",
            Side::Device => "device",
        })
    }
}

/// Why a [`DualView`] operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DualViewError {
    /// `side` was to be modified while the other side holds changes that
    /// `side` has not received: sync `side` first.
    ConcurrentModification {
        /// The DualView's label.
        label: String,
        /// The side that was to be modified.
        side: Side,
    },
    /// [`DualView::from_views`] got sides of different extents.
    ExtentsMismatch {
        /// The device View's label.
        label: String,
        /// The device View's extents.
        device: Vec<usize>,
        /// The host View's extents.
        host: Vec<usize>,
    },
    /// Allocating or copying a side failed.
    View(ViewError),
}

impl fmt::Display for DualViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DualViewError::ConcurrentModification { label, side } => {
                let other = match side {
                    Side::Host => Side::Device,
                    Side::Device => Side::Host,
                };
                write!(
                    f,
                    "DualView \"{label}\": cannot modify the {side} side while the {other} side \
                     holds changes it has not received; call sync_{side}() first"
                )
            }
            DualViewError::ExtentsMismatch {
                label,
                device,
                host,
            } => write!(
                f,
                "DualView \"{label}\": the device side has extents {device:?} but the host side \
                 {host:?}; both sides must have the same extents"
            ),
            DualViewError::View(e) => write!(f, "DualView: {e}"),
        }
    }
}

impl std::error::Error for DualViewError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DualViewError::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ViewError> for DualViewError {
    fn from(e: ViewError) -> Self {
        DualViewError::View(e)
    }
}

/// A View in memory space `M` (the device side) and a host mirror of it
/// (the host side), with modified flags.
///
/// ```
/// use granule::containers::DualView;
/// use granule::prelude::*;
///
/// let space = DefaultExecutionSpace::default();
/// let mut dv = DualView::<f64, 1, LayoutRight, _>::zeros_on(&space, "x", 4)?;
/// dv.view_host_mut()?.fill(2.0);        // marks the host side modified
/// assert!(dv.need_sync_device());
/// dv.sync_device()?;                    // copies only where the sides are separate
/// assert!(!dv.need_sync_device());
/// let sum: f64 = parallel_reduce("sum", RangePolicy::new(&space, 0..4), Sum, sum_of(dv.view_device()));
/// assert_eq!(sum, 8.0);
///
/// #[kernel(reduce)]
/// fn sum_of(i: usize, x: &View1<f64>, acc: &mut f64) {
///     *acc += x[i];
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DualView<T: Element, const R: usize, L: Layout = LayoutRight, M: MemorySpace = HostSpace>
{
    device: View<T, R, L, M>,
    /// `None` exactly when `M` is `HostSpace`: the device View is then the
    /// host side too.
    host: Option<View<T, R, L, HostSpace>>,
    modified: Option<Side>,
}

impl<T, const R: usize, L, M> fmt::Debug for DualView<T, R, L, M>
where
    T: Element,
    L: Layout,
    M: MemorySpace,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DualView")
            .field("label", &self.device.label())
            .field("extents", &self.device.extents())
            .field("space", &M::NAME)
            .field("same_allocation", &self.host.is_none())
            .field("modified", &self.modified)
            .finish()
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> DualView<T, R, L, M> {
    /// The label (of the device side).
    pub fn label(&self) -> &str {
        self.device.label()
    }

    /// The extents of both sides.
    pub fn extents(&self) -> [usize; R] {
        self.device.extents()
    }

    /// The extent of dimension `r` (Kokkos's `extent(r)`).
    pub fn extent(&self, r: usize) -> usize {
        self.device.extent(r)
    }

    /// Whether both sides are one allocation (device memory is host
    /// memory), so that syncs never copy.
    pub fn is_same_allocation(&self) -> bool {
        self.host.is_none()
    }

    /// The host side, for reading. It is current unless
    /// [`need_sync_host`](Self::need_sync_host).
    pub fn view_host(&self) -> &View<T, R, L, HostSpace> {
        match &self.host {
            Some(h) => h,
            None => as_host(&self.device),
        }
    }

    /// The device side, for reading (pass it to kernels). It is current
    /// unless [`need_sync_device`](Self::need_sync_device).
    pub fn view_device(&self) -> &View<T, R, L, M> {
        &self.device
    }

    /// The host side, for writing: marks it modified (see
    /// [`modify_host`](Self::modify_host)).
    pub fn view_host_mut(&mut self) -> Result<&mut View<T, R, L, HostSpace>, DualViewError> {
        self.modify_host()?;
        Ok(match &mut self.host {
            Some(h) => h,
            None => as_host_mut(&mut self.device),
        })
    }

    /// The device side, for writing (as a kernel's written View): marks it
    /// modified (see [`modify_device`](Self::modify_device)).
    pub fn view_device_mut(&mut self) -> Result<&mut View<T, R, L, M>, DualViewError> {
        self.modify_device()?;
        Ok(&mut self.device)
    }

    /// Marks the host side modified. Refused while the device side holds
    /// changes the host has not received.
    ///
    /// ```
    /// use granule::containers::{DualView, DualViewError, Side};
    /// use granule::prelude::*;
    /// let mut dv = DualView::<f64, 1>::zeros_in(HostSpace, "t", 2)?;
    /// dv.modify_device()?;
    /// let e = dv.modify_host().unwrap_err();
    /// assert_eq!(e, DualViewError::ConcurrentModification { label: "t".into(), side: Side::Host });
    /// dv.sync_host()?;
    /// dv.modify_host()?;
    /// assert!(dv.need_sync_device());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn modify_host(&mut self) -> Result<(), DualViewError> {
        self.modify(Side::Host)
    }

    /// Marks the device side modified. Refused while the host side holds
    /// changes the device has not received.
    pub fn modify_device(&mut self) -> Result<(), DualViewError> {
        self.modify(Side::Device)
    }

    fn modify(&mut self, side: Side) -> Result<(), DualViewError> {
        match self.modified {
            Some(other) if other != side => Err(DualViewError::ConcurrentModification {
                label: self.label().into(),
                side,
            }),
            _ => {
                self.modified = Some(side);
                Ok(())
            }
        }
    }

    /// Whether the device side holds changes the host has not received.
    pub fn need_sync_host(&self) -> bool {
        self.modified == Some(Side::Device)
    }

    /// Whether the host side holds changes the device has not received.
    pub fn need_sync_device(&self) -> bool {
        self.modified == Some(Side::Host)
    }
}

impl<T, const R: usize, L, M> DualView<T, R, L, M>
where
    T: Element,
    L: Layout,
    M: MemorySpace + SpaceCopy<HostSpace>,
    HostSpace: SpaceCopy<M>,
{
    /// A zero-filled DualView in memory space `space`, neither side
    /// modified. The host mirror is allocated only when `M` is not
    /// `HostSpace`.
    ///
    /// ```
    /// use granule::containers::DualView;
    /// use granule::prelude::*;
    /// let dv = DualView::<i32, 2>::zeros_in(HostSpace, "a", [2, 3])?;
    /// assert!(dv.is_same_allocation());
    /// assert_eq!((dv.label(), dv.extents()), ("a", [2, 3]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zeros_in(
        space: M,
        label: &str,
        extents: impl IntoIndex<R>,
    ) -> Result<Self, DualViewError> {
        let device = View::zeros_in(space, label, extents)?;
        Self::around(device, None)
    }

    /// A zero-filled DualView whose device side lives in `exec`'s memory
    /// space (host memory on Serial and Rayon, device memory on Cuda).
    ///
    /// ```
    /// use granule::containers::DualView;
    /// use granule::prelude::*;
    /// let dv = DualView::<u8, 1>::zeros_on(&Serial, "flags", 8)?;
    /// assert_eq!(dv.view_host().to_vec(), [0; 8]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zeros_on<S>(
        exec: &S,
        label: &str,
        extents: impl IntoIndex<R>,
    ) -> Result<Self, DualViewError>
    where
        S: ExecutionSpace<MemorySpace = M>,
    {
        Self::zeros_in(exec.memory_space(), label, extents)
    }

    /// A DualView around an existing device View, with a new host mirror
    /// (the View itself when `M` is `HostSpace`). The device side is
    /// marked modified, so `sync_host` brings its contents over.
    ///
    /// ```
    /// use granule::containers::DualView;
    /// use granule::prelude::*;
    /// let x = View1::<f32>::from_fn("x", 3, |i| i as f32)?;
    /// let mut dv = DualView::from_device(x)?;
    /// assert!(dv.need_sync_host());
    /// dv.sync_host()?;
    /// assert_eq!(dv.view_host().to_vec(), [0.0, 1.0, 2.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_device(device: View<T, R, L, M>) -> Result<Self, DualViewError> {
        let mut dv = Self::around(device, None)?;
        dv.modified = Some(Side::Device);
        Ok(dv)
    }

    /// A DualView of two existing Views, kept as separate allocations
    /// (even when `M` is `HostSpace`), neither side modified. Their
    /// extents must be equal.
    ///
    /// ```
    /// use granule::containers::{DualView, DualViewError};
    /// use granule::prelude::*;
    /// let d = View1::<f64>::zeros("d", 4)?;
    /// let h = View1::<f64>::zeros("h", 5)?;
    /// let e = DualView::from_views(d, h).unwrap_err();
    /// assert!(matches!(e, DualViewError::ExtentsMismatch { .. }));
    /// assert!(e.to_string().contains("[4]") && e.to_string().contains("[5]"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_views(
        device: View<T, R, L, M>,
        host: View<T, R, L, HostSpace>,
    ) -> Result<Self, DualViewError> {
        if device.extents() != host.extents() {
            return Err(DualViewError::ExtentsMismatch {
                label: device.label().into(),
                device: device.extents().to_vec(),
                host: host.extents().to_vec(),
            });
        }
        Ok(DualView {
            device,
            host: Some(host),
            modified: None,
        })
    }

    /// The DualView of `device` and, where the memory is not host memory,
    /// `host` or else a new mirror.
    fn around(
        device: View<T, R, L, M>,
        host: Option<View<T, R, L, HostSpace>>,
    ) -> Result<Self, DualViewError> {
        let host = match host {
            Some(h) => Some(h),
            None if is_host_space::<M>() => None,
            None => Some(create_mirror(&device)?),
        };
        Ok(DualView {
            device,
            host,
            modified: None,
        })
    }

    /// Brings the device side's changes to the host: copies when the
    /// device side was modified and the sides are separate, and does
    /// nothing otherwise. Returns whether it copied.
    pub fn sync_host(&mut self) -> Result<bool, DualViewError> {
        if !self.need_sync_host() {
            return Ok(false);
        }
        let copied = match &mut self.host {
            Some(host) => {
                copy_reported(host, &self.device)?;
                true
            }
            None => false,
        };
        self.modified = None;
        Ok(copied)
    }

    /// Brings the host side's changes to the device: copies when the host
    /// side was modified and the sides are separate, and does nothing
    /// otherwise. Returns whether it copied.
    pub fn sync_device(&mut self) -> Result<bool, DualViewError> {
        if !self.need_sync_device() {
            return Ok(false);
        }
        let copied = match &self.host {
            Some(host) => {
                copy_reported(&mut self.device, host)?;
                true
            }
            None => false,
        };
        self.modified = None;
        Ok(copied)
    }

    /// Forgets both modified flags (Kokkos's `clear_sync_state`): the
    /// caller declares the sides equal, or no longer cares.
    pub fn clear_sync_state(&mut self) {
        self.modified = None;
    }

    /// New extents, keeping the elements whose indices fit in both the old
    /// and the new extents (new elements are zero). The kept contents end
    /// up on the host side, marked modified: a device side that was
    /// modified is first synced to the host (one reported copy), and the
    /// next `sync_device` brings them to the device.
    ///
    /// ```
    /// use granule::containers::DualView;
    /// use granule::prelude::*;
    /// let mut dv = DualView::<i32, 2>::zeros_in(HostSpace, "g", [2, 2])?;
    /// dv.view_host_mut()?.fill(7);
    /// dv.resize([3, 1])?;
    /// assert_eq!(dv.view_host().to_vec(), [7, 7, 0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resize(&mut self, extents: impl IntoIndex<R>) -> Result<(), DualViewError> {
        self.sync_host()?;
        let old = self.view_host();
        let mut kept = View::<T, R, L, HostSpace>::zeros_in(HostSpace, old.label(), extents)?;
        let new_extents = kept.extents();
        old.for_each(|idx, v| {
            if idx.iter().zip(new_extents).all(|(&i, n)| i < n) {
                if let Some(slot) = kept.get_mut(idx) {
                    *slot = *v;
                }
            }
        });
        let space = self.device.space().clone();
        let label = self.label().to_owned();
        *self = if is_host_space::<M>() {
            Self::around(host_into_space(kept), None)?
        } else {
            Self::around(View::zeros_in(space, &label, new_extents)?, Some(kept))?
        };
        self.modified = Some(Side::Host);
        Ok(())
    }

    /// New extents and zero-filled sides, contents discarded, neither side
    /// modified (Kokkos's `realloc`).
    ///
    /// ```
    /// use granule::containers::DualView;
    /// use granule::prelude::*;
    /// let mut dv = DualView::<f64, 1>::zeros_in(HostSpace, "r", 2)?;
    /// dv.view_host_mut()?.fill(1.0);
    /// dv.realloc(3)?;
    /// assert_eq!((dv.view_host().to_vec(), dv.need_sync_device()), (vec![0.0; 3], false));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn realloc(&mut self, extents: impl IntoIndex<R>) -> Result<(), DualViewError> {
        let space = self.device.space().clone();
        let label = self.label().to_owned();
        *self = Self::zeros_in(space, &label, extents)?;
        Ok(())
    }
}

/// Whether `M` is `HostSpace` itself: then one allocation serves as both
/// sides.
fn is_host_space<M: MemorySpace>() -> bool {
    std::any::TypeId::of::<M>() == std::any::TypeId::of::<HostSpace>()
}

/// The device View as the host side, when `M` is `HostSpace`.
fn as_host<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    v: &View<T, R, L, M>,
) -> &View<T, R, L, HostSpace> {
    (v as &dyn Any)
        .downcast_ref()
        .expect("a DualView without a separate host side has its device side in HostSpace")
}

fn as_host_mut<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    v: &mut View<T, R, L, M>,
) -> &mut View<T, R, L, HostSpace> {
    (v as &mut dyn Any)
        .downcast_mut()
        .expect("a DualView without a separate host side has its device side in HostSpace")
}

/// A host View as a View of `M`, when `M` is `HostSpace`.
fn host_into_space<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    v: View<T, R, L, HostSpace>,
) -> View<T, R, L, M> {
    *(Box::new(v) as Box<dyn Any>)
        .downcast()
        .expect("called only when the memory space is HostSpace")
}

/// Copies `src` into `dst`, reporting the copy to the profiling hooks.
fn copy_reported<T, const R: usize, L, A, B>(
    dst: &mut View<T, R, L, A>,
    src: &View<T, R, L, B>,
) -> Result<(), ViewError>
where
    T: Element,
    L: Layout,
    A: MemorySpace + SpaceCopy<B>,
    B: MemorySpace,
{
    let bytes = src.size() * std::mem::size_of::<T>();
    let dst_label = dst.label().to_owned();
    let _copy = profiling::begin_deep_copy((&dst_label, A::NAME), (src.label(), B::NAME), bytes);
    deep_copy(dst, src)
}
