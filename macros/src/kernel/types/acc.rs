//! Reducer accumulators in a kernel's signature: `ValLocScalar`,
//! `MinMaxLocScalar` and `MinMaxScalar`, read from their Rust types.

use super::*;

/// `ValLocScalar<T, L>`, `MinMaxLocScalar<T, L>` or `MinMaxScalar<T>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acc {
    pub kind: AccKind,
    pub val: Scalar,
    /// The location type (`None` for `MinMaxScalar`).
    pub loc: Option<Loc>,
}

/// A location: an integer scalar, or a multi-index `[usize; R]`
/// (R in 1..=6, as an MDRange index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Scalar(Scalar),
    Array(u8),
}

impl Loc {
    /// `granule::u32`, or `granule::Loc<R>` for `[usize; R]`.
    pub fn cpp(self) -> String {
        match self {
            Loc::Scalar(s) => s.cpp().to_string(),
            Loc::Array(r) => format!("granule::Loc<{r}>"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccKind {
    ValLoc,
    MinMaxLoc,
    MinMax,
}

impl Acc {
    pub fn cpp(self) -> String {
        let name = match self.kind {
            AccKind::ValLoc => "ValLocScalar",
            AccKind::MinMaxLoc => "MinMaxLocScalar",
            AccKind::MinMax => "MinMaxScalar",
        };
        match self.loc {
            Some(l) => format!("granule::{name}<{}, {}>", self.val.cpp(), l.cpp()),
            None => format!("granule::{name}<{}>", self.val.cpp()),
        }
    }
}

/// The accumulator type named by `ty`, if it is one of the reducers'
/// structs: value a non-bool scalar, location an integer scalar or
/// `[usize; R]`.
pub fn acc_of(ty: &syn::Type) -> Result<Option<Acc>> {
    let syn::Type::Path(p) = ty else {
        return Ok(None);
    };
    let Some(seg) = p.path.segments.last() else {
        return Ok(None);
    };
    let kind = match seg.ident.to_string().as_str() {
        "ValLocScalar" => AccKind::ValLoc,
        "MinMaxLocScalar" => AccKind::MinMaxLoc,
        "MinMaxScalar" => AccKind::MinMax,
        _ => return Ok(None),
    };
    let scalar = |a: Option<&&syn::GenericArgument>, int: bool| -> Result<Scalar> {
        match a {
            Some(syn::GenericArgument::Type(t)) => match elem_of(t, &[]) {
                Ok(Elem::Scalar(s)) if s != Scalar::Bool && (!int || s.is_int()) => Ok(s),
                _ => Err(unsupported(
                    t,
                    "this accumulator field type (a scalar value, an integer or `[usize; R]` location, R in 1..=6)",
                )),
            },
            _ => Err(unsupported(seg, "an accumulator without its types")),
        }
    };
    let args = type_args(seg);
    let val = scalar(args.first(), false)?;
    let loc = match (kind, args.get(1)) {
        (AccKind::MinMax, _) => None,
        (_, Some(syn::GenericArgument::Type(syn::Type::Array(a)))) => {
            let rank = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<u8>().ok(),
                _ => None,
            };
            match (elem_of(&a.elem, &[]), rank) {
                (Ok(Elem::Scalar(Scalar::Usize)), Some(r @ 1..=6)) => Some(Loc::Array(r)),
                _ => {
                    return Err(unsupported(
                        a,
                        "this accumulator field type (a scalar value, an integer or `[usize; R]` location, R in 1..=6)",
                    ))
                }
            }
        }
        (_, l) => Some(Loc::Scalar(scalar(l, true)?)),
    };
    Ok(Some(Acc { kind, val, loc }))
}
