//! Kernel and `#[device]` signatures: parameter roles and C++ spellings.

use super::errors::{error_at, unsupported, Result};
use super::infer::Infer;
use super::types::{elem_of, is_team, team_chunk_of, view_of, ChunkMap, Elem, Layout, Scalar, Ty};
use syn::spanned::Spanned;

/// A parameter's role, mirrored by `granule_core::kernel::ParamKind` (this
/// proc-macro crate cannot depend on core, which depends on it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Index,
    /// `[usize; rank]`, destructured: `name` is the comma-joined names.
    MdIndex {
        rank: u8,
    },
    Team,
    Scalar,
    View {
        rank: u8,
        layout: Layout,
    },
    Out,
    /// The `bool` final flag of a scan kernel (set by `mark_final`).
    Final,
    /// An element of an element function (set by `element::mark_elements`).
    Element,
    Atomic {
        rank: u8,
    },
    /// A `&ScatterView` (`scatter.rs`): an atomic View on the device.
    Scatter {
        rank: u8,
    },
    /// Row `i` of a written View of rank `rank` (`mut f: Row<T, R>`) of a
    /// range for-kernel.
    Row {
        rank: u8,
    },
    /// Segment `i` of a written rank-1 View (`mut s: Segment<T>`) of a
    /// range for-kernel.
    Segment,
    /// A team chunk output (`mut row: TeamChunk<T, M>`) of a team
    /// for-kernel.
    Chunk {
        map: ChunkMap,
    },
    /// A map parameter (`&MapInserter` when `insert`, `&UnorderedMap`;
    /// `&SetInserter`, `&UnorderedSet` when `set`).
    Map {
        insert: bool,
        set: bool,
    },
    /// A `&UniqueToken` (`unique_token.rs`): an atomic View of its locks
    /// on the device.
    Token,
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

/// A parameter's name; `mut` only where `allow_mut` (a chunk, which the
/// body divides with `chunk_mut`).
fn name_of(pat: &syn::Pat, allow_mut: bool) -> Result<String> {
    match pat {
        syn::Pat::Ident(i)
            if i.by_ref.is_none()
                && i.subpat.is_none()
                && (allow_mut || i.mutability.is_none()) =>
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
    if first {
        if let Some(p) = md_index(pt)? {
            return Ok(p);
        }
    }
    let ty = &*pt.ty;
    let (kind, t) = classify(ty, generics, first)?;
    let name = name_of(
        &pt.pat,
        matches!(kind, Kind::Chunk { .. } | Kind::Row { .. } | Kind::Segment),
    )?;
    let elem = match &t {
        Ty::Elem(e)
        | Ty::Out(e)
        | Ty::View { elem: e, .. }
        | Ty::Atomic { elem: e, .. }
        | Ty::Scatter { elem: e, .. }
        | Ty::Chunk { elem: e, .. } => infer.cpp(e),
        Ty::Map { key, value, .. } => super::unordered_map::cpp_args(key, value.as_ref()),
        Ty::Token => infer.cpp(&Elem::Scalar(Scalar::U32)),
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
        Kind::MdIndex { .. } | Kind::Final | Kind::Element => {
            unreachable!("made by md_index / mark_final / mark_elements")
        }
        Kind::Atomic { rank } | Kind::Scatter { rank } => {
            format!("granule::AtomicView<{elem}, {rank}> {name}")
        }
        Kind::Chunk { map } => format!("granule::TeamChunk<{elem}, {}> {name}", map.cpp()),
        Kind::Row { rank } => format!("granule::Row<{elem}, {rank}> {name}"),
        Kind::Segment => format!("granule::Segment<{elem}> {name}"),
        Kind::Map { insert, set } => super::unordered_map::decl(*insert, *set, &elem, &name),
        Kind::Token => super::unique_token::decl(&name),
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
                if let Some(acc) = super::types::acc_of(&r.elem)? {
                    return Ok((Kind::Out, Ty::Out(Elem::Acc(acc))));
                }
                if let Some(fields) = super::types::tuple_of(&r.elem)? {
                    return Ok((Kind::Out, Ty::Out(Elem::Tuple(fields))));
                }
                if let Some(path) = super::types::struct_of(&r.elem, generics) {
                    let name = super::types::last_segment(&path);
                    return Ok((Kind::Out, Ty::Out(Elem::Struct(name))));
                }
                let e = elem_of(&r.elem, generics)?;
                if let Some(why) = super::types::view_elem_error(&e) {
                    return Err(unsupported(&r.elem, why));
                }
                return Ok((Kind::Out, Ty::Out(e)));
            }
            &*r.elem
        }
        t => t,
    };
    if !matches!(ty, syn::Type::Reference(_)) {
        if let Some((elem, rank)) = super::types::row_of(ty, generics)? {
            // The body indexes it as a writable View of the trailing ranks.
            let body = Ty::View {
                elem,
                rank: rank - 1,
                layout: Layout::Stride,
                writable: true,
            };
            return Ok((Kind::Row { rank }, body));
        }
        if let Some(elem) = super::types::segment_of(ty, generics)? {
            // The body indexes it as a writable rank-1 View.
            let body = Ty::View {
                elem,
                rank: 1,
                layout: Layout::Stride,
                writable: true,
            };
            return Ok((Kind::Segment, body));
        }
        if let Some((elem, map)) = team_chunk_of(ty, generics)? {
            return Ok((
                Kind::Chunk { map },
                Ty::Chunk {
                    elem,
                    writable: false,
                },
            ));
        }
    }
    if let Some(why) = random_pool(target) {
        return Err(syn::Error::new_spanned(ty, format!("#[kernel]: {why}")));
    }
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
        let scalar_only = match &v {
            Ty::Atomic { elem, .. } | Ty::Scatter { elem, .. } => {
                !matches!(elem, Elem::Scalar(_) | Elem::Generic(_))
            }
            _ => false,
        };
        if scalar_only {
            return Err(unsupported(
                target,
                "an atomic or scatter View of arrays or structs (atomics update scalars)",
            ));
        }
        if let Ty::View { elem, .. } = &v {
            if let Some(why) = super::types::view_elem_error(elem) {
                return Err(unsupported(target, why));
            }
        }
        return Ok(match v {
            Ty::View { rank, layout, .. } => (Kind::View { rank, layout }, v),
            Ty::Atomic {
                elem: Elem::Scalar(s),
                ..
            } if s.is_narrow() => return Err(unsupported(
                target,
                "an AtomicView of 8- or 16-bit integers (the device has no atomics that narrow)",
            )),
            Ty::Atomic { rank, .. } => (Kind::Atomic { rank }, v),
            Ty::Map {
                insert, ref value, ..
            } => (
                Kind::Map {
                    insert,
                    set: value.is_none(),
                },
                v,
            ),
            Ty::Scatter { ref elem, .. } if !super::scatter::scatter_elem_ok(elem) => {
                return Err(unsupported(
                    target,
                    "a ScatterView of this element type (i32, i64, u32, u64, isize, usize, f32 or f64)",
                ))
            }
            Ty::Scatter { rank, .. } => (Kind::Scatter { rank }, v),
            Ty::Token => (Kind::Token, v),
            _ => unreachable!("view_of returns Views, ScatterViews and maps"),
        });
    }
    if matches!(ty, syn::Type::Reference(_)) {
        return Err(unsupported(
            ty,
            "a shared reference to this type (pass scalars by value)",
        ));
    }
    let e = match ty {
        // An array or tuple value may hold `#[device] struct`s.
        syn::Type::Array(_) | syn::Type::Tuple(_) => super::types::value_elem_of(ty, generics)?,
        _ => elem_of(ty, generics)?,
    };
    if first {
        return if e == Elem::Scalar(Scalar::Usize) {
            Ok((Kind::Index, Ty::Elem(e)))
        } else {
            Err(error_at(ty.span(), "the first parameter of a kernel is the work index (`usize`) or the team member (`&TeamMember`)"))
        };
    }
    Ok((Kind::Scalar, Ty::Elem(e)))
}

/// What to pass instead of a random pool (`XorShift64Pool`,
/// `XorShift1024Pool`), which is host data no kernel can take: the key
/// and size it derives its states from, and the device functions that
/// compute state `i` from them and draw, as the pool's generators do.
fn random_pool(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let (module, gen) = match super::types::last_segment(&p.path).as_str() {
        "XorShift64Pool" => ("device", "xorshift64"),
        "XorShift1024Pool" => ("device1024", "xorshift1024"),
        _ => return None,
    };
    Some(format!(
        "a random pool is host data that a kernel cannot take: pass `pool.key()` (a `u64`) \
         and `pool.num_states()` (a `usize`) as scalars, and draw with \
         `granule::containers::random::{module}`: \
         `let mut s = {gen}_state(key, num_states, i); s = {gen}_next(s); \
         let x = {gen}_drand(s);` (also `{gen}_urand`, `{gen}_urand64`, `{gen}_frand`, \
         `{gen}_drand_in`, `{gen}_normal`, ..)"
    ))
}

/// The MDRange work index: `[i, j, ..]: [usize; R]` (names or `_`), or
/// `_: [usize; R]`; `None` if the type is not an array.
fn md_index(pt: &syn::PatType) -> Result<Option<Param>> {
    let syn::Type::Array(arr) = &*pt.ty else {
        return Ok(None);
    };
    let usize_elem = matches!(&*arr.elem, syn::Type::Path(p) if p.path.is_ident("usize"));
    let rank = match &arr.len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<u8>().ok(),
        _ => None,
    }
    .filter(|r| (2..=6).contains(r));
    let Some(rank) = rank.filter(|_| usize_elem) else {
        return Err(error_at(
            pt.ty.span(),
            "an MDRange work index is `[usize; R]` with a literal rank R in 2..=6",
        ));
    };
    let names: Vec<String> = match &*pt.pat {
        syn::Pat::Wild(_) => vec!["_".to_string(); rank as usize],
        syn::Pat::Slice(sl) => sl
            .elems
            .iter()
            .map(|e| match e {
                syn::Pat::Wild(_) => Ok("_".to_string()),
                other => name_of(other, false),
            })
            .collect::<Result<_>>()?,
        other => {
            return Err(unsupported(
                other,
                "this MDRange index pattern (destructure it: `[i, j]: [usize; 2]`)",
            ))
        }
    };
    if names.len() != rank as usize {
        return Err(error_at(
            pt.pat.span(),
            format!("{} names for a rank-{rank} index", names.len()),
        ));
    }
    let decls: Vec<String> = names
        .iter()
        .map(|n| match n.as_str() {
            "_" => "granule::usize".to_string(),
            n => format!("granule::usize {n}"),
        })
        .collect();
    Ok(Some(Param {
        name: names.join(","),
        kind: Kind::MdIndex { rank },
        elem: Scalar::Usize.cpp().to_string(),
        ty: Ty::Elem(Elem::Scalar(Scalar::Usize)),
        decl: decls.join(", "),
    }))
}

/// The path of the `#[device] struct` a parameter refers to (`&mut S`),
/// which the kernel's metadata must list as a dependency.
/// A `#[device]` helper's parameter of a `#[device] struct` type, by
/// value (`g: State`), with the struct's path; `None` for any other.
pub fn struct_value(arg: &syn::FnArg, generics: &[String]) -> Result<Option<(Param, syn::Path)>> {
    let syn::FnArg::Typed(pt) = arg else {
        return Ok(None);
    };
    if matches!(&*pt.ty, syn::Type::Reference(_)) || view_of(&pt.ty, generics)?.is_some() {
        return Ok(None);
    }
    let Some(path) = super::types::struct_of(&pt.ty, generics) else {
        return Ok(None);
    };
    let name = name_of(&pt.pat, false)?;
    let cpp = super::types::last_segment(&path);
    let param = Param {
        decl: format!("{cpp} {name}"),
        name,
        kind: Kind::Scalar,
        elem: cpp.clone(),
        ty: Ty::Elem(Elem::Struct(cpp)),
    };
    Ok(Some((param, path)))
}

/// The Rust element type of a View parameter (`X` of `&View1<X>`) or of a
/// `&mut X` that is an array, if the parameter is one.
pub fn element_type<'a>(arg: &'a syn::FnArg, generics: &[String]) -> Option<&'a syn::Type> {
    let syn::FnArg::Typed(pt) = arg else {
        return None;
    };
    let syn::Type::Reference(r) = &*pt.ty else {
        return None;
    };
    if r.mutability.is_some() {
        return matches!(&*r.elem, syn::Type::Array(_)).then_some(&*r.elem);
    }
    if !matches!(view_of(&r.elem, generics), Ok(Some(Ty::View { .. }))) {
        return None;
    }
    let syn::Type::Path(p) = &*r.elem else {
        return None;
    };
    match &p.path.segments.last()?.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

pub fn struct_path(arg: &syn::FnArg, generics: &[String]) -> Option<syn::Path> {
    let syn::FnArg::Typed(pt) = arg else {
        return None;
    };
    let syn::Type::Reference(r) = &*pt.ty else {
        return None;
    };
    // A container without type arguments (`&UniqueToken`) is no struct.
    if let Ok(Some(_)) = view_of(&r.elem, generics) {
        return None;
    }
    super::types::struct_of(&r.elem, generics)
}

/// Scan kernels: the `bool` right after the last `&mut` (the partial) is
/// the final flag, bound by the driver rather than captured.
pub fn mark_final(params: &mut [Param]) -> std::result::Result<(), &'static str> {
    let last_out = params
        .iter()
        .rposition(|p| p.kind == Kind::Out)
        .ok_or("a scan kernel takes its outputs, then the partial `&mut T`, then `last: bool`")?;
    match params.get_mut(last_out + 1) {
        Some(p) if p.kind == Kind::Scalar && p.elem == "bool" => {
            p.kind = Kind::Final;
            Ok(())
        }
        _ => Err("a scan kernel's partial (`&mut T`, its last `&mut` parameter) is followed by the final flag `last: bool`"),
    }
}
