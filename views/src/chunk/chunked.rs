//! [`Chunked`]: a View (or a part) promised to be written through a map,
//! before it is divided; and the View methods that make chunks.

use super::elems::{Addr, Elems};
use super::error::ChunkError;
use super::ids::{ScopedIds, ThreadIds};
use super::map::ChunkMap;
use super::part::ChunkMut;
use super::read::ChunkRef;
use super::scope::{Context, Follows, Scope, Top};
use super::shared::SharedChunks;
use crate::element::Element;
use crate::layout::Layout;
use crate::space::{HostAccessible, HostSpace, MemorySpace};
use crate::storage::{Storage, StorageMut};
use crate::view::ViewBase;
use std::marker::PhantomData;

/// Elements to be divided by map `M`, in context `C` ([`Top`] for a whole
/// View, or the scope of the part being divided), living in memory space
/// `Sp`. It holds the exclusive borrow; [`share`](Self::share) turns it
/// into the handle parallel code shares, [`part`](Self::part) takes one
/// part at a time.
///
/// ```
/// use granule_views::chunk::{GridToBlock, MapContinuousLinear, ScopedIds};
/// let mut y = granule_views::View2::<f64>::zeros("y", [3, 4])?;
/// let mut rows = y.chunked(MapContinuousLinear::new(4));       // one row per team
/// let mut row2 = rows.part(ScopedIds::<GridToBlock>::linear(3, 2)?)?;
/// assert_eq!(row2.global_index(3), Some(11));
/// assert!(row2.get(4).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Memory spaces
///
/// A View of any memory space can be chunked, so a team dispatch's
/// written View may live in a device's memory. Everything that reaches the
/// elements on the host ([`share`](Self::share), [`part`](Self::part),
/// [`into_part`](Self::into_part)) needs `Sp: HostAccessible`; what a
/// backend passes to a device ([`map`](Self::map), [`len`](Self::len),
/// [`data_address`](Self::data_address), [`is_contiguous`](Self::is_contiguous),
/// [`label`](Self::label)) exists for every space.
///
/// ```
/// use granule_views::chunk::MapContinuousLinear;
/// use granule_views::{LayoutLeft, View2};
/// let mut y = View2::<f32>::zeros("y", [3, 4])?;
/// let base = y.as_ptr() as usize;
/// let rows = y.chunked(MapContinuousLinear::new(4));
/// assert_eq!((rows.len(), rows.data_address(), rows.is_contiguous()), (12, base, true));
/// let mut z = View2::<f32, LayoutLeft>::zeros("z", [3, 4])?;
/// assert!(!z.chunked(MapContinuousLinear::new(4)).is_contiguous());
/// # Ok::<(), granule_views::ViewError>(())
/// ```
#[derive(Debug)]
pub struct Chunked<'a, T: Element, M: ChunkMap, C: Context = Top, Sp: MemorySpace = HostSpace> {
    /// The View's elements; `elems.ptr` is an address in `Sp`, dereferenced
    /// only where `Sp: HostAccessible`.
    elems: Elems<'a, T>,
    map: M,
    _own: PhantomData<(&'a mut [T], C, Sp)>,
}

// SAFETY: Chunked is an exclusive borrow of the elements, like `&mut [T]`.
unsafe impl<T: Element, M: ChunkMap, C: Context, Sp: MemorySpace> Send
    for Chunked<'_, T, M, C, Sp>
{
}
// SAFETY: `&Chunked` gives no access to elements at all.
unsafe impl<T: Element, M: ChunkMap, C: Context, Sp: MemorySpace> Sync
    for Chunked<'_, T, M, C, Sp>
{
}

impl<'a, T: Element, M: ChunkMap, C: Context, Sp: MemorySpace> Chunked<'a, T, M, C, Sp> {
    /// # Safety
    /// `elems` is valid for reads and writes in memory space `Sp` for `'a`,
    /// and for `'a` nothing else accesses the elements `map` reaches.
    pub(crate) unsafe fn new(elems: Elems<'a, T>, map: M) -> Self {
        Chunked {
            elems,
            map,
            _own: PhantomData,
        }
    }

    /// The map.
    pub fn map(&self) -> &M {
        &self.map
    }

    /// The View's label.
    pub fn label(&self) -> &str {
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

    /// The handle that parallel code shares, for a scope `S` of `dims`
    /// groups per axis; fails if the map's precondition rejects `dims`.
    /// Any memory space may be shared; only host-accessible memory hands
    /// out parts.
    pub fn share<S: Follows<C>>(
        self,
        dims: [usize; 3],
    ) -> Result<SharedChunks<'a, T, M, S::Full, Sp>, ChunkError> {
        ThreadIds::new(dims, [0; 3])?;
        self.map.check(dims)?;
        // SAFETY: the map accepts `dims`, and `self` held the exclusive borrow for 'a.
        Ok(unsafe { SharedChunks::new(self.elems, self.map, dims) })
    }

    /// The address of the View's element 0, as an integer, for a backend
    /// to pass to the device. It is an address in `Sp`: for a device space
    /// a device address, which must never be dereferenced on the host.
    pub fn data_address(&self) -> usize {
        self.elems.ptr.as_ptr() as usize
    }

    /// Whether global index `g` (the row-major linear index chunks use) is
    /// the element at `data_address()` plus `g` elements, for every `g`:
    /// what a device that addresses chunks linearly needs. True for
    /// compact LayoutRight Views, and for any View whose strides are the
    /// row-major ones wherever an extent exceeds 1; false for a LayoutLeft
    /// View of more than one row and column, and for padded strides.
    pub fn is_contiguous(&self) -> bool {
        self.elems.addr.is_identity()
    }
}

impl<'a, T: Element, M: ChunkMap, C: Context, Sp: HostAccessible> Chunked<'a, T, M, C, Sp> {
    /// The part of the caller `ids`, while `self` stays borrowed.
    pub fn part<S: Follows<C>>(
        &mut self,
        ids: ScopedIds<S>,
    ) -> Result<ChunkMut<'_, T, M, S::Full>, ChunkError> {
        self.map.check(ids.ids().dims())?;
        // SAFETY: the map accepts the dims, and `&mut self` makes this the
        // only part alive.
        Ok(unsafe { ChunkMut::new(self.elems, self.map, *ids.ids()) })
    }

    /// The part of the caller `ids`, keeping the whole borrow.
    pub fn into_part<S: Follows<C>>(
        self,
        ids: ScopedIds<S>,
    ) -> Result<ChunkMut<'a, T, M, S::Full>, ChunkError> {
        self.map.check(ids.ids().dims())?;
        // SAFETY: as in `part`; `self` is consumed, so this is the only part.
        Ok(unsafe { ChunkMut::new(self.elems, self.map, *ids.ids()) })
    }
}

impl<St: Storage, const R: usize, L: Layout> ViewBase<St, R, L> {
    /// The elements as chunks see them: row-major linear indices. Making
    /// it touches no element, so it works for every memory space.
    fn elems(&self) -> Elems<'_, St::Elem> {
        Elems {
            ptr: self.storage_ptr(),
            addr: Addr::new(self.mapping()),
            label: self.label(),
        }
    }
}

impl<St: Storage, const R: usize, L: Layout> ViewBase<St, R, L>
where
    St::Space: HostAccessible,
{
    /// The part that `map` gives caller `ids` of scope `S`, for reading.
    ///
    /// ```
    /// use granule_views::chunk::{GridToThread, MapLinear, ScopedIds};
    /// let x = granule_views::View1::<u32>::from_fn("x", 8, |i| i as u32)?;
    /// let part = x.chunk(MapLinear::new(1), ScopedIds::<GridToThread>::linear(4, 3)?)?;
    /// assert_eq!((part[0], part[1]), (3, 7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn chunk<S: Scope, M: ChunkMap>(
        &self,
        map: M,
        ids: ScopedIds<S>,
    ) -> Result<ChunkRef<'_, St::Elem, M, S>, ChunkError> {
        map.check(ids.ids().dims())?;
        Ok(ChunkRef::new(self.elems(), map, *ids.ids()))
    }
}

impl<St: StorageMut, const R: usize, L: Layout> ViewBase<St, R, L> {
    /// The View, to be divided by `map` (see [`Chunked`]), in whatever
    /// memory space it lives (host access to the parts needs a
    /// host-accessible one).
    pub fn chunked<M: ChunkMap>(&mut self, map: M) -> Chunked<'_, St::Elem, M, Top, St::Space> {
        let this: &Self = self;
        // SAFETY: `&mut self` is held for the result's lifetime, so nothing
        // else reaches the elements; the pointer is valid for the mapping
        // in `St::Space`, which `Chunked` dereferences only if host-accessible.
        unsafe { Chunked::new(this.elems(), map) }
    }
}

impl<St: StorageMut, const R: usize, L: Layout> ViewBase<St, R, L>
where
    St::Space: HostAccessible,
{
    /// The part that `map` gives caller `ids` of scope `S`, for writing
    /// (at thread level) and reading.
    pub fn chunk_mut<S: Scope, M: ChunkMap>(
        &mut self,
        map: M,
        ids: ScopedIds<S>,
    ) -> Result<ChunkMut<'_, St::Elem, M, S>, ChunkError> {
        self.chunked(map).into_part(ids)
    }
}
