//! Block decomposition of a 3-D grid, and the exchange of the faces of
//! each rank's block with its neighbours.

use crate::error::{CommError, Result};
use crate::pack::{landing, pack, Pack, Packed};
use granule_views::storage::StorageMut;
use granule_views::{
    AnyBitPattern, Element, HostSpace, LayoutRight, MemorySpace, NoUninit, SpaceCopy, ViewBase,
};
use mpi::point_to_point::Status;
use mpi::request::{Request, Scope};
use mpi::topology::{CartesianCommunicator, Rank, SimpleCommunicator};
use mpi::traits::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Which block of a global 3-D grid this rank owns, and who owns the
/// blocks beside it.
///
/// The grid of `global` cells is cut into `dims[0] x dims[1] x dims[2]`
/// blocks, as evenly as possible along each axis (the first
/// `global % dims` blocks get one more cell). A rank's local field holds
/// its owned cells plus one ghost layer on each side where a neighbour
/// block lies, and none on the sides that are the grid's surface: local
/// index 0 along an axis is then either the grid's surface or a ghost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decomposition {
    /// Cells of the whole grid.
    pub global: [usize; 3],
    /// Blocks along each axis.
    pub dims: [usize; 3],
    /// This rank's block coordinates.
    pub coords: [usize; 3],
    /// The global index of this rank's first owned cell.
    pub offset: [usize; 3],
    /// Cells this rank owns along each axis.
    pub owned: [usize; 3],
    /// The neighbours' ranks: `[axis][0]` below, `[axis][1]` above.
    pub neighbours: [[Option<Rank>; 2]; 3],
}

impl Decomposition {
    /// Whether a neighbour lies on `side` (0 below, 1 above) along `axis`.
    pub fn has_neighbour(&self, axis: usize, side: usize) -> bool {
        self.neighbours[axis][side].is_some()
    }

    /// Extents of the local field: owned cells plus the ghost layers.
    pub fn local_extents(&self) -> [usize; 3] {
        std::array::from_fn(|a| {
            self.owned[a] + self.has_neighbour(a, 0) as usize + self.has_neighbour(a, 1) as usize
        })
    }

    /// The local indices of the owned cells along `axis`.
    pub fn owned_range(&self, axis: usize) -> Range<usize> {
        let begin = self.has_neighbour(axis, 0) as usize;
        begin..begin + self.owned[axis]
    }

    /// The global index of local index `local` along `axis`.
    pub fn global_index(&self, axis: usize, local: usize) -> usize {
        self.offset[axis] + local - self.has_neighbour(axis, 0) as usize
    }
}

/// How often [`Halo::exchange`] lets MPI move the messages while the
/// overlapped work runs.
pub const POLL_INTERVAL: Duration = Duration::from_micros(50);

/// Marks the overlapped work done and wakes the polling thread, also
/// when the work panics.
struct WakeOnDrop<'a>(&'a AtomicBool, &'a std::thread::Thread);

impl Drop for WakeOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
        self.1.unpark();
    }
}

/// A request, or its status once MPI reports it complete.
enum Polled<'a, T, Sc: Scope<'a>> {
    Pending(Request<'a, [T], Sc>),
    Done(Status),
    /// Only while `poll` moves the request out.
    Moving,
}

impl<'a, T, Sc: Scope<'a>> Polled<'a, T, Sc> {
    /// MPI_Test: lets MPI progress, and keeps the status if complete.
    fn poll(&mut self) {
        if let Polled::Pending(_) = self {
            let Polled::Pending(request) = std::mem::replace(self, Polled::Moving) else {
                unreachable!("matched just above")
            };
            *self = match request.test() {
                Ok(status) => Polled::Done(status),
                Err(request) => Polled::Pending(request),
            };
        }
    }

    /// MPI_Wait, unless it completed already.
    fn wait(self) -> Status {
        match self {
            Polled::Pending(request) => request.wait(),
            Polled::Done(status) => status,
            Polled::Moving => unreachable!("`poll` always puts a request or status back"),
        }
    }
}

/// How long the parts of one [`Halo::exchange`] took, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HaloTimes {
    /// Packing the faces to send (downloading them from a device).
    pub pack: f64,
    /// The work done while the faces travel (the `overlap` closure).
    pub overlap: f64,
    /// Waiting for the messages after the overlapped work.
    pub wait: f64,
    /// Unpacking the received faces into the ghost layers.
    pub unpack: f64,
}

impl HaloTimes {
    /// The exchange's own cost: everything but the overlapped work.
    pub fn communication(&self) -> f64 {
        self.pack + self.wait + self.unpack
    }
}

/// The face exchange of a block-decomposed 3-D grid: each rank's field
/// (see [`Decomposition`]) gets its ghost layers filled with the
/// neighbours' boundary cells, over a Cartesian communicator (MPI_Cart_create,
/// not periodic). Faces only: edges and corners, which a 7-point stencil
/// does not read, are not exchanged.
///
/// ```
/// use granule_mpi::{run, Halo};
/// use granule_core::Serial;
/// use granule_views::View3;
/// run(|world| {
///     let halo = Halo::new(world, [8, 8, 8], None)?;
///     let d = halo.decomposition().clone();
///     let mut t = View3::<f64>::from_fn("T", d.local_extents(), |[i, j, k]| {
///         d.global_index(0, i) as f64 + 0.0 * (j + k) as f64
///     })?;
///     let (sum, _times) = halo.exchange(&Serial, &mut t, |t| t.to_vec().iter().sum::<f64>())?;
///     assert!(sum >= 0.0);
///     Ok::<(), granule_mpi::CommError>(())
/// });
/// ```
pub struct Halo {
    cart: CartesianCommunicator,
    decomposition: Decomposition,
}

impl Halo {
    /// Decomposes a grid of `global` cells over the ranks of `comm`, on
    /// `dims` blocks per axis when given (their product must be the
    /// number of ranks), else on the most cube-like blocks.
    pub fn new(
        comm: &SimpleCommunicator,
        global: [usize; 3],
        dims: Option<[usize; 3]>,
    ) -> Result<Self> {
        let size = comm.size() as usize;
        let dims = match dims {
            Some(d) => d,
            None => most_cubic(size, global),
        };
        if dims.iter().product::<usize>() != size {
            return Err(CommError::Decomposition(format!(
                "{dims:?} blocks for {size} ranks: the product of the blocks must be the number of ranks"
            )));
        }
        if (0..3).any(|a| dims[a] == 0 || dims[a] > global[a]) {
            return Err(CommError::Decomposition(format!(
                "{dims:?} blocks for a grid of {global:?} cells: every block needs at least one cell"
            )));
        }
        let dims_mpi: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
        let cart = comm
            .create_cartesian_communicator(&dims_mpi, &[false; 3], false)
            .ok_or_else(|| {
                CommError::Decomposition("this rank is not in the Cartesian communicator".into())
            })?;
        let c = cart.rank_to_coordinates(cart.rank());
        let coords: [usize; 3] = std::array::from_fn(|a| c[a] as usize);
        let mut neighbours = [[None; 2]; 3];
        for (a, n) in neighbours.iter_mut().enumerate() {
            let (below, above) = cart.shift(a as i32, 1);
            *n = [below, above];
        }
        let split = |a: usize, at: usize| {
            let (base, extra) = (global[a] / dims[a], global[a] % dims[a]);
            at * base + at.min(extra)
        };
        let offset = std::array::from_fn(|a| split(a, coords[a]));
        let owned = std::array::from_fn(|a| split(a, coords[a] + 1) - split(a, coords[a]));
        let decomposition = Decomposition {
            global,
            dims,
            coords,
            offset,
            owned,
            neighbours,
        };
        Ok(Halo {
            cart,
            decomposition,
        })
    }

    /// This rank's block.
    pub fn decomposition(&self) -> &Decomposition {
        &self.decomposition
    }

    /// The Cartesian communicator the faces travel on.
    pub fn communicator(&self) -> &CartesianCommunicator {
        &self.cart
    }

    /// Fills the ghost layers of `field` with the neighbours' faces.
    ///
    /// `field` is a View of `space`, which packs and unpacks the faces
    /// with kernels (see [`Pack`]). The faces are packed (and, for a
    /// device View, downloaded in one copy each), the six
    /// receives and sends are posted non-blocking, and `overlap` runs with
    /// the field while they travel: compute there what does not read the
    /// ghost layers. `overlap` runs on a scoped thread while the calling
    /// thread (the one that started MPI) tests the requests every
    /// [`POLL_INTERVAL`], so the messages progress during the work. A
    /// panic in `overlap` calls MPI_Abort (the posted requests cannot be
    /// abandoned), which ends every rank non-zero. Then the exchange
    /// waits and unpacks. Returns what `overlap` returned and the times
    /// of the parts.
    pub fn exchange<E, S, T, M, X>(
        &self,
        space: &E,
        field: &mut ViewBase<S, 3, LayoutRight>,
        overlap: impl FnOnce(&ViewBase<S, 3, LayoutRight>) -> X + Send,
    ) -> Result<(X, HaloTimes)>
    where
        X: Send,
        ViewBase<S, 3, LayoutRight>: Sync,
        E: Pack<T, 2, MemorySpace = M>,
        S: StorageMut<Elem = T, Space = M>,
        T: Element + NoUninit + AnyBitPattern + Equivalence,
        M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
        HostSpace: SpaceCopy<M>,
    {
        let d = &self.decomposition;
        let expected = d.local_extents();
        if field.extents() != expected {
            return Err(CommError::FieldShape {
                label: field.label().into(),
                extents: field.extents(),
                expected,
            });
        }
        let mut times = HaloTimes::default();
        let start = Instant::now();
        let faces: Vec<(usize, usize, Rank)> = (0..3)
            .flat_map(|a| (0..2).map(move |s| (a, s)))
            .filter_map(|(a, s)| d.neighbours[a][s].map(|r| (a, s, r)))
            .collect();
        let mut outgoing = Vec::with_capacity(faces.len());
        let mut incoming = Vec::with_capacity(faces.len());
        for &(a, s, _) in &faces {
            let plane = if s == 0 {
                d.owned_range(a).start
            } else {
                d.owned_range(a).end - 1
            };
            outgoing.push(self.face_copy(space, field, a, plane)?);
            incoming.push(landing(space, field.label(), self.face_extents(a))?);
        }
        times.pack = start.elapsed().as_secs_f64();

        let result = mpi::request::scope(|scope| {
            let mut requests = Vec::with_capacity(2 * faces.len());
            for (&(a, s, rank), buffer) in faces.iter().zip(incoming.iter_mut()) {
                let slice = buffer.as_mut_slice();
                // A face travelling up is tagged 2a + 1, one travelling down 2a:
                // what comes from below travelled up.
                let tag = 2 * a as i32 + (s == 0) as i32;
                let process = self.cart.process_at_rank(rank);
                requests.push(process.immediate_receive_into_with_tag(scope, slice, tag));
            }
            let mut sends = Vec::with_capacity(faces.len());
            for (&(a, s, rank), buffer) in faces.iter().zip(&outgoing) {
                let slice = buffer.as_slice();
                let tag = 2 * a as i32 + (s == 1) as i32;
                let process = self.cart.process_at_rank(rank);
                sends.push(process.immediate_send_with_tag(scope, slice, tag));
            }
            let overlapped = Instant::now();
            let field: &ViewBase<S, 3, LayoutRight> = field;
            let mut receiving: Vec<_> = requests.into_iter().map(Polled::Pending).collect();
            let mut sending: Vec<_> = sends.into_iter().map(Polled::Pending).collect();
            // The work runs on its own thread while this one, the one MPI
            // was initialized on, keeps the messages moving: a large
            // message needs several handshakes, each needing both ranks
            // inside MPI, and would otherwise start only at the wait.
            let result = if faces.is_empty() {
                overlap(field)
            } else {
                let done = AtomicBool::new(false);
                let caller = std::thread::current();
                let (done, caller) = (&done, &caller);
                std::thread::scope(|threads| {
                    let work = threads.spawn(move || {
                        // Wakes the caller however the work ends.
                        let _wake = WakeOnDrop(done, caller);
                        overlap(field)
                    });
                    while !done.load(Ordering::Acquire) {
                        receiving.iter_mut().for_each(Polled::poll);
                        sending.iter_mut().for_each(Polled::poll);
                        std::thread::park_timeout(POLL_INTERVAL);
                    }
                    work.join().unwrap_or_else(|_| {
                        // MPI cannot abandon the posted requests, so the rank
                        // cannot unwind past them: it ends the job as `run`
                        // would, saying why on stderr as `run` does.
                        eprintln!(
                            "rank {}: the work overlapped with a halo exchange panicked; aborting every rank",
                            self.cart.rank()
                        );
                        self.cart.abort(crate::PANIC_EXIT_CODE)
                    })
                })
            };
            times.overlap = overlapped.elapsed().as_secs_f64();
            let waiting = Instant::now();
            let statuses: Vec<_> = receiving.into_iter().map(Polled::wait).collect();
            for send in sending {
                send.wait();
            }
            times.wait = waiting.elapsed().as_secs_f64();
            (result, statuses)
        });
        let (result, statuses) = result;

        let unpacking = Instant::now();
        for ((&(a, s, _), buffer), status) in faces.iter().zip(&incoming).zip(&statuses) {
            let received = status.count(T::equivalent_datatype()) as usize;
            let expected = buffer.as_slice().len();
            if received != expected {
                return Err(CommError::SizeMismatch {
                    label: field.label().into(),
                    extents: self.face_extents(a).to_vec(),
                    expected,
                    received,
                    source: status.source_rank(),
                });
            }
            let plane = if s == 0 { 0 } else { d.owned_range(a).end };
            self.fill_face(space, field, a, plane, buffer)?;
        }
        times.unpack = unpacking.elapsed().as_secs_f64();
        Ok((result, times))
    }

    /// The owned extents of the two axes other than `axis`.
    fn face_extents(&self, axis: usize) -> [usize; 2] {
        let o = self.decomposition.owned;
        match axis {
            0 => [o[1], o[2]],
            1 => [o[0], o[2]],
            _ => [o[0], o[1]],
        }
    }

    /// The owned cells of plane `plane` along `axis`, packed by `space`.
    fn face_copy<E, S, T, M>(
        &self,
        space: &E,
        field: &ViewBase<S, 3, LayoutRight>,
        axis: usize,
        plane: usize,
    ) -> Result<Packed<T, 2, M>>
    where
        E: Pack<T, 2, MemorySpace = M>,
        S: StorageMut<Elem = T, Space = M>,
        T: Element,
        M: MemorySpace,
        HostSpace: SpaceCopy<M>,
    {
        let d = &self.decomposition;
        let (r0, r1, r2) = (d.owned_range(0), d.owned_range(1), d.owned_range(2));
        match axis {
            0 => pack(space, &field.subview((plane, r1, r2))?),
            1 => pack(space, &field.subview((r0, plane, r2))?),
            _ => pack(space, &field.subview((r0, r1, plane))?),
        }
    }

    /// Writes `face` into plane `plane` along `axis` (the owned range of
    /// the other two axes), unpacked by `space`.
    fn fill_face<E, S, T, M>(
        &self,
        space: &E,
        field: &mut ViewBase<S, 3, LayoutRight>,
        axis: usize,
        plane: usize,
        face: &Packed<T, 2, M>,
    ) -> Result<()>
    where
        E: Pack<T, 2, MemorySpace = M>,
        S: StorageMut<Elem = T, Space = M>,
        T: Element,
        M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    {
        let d = &self.decomposition;
        let (r0, r1, r2) = (d.owned_range(0), d.owned_range(1), d.owned_range(2));
        match axis {
            0 => face.unpack_into(space, &mut field.subview_mut((plane, r1, r2))?),
            1 => face.unpack_into(space, &mut field.subview_mut((r0, plane, r2))?),
            _ => face.unpack_into(space, &mut field.subview_mut((r0, r1, plane))?),
        }
    }
}

/// The factorization of `ranks` into three block counts whose blocks
/// have the least surface (ties: the first found, x cut most).
fn most_cubic(ranks: usize, global: [usize; 3]) -> [usize; 3] {
    let mut best = [ranks, 1, 1];
    let mut best_surface = f64::INFINITY;
    for x in (1..=ranks).rev().filter(|x| ranks.is_multiple_of(*x)) {
        for y in (1..=ranks / x)
            .rev()
            .filter(|y| (ranks / x).is_multiple_of(*y))
        {
            let dims = [x, y, ranks / x / y];
            if (0..3).any(|a| dims[a] > global[a]) {
                continue;
            }
            let b: [f64; 3] = std::array::from_fn(|a| global[a] as f64 / dims[a] as f64);
            let surface = b[0] * b[1] + b[1] * b[2] + b[0] * b[2];
            if surface < best_surface {
                best_surface = surface;
                best = dims;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::most_cubic;

    #[test]
    fn blocks_are_as_cubic_as_the_rank_count_allows() {
        assert_eq!(most_cubic(1, [8, 8, 8]), [1, 1, 1]);
        assert_eq!(most_cubic(2, [8, 8, 8]), [2, 1, 1]);
        assert_eq!(most_cubic(8, [8, 8, 8]), [2, 2, 2]);
        assert_eq!(most_cubic(4, [64, 8, 8]), [4, 1, 1]);
        assert_eq!(most_cubic(2, [1, 8, 8]), [1, 2, 1]);
    }
}
