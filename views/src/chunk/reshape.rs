//! [`ReshapeMap`]: the run-time form of `reshape_map!`, a permutation of
//! local and thread dimensions with skips, holes, reversals and an offset.

use super::error::ChunkError;
use super::ids::ThreadIds;
use super::map::ChunkMap;
use std::fmt;

/// The most local (and, separately, thread) dimensions a [`ReshapeMap`] holds.
pub const MAX_RESHAPE_DIMS: usize = 8;

/// One dimension: `extent` (D) ids, laid out over `target` (TD) slots.
///
/// `target < extent` skips ids (those accesses are invalid); `target >
/// extent` leaves holes in the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    extent: usize,
    target: usize,
}

impl Dim {
    /// `D` ids over `D` slots.
    pub const fn new(extent: usize) -> Self {
        Dim {
            extent,
            target: extent,
        }
    }

    /// `(D, TD)`: `extent` ids over `target` slots.
    pub const fn pair(extent: usize, target: usize) -> Self {
        Dim { extent, target }
    }

    /// D, the logical extent.
    pub const fn extent(&self) -> usize {
        self.extent
    }

    /// TD, the extent in the target array.
    pub const fn target(&self) -> usize {
        self.target
    }
}

impl From<usize> for Dim {
    fn from(extent: usize) -> Self {
        Dim::new(extent)
    }
}

impl From<(usize, usize)> for Dim {
    fn from((extent, target): (usize, usize)) -> Self {
        Dim::pair(extent, target)
    }
}

/// One layout position: which dimension (local dims numbered first, then
/// thread dims) and whether its ids are reversed (`id -> TD - 1 - id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutEntry {
    dim: usize,
    reversed: bool,
}

impl LayoutEntry {
    /// Dimension `dim`, reversed or not.
    pub const fn new(dim: usize, reversed: bool) -> Self {
        LayoutEntry { dim, reversed }
    }

    /// The dimension's number.
    pub const fn dim(&self) -> usize {
        self.dim
    }

    /// Whether it is reversed.
    pub const fn reversed(&self) -> bool {
        self.reversed
    }
}

const SLOTS: usize = 2 * MAX_RESHAPE_DIMS;

/// A permutation of local and thread dimensions, usually written with
/// `reshape_map!` (see the chunk module's docs for the syntax).
///
/// A linear local index k is split into ids (i0, i1, ..) by the local
/// extents D (i0 fastest), the thread's linear id g likewise by the thread
/// extents; anything left over, or an id at or above its TD, makes the
/// access invalid. Otherwise the global index is
///
/// ```text
/// offset + sum over layout positions p of id'(layout[p]) * prod_{q<p} TD(layout[q])
/// ```
///
/// where id' is the id, reversed if the entry is. [`ReshapeMap::new`]
/// checks what the macro cannot: zero extents, a layout that is not a
/// permutation, overflow.
///
/// Owner of each element, 3 locals and 4 threads, `layout: [i0, t0]`:
/// ```
/// use granule_views::chunk::{owner_table, Dim, LayoutEntry, ReshapeMap};
/// let map = ReshapeMap::new(&[Dim::new(3)], &[Dim::new(4)], &[LayoutEntry::new(0, false), LayoutEntry::new(1, false)], 0)?;
/// let owners: Vec<usize> = owner_table(map, 4, 3, 12).into_iter().flatten().collect();
/// assert_eq!(owners, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ReshapeMap {
    dims: [Dim; SLOTS],
    n_local: usize,
    n_thread: usize,
    layout: [LayoutEntry; SLOTS],
    stride: [usize; SLOTS],
    rev: [bool; SLOTS],
    offset: usize,
    span: usize,
}

impl ReshapeMap {
    /// A map of `local` and `thread` dims (lowest first) laid out in the
    /// order `layout` (lowest first; local dims numbered first), shifted by
    /// `offset`.
    pub fn new(
        local: &[Dim],
        thread: &[Dim],
        layout: &[LayoutEntry],
        offset: usize,
    ) -> Result<Self, ChunkError> {
        check_side("local", local)?;
        check_side("thread", thread)?;
        // `locals` and `threads` report these products; refusing maps whose
        // counts do not fit keeps them exact (no such map could be used whole).
        count(local, "reshape local extent product (locals per thread)")?;
        count(thread, "reshape thread extent product (threads placed)")?;
        let total = local.len() + thread.len();
        check_layout(layout, total)?;
        let mut map = ReshapeMap {
            dims: [Dim::new(1); SLOTS],
            n_local: local.len(),
            n_thread: thread.len(),
            layout: [LayoutEntry::default(); SLOTS],
            stride: [0; SLOTS],
            rev: [false; SLOTS],
            offset,
            span: 0,
        };
        map.dims[..local.len()].copy_from_slice(local);
        map.dims[local.len()..total].copy_from_slice(thread);
        map.layout[..total].copy_from_slice(layout);
        map.span = map
            .fill_strides()?
            .checked_add(offset)
            .ok_or(ChunkError::Overflow {
                what: "reshape offset + extent",
            })?;
        Ok(map)
    }

    /// Strides and reversal flags per dim from the layout; returns the product of all TD.
    fn fill_strides(&mut self) -> Result<usize, ChunkError> {
        let mut acc = 1usize;
        for p in 0..self.n_local + self.n_thread {
            let dim = self.layout[p].dim;
            self.stride[dim] = acc;
            self.rev[dim] = self.layout[p].reversed;
            acc = acc
                .checked_mul(self.dims[dim].target)
                .ok_or(ChunkError::Overflow {
                    what: "reshape target extent",
                })?;
        }
        Ok(acc)
    }

    /// The local dims.
    pub fn local_dims(&self) -> &[Dim] {
        &self.dims[..self.n_local]
    }

    /// The thread dims.
    pub fn thread_dims(&self) -> &[Dim] {
        &self.dims[self.n_local..self.n_local + self.n_thread]
    }

    /// The layout, lowest position first.
    pub fn layout(&self) -> &[LayoutEntry] {
        &self.layout[..self.n_local + self.n_thread]
    }

    /// The offset added to every global index.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// One past the largest global index: `offset + prod TD`.
    pub fn span(&self) -> usize {
        self.span
    }

    /// Local indices a thread may use: the product of the local extents D
    /// (checked to fit by [`ReshapeMap::new`]).
    pub fn locals(&self) -> usize {
        self.local_dims().iter().map(|d| d.extent).product()
    }

    /// Threads the map places: the product of the thread extents D
    /// (checked to fit by [`ReshapeMap::new`]).
    pub fn threads(&self) -> usize {
        self.thread_dims().iter().map(|d| d.extent).product()
    }

    /// Adds the terms of `linear` split over dims `range`; `None` if an id
    /// is skipped or something is left over.
    #[inline]
    fn place(
        &self,
        mut linear: usize,
        range: std::ops::Range<usize>,
        mut acc: usize,
    ) -> Option<usize> {
        for j in range {
            let Dim { extent, target } = self.dims[j];
            let id = linear % extent;
            linear /= extent;
            if id >= target {
                return None;
            }
            let id = if self.rev[j] { target - 1 - id } else { id };
            // id < TD, so the terms form a mixed-radix number below
            // prod TD, and offset + prod TD fits (checked in `new`).
            acc += id * self.stride[j];
        }
        (linear == 0).then_some(acc)
    }
}

/// Shows the map as `reshape_map!` would write it.
impl fmt::Debug for ReshapeMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = |d: &[Dim]| {
            let parts: Vec<String> = d
                .iter()
                .map(|d| match d.extent == d.target {
                    true => d.extent.to_string(),
                    false => format!("({}, {})", d.extent, d.target),
                })
                .collect();
            parts.join(", ")
        };
        let entries: Vec<String> = self
            .layout()
            .iter()
            .map(|e| {
                let sign = if e.reversed { "-" } else { "" };
                match e.dim < self.n_local {
                    true => format!("{sign}i{}", e.dim),
                    false => format!("{sign}t{}", e.dim - self.n_local),
                }
            })
            .collect();
        write!(
            f,
            "ReshapeMap([{}] | [{}] => layout: [{}], offset: {})",
            dims(self.local_dims()),
            dims(self.thread_dims()),
            entries.join(", "),
            self.offset
        )
    }
}

fn check_side(side: &'static str, dims: &[Dim]) -> Result<(), ChunkError> {
    if dims.is_empty() || dims.len() > MAX_RESHAPE_DIMS {
        return Err(ChunkError::DimCount {
            side,
            count: dims.len(),
            max: MAX_RESHAPE_DIMS,
        });
    }
    match dims.iter().position(|d| d.extent == 0 || d.target == 0) {
        Some(dim) => Err(ChunkError::ZeroExtent { side, dim }),
        None => Ok(()),
    }
}

/// The product of the extents D of one side, or which product overflows.
fn count(dims: &[Dim], what: &'static str) -> Result<usize, ChunkError> {
    dims.iter()
        .try_fold(1usize, |a, d| a.checked_mul(d.extent))
        .ok_or(ChunkError::Overflow { what })
}

fn check_layout(layout: &[LayoutEntry], total: usize) -> Result<(), ChunkError> {
    if layout.len() != total {
        let reason = format!("{} entries for {total} dimensions", layout.len());
        return Err(ChunkError::BadLayout { reason });
    }
    let mut seen = [false; SLOTS];
    for e in layout {
        if e.dim >= total {
            return Err(ChunkError::BadLayout {
                reason: format!("entry {} is out of range 0..{total}", e.dim),
            });
        }
        if std::mem::replace(&mut seen[e.dim], true) {
            return Err(ChunkError::BadLayout {
                reason: format!("entry {} is repeated", e.dim),
            });
        }
    }
    Ok(())
}

// SAFETY: `new` checked that the layout is a permutation of all dims and
// that offset + prod TD fits in usize. Splitting k (and g) by the extents D
// is injective on the accesses with nothing left over; valid ids satisfy
// id < TD, reversal is a bijection of [0, TD), and the sum is a mixed-radix
// number with radices TD in layout order, hence injective in the full id
// vector, below prod TD, so nothing overflows. check has no precondition:
// threads past the product of the thread extents are invalid.
unsafe impl ChunkMap for ReshapeMap {
    type Local = usize;

    #[inline]
    fn map(&self, k: usize, t: &ThreadIds) -> Option<usize> {
        let acc = self.place(k, 0..self.n_local, self.offset)?;
        self.place(
            t.linear_id(),
            self.n_local..self.n_local + self.n_thread,
            acc,
        )
    }

    fn check(&self, _dims: [usize; 3]) -> Result<(), ChunkError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(usize, bool)]) -> Vec<LayoutEntry> {
        list.iter().map(|&(d, r)| LayoutEntry::new(d, r)).collect()
    }

    #[test]
    fn invalid_construction_is_a_typed_error() {
        let l = entries(&[(0, false), (1, false)]);
        let zero = ReshapeMap::new(&[Dim::new(0)], &[Dim::new(2)], &l, 0);
        assert_eq!(
            zero,
            Err(ChunkError::ZeroExtent {
                side: "local",
                dim: 0
            })
        );
        let zero_target = ReshapeMap::new(&[Dim::new(2)], &[Dim::pair(2, 0)], &l, 0);
        assert_eq!(
            zero_target,
            Err(ChunkError::ZeroExtent {
                side: "thread",
                dim: 0
            })
        );
        assert!(matches!(
            ReshapeMap::new(&[], &[Dim::new(2)], &l, 0),
            Err(ChunkError::DimCount { .. })
        ));
        let repeated = entries(&[(0, false), (0, true)]);
        assert!(matches!(
            ReshapeMap::new(&[Dim::new(2)], &[Dim::new(2)], &repeated, 0),
            Err(ChunkError::BadLayout { .. })
        ));
        let short = entries(&[(0, false)]);
        assert!(matches!(
            ReshapeMap::new(&[Dim::new(2)], &[Dim::new(2)], &short, 0),
            Err(ChunkError::BadLayout { .. })
        ));
        let overflow = ReshapeMap::new(&[Dim::new(2)], &[Dim::new(2)], &l, usize::MAX);
        assert!(matches!(overflow, Err(ChunkError::Overflow { .. })));
    }

    /// Skipping dims (`(D, 1)`) keep the target span small while the
    /// products that `locals` and `threads` report overflow: refused.
    #[test]
    fn extent_products_that_overflow_are_refused() {
        let huge = Dim::pair(1 << 40, 1);
        let l3 = entries(&[(0, false), (1, false), (2, false)]);
        let locals = ReshapeMap::new(&[huge, huge], &[Dim::new(2)], &l3, 0);
        assert_eq!(
            locals,
            Err(ChunkError::Overflow {
                what: "reshape local extent product (locals per thread)"
            })
        );
        let threads = ReshapeMap::new(&[Dim::new(2)], &[huge, huge], &l3, 0);
        assert!(
            matches!(threads, Err(ChunkError::Overflow { what }) if what.contains("thread")),
            "{threads:?}"
        );
        let fits = ReshapeMap::new(&[huge], &[Dim::new(2)], &l3[..2], 0).unwrap();
        assert_eq!((fits.locals(), fits.span()), (1 << 40, 2));
    }

    #[test]
    fn leftover_locals_and_threads_are_invalid() {
        let m = ReshapeMap::new(
            &[Dim::new(3)],
            &[Dim::new(2)],
            &entries(&[(0, false), (1, false)]),
            10,
        )
        .unwrap();
        let t = |g| ThreadIds::linear(3, g).unwrap();
        assert_eq!(m.map(2, &t(1)), Some(15));
        assert_eq!(m.map(3, &t(0)), None);
        assert_eq!(m.map(0, &t(2)), None);
        assert_eq!((m.span(), m.locals(), m.threads()), (16, 3, 2));
    }

    #[test]
    fn debug_reads_like_the_macro() {
        let l = entries(&[(1, true), (0, false), (2, false)]);
        let m = ReshapeMap::new(&[Dim::pair(3, 4)], &[Dim::new(2), Dim::new(2)], &l, 1).unwrap();
        assert_eq!(
            format!("{m:?}"),
            "ReshapeMap([(3, 4)] | [2, 2] => layout: [-t0, i0, t1], offset: 1)"
        );
    }
}
