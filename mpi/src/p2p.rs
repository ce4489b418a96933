//! Point-to-point messages of Views, blocking and non-blocking.
//!
//! A message carries a View's elements in row-major index order (last
//! index fastest), whatever the sender's and receiver's layouts, so a
//! LayoutLeft View or a strided subview can be received into a
//! LayoutRight one of the same extents.

use crate::error::{CommError, Result};
use granule_views::storage::{Storage, StorageMut};
use granule_views::{
    deep_copy, HostSpace, Layout, LayoutRight, MemorySpace, SpaceCopy, View, ViewBase,
};
use mpi::point_to_point::{Destination, Source, Status};
use mpi::traits::Equivalence;

/// Whether the View's memory is its message: host memory, no holes,
/// row-major order.
fn sent_in_place<S: Storage, const R: usize, L: Layout>(view: &ViewBase<S, R, L>) -> bool {
    <S::Space as MemorySpace>::IS_HOST_ACCESSIBLE
        && view.is_contiguous()
        && (view.size() <= 1 || LayoutRight::accepts(view.mapping()))
}

/// A View's elements ready to be sent: its own memory when it is
/// contiguous, row-major and on the host; otherwise a packed host copy
/// made by `deep_copy`: a strided host subview is gathered element by
/// element on the calling thread, and a device View is downloaded one
/// contiguous run of its mapping at a time, then reordered on the host
/// (no packing kernel runs on the device yet).
///
/// Use it with rsmpi's non-blocking sends inside `mpi::request::scope`:
///
/// ```
/// use granule_mpi::{run, Outgoing};
/// use granule_views::{View2, ALL};
/// use mpi::traits::*;
/// run(|world| {
///     let a = View2::<f64>::from_fn("a", [4, 3], |[i, j]| (10 * i + j) as f64)?;
///     let strided = a.subview((ALL, 1))?;
///     let column = Outgoing::of(&strided)?; // packed
///     let next = (world.rank() + 1) % world.size();
///     let mut got = vec![0.0; 4];
///     mpi::request::scope(|scope| {
///         let send = world.process_at_rank(next).immediate_send(scope, column.as_slice());
///         world.any_process().receive_into(&mut got[..]);
///         send.wait();
///     });
///     assert_eq!(got, [1.0, 11.0, 21.0, 31.0]);
///     Ok::<(), granule_mpi::CommError>(())
/// });
/// ```
pub enum Outgoing<'v, T: granule_views::Pod, const R: usize> {
    /// The View's own memory.
    InPlace(&'v [T]),
    /// A packed host copy.
    Packed(View<T, R>),
}

impl<'v, T: granule_views::Pod, const R: usize> Outgoing<'v, T, R> {
    /// Prepares `view` for sending.
    pub fn of<S, L>(view: &'v ViewBase<S, R, L>) -> Result<Self>
    where
        S: Storage<Elem = T>,
        L: Layout,
        HostSpace: SpaceCopy<S::Space>,
    {
        if sent_in_place(view) {
            // SAFETY: the space is host-accessible (its `MemorySpace`
            // contract), and a contiguous View's `size()` elements start
            // at its base pointer; `&'v` keeps writers away meanwhile.
            let slice = unsafe { std::slice::from_raw_parts(view.as_ptr(), view.size()) };
            return Ok(Outgoing::InPlace(slice));
        }
        let mut packed = View::<T, R>::zeros(view.label(), view.extents())?;
        deep_copy(&mut packed, view)?;
        Ok(Outgoing::Packed(packed))
    }

    /// The elements in row-major index order.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Outgoing::InPlace(s) => s,
            Outgoing::Packed(v) => v
                .as_slice()
                .expect("a freshly allocated LayoutRight View is contiguous"),
        }
    }
}

/// Where a message for a View lands: the View's own memory when it is
/// contiguous, row-major and on the host, else a host staging buffer
/// that [`Incoming::finish`] unpacks into the View.
pub struct Incoming<'v, S: StorageMut, const R: usize, L: Layout>
where
    S::Elem: granule_views::Pod,
{
    view: &'v mut ViewBase<S, R, L>,
    staging: Option<View<S::Elem, R>>,
}

impl<'v, S, const R: usize, L> Incoming<'v, S, R, L>
where
    S: StorageMut,
    S::Elem: granule_views::Pod,
    L: Layout,
    S::Space: SpaceCopy<HostSpace>,
{
    /// Prepares `view` to receive a message.
    pub fn into(view: &'v mut ViewBase<S, R, L>) -> Result<Self> {
        let staging = if sent_in_place(view) {
            None
        } else {
            Some(View::zeros(view.label(), view.extents())?)
        };
        Ok(Incoming { view, staging })
    }

    /// The buffer to hand to a receive.
    pub fn as_mut_slice(&mut self) -> &mut [S::Elem] {
        match &mut self.staging {
            Some(v) => v
                .as_slice_mut()
                .expect("a freshly allocated LayoutRight View is contiguous"),
            None => {
                let size = self.view.size();
                // SAFETY: as in `Outgoing::of`: host memory, contiguous,
                // `size` elements from the base; `&mut self` borrows the
                // View uniquely for the slice's life.
                unsafe { std::slice::from_raw_parts_mut(self.view.as_mut_ptr(), size) }
            }
        }
    }

    /// Checks that the message filled the View (`status` is its receive's)
    /// and unpacks a staged message into it.
    pub fn finish(self, status: &Status) -> Result<()>
    where
        S::Elem: Equivalence,
    {
        let received = status.count(S::Elem::equivalent_datatype()) as usize;
        if received != self.view.size() {
            return Err(CommError::SizeMismatch {
                label: self.view.label().into(),
                extents: self.view.extents().to_vec(),
                expected: self.view.size(),
                received,
                source: status.source_rank(),
            });
        }
        if let Some(staged) = &self.staging {
            deep_copy(self.view, staged)?;
        }
        Ok(())
    }
}

/// Sends `view` to `dest` with `tag` (blocking: returns when the buffer
/// may be reused). Strided and device Views are packed first.
///
/// ```
/// use granule_mpi::{receive_into, run, send};
/// use granule_views::{View3, ALL};
/// use mpi::traits::*;
/// run(|world| {
///     if world.size() < 2 { return Ok(()); }
///     let mut a = View3::<i64>::from_fn("a", [3, 4, 5], |[i, j, k]| (100 * i + 10 * j + k) as i64)?;
///     match world.rank() {
///         0 => send(&world.process_at_rank(1), 7, &a.subview((ALL, 1..3, 2))?)?,
///         1 => {
///             let mut got = granule_views::View2::<i64>::zeros("got", [3, 2])?;
///             receive_into(&world.process_at_rank(0), 7, &mut got)?;
///             assert_eq!(got[[2, 1]], 222);
///         }
///         _ => {}
///     }
///     Ok::<(), granule_mpi::CommError>(())
/// });
/// ```
pub fn send<D, S, const R: usize, L>(dest: &D, tag: i32, view: &ViewBase<S, R, L>) -> Result<()>
where
    D: Destination,
    S: Storage,
    S::Elem: granule_views::Pod + Equivalence,
    L: Layout,
    HostSpace: SpaceCopy<S::Space>,
{
    let out = Outgoing::of(view)?;
    dest.send_with_tag(out.as_slice(), tag);
    Ok(())
}

/// Receives a message from `source` with `tag` into `view` (blocking).
/// A message of another size than the View is a
/// [`CommError::SizeMismatch`] (a larger one is MPI's truncation error,
/// which aborts the job).
pub fn receive_into<Src, S, const R: usize, L>(
    source: &Src,
    tag: i32,
    view: &mut ViewBase<S, R, L>,
) -> Result<Status>
where
    Src: Source,
    S: StorageMut,
    S::Elem: granule_views::Pod + Equivalence,
    L: Layout,
    S::Space: SpaceCopy<HostSpace>,
{
    let mut landing = Incoming::into(view)?;
    let status = source.receive_into_with_tag(landing.as_mut_slice(), tag);
    landing.finish(&status)?;
    Ok(status)
}
