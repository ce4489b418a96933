//! Kernel and `#[device]` signatures: parameter roles and C++ spellings.

use super::errors::{error_at, unsupported, Result};
use super::types::{elem_of, is_team, view_of, Elem, Infer, Layout, Scalar, Ty};
use syn::spanned::Spanned;

/// A parameter's role, mirrored by `granule_cuda::kernel::ParamKind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Index,
    Team,
    Scalar,
    View { rank: u8, layout: Layout },
    Out,
    Atomic { rank: u8 },
}

/// One translated parameter.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
    /// The element or scalar type in C++ (`granule::f64`, `T`).
    pub elem: String,
    /// Its type for the body's translation.
    pub ty: Ty,
    /// The full C++ declaration.
    pub decl: String,
}

/// Type parameters of the function (lifetimes and consts are rejected).
pub fn generics(g: &syn::Generics) -> Result<Vec<String>> {
    g.params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(Ok(t.ident.to_string())),
            syn::GenericParam::Lifetime(_) => None,
            syn::GenericParam::Const(c) => Some(Err(unsupported(c, "a const generic parameter"))),
        })
        .collect()
}

fn name_of(pat: &syn::Pat) -> Result<String> {
    match pat {
        syn::Pat::Ident(i)
            if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() =>
        {
            Ok(i.ident.to_string())
        }
        _ => Err(unsupported(
            pat,
            "this parameter pattern (only a plain name)",
        )),
    }
}

/// Classifies one parameter; `first` admits the index or team member.
pub fn param(arg: &syn::FnArg, generics: &[String], first: bool, infer: &Infer) -> Result<Param> {
    let syn::FnArg::Typed(pt) = arg else {
        return Err(unsupported(arg, "a `self` parameter"));
    };
    let name = name_of(&pt.pat)?;
    let ty = &*pt.ty;
    let (kind, t) = classify(ty, generics, first)?;
    let elem = match &t {
        Ty::Elem(e) | Ty::Out(e) | Ty::View { elem: e, .. } | Ty::Atomic { elem: e, .. } => {
            infer.cpp(e)
        }
        _ => "granule::TeamMember".to_string(),
    };
    let decl = match &kind {
        Kind::Index => format!("granule::usize {name}"),
        Kind::Team => format!("const granule::TeamMember& {name}"),
        Kind::Scalar => format!("{elem} {name}"),
        Kind::View { rank, layout } => format!(
            "granule::View<const {elem}, {rank}, {}> {name}",
            layout.cpp()
        ),
        Kind::Out => format!("{elem}& {name}"),
        Kind::Atomic { rank } => format!("granule::AtomicView<{elem}, {rank}> {name}"),
    };
    Ok(Param {
        name,
        kind,
        elem,
        ty: t,
        decl,
    })
}

fn classify(ty: &syn::Type, generics: &[String], first: bool) -> Result<(Kind, Ty)> {
    let target = match ty {
        syn::Type::Reference(r) => {
            if r.mutability.is_some() {
                let e = elem_of(&r.elem, generics)?;
                return Ok((Kind::Out, Ty::Out(e)));
            }
            &*r.elem
        }
        t => t,
    };
    if is_team(target) {
        return if first {
            Ok((Kind::Team, Ty::Team))
        } else {
            Err(error_at(
                ty.span(),
                "the team member must be the first parameter",
            ))
        };
    }
    if let Some(v) = view_of(target, generics)? {
        return Ok(match v {
            Ty::View { rank, layout, .. } => (Kind::View { rank, layout }, v),
            Ty::Atomic { rank, .. } => (Kind::Atomic { rank }, v),
            _ => unreachable!("view_of returns Views"),
        });
    }
    if matches!(ty, syn::Type::Reference(_)) {
        return Err(unsupported(
            ty,
            "a shared reference to this type (pass scalars by value)",
        ));
    }
    let e = elem_of(ty, generics)?;
    if first {
        return if e == Elem::Scalar(Scalar::Usize) {
            Ok((Kind::Index, Ty::Elem(e)))
        } else {
            Err(error_at(ty.span(), "the first parameter of a kernel is the work index (`usize`) or the team member (`&TeamMember`)"))
        };
    }
    Ok((Kind::Scalar, Ty::Elem(e)))
}
