//! `reshape_map!`: a declarative front for the procedural macro in
//! granule-macros, passing it this crate's path (`$crate`) so that the
//! expansion resolves from any crate, through any re-export.

/// A [`ReshapeMap`](crate::chunk::ReshapeMap) written as in the
/// specification, checked at compile time; evaluates to
/// `Result<ReshapeMap, ChunkError>` (zero extents are found at run time).
///
/// ```text
/// reshape_map!([local dims] | [thread dims] => layout: [entries], offset: expr)
/// ```
///
/// - A dim is `D` or `(D, TD)`; both are `usize` expressions, evaluated at
///   run time.
/// - Layout entries name local dims `i0, i1, ..` and thread dims `t0, t1, ..`,
///   or number them (locals first: with N local dims, `N` is `t0`), lowest
///   (fastest in memory) first; a leading `-` reverses one (`-0` too).
///   Without `layout:` the order is `i0, i1, .., t0, t1, ..`.
/// - `offset:` (default 0) is added to every global index.
///
/// Compile errors: an entry out of range, a repeated entry, a dimension the
/// layout leaves out, no local dims, no thread dims.
///
/// ```
/// use granule_views::chunk::owner_table;
/// use granule_views::reshape_map;
/// let n = 2;
/// let map = reshape_map!([3] | [n, (n, 1)] => layout: [i0, -t0, t1])?;
/// let owners = owner_table(map, 4, 3, 6);
/// assert_eq!(owners, [1, 1, 1, 0, 0, 0].map(Some));
/// let same = reshape_map!([3] | [2, (2, 1)] => layout: [0, -1, 2], offset: 0)?;
/// assert_eq!(same, map);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
///
/// A layout entry out of range does not compile:
/// ```compile_fail
/// let map = granule_views::reshape_map!([3] | [4] => layout: [i0, t1]);
/// ```
#[macro_export]
macro_rules! reshape_map {
    ($($spec:tt)*) => {
        $crate::chunk::__private::reshape_map_with_crate!($crate; $($spec)*)
    };
}
