//! Where `parallel_reduce_into` puts a result: a scalar or a View.

use granule_views::storage::StorageMut;
use granule_views::{HostSpace, Layout, SpaceCopy, ViewBase};

/// A place for a reduction result: `&mut T`, or a rank-1 View (element 0
/// gets the value), or a tuple of those for a tuple of results.
///
/// ```
/// use granule_core::prelude::*;
/// let mut r = View1::<f64>::zeros("r", 1).unwrap();
/// let mut count = 0usize;
/// parallel_reduce_into("n", RangePolicy::new(&Serial, 0..4), (Sum, Sum), |i, acc: &mut (f64, usize)| { acc.0 += i as f64; acc.1 += 1 }, (&mut r, &mut count));
/// assert_eq!((r[0], count), (6.0, 4));
/// ```
pub trait ReduceTarget<T> {
    /// Stores the result.
    fn store(self, value: T);
}

macro_rules! scalar_target {
    ($($t:ty),*) => { $(
        impl ReduceTarget<$t> for &mut $t {
            fn store(self, value: $t) { *self = value }
        }
    )* };
}
scalar_target!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool);

impl<T, I> ReduceTarget<super::ValLocScalar<T, I>> for &mut super::ValLocScalar<T, I> {
    fn store(self, value: super::ValLocScalar<T, I>) {
        *self = value
    }
}
impl<T> ReduceTarget<super::MinMaxScalar<T>> for &mut super::MinMaxScalar<T> {
    fn store(self, value: super::MinMaxScalar<T>) {
        *self = value
    }
}
impl<T, I> ReduceTarget<super::MinMaxLocScalar<T, I>> for &mut super::MinMaxLocScalar<T, I> {
    fn store(self, value: super::MinMaxLocScalar<T, I>) {
        *self = value
    }
}

/// Element 0 of a rank-1 View in any memory space the host can copy to
/// (a device View gets the value by a one-element copy).
impl<S, L> ReduceTarget<S::Elem> for &mut ViewBase<S, 1, L>
where
    S: StorageMut,
    S::Space: SpaceCopy<HostSpace>,
    L: Layout,
{
    #[track_caller]
    fn store(self, value: S::Elem) {
        if self.extent(0) == 0 {
            panic!(
                "reduction result View \"{}\" has extent 0; it needs one element",
                self.label()
            );
        }
        let dst = self.as_mut_ptr();
        // SAFETY: the View has element 0 at its base pointer, valid for
        // writing in its space while `self` is borrowed uniquely; the
        // source is one local value, which cannot overlap it.
        let copied = unsafe { self.space().copy_contiguous(dst, &HostSpace, &value, 1) };
        if let Err(e) = copied {
            panic!(
                "storing the reduction result into View \"{}\": {e}",
                self.label()
            );
        }
    }
}

macro_rules! tuple_target {
    ($(($d:ident, $t:ident, $i:tt)),+) => {
        impl<$($t, $d: ReduceTarget<$t>),+> ReduceTarget<($($t,)+)> for ($($d,)+) {
            fn store(self, value: ($($t,)+)) {
                $(self.$i.store(value.$i);)+
            }
        }
    };
}
tuple_target!((D0, T0, 0), (D1, T1, 1));
tuple_target!((D0, T0, 0), (D1, T1, 1), (D2, T2, 2));
tuple_target!((D0, T0, 0), (D1, T1, 1), (D2, T2, 2), (D3, T3, 3));
