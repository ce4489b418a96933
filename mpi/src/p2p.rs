//! Point-to-point messages of Views, blocking and non-blocking.
//!
//! A message carries a View's elements in row-major index order (last
//! index fastest), whatever the sender's and receiver's layouts, so a
//! LayoutLeft View or a strided subview can be received into a
//! LayoutRight one of the same extents.

use crate::error::{CommError, Result};
use crate::pack::{landing, pack, row_major, Pack, Packed};
use granule_core::ExecutionSpace;
use granule_views::storage::{Storage, StorageMut};
use granule_views::{
    AnyBitPattern, Element, HostSpace, Layout, MemorySpace, NoUninit, SpaceCopy, ViewBase,
};
use mpi::point_to_point::{Destination, Source, Status};
use mpi::traits::Equivalence;

/// A View's elements ready to be sent: its own memory when it is
/// contiguous, row-major and on the host; otherwise packed by a kernel on
/// `space`, the View's execution space, into a contiguous buffer of its
/// memory, which a device View then downloads in one copy (a row-major
/// device View downloads directly). No CUDA-aware MPI is assumed.
///
/// Use it with rsmpi's non-blocking sends inside `mpi::request::scope`:
///
/// ```
/// use granule_core::Serial;
/// use granule_mpi::{run, Outgoing};
/// use granule_views::{View2, ALL};
/// use mpi::traits::*;
/// run(|world| {
///     let a = View2::<f64>::from_fn("a", [4, 3], |[i, j]| (10 * i + j) as f64)?;
///     let strided = a.subview((ALL, 1))?;
///     let column = Outgoing::of(&Serial, &strided)?; // packed by a kernel
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
pub enum Outgoing<'v, T: Element, const R: usize, M: MemorySpace = HostSpace> {
    /// The View's own memory.
    InPlace(&'v [T]),
    /// A packed copy.
    Packed(Packed<T, R, M>),
}

impl<'v, T: Element + NoUninit, const R: usize, M: MemorySpace> Outgoing<'v, T, R, M> {
    /// Prepares `view`, a View in the memory of `space`, for sending: its
    /// elements go as bytes, so they may have no padding ([`NoUninit`]).
    pub fn of<X, S, L>(space: &X, view: &'v ViewBase<S, R, L>) -> Result<Self>
    where
        X: Pack<T, R> + ExecutionSpace<MemorySpace = M>,
        S: Storage<Elem = T, Space = M>,
        L: Layout,
        HostSpace: SpaceCopy<M>,
    {
        if M::IS_HOST_ACCESSIBLE && row_major(view) {
            // SAFETY: the space is host-accessible (its `MemorySpace`
            // contract), and a contiguous View's `size()` elements start
            // at its base pointer; `&'v` keeps writers away meanwhile.
            let slice = unsafe { std::slice::from_raw_parts(view.as_ptr(), view.size()) };
            return Ok(Outgoing::InPlace(slice));
        }
        Ok(Outgoing::Packed(pack(space, view)?))
    }

    /// The elements in row-major index order.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Outgoing::InPlace(s) => s,
            Outgoing::Packed(p) => p.as_slice(),
        }
    }
}

/// Where a message for a View lands: the View's own memory when it is
/// contiguous, row-major and on the host, else a buffer (of the View's
/// space when the host reads it, else of the host) that
/// [`Incoming::finish`] unpacks into the View with a kernel on `space`.
pub struct Incoming<'v, X, S, const R: usize, L>
where
    X: ExecutionSpace,
    S: StorageMut<Space = X::MemorySpace>,
    S::Elem: Element,
    L: Layout,
{
    space: &'v X,
    view: &'v mut ViewBase<S, R, L>,
    staging: Option<Packed<S::Elem, R, S::Space>>,
}

impl<'v, X, S, T, M, const R: usize, L> Incoming<'v, X, S, R, L>
where
    X: Pack<T, R, MemorySpace = M>,
    S: StorageMut<Elem = T, Space = M>,
    T: Element + AnyBitPattern,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    L: Layout,
{
    /// Prepares `view`, a View in the memory of `space`, to receive a
    /// message: its elements arrive as bytes from another process, so
    /// every bit pattern must be a valid element ([`AnyBitPattern`]: not
    /// `bool`, whose bytes are only 0 or 1).
    pub fn into(space: &'v X, view: &'v mut ViewBase<S, R, L>) -> Result<Self> {
        let staging = match M::IS_HOST_ACCESSIBLE && row_major(view) {
            true => None,
            false => Some(landing(space, view.label(), view.extents())?),
        };
        Ok(Incoming {
            space,
            view,
            staging,
        })
    }

    /// The buffer to hand to a receive.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.staging {
            Some(p) => p.as_mut_slice(),
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
        T: Equivalence,
    {
        let received = status.count(T::equivalent_datatype()) as usize;
        if received != self.view.size() {
            return Err(CommError::SizeMismatch {
                label: self.view.label().into(),
                extents: self.view.extents().to_vec(),
                expected: self.view.size(),
                received,
                source: status.source_rank(),
            });
        }
        match &self.staging {
            None => Ok(()),
            Some(message) => message.unpack_into(self.space, self.view),
        }
    }
}

/// Sends `view`, a View in the memory of `space`, to `dest` with `tag`
/// (blocking: returns when the buffer may be reused). Strided and device
/// Views are packed by a kernel on `space` first (see [`Outgoing`]).
///
/// ```
/// use granule_core::Serial;
/// use granule_mpi::{receive_into, run, send};
/// use granule_views::{View3, ALL};
/// use mpi::traits::*;
/// run(|world| {
///     if world.size() < 2 { return Ok(()); }
///     let mut a = View3::<i64>::from_fn("a", [3, 4, 5], |[i, j, k]| (100 * i + 10 * j + k) as i64)?;
///     match world.rank() {
///         0 => send(&Serial, &world.process_at_rank(1), 7, &a.subview((ALL, 1..3, 2))?)?,
///         1 => {
///             let mut got = granule_views::View2::<i64>::zeros("got", [3, 2])?;
///             receive_into(&Serial, &world.process_at_rank(0), 7, &mut got)?;
///             assert_eq!(got[[2, 1]], 222);
///         }
///         _ => {}
///     }
///     Ok::<(), granule_mpi::CommError>(())
/// });
/// ```
pub fn send<X, D, S, T, M, const R: usize, L>(
    space: &X,
    dest: &D,
    tag: i32,
    view: &ViewBase<S, R, L>,
) -> Result<()>
where
    X: Pack<T, R, MemorySpace = M>,
    D: Destination,
    S: Storage<Elem = T, Space = M>,
    T: Element + NoUninit + Equivalence,
    M: MemorySpace,
    L: Layout,
    HostSpace: SpaceCopy<M>,
{
    let out = Outgoing::of(space, view)?;
    dest.send_with_tag(out.as_slice(), tag);
    Ok(())
}

/// Receives a message from `source` with `tag` into `view`, a View in
/// the memory of `space` (blocking; a strided or device View is unpacked
/// by a kernel on `space`, see [`Incoming`]).
/// A message of another size than the View is a
/// [`CommError::SizeMismatch`] (a larger one is MPI's truncation error,
/// which aborts the job).
pub fn receive_into<X, Src, S, T, M, const R: usize, L>(
    space: &X,
    source: &Src,
    tag: i32,
    view: &mut ViewBase<S, R, L>,
) -> Result<Status>
where
    X: Pack<T, R, MemorySpace = M>,
    Src: Source,
    S: StorageMut<Elem = T, Space = M>,
    T: Element + AnyBitPattern + Equivalence,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    L: Layout,
{
    let mut landing = Incoming::into(space, view)?;
    let status = source.receive_into_with_tag(landing.as_mut_slice(), tag);
    landing.finish(&status)?;
    Ok(status)
}
