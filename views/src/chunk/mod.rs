//! Chunk maps: layouts that give each thread of a scope its own elements.
//!
//! A chunk map is a pure function `map(local, thread ids) -> Option<global>`
//! with an injectivity contract ([`ChunkMap`]): two threads never reach the
//! same element. Writes go through chunks built on maps, so parallel writes
//! are race-free by construction. See `README.md` in this folder for how the
//! pieces fit together.
//!
//! - Scopes ([`GridToBlock`] and the others) and thread ids:
//!   [`Scope`], [`Chain`], [`ThreadIds`], [`ScopedIds`], [`MockScope`].
//! - The trait: [`ChunkMap`]; maps: [`MapLinear`], [`MapContinuousLinear`],
//!   [`Map2D`], [`ReshapeMap`] (and [`reshape_map!`](crate::reshape_map)),
//!   [`Nested`].
//! - Chunks of a View: [`ViewBase::chunk`](crate::ViewBase::chunk) ->
//!   [`ChunkRef`]; [`ViewBase::chunk_mut`](crate::ViewBase::chunk_mut) ->
//!   [`ChunkMut`]; [`ViewBase::chunked`](crate::ViewBase::chunked) ->
//!   [`Chunked`] -> [`SharedChunks`] for parallel code.
//! - Evidence: [`owner_table`], [`owners`].
//!
//! ```
//! use granule_views::chunk::{owner_table, MapLinear};
//! use granule_views::reshape_map;
//! assert_eq!(owner_table(MapLinear::new(1), 4, 2, 8), [0, 1, 2, 3, 0, 1, 2, 3].map(Some));
//! let map = reshape_map!([(3, 4)] | [2, 2] => layout: [i0, t0, t1])?;
//! let owners = owner_table(map, 4, 3, 12);
//! assert_eq!(owners[..4], [Some(0), Some(0), Some(0), None]);
//! # Ok::<(), granule_views::chunk::ChunkError>(())
//! ```

mod chunked;
mod continuous;
mod elems;
mod error;
mod ids;
mod linear;
mod macros;
mod map;
mod map2d;
mod owner;
mod part;
mod read;
mod reshape;
mod scope;
mod shared;

pub use chunked::Chunked;
pub use continuous::MapContinuousLinear;
pub use error::ChunkError;
pub use ids::{MockScope, ScopedIds, ThreadIds};
pub use linear::MapLinear;
pub use map::{ChunkMap, Nested};
pub use map2d::Map2D;
pub use owner::{owner_table, owners};
pub use part::{ChunkMut, SubChunkMut};
pub use read::{ChunkRef, SubChunkRef};
pub use reshape::{Dim, LayoutEntry, ReshapeMap, MAX_RESHAPE_DIMS};
pub use scope::{
    Block, BlockToThread, BlockToWarp, Chain, Context, Follows, Grid, GridToBlock, GridToThread,
    GridToWarp, Level, Scope, Thread, Top, Warp, WarpToThread,
};
pub use shared::SharedChunks;

pub use crate::reshape_map;

#[doc(hidden)]
pub mod __private {
    pub use granule_macros::reshape_map_with_crate;
}

#[cfg(test)]
mod tests;
