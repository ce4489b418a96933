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
use crate::layout::Layout;
use crate::pod::Pod;
use crate::space::HostAccessible;
use crate::storage::{Storage, StorageMut};
use crate::view::ViewBase;
use std::marker::PhantomData;

/// Elements to be divided by map `M`, in context `C` ([`Top`] for a whole
/// View, or the scope of the part being divided). It holds the exclusive
/// borrow; [`share`](Self::share) turns it into the handle parallel code
/// shares, [`part`](Self::part) takes one part at a time.
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
#[derive(Debug)]
pub struct Chunked<'a, T: Pod, M: ChunkMap, C: Context = Top> {
    elems: Elems<'a, T>,
    map: M,
    _own: PhantomData<(&'a mut [T], C)>,
}

// SAFETY: Chunked is an exclusive borrow of the elements, like `&mut [T]`.
unsafe impl<T: Pod, M: ChunkMap, C: Context> Send for Chunked<'_, T, M, C> {}
// SAFETY: `&Chunked` gives no access to elements at all.
unsafe impl<T: Pod, M: ChunkMap, C: Context> Sync for Chunked<'_, T, M, C> {}

impl<'a, T: Pod, M: ChunkMap, C: Context> Chunked<'a, T, M, C> {
    /// # Safety
    /// `elems` is valid for reads and writes for `'a`, and for `'a` nothing
    /// else accesses the elements `map` reaches.
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
    pub fn share<S: Follows<C>>(
        self,
        dims: [usize; 3],
    ) -> Result<SharedChunks<'a, T, M, S::Full>, ChunkError> {
        ThreadIds::new(dims, [0; 3])?;
        self.map.check(dims)?;
        // SAFETY: the map accepts `dims`, and `self` held the exclusive borrow for 'a.
        Ok(unsafe { SharedChunks::new(self.elems, self.map, dims) })
    }

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

impl<St: Storage, const R: usize, L: Layout> ViewBase<St, R, L>
where
    St::Space: HostAccessible,
{
    /// The elements as chunks see them: row-major linear indices.
    fn elems(&self) -> Elems<'_, St::Elem> {
        Elems {
            ptr: self.storage_ptr(),
            addr: Addr::new(self.mapping()),
            label: self.label(),
        }
    }

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

impl<St: StorageMut, const R: usize, L: Layout> ViewBase<St, R, L>
where
    St::Space: HostAccessible,
{
    /// The View, to be divided by `map` (see [`Chunked`]).
    pub fn chunked<M: ChunkMap>(&mut self, map: M) -> Chunked<'_, St::Elem, M, Top> {
        let this: &Self = self;
        // SAFETY: `&mut self` is held for the result's lifetime, so nothing
        // else reaches the elements; the pointer is valid for the mapping.
        unsafe { Chunked::new(this.elems(), map) }
    }

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
