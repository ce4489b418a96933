//! Reducers as the device drivers name them: the built-in ones, tuples of
//! them, and custom `#[device] impl Reducer<T> for R`s. The host reducer
//! types say which one they are through [`DeviceReduction`].

use super::DeviceFn;

/// A reducer as the device drivers name it: a built-in one, a tuple of
/// them, or a custom `#[device]` reducer.
///
/// ```
/// use granule_core::kernel::ReducerOp;
/// let pair = ReducerOp::Tuple(&[ReducerOp::Sum, ReducerOp::MaxLoc]);
/// assert_eq!(pair.entry_part(), "tuple_sum_maxloc");
/// assert_eq!(ReducerOp::Min.cpp(), "Min");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReducerOp {
    /// Sum, identity 0.
    Sum,
    /// Product, identity 1.
    Prod,
    /// Minimum, identity the type's maximum (+inf for floats).
    Min,
    /// Maximum, identity the type's minimum (-inf for floats).
    Max,
    /// Logical and.
    LAnd,
    /// Logical or.
    LOr,
    /// Bitwise and.
    BAnd,
    /// Bitwise or.
    BOr,
    /// Smallest value and its location (`ValLocScalar`).
    MinLoc,
    /// Largest value and its location (`ValLocScalar`).
    MaxLoc,
    /// Both, with locations (`MinMaxLocScalar`).
    MinMaxLoc,
    /// Both, with the first smallest and the last largest location
    /// (`MinMaxLocScalar`).
    MinMaxFirstLastLoc,
    /// Smallest and largest value (`MinMaxScalar`).
    MinMax,
    /// A tuple of reducers over a tuple accumulator
    /// (`granule::Tuple<T0, T1, ..>`): reducer k reduces field k, as the
    /// host's tuples of reducers do. Its reducers are scalar ones.
    Tuple(&'static [ReducerOp]),
    /// A custom reducer, `#[device] impl Reducer<T> for R`
    /// ([`DeviceReducer::DEVICE`](super::DeviceReducer::DEVICE)): its C++ struct is
    /// emitted with the translation unit's helpers.
    Custom(&'static DeviceFn),
}

impl ReducerOp {
    /// The reducers that apply to C++ type `t`: logical ones for `bool`,
    /// arithmetic and min/max for floats, all for integers (and for a
    /// template parameter, which is instantiated with a scalar).
    ///
    /// ```
    /// use granule_core::kernel::ReducerOp;
    /// assert_eq!(ReducerOp::for_type("granule::f32").len(), 4);
    /// assert_eq!(
    ///     ReducerOp::for_type("granule::ValLocScalar<granule::f64, granule::usize>"),
    ///     [ReducerOp::MinLoc, ReducerOp::MaxLoc]
    /// );
    /// ```
    pub fn for_type(t: &str) -> Vec<ReducerOp> {
        use ReducerOp::*;
        match t {
            _ if t.starts_with("granule::ValLocScalar<") => vec![MinLoc, MaxLoc],
            _ if t.starts_with("granule::MinMaxLocScalar<") => vec![MinMaxLoc, MinMaxFirstLastLoc],
            _ if t.starts_with("granule::MinMaxScalar<") => vec![MinMax],
            "bool" => vec![LAnd, LOr],
            "granule::f32" | "granule::f64" => vec![Sum, Prod, Min, Max],
            _ if tuple_fields(t).is_some() => vec![],
            _ => vec![Sum, Prod, Min, Max, LAnd, LOr, BAnd, BOr],
        }
    }

    /// Choices of reducers for a tuple accumulator's C++ type `t`
    /// (`granule::Tuple<..>`), one per field, such that every reducer that
    /// applies to a field (by [`ReducerOp::for_type`]) appears in some choice
    /// (choice k gives field i its reducer k modulo their count); empty when
    /// `t` is not a tuple. ([`ReducerOp::for_type`] gives no reducer for a
    /// tuple: a [`ReducerOp::Tuple`] borrows its reducers for `'static`.)
    ///
    /// ```
    /// use granule_core::kernel::ReducerOp;
    /// let c = ReducerOp::for_tuple("granule::Tuple<granule::f64, bool>");
    /// assert_eq!(c.len(), 4);
    /// assert_eq!(c[1], [ReducerOp::Prod, ReducerOp::LOr]);
    /// ```
    pub fn for_tuple(t: &str) -> Vec<Vec<ReducerOp>> {
        let Some(fields) = tuple_fields(t) else {
            return Vec::new();
        };
        let each: Vec<Vec<ReducerOp>> = fields.iter().map(|f| ReducerOp::for_type(f)).collect();
        let n = each.iter().map(Vec::len).max().unwrap_or(0);
        (0..n)
            .map(|k| each.iter().map(|rs| rs[k % rs.len()]).collect())
            .collect()
    }

    /// The name in entry points: the C++ name in lower case; a tuple's is
    /// `tuple_` and its reducers' names joined by `_`.
    pub fn entry_part(self) -> String {
        match self {
            ReducerOp::Custom(f) => format!("custom_{}", f.name),
            ReducerOp::Tuple(rs) => {
                let names: Vec<String> = rs.iter().map(|r| r.entry_part()).collect();
                format!("tuple_{}", names.join("_"))
            }
            r => r.cpp().to_lowercase(),
        }
    }

    /// The device reducer over accumulator C++ type `t`:
    /// `granule::Sum<t>`, or for a tuple `granule::Reducers<granule::Sum<T0>, ..>`.
    ///
    /// ```
    /// use granule_core::kernel::ReducerOp;
    /// assert_eq!(ReducerOp::Sum.op("granule::f64").unwrap(), "granule::Sum<granule::f64>");
    /// let t = ReducerOp::Tuple(&[ReducerOp::Sum, ReducerOp::Max]);
    /// assert_eq!(t.op("granule::Tuple<granule::i32, granule::f32>").unwrap(),
    ///     "granule::Reducers<granule::Sum<granule::i32>, granule::Max<granule::f32>>");
    /// assert!(t.op("granule::f64").is_err());
    /// ```
    pub fn op(self, t: &str) -> Result<String, String> {
        let rs = match self {
            ReducerOp::Tuple(rs) => rs,
            // The C++ compiler checks that its value type is `t`.
            ReducerOp::Custom(f) => return Ok(f.name.to_string()),
            _ => return Ok(format!("granule::{}<{t}>", self.cpp())),
        };
        let fields = tuple_fields(t)
            .ok_or_else(|| format!("a tuple of reducers needs a tuple accumulator, not `{t}`"))?;
        if fields.len() != rs.len() {
            return Err(format!(
                "{} reducers for a tuple of {} fields",
                rs.len(),
                fields.len()
            ));
        }
        let ops = rs
            .iter()
            .zip(&fields)
            .map(|(r, f)| match r {
                ReducerOp::Tuple(_) => Err("a tuple of reducers does not nest tuples".to_string()),
                ReducerOp::Custom(_) => Err(
                    "a tuple of reducers holds built-in reducers (a custom one reduces a struct)"
                        .to_string(),
                ),
                r => r.op(f),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(format!("granule::Reducers<{}>", ops.join(", ")))
    }

    /// The device header's name of the reducer.
    pub fn cpp(self) -> &'static str {
        match self {
            ReducerOp::Tuple(_) => "Reducers",
            ReducerOp::Custom(f) => f.name,
            ReducerOp::Sum => "Sum",
            ReducerOp::Prod => "Prod",
            ReducerOp::Min => "Min",
            ReducerOp::Max => "Max",
            ReducerOp::LAnd => "LAnd",
            ReducerOp::LOr => "LOr",
            ReducerOp::BAnd => "BAnd",
            ReducerOp::BOr => "BOr",
            ReducerOp::MinLoc => "MinLoc",
            ReducerOp::MaxLoc => "MaxLoc",
            ReducerOp::MinMaxLoc => "MinMaxLoc",
            ReducerOp::MinMaxFirstLastLoc => "MinMaxFirstLastLoc",
            ReducerOp::MinMax => "MinMax",
        }
    }
}

/// The field types of a tuple accumulator's C++ type
/// (`granule::Tuple<T0, T1, ..>`, fields scalars), or `None`.
fn tuple_fields(t: &str) -> Option<Vec<&str>> {
    let inner = t.strip_prefix("granule::Tuple<")?.strip_suffix('>')?;
    Some(inner.split(',').map(str::trim).collect())
}

/// A host reducer's device counterpart: the built-in reducers, tuples of
/// them, and every custom reducer that `#[device] impl Reducer<T> for R`
/// made a [`DeviceReducer`](super::DeviceReducer).
///
/// ```
/// use granule_core::kernel::{DeviceReduction, ReducerOp};
/// use granule_core::reducer::{Max, Sum};
/// assert_eq!(<(Sum, Max)>::DEVICE, ReducerOp::Tuple(&[ReducerOp::Sum, ReducerOp::Max]));
/// ```
///
/// # Safety
/// `DEVICE` reduces values of the same type, with the same identity and
/// join, as the host reducer: a device's drivers size their buffers and
/// combine partial results by it, and the host reads the result as the
/// host reducer's value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no device counterpart, so a device space cannot reduce with it",
    note = "use a built-in reducer, a tuple of them, or a custom reducer written as `#[device] impl Reducer<T> for R`"
)]
pub unsafe trait DeviceReduction {
    /// The reducer the device drivers run.
    const DEVICE: ReducerOp;
}

macro_rules! builtin_reduction {
    ($($r:ident),*) => { $(
        // SAFETY: the header's reducer of the same name has the host
        // reducer's identity and join (the device header's `reducer.cuh`).
        unsafe impl DeviceReduction for crate::reducer::$r {
            const DEVICE: ReducerOp = ReducerOp::$r;
        }
    )* };
}
builtin_reduction!(
    Sum,
    Prod,
    Min,
    Max,
    LAnd,
    LOr,
    BAnd,
    BOr,
    MinLoc,
    MaxLoc,
    MinMaxLoc,
    MinMaxFirstLastLoc,
    MinMax
);

// SAFETY: `DeviceReducer`'s contract: its struct is the translation of
// the host reducer's own methods.
unsafe impl<R: super::DeviceReducer> DeviceReduction for R {
    const DEVICE: ReducerOp = ReducerOp::Custom(R::DEVICE);
}

macro_rules! tuple_reduction {
    ($($r:ident),+) => {
        // SAFETY: the header's `Reducers<..>` reduces field k with
        // reducer k, as the host's tuple of reducers does.
        unsafe impl<$($r: DeviceReduction),+> DeviceReduction for ($($r,)+) {
            const DEVICE: ReducerOp = ReducerOp::Tuple(&[$($r::DEVICE),+]);
        }
    };
}
tuple_reduction!(A);
tuple_reduction!(A, B);
tuple_reduction!(A, B, C);
tuple_reduction!(A, B, C, D);
tuple_reduction!(A, B, C, D, E);
tuple_reduction!(A, B, C, D, E, F);
