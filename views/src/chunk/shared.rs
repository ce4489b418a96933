//! [`SharedChunks`]: the handle that parallel code shares, which hands
//! each thread its part through an `unsafe fn`.

use super::elems::Elems;
use super::ids::ThreadIds;
use super::map::ChunkMap;
use super::part::ChunkMut;
use super::scope::Scope;
use crate::element::Element;
use crate::space::{HostAccessible, HostSpace, MemorySpace};
use std::marker::PhantomData;

/// A View (or a part) divided by map `M` among the `dims` groups of scope
/// `S`, shared by the threads that write it. Made by [`Chunked::share`](super::Chunked::share).
///
/// The pattern plumbing (granule-core) owns one of these per written View
/// and, inside each work item, calls [`part`](Self::part) with that work
/// item's linear id: on the host, the league rank for a Grid->Block share
/// (one part per team), the team rank for a Block->Thread share of a
/// team's part. The map's contract makes distinct ids' parts disjoint; the
/// caller's part of the bargain is `part`'s safety contract.
///
/// ```
/// use granule_views::chunk::{GridToThread, MapContinuousLinear};
/// let mut y = granule_views::View1::<usize>::zeros("y", 6)?;
/// let share = y.chunked(MapContinuousLinear::new(2)).share::<GridToThread>([3, 1, 1])?;
/// std::thread::scope(|s| {
///     for g in 0..share.threads() {
///         let share = &share;
///         s.spawn(move || {
///             // SAFETY: each spawned thread asks for its own g, once.
///             let mut mine = unsafe { share.part(g) };
///             mine[0] = 10 * g;
///             mine[1] = 10 * g + 1;
///         });
///     }
/// });
/// assert_eq!(y.to_vec(), [0, 1, 10, 11, 20, 21]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// `Sp` is the View's memory space: parts exist only for host-accessible
/// memory; for a device space the handle describes the elements
/// ([`data_address`](Self::data_address), [`len`](Self::len)) for a
/// backend to launch with.
#[derive(Debug)]
pub struct SharedChunks<'a, T: Element, M: ChunkMap, S: Scope, Sp: MemorySpace = HostSpace> {
    elems: Elems<'a, T>,
    map: M,
    dims: [usize; 3],
    _own: PhantomData<(&'a mut [T], S, Sp)>,
}

// SAFETY: the handle owns the exclusive borrow of the elements; moving it
// moves that borrow, like `&mut [T]` with T: Element (Send).
unsafe impl<T: Element, M: ChunkMap, S: Scope, Sp: MemorySpace> Send
    for SharedChunks<'_, T, M, S, Sp>
{
}
// SAFETY: through `&SharedChunks` elements are reached only by `part`,
// whose contract keeps concurrent parts on distinct ids, and the map's
// contract makes distinct ids' elements disjoint.
unsafe impl<T: Element, M: ChunkMap, S: Scope, Sp: MemorySpace> Sync
    for SharedChunks<'_, T, M, S, Sp>
{
}

impl<'a, T: Element, M: ChunkMap, S: Scope, Sp: MemorySpace> SharedChunks<'a, T, M, S, Sp> {
    /// # Safety
    /// `map.check(dims)` has passed, `elems` is valid for reads and writes
    /// for `'a`, and for `'a` nothing else accesses the elements `map` reaches.
    pub(crate) unsafe fn new(elems: Elems<'a, T>, map: M, dims: [usize; 3]) -> Self {
        SharedChunks {
            elems,
            map,
            dims,
            _own: PhantomData,
        }
    }

    /// Groups per axis.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The number of groups, T: the linear ids are `0..threads()`.
    pub fn threads(&self) -> usize {
        self.dims.iter().product()
    }

    /// The map.
    pub fn map(&self) -> &M {
        &self.map
    }

    /// The View's label.
    pub fn label(&self) -> &'a str {
        self.elems.label
    }

    /// Elements of the View (global indices `0..len`).
    pub fn len(&self) -> usize {
        self.elems.addr.size()
    }

    /// Whether the View has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The address of element 0 in `Sp` (see
    /// [`Chunked::data_address`](super::Chunked::data_address)).
    pub fn data_address(&self) -> usize {
        self.elems.ptr.as_ptr() as usize
    }

    /// Whether global index `g` is element `data_address() + g` (see
    /// [`Chunked::is_contiguous`](super::Chunked::is_contiguous)).
    pub fn is_contiguous(&self) -> bool {
        self.elems.addr.is_identity()
    }
}

impl<'a, T: Element, M: ChunkMap, S: Scope, Sp: HostAccessible> SharedChunks<'a, T, M, S, Sp> {
    /// The part of the group with linear id `g` (`g = x + (z*dim_y + y)*dim_x`).
    ///
    /// # Safety
    /// While the returned part is alive, no other part with the same `g`
    /// may be alive, on any thread: concurrent holders must have distinct
    /// ids. (Each work item asks for its own id, once, and drops the part
    /// before the dispatch returns.)
    ///
    /// # Panics
    /// If `g >= self.threads()`.
    #[track_caller]
    pub unsafe fn part(&self, g: usize) -> ChunkMut<'_, T, M, S> {
        let ids = match ThreadIds::from_linear(self.dims, g) {
            Ok(ids) => ids,
            Err(e) => panic!("chunks of View \"{}\": {e}", self.elems.label),
        };
        // SAFETY: `new`'s contract checked the map for these dims and lends
        // the elements for 'a; the caller keeps parts of one id unique, and
        // the map keeps distinct ids' elements disjoint.
        unsafe { ChunkMut::new(self.elems, self.map, ids) }
    }
}
