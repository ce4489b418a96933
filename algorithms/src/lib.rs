//! # granule-algorithms
//!
//! Scans, stream compaction, reductions, searches ([`find`](mod@find)), element-wise
//! maps and reorderings ([`transform`](mod@transform)) and sorts over rank-1 Views (the
//! standard algorithms Kokkos ships), and the sparse matrix-vector
//! product ([`sparse`]), with one API on every
//! execution space: each algorithm takes the space, then
//! Views in the space's memory (any layout, strided ones included), like
//! the patterns. Operators are granule's reducers ([`Sum`], [`Min`],
//! [`BOr`], tuples of them, or your own [`Reducer`]); per-element user
//! code (predicates, transforms, comparators) is a
//! [`UnaryFunctor`](granule_core::functor::UnaryFunctor) or
//! [`BinaryFunctor`](granule_core::functor::BinaryFunctor), which closures
//! implement.
//!
//! ```
//! use granule::prelude::*;
//! use granule::algorithms::{copy_if, exclusive_scan, reduce, sort};
//!
//! let space = Rayon::new(2)?;
//! let mem = space.memory_space();
//! let x = View1::<i64, LayoutRight, _>::from_fn_in(mem.clone(), "x", 10, |i| (i as i64 * 7) % 5)?;
//! let mut y = View1::<i64, LayoutRight, _>::zeros_in(mem.clone(), "y", 10)?;
//! let total = exclusive_scan(&space, &x, &mut y, Sum, None)?;
//! assert_eq!(total, reduce(&space, &x, Sum, None));
//!
//! let kept = copy_if(&space, &x, &mut y, |v: i64| v != 0)?;        // stream compaction
//! assert_eq!(kept, 8);
//! sort(&space, &mut y)?;                                             // radix sort
//! assert_eq!(create_mirror_view_and_copy(&y)?.to_vec()[..8], [1, 1, 2, 2, 3, 3, 4, 4]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Per-element user code that must also run on Cuda is a `#[kernel]`
//! *element function*: a `#[kernel] fn` that returns a value, whose first
//! parameter is the element (the first two with `#[kernel(binary)]`, for
//! a comparator) and whose other parameters are captured, so that
//! `above(0.5)` below is the predicate "x > 0.5". It runs as it is on the
//! host spaces and is translated to CUDA C++ for Cuda, where a closure is
//! a compile error that says to write one. The same program runs on every
//! space:
//!
//! ```
//! use granule::prelude::*;
//! use granule::algorithms::{copy_if, count_if, sort_by};
//!
//! #[kernel]
//! fn above(x: f64, threshold: f64) -> bool {
//!     x > threshold
//! }
//!
//! #[kernel(binary)]
//! fn by_magnitude(a: f64, b: f64) -> bool {
//!     a.abs() < b.abs()
//! }
//!
//! let space = DefaultExecutionSpace::default();
//! let mem = space.memory_space();
//! let x = View1::<f64, LayoutRight, _>::from_fn_in(mem.clone(), "x", 8, |i| i as f64 / 8.0 - 0.2)?;
//! let mut y = View1::<f64, LayoutRight, _>::zeros_in(mem, "y", 8)?;
//! assert_eq!(count_if(&space, &x, above(0.5)), 2);
//! let kept = copy_if(&space, &x, &mut y, above(0.0))?;
//! sort_by(&space, &mut y, by_magnitude())?;
//! assert_eq!((kept, create_mirror_view_and_copy(&y)?.to_vec()[0]), (6, 0.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Each family is a module with its entry points and the trait a space
//! implements to run them ([`scan::ScanImpl`], [`compact::CompactImpl`],
//! [`reduce::ReduceImpl`] (which the searches use too),
//! [`transform::MapImpl`], [`sort::SortImpl`], [`sparse::SpmvImpl`]);
//! the host implementations (Serial and Rayon) sit in each module's
//! `host.rs` or `host/` folder (`radix_host/`, `merge_host.rs`), the Cuda
//! ones (with the `cuda` feature) in its `cuda.rs` (`radix_cuda.rs`,
//! `merge_cuda.rs`), whose device drivers are the family's `.cuh` files
//! (`sparse`'s are `#[kernel]`s).
//! A space without an implementation for the types given is a compile
//! error naming the missing trait, never a run-time failure.
//!
//! Fallible calls return [`AlgorithmError`] before anything is written:
//! Views whose lengths must match and do not, outputs too short, counts
//! past a View's end.
//!
//! [`Sum`]: granule_core::reducer::Sum
//! [`Min`]: granule_core::reducer::Min
//! [`BOr`]: granule_core::reducer::BOr
//! [`Reducer`]: granule_core::reducer::Reducer

pub mod compact;
#[cfg(feature = "cuda")]
mod device;
mod error;
pub mod find;
mod host;
pub mod io;
mod portable;
pub mod reduce;
pub mod scan;
pub mod sort;
pub mod sparse;
pub mod transform;

pub use compact::{
    compact_by_flags, copy_if, copy_if_counted, partition_copy, partition_copy_counted, remove,
    remove_copy, remove_copy_if, remove_if, unique, unique_copy,
};
#[cfg(feature = "cuda")]
pub use device::DeviceElement;
pub use error::AlgorithmError;
pub use find::{
    adjacent_find, adjacent_find_by, count, find, find_end, find_end_by, find_first_of,
    find_first_of_by, find_if, find_if_not, is_partitioned, is_sorted_until, is_sorted_until_by,
    lexicographical_compare, lexicographical_compare_by, mismatch, mismatch_by, partition_point,
    search, search_by, search_n, search_n_by,
};
pub use portable::PortableAlgorithms;
pub use reduce::{
    all_of, any_of, count_if, equal, max_element, min_element, minmax_element, none_of, reduce,
    transform_reduce, MinMaxElement,
};
pub use scan::{
    exclusive_scan, exclusive_scan_in_place, inclusive_scan, inclusive_scan_in_place,
    transform_exclusive_scan, transform_inclusive_scan, Identity,
};
pub use sort::{is_sorted, is_sorted_by, release_scratch, sort, sort_by, sort_by_key, RadixKey};
pub use sparse::{spmv, CrsMatrix};
pub use transform::{
    adjacent_difference, adjacent_difference_by, copy, copy_backward, copy_n, fill, fill_n,
    for_each, for_each_n, generate, generate_n, iter_swap, move_backward, r#move, replace,
    replace_copy, replace_copy_if, replace_if, reverse, reverse_copy, rotate, rotate_copy,
    shift_left, shift_right, swap_ranges, transform, transform_binary,
};
