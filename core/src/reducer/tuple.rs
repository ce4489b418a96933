//! Several reductions in one pass: a tuple of reducers reduces a tuple of
//! values.
//!
//! ```
//! use granule_core::prelude::*;
//! let x = [3.0, -2.0, 5.0];
//! let (s, m): (f64, f64) = parallel_reduce("sum+max", RangePolicy::new(&Serial, 0..3), (Sum, Max),
//!     |i, acc: &mut (f64, f64)| { acc.0 += x[i]; acc.1 = acc.1.max(x[i]) });
//! assert_eq!((s, m), (6.0, 5.0));
//! ```

use super::Reducer;

macro_rules! tuple_reducer {
    ($(($r:ident, $t:ident, $i:tt)),+) => {
        impl<$($t, $r: Reducer<$t>),+> Reducer<($($t,)+)> for ($($r,)+) {
            #[inline(always)]
            fn init(&self) -> ($($t,)+) {
                ($(self.$i.init(),)+)
            }
            #[inline(always)]
            fn join(&self, dst: &mut ($($t,)+), src: &($($t,)+)) {
                $(self.$i.join(&mut dst.$i, &src.$i);)+
            }
            #[inline(always)]
            fn finalize(&self, value: &mut ($($t,)+)) {
                $(self.$i.finalize(&mut value.$i);)+
            }
            #[inline(always)]
            fn is_exact(&self) -> bool {
                $(self.$i.is_exact())&&+
            }
        }
    };
}
tuple_reducer!((R0, T0, 0));
tuple_reducer!((R0, T0, 0), (R1, T1, 1));
tuple_reducer!((R0, T0, 0), (R1, T1, 1), (R2, T2, 2));
tuple_reducer!((R0, T0, 0), (R1, T1, 1), (R2, T2, 2), (R3, T3, 3));
tuple_reducer!(
    (R0, T0, 0),
    (R1, T1, 1),
    (R2, T2, 2),
    (R3, T3, 3),
    (R4, T4, 4)
);
tuple_reducer!(
    (R0, T0, 0),
    (R1, T1, 1),
    (R2, T2, 2),
    (R3, T3, 3),
    (R4, T4, 4),
    (R5, T5, 5)
);
