//! Thread ids: per axis x/y/z, how many groups a scope has in its parent
//! (`global_dim`) and which one the caller is (`global_id`).

use super::error::ChunkError;
use super::scope::{Chain, Scope};
use std::fmt;
use std::marker::PhantomData;

/// A caller's position in a scope: per axis, the group count and its id.
///
/// Invariant (checked by the constructors): every dim is at least 1 and
/// every id is below its dim. The linear id is
/// `g = x + (z * dim_y + y) * dim_x`, so x varies fastest.
///
/// ```
/// use granule_views::chunk::ThreadIds;
/// let t = ThreadIds::new([4, 2, 1], [3, 1, 0])?;
/// assert_eq!((t.global_dim_x(), t.global_id_y()), (4, 1));
/// assert_eq!((t.count(), t.linear_id()), (8, 7));
/// assert_eq!(ThreadIds::from_linear([4, 2, 1], 7)?, t);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadIds {
    dim: [usize; 3],
    id: [usize; 3],
}

impl ThreadIds {
    /// Ids `id` in a scope of `dim` groups per axis.
    pub fn new(dim: [usize; 3], id: [usize; 3]) -> Result<Self, ChunkError> {
        check_dims(dim)?;
        if (0..3).any(|a| id[a] >= dim[a]) {
            return Err(ChunkError::ThreadIdOutOfRange { dims: dim, ids: id });
        }
        Ok(ThreadIds { dim, id })
    }

    /// The ids of the thread with linear id `g` in a scope of `dim` groups.
    pub fn from_linear(dim: [usize; 3], g: usize) -> Result<Self, ChunkError> {
        let count = check_dims(dim)?;
        if g >= count {
            return Err(ChunkError::ThreadIdOutOfRange {
                dims: dim,
                ids: [g, 0, 0],
            });
        }
        Ok(ThreadIds {
            dim,
            id: [g % dim[0], g / dim[0] % dim[1], g / (dim[0] * dim[1])],
        })
    }

    /// Thread `g` of a 1-D scope of `count` threads.
    pub fn linear(count: usize, g: usize) -> Result<Self, ChunkError> {
        Self::from_linear([count, 1, 1], g)
    }

    /// Groups per axis.
    #[inline(always)]
    pub fn dims(&self) -> [usize; 3] {
        self.dim
    }

    /// The caller's id per axis.
    #[inline(always)]
    pub fn ids(&self) -> [usize; 3] {
        self.id
    }

    /// Groups along x.
    #[inline(always)]
    pub fn global_dim_x(&self) -> usize {
        self.dim[0]
    }

    /// Groups along y.
    #[inline(always)]
    pub fn global_dim_y(&self) -> usize {
        self.dim[1]
    }

    /// Groups along z.
    #[inline(always)]
    pub fn global_dim_z(&self) -> usize {
        self.dim[2]
    }

    /// The caller's x id.
    #[inline(always)]
    pub fn global_id_x(&self) -> usize {
        self.id[0]
    }

    /// The caller's y id.
    #[inline(always)]
    pub fn global_id_y(&self) -> usize {
        self.id[1]
    }

    /// The caller's z id.
    #[inline(always)]
    pub fn global_id_z(&self) -> usize {
        self.id[2]
    }

    /// T, the number of groups: `dim_x * dim_y * dim_z`.
    #[inline(always)]
    pub fn count(&self) -> usize {
        self.dim[0] * self.dim[1] * self.dim[2]
    }

    /// g, the caller's linear id: `x + (z * dim_y + y) * dim_x`.
    #[inline(always)]
    pub fn linear_id(&self) -> usize {
        self.id[0] + (self.id[2] * self.dim[1] + self.id[1]) * self.dim[0]
    }

    /// The ids of a thread `inner` inside the group `self`, in the combined
    /// scope: per axis `id = outer_id * inner_dim + inner_id`, as CUDA's
    /// `blockIdx * blockDim + threadIdx`.
    pub fn nest(&self, inner: &ThreadIds) -> Result<ThreadIds, ChunkError> {
        let mut out = ThreadIds {
            dim: [0; 3],
            id: [0; 3],
        };
        for a in 0..3 {
            out.dim[a] = self.dim[a]
                .checked_mul(inner.dim[a])
                .ok_or(ChunkError::Overflow {
                    what: "nested thread count",
                })?;
            out.id[a] = self.id[a] * inner.dim[a] + inner.id[a];
        }
        check_dims(out.dim)?;
        Ok(out)
    }
}

/// Checks that every dim is at least 1 and their product fits; returns it.
fn check_dims(dim: [usize; 3]) -> Result<usize, ChunkError> {
    if let Some(axis) = dim.iter().position(|&d| d == 0) {
        return Err(ChunkError::ZeroThreads { dims: dim, axis });
    }
    dim.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or(ChunkError::Overflow {
            what: "thread count",
        })
}

impl fmt::Display for ThreadIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.id;
        let [dx, dy, dz] = self.dim;
        write!(f, "(x {x}, y {y}, z {z}) of ({dx}, {dy}, {dz})")
    }
}

/// Thread ids in a known scope `S`: what a chunk of scope `S` is made with.
///
/// On the host, the pattern plumbing makes these (league rank -> Grid->Block,
/// team rank -> Block->Thread); tests make them for every thread of a
/// [`MockScope`].
///
/// # Trusted on the host only
/// Anyone can make `ScopedIds` with any (in-range) ids: they are a claim,
/// not a proof, of who the caller is. That is sound on the host because no
/// part is ever made from ids alone: [`ChunkMut`](super::ChunkMut)s come from
/// an exclusive borrow (`chunk_mut`, `Chunked::part`, which lend one part at
/// a time) or from [`SharedChunks::part`](super::SharedChunks::part), an
/// `unsafe fn` whose caller promises distinct ids, and is handed the linear
/// id by the driver. Two threads claiming the same ids through safe code
/// would each need the exclusive borrow.
///
/// A device driver must not accept `ScopedIds` (or [`ThreadIds`]) from user
/// code to decide which elements a thread writes: it must compute them
/// itself from the hardware's `threadIdx`/`blockIdx`/`blockDim`/`gridDim`,
/// since a kernel could otherwise hand every thread the same ids.
///
/// ```
/// use granule_views::chunk::{BlockToThread, GridToBlock, GridToThread, ScopedIds};
/// let block = ScopedIds::<GridToBlock>::new([2, 1, 1], [1, 0, 0])?;
/// let thread = ScopedIds::<BlockToThread>::new([4, 1, 1], [3, 0, 0])?;
/// let global = block.then(thread)?.flatten::<GridToThread>();
/// assert_eq!(global.ids().linear_id(), 7);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopedIds<S: Scope> {
    ids: ThreadIds,
    _scope: PhantomData<S>,
}

impl<S: Scope> ScopedIds<S> {
    /// Ids `id` among `dim` groups of scope `S`.
    pub fn new(dim: [usize; 3], id: [usize; 3]) -> Result<Self, ChunkError> {
        ThreadIds::new(dim, id).map(Self::from_ids)
    }

    /// Group `g` of a 1-D scope `S` with `count` groups.
    pub fn linear(count: usize, g: usize) -> Result<Self, ChunkError> {
        ThreadIds::linear(count, g).map(Self::from_ids)
    }

    /// Wraps checked ids.
    pub fn from_ids(ids: ThreadIds) -> Self {
        ScopedIds {
            ids,
            _scope: PhantomData,
        }
    }

    /// The ids.
    #[inline(always)]
    pub fn ids(&self) -> &ThreadIds {
        &self.ids
    }

    /// The ids of `inner` (in scope `B`, inside this group) in the chained
    /// scope `Chain<S, B>`, which only exists when `B` starts where `S` ends.
    pub fn then<B: Scope<From = S::To>>(
        self,
        inner: ScopedIds<B>,
    ) -> Result<ScopedIds<Chain<S, B>>, ChunkError> {
        self.ids.nest(&inner.ids).map(ScopedIds::from_ids)
    }

    /// The same ids seen as scope `S2` with the same ends: a
    /// `Chain<GridToBlock, BlockToThread>` is a [`GridToThread`](super::GridToThread).
    pub fn flatten<S2: Scope<From = S::From, To = S::To>>(self) -> ScopedIds<S2> {
        ScopedIds::from_ids(self.ids)
    }
}

/// A scope `S` with fixed dims, to enumerate its threads on the host.
///
/// ```
/// use granule_views::chunk::{MockScope, WarpToThread};
/// let warp = MockScope::<WarpToThread>::new([4, 2, 1])?;
/// let ids: Vec<usize> = warp.iter().map(|t| t.ids().linear_id()).collect();
/// assert_eq!(ids, (0..8).collect::<Vec<_>>());
/// assert_eq!(warp.at([1, 1, 0])?.ids().linear_id(), 5);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MockScope<S: Scope> {
    dims: [usize; 3],
    _scope: PhantomData<S>,
}

impl<S: Scope> MockScope<S> {
    /// A mock scope of `dims` groups per axis.
    pub fn new(dims: [usize; 3]) -> Result<Self, ChunkError> {
        check_dims(dims)?;
        Ok(MockScope {
            dims,
            _scope: PhantomData,
        })
    }

    /// A 1-D mock scope of `count` groups.
    pub fn linear(count: usize) -> Result<Self, ChunkError> {
        Self::new([count, 1, 1])
    }

    /// Groups per axis.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The caller with ids `id`.
    pub fn at(&self, id: [usize; 3]) -> Result<ScopedIds<S>, ChunkError> {
        ScopedIds::new(self.dims, id)
    }

    /// Every caller, in linear-id order.
    pub fn iter(&self) -> impl Iterator<Item = ScopedIds<S>> + '_ {
        let count = self.dims.iter().product::<usize>();
        (0..count).map(move |g| match ThreadIds::from_linear(self.dims, g) {
            Ok(ids) => ScopedIds::from_ids(ids),
            Err(e) => unreachable!("dims were checked at construction: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{BlockToThread, GridToBlock};

    #[test]
    fn linear_id_matches_the_formula_and_inverts() {
        for dims in [[1, 1, 1], [3, 1, 1], [2, 3, 1], [2, 3, 4]] {
            for g in 0..dims.iter().product() {
                let t = ThreadIds::from_linear(dims, g).unwrap();
                let [x, y, z] = t.ids();
                assert_eq!(x + (z * dims[1] + y) * dims[0], g);
                assert_eq!(t.linear_id(), g);
            }
        }
    }

    #[test]
    fn bad_ids_and_dims_are_errors() {
        assert!(matches!(
            ThreadIds::new([2, 1, 1], [2, 0, 0]),
            Err(ChunkError::ThreadIdOutOfRange { .. })
        ));
        assert!(matches!(
            ThreadIds::new([2, 0, 1], [0, 0, 0]),
            Err(ChunkError::ZeroThreads { axis: 1, .. })
        ));
        assert!(matches!(
            ThreadIds::linear(3, 3),
            Err(ChunkError::ThreadIdOutOfRange { .. })
        ));
        assert!(matches!(
            ThreadIds::new([usize::MAX, 2, 1], [0; 3]),
            Err(ChunkError::Overflow { .. })
        ));
    }

    #[test]
    fn nesting_gives_grid_wide_ids() {
        let grid = MockScope::<GridToBlock>::new([2, 2, 1]).unwrap();
        let block = MockScope::<BlockToThread>::new([3, 1, 1]).unwrap();
        let mut seen = [false; 12];
        for b in grid.iter() {
            for t in block.iter() {
                let g = b.then(t).unwrap().ids().linear_id();
                assert!(
                    !std::mem::replace(&mut seen[g], true),
                    "thread {g} seen twice"
                );
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn display_names_every_axis() {
        let t = ThreadIds::new([4, 2, 1], [3, 1, 0]).unwrap();
        assert_eq!(t.to_string(), "(x 3, y 1, z 0) of (4, 2, 1)");
    }
}
