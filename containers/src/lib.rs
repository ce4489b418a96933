//! Kokkos's containers on every execution space (Serial, Rayon, Cuda):
//! the pieces Kokkos users reach for once their code leaves the
//! tutorials. Each keeps granule's write model: nothing here lets safe
//! code race or alias.

pub mod dual_view;

pub use dual_view::{DualView, DualViewError, Side};

pub mod unordered_map;

pub use unordered_map::{
    InsertResult, InsertStatus, MapError, MapInserter, MapKey, SetInserter, UnorderedMap,
    UnorderedSet, INVALID_INDEX,
};

pub mod random;

pub mod scatter;

pub use scatter::{ScatterStrategy, ScatterView};

pub mod unique_token;

pub use unique_token::{RowGuard, TokenError, TokenGuard, TokenRows, UniqueToken};
