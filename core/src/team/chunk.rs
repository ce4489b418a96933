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
use crate::write::{WriteParts, Writes};
use granule_views::chunk::{
    ChunkError, ChunkMap, ChunkMut, Chunked, GridToBlock, SharedChunks, ThreadIds, Top,
};
use granule_views::Pod;

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
unsafe impl<'w, T: Pod, M: ChunkMap> WriteParts<LeagueIndex>
    for SharedChunks<'w, T, M, GridToBlock>
{
    type Item<'a> = ChunkMut<'a, T, M, GridToBlock>;

    #[inline]
    fn covers(&self, reach: &LeagueIndex) -> bool {
        reach.size <= self.threads()
    }

    #[inline]
    unsafe fn item<'a>(&self, idx: LeagueIndex) -> Self::Item<'a> {
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
unsafe impl<'w, T: Pod, M: ChunkMap> Writes<LeagueIndex> for Chunked<'w, T, M, Top> {
    type Parts = SharedChunks<'w, T, M, GridToBlock>;

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
