//! A ScatterView as the written argument of a host `parallel_for`: the
//! dispatch finds the thread's copy once per leaf loop (a chunk of
//! indices on one thread) and hands every work item of it the same handle,
//! instead of each item looking its copy up.

use super::access::ScatterAccess;
use super::op::{ScatterOp, ScatterValue};
use super::ScatterView;
use granule_core::write::{WriteParts, Writes};
use granule_views::HostAccessible;

/// What a dispatch holds of a ScatterView passed as its written argument
/// (see [`ScatterView`]'s "As the written argument"); each work item gets
/// a [`ScatterAccess`].
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::scatter::{ScatterAccess, ScatterView};
/// let mut grid = View2::<f64>::zeros("grid", [2, 3])?;
/// let mut sv = ScatterView::<f64, 2>::for_view(&Serial, &grid)?;
/// parallel_for("deposit", RangePolicy::new(&Serial, 0..60), &sv, |i, a: ScatterAccess<'_, f64, 2>| {
///     a.add([i % 2, i % 3], 0.5);
/// });
/// sv.contribute_into(&mut grid)?;
/// assert_eq!(grid.to_vec(), vec![5.0; 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ScatterParts<'s, T: ScatterValue, const R: usize, Op: ScatterOp<T>, M: HostAccessible> {
    view: &'s ScatterView<T, R, Op, M>,
}

// SAFETY: a ScatterView shared borrowed for 's writes nothing outside its
// copies, so the parts need no unique borrow and cover every index.
unsafe impl<'s, T, const R: usize, Op, M> Writes<usize> for &'s ScatterView<T, R, Op, M>
where
    T: ScatterValue,
    Op: ScatterOp<T>,
    M: HostAccessible,
{
    type Parts = ScatterParts<'s, T, R, Op, M>;
    #[inline(always)]
    fn into_parts(self, _label: &str, _bound: usize) -> Self::Parts {
        ScatterParts { view: self }
    }
}

// SAFETY: the items are handles, not elements: they lend no reference and
// write only through the ScatterView's operation, a private copy with
// plain stores by its one claiming thread, the shared copy with atomics
// (see `claim.rs`). So items of different indices may share memory (a
// thread's items share its copy) without a race or an alias: items on
// one thread run one after another, items on two threads write two
// copies or atomics. A handle is neither Send nor Sync, so no driver can
// move it off the thread that looked its copy up. The handles borrow the
// ScatterView for 's, which the parts hold; `covers` is true for every
// reach because every handle checks its indices against the extents.
unsafe impl<T, const R: usize, Op, M> WriteParts<usize> for ScatterParts<'_, T, R, Op, M>
where
    T: ScatterValue,
    Op: ScatterOp<T>,
    M: HostAccessible,
{
    type Item<'a> = ScatterAccess<'a, T, R, Op>;

    #[inline(always)]
    fn covers(&self, _reach: &usize) -> bool {
        true
    }

    #[inline(always)]
    unsafe fn item<'a>(&self, _idx: usize) -> Self::Item<'a> {
        // SAFETY: the caller keeps the item within the parts' lifetime,
        // which the ScatterView's borrow outlives.
        unsafe { self.view.access().extend() }
    }

    #[inline(always)]
    unsafe fn for_each_item<'a, B>(&self, lo: usize, hi: usize, mut body: B)
    where
        B: FnMut(usize, Self::Item<'a>),
    {
        // SAFETY: as in `item`; the handle is this thread's, and so is
        // every copy of it handed to the items below.
        let handle: ScatterAccess<'a, T, R, Op> = unsafe { self.view.access().extend() };
        for i in lo..hi {
            body(i, handle.again())
        }
    }
}
