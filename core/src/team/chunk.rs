//! Team writes through chunk maps.
//!
//! A team dispatch writes a View chunked by a map
//! (`view.chunked(MapContinuousLinear::new(w))`): the pattern shares it in
//! the Grid->Block scope (league rank -> team) and hands each team its
//! part, a block-level `ChunkMut` that may be read but not written. A
//! thread divides it in the Block->Thread scope with a second map
//! (`part.chunk_mut(MapIdentity, member.thread_ids())`), which gives the
//! thread-level chunk it may write.

use super::LeagueIndex;
use crate::kernel::{
    ChunkedArg, DeviceArg, DeviceChunkMap, DeviceValue, DeviceWrites, SameMemorySpace,
};
use crate::write::{WriteParts, Writes};
use granule_views::chunk::{
    ChunkError, ChunkMap, ChunkMut, Chunked, GridToBlock, MapContinuousLinear, SharedChunks,
    ThreadIds, Top,
};
use granule_views::{Element, HostAccessible, MemorySpace};

/// The part of a chunked View that a team receives in a team dispatch:
/// readable by local index; its threads take their writable parts with
/// `chunk_mut(map, member.thread_ids())`.
///
/// Closures name it in their signature (`mut row: TeamChunk<f64>`), since
/// closure parameter types are not inferred through the functor traits.
pub type TeamChunk<'a, T, M = granule_views::chunk::MapContinuousLinear> =
    ChunkMut<'a, T, M, GridToBlock>;

/// The identity map, for a scope of exactly one thread: local index `k`
/// is element `k` of the part. This is how a host team (one thread) takes
/// its whole part for writing.
///
/// ```
/// use granule_core::team::MapIdentity;
/// use granule_views::chunk::{owner_table, ChunkMap};
/// assert_eq!(owner_table(MapIdentity, 1, 3, 4), [Some(0), Some(0), Some(0), None]);
/// assert!(MapIdentity.check([2, 1, 1]).is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapIdentity;

// SAFETY: `check` admits only scopes of one thread, so there are no two
// distinct threads; and k -> k is injective in the local index.
unsafe impl ChunkMap for MapIdentity {
    type Local = usize;

    #[inline(always)]
    fn map(&self, local: usize, t: &ThreadIds) -> Option<usize> {
        (t.count() == 1).then_some(local)
    }

    fn check(&self, dims: [usize; 3]) -> Result<(), ChunkError> {
        if dims != [1, 1, 1] {
            return Err(ChunkError::Precondition {
                map: "MapIdentity",
                dims,
                requires: "dim_x * dim_y * dim_z == 1",
            });
        }
        Ok(())
    }
}

// SAFETY: `SharedChunks::part` hands out disjoint parts for distinct
// league ranks (the map's contract), valid for the chunks' borrow 'w,
// which the parts hold; `item`'s contract (one live item per rank) is
// exactly `part`'s; `covers` admits only leagues of at most as many teams
// as the map was checked for (and `part` panics past them anyway).
unsafe impl<'w, T: Element, M: ChunkMap, Sp: MemorySpace> WriteParts<LeagueIndex, Sp>
    for SharedChunks<'w, T, M, GridToBlock, Sp>
{
    type Item<'a> = ChunkMut<'a, T, M, GridToBlock>;

    #[inline]
    fn covers(&self, reach: &LeagueIndex) -> bool {
        reach.size <= self.threads()
    }

    #[inline]
    unsafe fn item<'a>(&self, idx: LeagueIndex) -> Self::Item<'a>
    where
        Sp: HostAccessible,
    {
        // SAFETY: the caller gives each league rank to one work item at a
        // time (forwarded to `part`'s contract).
        let part = unsafe { self.part(idx.rank) };
        // SAFETY: only the lifetime changes. The caller keeps the item
        // within the dispatch, during which the chunks' borrow is held; the
        // functor receives it under a higher-ranked lifetime, so it cannot
        // keep it longer.
        unsafe {
            std::mem::transmute::<ChunkMut<'_, T, M, GridToBlock>, ChunkMut<'a, T, M, GridToBlock>>(
                part,
            )
        }
    }
}

// SAFETY: `share` moves the chunked View's unique borrow 'w into the
// parts, checked by the map for `bound.size` teams.
unsafe impl<'w, T: Element, M: ChunkMap, Sp: MemorySpace> Writes<LeagueIndex>
    for Chunked<'w, T, M, Top, Sp>
{
    type Parts = SharedChunks<'w, T, M, GridToBlock, Sp>;

    #[track_caller]
    fn into_parts(self, label: &str, bound: LeagueIndex) -> Self::Parts {
        let view = self.label().to_owned();
        match self.share::<GridToBlock>([bound.size.max(1), 1, 1]) {
            Ok(s) => s,
            Err(e) => panic!(
                "parallel dispatch \"{label}\": chunks of View \"{view}\" over a league of {}: {e}",
                bound.size
            ),
        }
    }
}

/// A chunk map the device mirrors (`chunk.cuh`), with the fields its
/// device struct holds.
///
/// ```
/// use granule_core::team::DeviceMap;
/// use granule_views::chunk::MapContinuousLinear;
/// assert_eq!(MapContinuousLinear::new(8).device_words(), [8]);
/// ```
///
/// # Safety
/// The device's map `DEVICE`, built from `device_words`, gives every
/// (local index, thread) exactly the global index this map gives on the
/// host (`backends/cuda/tests/cuda/chunk_maps.rs` checks the provided maps
/// element by element), so the device's parts are the host's disjoint
/// parts.
pub unsafe trait DeviceMap: ChunkMap + 'static {
    /// Which device map it is.
    const DEVICE: DeviceChunkMap;
    /// The device struct's fields, in order.
    fn device_words(&self) -> Vec<u64>;
}

// SAFETY: the header's MapContinuousLinear computes `t.id * width + k`
// for `k < width`, with the host's overflow checks.
unsafe impl DeviceMap for MapContinuousLinear {
    const DEVICE: DeviceChunkMap = DeviceChunkMap::ContinuousLinear;
    fn device_words(&self) -> Vec<u64> {
        vec![self.width() as u64]
    }
}

// SAFETY: the header's MapIdentity gives `k` in a scope of one thread
// and nothing otherwise, as `map` above does.
unsafe impl DeviceMap for MapIdentity {
    const DEVICE: DeviceChunkMap = DeviceChunkMap::Identity;
    fn device_words(&self) -> Vec<u64> {
        Vec::new()
    }
}

// SAFETY: the shared chunks hold the View's unique borrow for 'w (moved
// from `Chunked` by `share`); `covers` is the host parts' own check, and
// the device driver gives team `l` only the part the map gives rank `l`.
unsafe impl<'w, T, M, Sp, Run> DeviceWrites<LeagueIndex, Run>
    for SharedChunks<'w, T, M, GridToBlock, Sp>
where
    T: Element + DeviceValue,
    M: DeviceMap,
    Sp: MemorySpace + SameMemorySpace<Run>,
    Run: MemorySpace,
{
    type Outputs = TeamChunk<'static, T, M>;
    fn covers(&self, reach: &LeagueIndex) -> bool {
        reach.size <= self.threads()
    }
    fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>) {
        out.push(DeviceArg::Chunked(ChunkedArg {
            label: self.label(),
            address: self.data_address(),
            elem_size: std::mem::size_of::<T>(),
            len: self.len(),
            contiguous: self.is_contiguous(),
            map: M::DEVICE,
            map_words: self.map().device_words(),
        }));
    }
}
