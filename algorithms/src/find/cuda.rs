//! The searches on Cuda: the reductions' drivers (`reduce.cuh`'s
//! `reduce_view` and `reduce_pairs`), one launch per call, with each
//! adapter's candidate index as a fixed C++ expression around the user's
//! `#[kernel]` element function, if any.

use super::adapt::{
    CountEq, FirstAdjacent, FirstDescent, FirstEq, FirstIf, FirstIfNot, FirstMismatch, LexOrder,
    PartialEqual, PartitionEnds,
};
use crate::device::{element_use, DeviceElement};
use crate::reduce::cuda::{pairs_driver, reduce_driver, sealed, CudaPairMap, CudaReduceMap};
use crate::sort::PartialLess;
use granule_cuda::codegen::driver::{DeviceDriver, ElementUse};
use granule_cuda::kernel::DeviceElementFn;
use granule_cuda::{CudaSpace, DriverLaunch};

reduce_driver!(
    FIND_IF,
    "find_if",
    ["T"],
    "granule::usize",
    &[1],
    "[&](granule::u64 i, const T& v) { return f0(v) ? (granule::usize)i : ~(granule::usize)0; }"
);
reduce_driver!(
    FIND_IF_NOT,
    "find_if_not",
    ["T"],
    "granule::usize",
    &[1],
    "[&](granule::u64 i, const T& v) { return f0(v) ? ~(granule::usize)0 : (granule::usize)i; }"
);
reduce_driver!(
    FIND,
    "find",
    ["T"],
    "granule::usize",
    &[],
    ["value": "T"],
    "[&](granule::u64 i, const T& v) { return v == value ? (granule::usize)i : ~(granule::usize)0; }"
);
reduce_driver!(
    COUNT,
    "count",
    ["T"],
    "granule::usize",
    &[],
    ["value": "T"],
    "[&](granule::u64, const T& v) { return (granule::usize)(v == value ? 1u : 0u); }"
);
reduce_driver!(
    PARTITION_ENDS,
    "partition_ends",
    ["T"],
    "granule::Tuple<granule::usize, granule::usize>",
    &[1],
    "[&](granule::u64 i, const T& v) {
       granule::Tuple<granule::usize, granule::usize> r;
       const bool in = f0(v);
       r.head = in ? (granule::usize)i + 1u : 0u;
       r.tail.head = in ? ~(granule::usize)0 : (granule::usize)i;
       return r;
     }"
);

pairs_driver!(
    MISMATCH,
    "mismatch",
    "granule::usize",
    &[],
    "[&](granule::u64 i, const T& a, const T& b) { return a == b ? ~(granule::usize)0 : (granule::usize)i; }"
);
pairs_driver!(
    MISMATCH_BY,
    "mismatch_by",
    "granule::usize",
    &[2],
    "[&](granule::u64 i, const T& a, const T& b) { return f0(a, b) ? ~(granule::usize)0 : (granule::usize)i; }"
);
pairs_driver!(
    ADJACENT,
    "adjacent_find",
    "granule::usize",
    &[],
    "[&](granule::u64 i, const T& a, const T& b) { return a == b ? (granule::usize)i : ~(granule::usize)0; }"
);
pairs_driver!(
    ADJACENT_BY,
    "adjacent_find_by",
    "granule::usize",
    &[2],
    "[&](granule::u64 i, const T& a, const T& b) { return f0(a, b) ? (granule::usize)i : ~(granule::usize)0; }"
);
pairs_driver!(
    DESCENT,
    "is_sorted_until",
    "granule::usize",
    &[],
    "[&](granule::u64 i, const T& a, const T& b) { return b < a ? (granule::usize)i + 1u : ~(granule::usize)0; }"
);
pairs_driver!(
    DESCENT_BY,
    "is_sorted_until_by",
    "granule::usize",
    &[2],
    "[&](granule::u64 i, const T& a, const T& b) { return f0(b, a) ? (granule::usize)i + 1u : ~(granule::usize)0; }"
);
pairs_driver!(
    LEX,
    "lexicographical_compare",
    "granule::usize",
    &[],
    "[&](granule::u64 i, const T& a, const T& b) {
       return a < b ? 2u * (granule::usize)i : b < a ? 2u * (granule::usize)i + 1u : ~(granule::usize)0;
     }"
);
pairs_driver!(
    LEX_BY,
    "lexicographical_compare_by",
    "granule::usize",
    &[2],
    "[&](granule::u64 i, const T& a, const T& b) {
       return f0(a, b) ? 2u * (granule::usize)i : f0(b, a) ? 2u * (granule::usize)i + 1u : ~(granule::usize)0;
     }"
);

/// The adapters around a unary `#[kernel]` predicate.
macro_rules! predicate_map {
    ($adapter:ident, $u:ty, $driver:ident) => {
        impl<P> sealed::Sealed for $adapter<P> {}
        impl<T, P> CudaReduceMap<T, $u> for $adapter<P>
        where
            T: DeviceElement,
            P: DeviceElementFn<CudaSpace, Args = (T,), Output = bool>,
        {
            fn driver() -> &'static DeviceDriver {
                &$driver
            }
            fn types() -> Vec<&'static str> {
                vec![T::CPP]
            }
            fn uses() -> Vec<ElementUse> {
                vec![element_use::<P>()]
            }
            fn bind(&self, l: &mut DriverLaunch<'_>) {
                l.function(&self.0);
            }
        }
    };
}
predicate_map!(FirstIf, usize, FIND_IF);
predicate_map!(FirstIfNot, usize, FIND_IF_NOT);
predicate_map!(PartitionEnds, (usize, usize), PARTITION_ENDS);

/// The adapters around a value (the driver's scalar `value`).
macro_rules! value_map {
    ($adapter:ident, $driver:ident) => {
        impl<T> sealed::Sealed for $adapter<T> {}
        impl<T: DeviceElement> CudaReduceMap<T, usize> for $adapter<T> {
            fn driver() -> &'static DeviceDriver {
                &$driver
            }
            fn types() -> Vec<&'static str> {
                vec![T::CPP]
            }
            fn uses() -> Vec<ElementUse> {
                Vec::new()
            }
            fn scalars(&self, l: &mut DriverLaunch<'_>) {
                l.scalar(self.0);
            }
        }
    };
}
value_map!(FirstEq, FIND);
value_map!(CountEq, COUNT);

/// The pair adapters: a fixed driver for the default predicate (`==` or
/// `<`), another around a `#[kernel(binary)]` one.
macro_rules! pair_map {
    ($adapter:ident, $default:ty, $plain:ident, $by:ident) => {
        impl<C> sealed::Sealed for $adapter<C> {}
        impl<T: DeviceElement> CudaPairMap<T, usize> for $adapter<$default> {
            fn driver() -> &'static DeviceDriver {
                &$plain
            }
            fn uses() -> Vec<ElementUse> {
                Vec::new()
            }
        }
        impl<T, C> CudaPairMap<T, usize> for $adapter<C>
        where
            T: DeviceElement,
            C: DeviceElementFn<CudaSpace, Args = (T, T), Output = bool>,
        {
            fn driver() -> &'static DeviceDriver {
                &$by
            }
            fn uses() -> Vec<ElementUse> {
                vec![element_use::<C>()]
            }
            fn bind(&self, l: &mut DriverLaunch<'_>) {
                l.function(&self.0);
            }
        }
    };
}
pair_map!(FirstMismatch, PartialEqual, MISMATCH, MISMATCH_BY);
pair_map!(FirstAdjacent, PartialEqual, ADJACENT, ADJACENT_BY);
pair_map!(FirstDescent, PartialLess, DESCENT, DESCENT_BY);
pair_map!(LexOrder, PartialLess, LEX, LEX_BY);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::instance;
    use crate::device::nvrtc_check::{before, compiles_everywhere, positive};
    use granule_cuda::codegen::driver::DriverInstance;
    use granule_cuda::codegen::Reducer;

    fn with(mut inst: DriverInstance, f: ElementUse) -> DriverInstance {
        inst.functions = vec![f];
        inst
    }

    #[test]
    fn the_search_drivers_compile_for_gpus() {
        let min = Some(Reducer::Min);
        let pair = Some(Reducer::Tuple(&[Reducer::Max, Reducer::Min]));
        let ends = instance(&PARTITION_ENDS, vec!["granule::i64"], pair);
        let mut insts = vec![
            with(
                instance(&FIND_IF, vec!["granule::i64"], min),
                element_use::<positive<'static>>(),
            ),
            with(
                instance(&FIND_IF_NOT, vec!["granule::i64"], min),
                element_use::<positive<'static>>(),
            ),
            with(ends, element_use::<positive<'static>>()),
            instance(&FIND, vec!["granule::f64"], min),
            instance(&COUNT, vec!["granule::u8"], Some(Reducer::Sum)),
        ];
        for plain in [&MISMATCH, &ADJACENT, &DESCENT, &LEX] {
            insts.push(instance(plain, vec!["granule::i32"], min));
        }
        for by in [&MISMATCH_BY, &ADJACENT_BY, &DESCENT_BY, &LEX_BY] {
            let f = element_use::<before<'static, f32>>();
            insts.push(with(instance(by, vec!["granule::f32"], min), f));
        }
        compiles_everywhere("find.cu", &insts);
    }
}
