//! The searches on Cuda: the reductions' drivers (`reduce.cuh`'s
//! `reduce_view` and `reduce_pairs`), one launch per call, with each
//! adapter's candidate index as a fixed C++ expression around the user's
//! `#[kernel]` element function, if any.

use super::adapt::{
    CountEq, FirstAdjacent, FirstDescent, FirstEq, FirstIf, FirstIfNot, FirstMismatch, FirstOf,
    FirstRun, FirstWindow, LastWindow, LexOrder, PartialEqual, PartitionEnds,
};
use crate::device::{element_use, input_arg, DeviceElement};
use crate::reduce::cuda::{
    fn_map, pairs_driver, reduce_driver, sealed, CudaPairMap, CudaReduceMap,
};
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
    ["value": Scalar "T"],
    "[&](granule::u64 i, const T& v) { return v == value ? (granule::usize)i : ~(granule::usize)0; }"
);
reduce_driver!(
    COUNT,
    "count",
    ["T"],
    "granule::usize",
    &[],
    ["value": Scalar "T"],
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

/// A pair search's two drivers: `$body` is the candidate of pair `i`,
/// `(a, b)`, written with `op(p, q)`, which is `$default` in the plain
/// driver and the element function `f0` in the `_by` one.
macro_rules! pair_drivers {
    ($plain:ident, $by:ident, $name:literal, $by_name:literal, $default:literal, $body:literal) => {
        pairs_driver!(
            $plain,
            $name,
            "granule::usize",
            &[],
            concat!(
                "[&](granule::u64 i, const T& a, const T& b) { auto op = [&](const T& p, const T& q) { return (bool)(",
                $default, "); }; return ", $body, "; }"
            )
        );
        pairs_driver!(
            $by,
            $by_name,
            "granule::usize",
            &[2],
            concat!(
                "[&](granule::u64 i, const T& a, const T& b) { auto op = [&](const T& p, const T& q) { return (bool)f0(p, q); }; return ",
                $body, "; }"
            )
        );
    };
}

pair_drivers!(
    MISMATCH,
    MISMATCH_BY,
    "mismatch",
    "mismatch_by",
    "p == q",
    "op(a, b) ? ~(granule::usize)0 : (granule::usize)i"
);
pair_drivers!(
    ADJACENT,
    ADJACENT_BY,
    "adjacent_find",
    "adjacent_find_by",
    "p == q",
    "op(a, b) ? (granule::usize)i : ~(granule::usize)0"
);
pair_drivers!(
    DESCENT,
    DESCENT_BY,
    "is_sorted_until",
    "is_sorted_until_by",
    "p < q",
    "op(b, a) ? (granule::usize)i + 1u : ~(granule::usize)0"
);
pair_drivers!(
    LEX,
    LEX_BY,
    "lexicographical_compare",
    "lexicographical_compare_by",
    "p < q",
    "op(a, b) ? 2u * (granule::usize)i : op(b, a) ? 2u * (granule::usize)i + 1u : ~(granule::usize)0"
);

/// A search's driver: `$test` is a C++ expression that is true when the
/// candidate start `i` (element `v`) matches, with `eq(a, b)` the
/// comparison (`==`, or the element function `f0`), from which the value
/// lambda makes `$hit` (or `$miss`).
macro_rules! search_driver {
    ($plain:ident, $by:ident, $name:literal, $by_name:literal, [$($extra:tt)*], $test:literal,
     $hit:literal, $miss:literal) => {
        reduce_driver!(
            $plain,
            $name,
            ["T"],
            "granule::usize",
            &[],
            [$($extra)*],
            concat!(
                "[&](granule::u64 i, const T& v) { auto eq = [&](const T& a, const T& b) { return a == b; }; return ",
                $test, " ? ", $hit, " : ", $miss, "; }"
            )
        );
        reduce_driver!(
            $by,
            $by_name,
            ["T"],
            "granule::usize",
            &[2],
            [$($extra)*],
            concat!(
                "[&](granule::u64 i, const T& v) { auto eq = [&](const T& a, const T& b) { return (bool)f0(a, b); }; return ",
                $test, " ? ", $hit, " : ", $miss, "; }"
            )
        );
    };
}

search_driver!(
    SEARCH,
    SEARCH_BY,
    "search",
    "search_by",
    ["p": Input "T"],
    "granule_algo::window_matches(i, n, x, p.extent(0), [&](granule::u64 j) { return p(j); }, eq)",
    "(granule::usize)i",
    "~(granule::usize)0"
);
search_driver!(
    FIND_END,
    FIND_END_BY,
    "find_end",
    "find_end_by",
    ["p": Input "T"],
    "granule_algo::window_matches(i, n, x, p.extent(0), [&](granule::u64 j) { return p(j); }, eq)",
    "(granule::usize)i + 1u",
    "(granule::usize)0"
);
search_driver!(
    SEARCH_N,
    SEARCH_N_BY,
    "search_n",
    "search_n_by",
    ["count": Scalar "granule::u64", "value": Scalar "T"],
    "granule_algo::window_matches(i, n, x, count, [&](granule::u64) { return value; }, eq)",
    "(granule::usize)i",
    "~(granule::usize)0"
);
search_driver!(
    FIRST_OF,
    FIRST_OF_BY,
    "find_first_of",
    "find_first_of_by",
    ["s": Input "T"],
    "granule_algo::any_matches(v, s, eq)",
    "(granule::usize)i",
    "~(granule::usize)0"
);

// The adapters around a unary `#[kernel]` predicate.
fn_map!(FirstIf, usize, bool, FIND_IF);
fn_map!(FirstIfNot, usize, bool, FIND_IF_NOT);
fn_map!(PartitionEnds, (usize, usize), bool, PARTITION_ENDS);

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
            fn extra_args(&self, l: &mut DriverLaunch<'_>) {
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

/// The pattern searches: a fixed driver for `==`, another around a
/// `#[kernel(binary)]` predicate (the adapter's field `$pred`); `$bind`
/// binds the driver's extra arguments from the adapter `$a`.
macro_rules! search_map {
    ($adapter:ident, $u:ty, $plain:ident, $by:ident, pred [$($pred:tt)+], |$a:ident, $l:ident| $bind:block) => {
        impl<T, C> sealed::Sealed for $adapter<'_, T, CudaSpace, C> {}
        impl<T: DeviceElement> CudaReduceMap<T, $u> for $adapter<'_, T, CudaSpace, PartialEqual> {
            fn driver() -> &'static DeviceDriver {
                &$plain
            }
            fn types() -> Vec<&'static str> {
                vec![T::CPP]
            }
            fn uses() -> Vec<ElementUse> {
                Vec::new()
            }
            fn extra_args(&self, $l: &mut DriverLaunch<'_>) {
                let $a = self;
                $bind
            }
        }
        impl<T, C> CudaReduceMap<T, $u> for $adapter<'_, T, CudaSpace, C>
        where
            T: DeviceElement,
            C: DeviceElementFn<CudaSpace, Args = (T, T), Output = bool>,
        {
            fn driver() -> &'static DeviceDriver {
                &$by
            }
            fn types() -> Vec<&'static str> {
                vec![T::CPP]
            }
            fn uses() -> Vec<ElementUse> {
                vec![element_use::<C>()]
            }
            fn extra_args(&self, $l: &mut DriverLaunch<'_>) {
                let $a = self;
                $bind
            }
            fn bind(&self, l: &mut DriverLaunch<'_>) {
                l.function(&self $($pred)+);
            }
        }
    };
}

search_map!(FirstWindow, usize, SEARCH, SEARCH_BY, pred [.pred], |a, l| {
    // SAFETY: the adapter's Input holds the search's shared borrow of
    // the pattern (or set) for the call.
    unsafe { l.input(input_arg(&a.pattern)) };
});
search_map!(LastWindow, usize, FIND_END, FIND_END_BY, pred [.0.pred], |a, l| {
    // SAFETY: the adapter's Input holds the search's shared borrow of
    // the pattern (or set) for the call.
    unsafe { l.input(input_arg(&a.0.pattern)) };
});
search_map!(FirstRun, usize, SEARCH_N, SEARCH_N_BY, pred [.pred], |a, l| {
    l.scalar(a.count as u64).scalar(a.value);
});
search_map!(FirstOf, usize, FIRST_OF, FIRST_OF_BY, pred [.pred], |a, l| {
    // SAFETY: the adapter's Input holds the search's shared borrow of
    // the pattern (or set) for the call.
    unsafe { l.input(input_arg(&a.set)) };
});

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
        for plain in [&SEARCH, &SEARCH_N, &FIRST_OF] {
            insts.push(instance(plain, vec!["granule::u8"], min));
        }
        insts.push(instance(&FIND_END, vec!["granule::u8"], Some(Reducer::Max)));
        for by in [&SEARCH_BY, &SEARCH_N_BY, &FIRST_OF_BY] {
            let f = element_use::<before<'static, f32>>();
            insts.push(with(instance(by, vec!["granule::f32"], min), f));
        }
        let f = element_use::<before<'static, f32>>();
        insts.push(with(
            instance(&FIND_END_BY, vec!["granule::f32"], Some(Reducer::Max)),
            f,
        ));
        for by in [&MISMATCH_BY, &ADJACENT_BY, &DESCENT_BY, &LEX_BY] {
            let f = element_use::<before<'static, f32>>();
            insts.push(with(instance(by, vec!["granule::f32"], min), f));
        }
        compiles_everywhere("find.cu", &insts);
    }
}
