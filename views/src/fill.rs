//! `fill`: setting every element of a View to one value, in any memory
//! space (Kokkos's `deep_copy(view, value)`).

use crate::error::{Result, ViewError};
use crate::layout::Layout;
use crate::space::SpaceFill;
use crate::storage::StorageMut;
use crate::view::ViewBase;

/// Sets every element of `view` to `value`, in whatever memory space the
/// View lives (Kokkos's `deep_copy(view, value)`). Host Views can also
/// use [`ViewBase::fill`], which cannot fail. On a device the fill is
/// queued like a kernel: it returns before it has run, and whatever
/// reads the View next on that device, or copies it out, runs after it.
///
/// # Errors
/// [`ViewError::Fill`], naming the View, when the space cannot write it
/// (a device that was lost, a launch refused).
///
/// ```
/// use granule_views::{fill, View2, ALL};
/// let mut f = View2::<f64>::from_fn("f", [3, 2], |[i, k]| (i + k) as f64)?;
/// fill(&mut f.subview_mut((ALL, 1))?, -1.0)?; // a column: strided
/// assert_eq!(f.to_vec(), [0.0, -1.0, 1.0, -1.0, 2.0, -1.0]);
/// fill(&mut f, 0.0)?;
/// assert_eq!(f.to_vec(), [0.0; 6]);
/// # Ok::<(), granule_views::ViewError>(())
/// ```
#[doc(alias = "deep_copy")]
pub fn fill<S, const R: usize, L>(view: &mut ViewBase<S, R, L>, value: S::Elem) -> Result<()>
where
    S: StorageMut,
    S::Space: SpaceFill<S::Elem>,
    L: Layout,
{
    if view.size() == 0 {
        return Ok(());
    }
    let map = *view.mapping();
    let space = view.space().clone();
    let dst = view.as_mut_ptr();
    // SAFETY: `dst` is valid for writing at every offset of the View's
    // mapping (Storage contract), and `view` is borrowed uniquely for the
    // call, so nothing else reaches those elements.
    unsafe { space.fill_mapped(view.label(), dst, &map, value) }.map_err(|reason| ViewError::Fill {
        label: view.label().into(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::fill;
    use crate::space::foreign::Foreign;
    use crate::{deep_copy, LayoutLeft, View, View1, View3, ALL};

    #[test]
    fn every_layout_and_subview_gets_the_value_and_nothing_else() {
        let mut a = View3::<i32, LayoutLeft>::from_fn("a", [3, 4, 2], |[i, j, k]| {
            (100 * i + 10 * j + k) as i32
        })
        .unwrap();
        fill(&mut a.subview_mut((1..3, ALL, 1)).unwrap(), -7).unwrap();
        a.for_each(|[i, j, k], &v| {
            let want = if (1..3).contains(&i) && k == 1 {
                -7
            } else {
                (100 * i + 10 * j + k) as i32
            };
            assert_eq!(v, want, "at {:?}", [i, j, k]);
        });
        fill(&mut a, 5).unwrap();
        assert!(a.to_vec().iter().all(|&v| v == 5));
    }

    #[test]
    fn a_foreign_space_fills_through_its_own_trait() {
        let mut d = View::<u16, 2, LayoutLeft, Foreign>::zeros_in(Foreign, "d", [3, 5]).unwrap();
        fill(&mut d.subview_mut((ALL, 1..4)).unwrap(), 9).unwrap();
        let mut back = View::<u16, 2, LayoutLeft>::zeros("back", [3, 5]).unwrap();
        deep_copy(&mut back, &d).unwrap();
        back.for_each(|[_, j], &v| assert_eq!(v, if (1..4).contains(&j) { 9 } else { 0 }));
    }

    #[test]
    fn an_empty_view_is_left_alone() {
        let mut e = View1::<f64>::zeros("e", 0).unwrap();
        fill(&mut e, 1.0).unwrap();
        assert_eq!(e.size(), 0);
    }
}
