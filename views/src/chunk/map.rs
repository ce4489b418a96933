//! The chunk-map trait and its contract, and [`Nested`], the map of a part
//! of a part.

use super::error::ChunkError;
use super::ids::ThreadIds;
use std::fmt::Debug;

/// A distribution of an array's elements among the threads of a scope:
/// `map(local, t)` is the global index that thread `t` reaches through
/// local index `local`, or `None` when that access is invalid.
///
/// # Safety
/// Chunked Views hand out `&mut` to the elements a map returns, to many
/// threads at once, trusting this contract. For every `dims` for which
/// `check(dims)` returns `Ok`, let Θ be the set of [`ThreadIds`] with those
/// dims. Then for all `t1, t2` in Θ and all locals `l1, l2`:
///
/// ```text
/// map(l1, t1) = Some(g)  and  map(l2, t2) = Some(g)   =>   t1 = t2  and  l1 = l2
/// ```
///
/// i.e. the map is injective on the valid (local, thread) pairs: two
/// threads never share an element (no race) and a thread never reaches one
/// element through two local indices (so a part can be divided further, see
/// [`Nested`]). Both `map` and `check` must be pure: the same answer for the
/// same arguments, every time, on every thread. Arithmetic must not wrap: an
/// access whose index would overflow is `None`.
///
/// A map whose preconditions are not met by `dims` must say so in `check`
/// with a [`ChunkError`]; it must never rely on callers not to ask.
///
/// # Example: a map of one element per thread
/// ```
/// use granule_views::chunk::{owner_table, ChunkError, ChunkMap, ThreadIds};
///
/// #[derive(Clone, Copy, Debug)]
/// struct OnePerThread;
///
/// // SAFETY: the only valid local is 0, and thread g gets element g:
/// // distinct linear ids give distinct elements, so (l, t) -> g is injective.
/// unsafe impl ChunkMap for OnePerThread {
///     type Local = usize;
///     fn map(&self, local: usize, t: &ThreadIds) -> Option<usize> {
///         (local == 0).then(|| t.linear_id())
///     }
///     fn check(&self, _dims: [usize; 3]) -> Result<(), ChunkError> {
///         Ok(())
///     }
/// }
/// let owners = owner_table(OnePerThread, 3, 2, 4);
/// assert_eq!(owners, [Some(0), Some(1), Some(2), None]);
/// ```
pub unsafe trait ChunkMap: Copy + Send + Sync + Debug + 'static {
    /// A thread's index into its part: `usize`, or `[usize; 2]` for [`Map2D`](super::Map2D).
    type Local: Copy + Debug + PartialEq;

    /// The global index thread `t` reaches through `local`, or `None` if
    /// that access is invalid.
    fn map(&self, local: Self::Local, t: &ThreadIds) -> Option<usize>;

    /// Whether the map may be used in a scope of `dims` groups per axis;
    /// an `Err` names the violated precondition.
    fn check(&self, dims: [usize; 3]) -> Result<(), ChunkError>;
}

/// The map of a part of a part: `inner` divides, among the threads of a
/// group, the local indices that `outer` gives that group.
///
/// `map(l, t) = outer.map(inner.map(l, t)?, outer_ids)`. It is injective
/// because `inner` gives distinct outer locals to distinct (l, t) and
/// `outer`, at fixed `outer_ids`, gives distinct locals distinct elements.
///
/// ```
/// use granule_views::chunk::{owner_table, ChunkMap, MapContinuousLinear, MapLinear, Nested, ThreadIds};
/// // Block 1 of 2 owns elements 4..8; its 2 threads deal them out one by one.
/// let block = ThreadIds::linear(2, 1)?;
/// let map = Nested::new(MapContinuousLinear::new(4), block, MapLinear::new(1))?;
/// let owners = owner_table(map, 2, 2, 8);
/// assert_eq!(owners, [None, None, None, None, Some(0), Some(1), Some(0), Some(1)]);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Nested<O: ChunkMap<Local = usize>, I: ChunkMap> {
    outer: O,
    outer_ids: ThreadIds,
    inner: I,
}

impl<O: ChunkMap<Local = usize>, I: ChunkMap> Nested<O, I> {
    /// The part of group `outer_ids` under `outer`, divided by `inner`.
    /// Fails if `outer` does not accept `outer_ids`' dims.
    pub fn new(outer: O, outer_ids: ThreadIds, inner: I) -> Result<Self, ChunkError> {
        outer.check(outer_ids.dims())?;
        Ok(Nested {
            outer,
            outer_ids,
            inner,
        })
    }

    /// The ids of the group whose part is divided.
    pub fn outer_ids(&self) -> &ThreadIds {
        &self.outer_ids
    }
}

// SAFETY: `new` checked `outer` against `outer_ids`' dims, and `check`
// delegates to `inner`. For valid (l1, t1), (l2, t2) with equal results:
// `outer` is injective in its local at the fixed `outer_ids`, so the inner
// results are equal, and `inner`'s contract then gives t1 = t2, l1 = l2.
unsafe impl<O: ChunkMap<Local = usize>, I: ChunkMap> ChunkMap for Nested<O, I> {
    type Local = I::Local;

    #[inline]
    fn map(&self, local: I::Local, t: &ThreadIds) -> Option<usize> {
        self.inner
            .map(local, t)
            .and_then(|k| self.outer.map(k, &self.outer_ids))
    }

    fn check(&self, dims: [usize; 3]) -> Result<(), ChunkError> {
        self.inner.check(dims)
    }
}
