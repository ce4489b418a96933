//! The Views, rows, segments and team chunks of a kernel's signature,
//! read from their Rust types.

use super::*;

/// The generic arguments of a path's last segment that are types.
pub(super) fn type_args(seg: &syn::PathSegment) -> Vec<&syn::GenericArgument> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) fn const_usize(arg: &syn::GenericArgument) -> Option<u8> {
    let expr = match arg {
        syn::GenericArgument::Const(e) => e,
        syn::GenericArgument::Type(syn::Type::Path(p)) => {
            return p.path.get_ident()?.to_string().parse().ok()
        }
        _ => return None,
    };
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

pub(super) fn layout_of(arg: Option<&&syn::GenericArgument>) -> Result<Layout> {
    let Some(arg) = arg else {
        return Ok(Layout::Right);
    };
    let name = match arg {
        syn::GenericArgument::Type(syn::Type::Path(p)) => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    };
    match name.as_deref() {
        Some("LayoutRight") => Ok(Layout::Right),
        Some("LayoutLeft") => Ok(Layout::Left),
        Some("LayoutStride") => Ok(Layout::Stride),
        _ => Err(unsupported(
            arg,
            "this layout (use LayoutRight, LayoutLeft or LayoutStride)",
        )),
    }
}

/// The type of a View-like path (`View1<T, L>`, `View<T, R, L>`,
/// `ViewRef<'_, T, R, L>`, `AtomicView<'_, T, R>`), if it is one.
pub fn view_of(ty: &syn::Type, generics: &[String]) -> Result<Option<Ty>> {
    let syn::Type::Path(p) = ty else {
        return Ok(None);
    };
    let Some(seg) = p.path.segments.last() else {
        return Ok(None);
    };
    let name = seg.ident.to_string();
    let args = type_args(seg);
    let elem = |k: usize| -> Result<Elem> {
        match args.get(k) {
            Some(syn::GenericArgument::Type(t)) => value_elem_of(t, generics),
            _ => Err(unsupported(seg, "a View without its element type")),
        }
    };
    let rank = |k: usize| -> Result<u8> {
        args.get(k)
            .and_then(|a| const_usize(a))
            .filter(|r| (1..=8).contains(r))
            .ok_or_else(|| unsupported(seg, "a View rank that is not a literal 1..=8"))
    };
    if let Some(map) = super::super::unordered_map::map_of(seg, &name, &args, generics)? {
        return Ok(Some(map));
    }
    if let Some(token) = super::super::unique_token::token_of(seg, &name, &args)? {
        return Ok(Some(token));
    }
    let ty = match name.as_str() {
        "AtomicView" => Ty::Atomic {
            elem: elem(0)?,
            rank: rank(1)?,
        },
        "ScatterView" => Ty::Scatter {
            elem: elem(0)?,
            rank: rank(1)?,
            op: super::super::scatter::ScatterOp::of(args.get(2).copied()).ok_or_else(|| {
                unsupported(
                    seg,
                    "this ScatterView operation (use Sum, Prod, Min or Max)",
                )
            })?,
        },
        "View" | "ViewRef" => Ty::View {
            elem: elem(0)?,
            rank: rank(1)?,
            layout: layout_of(args.get(2))?,
            writable: false,
        },
        n if n.len() == 5 && n.starts_with("View") => {
            let r: u8 = n[4..]
                .parse()
                .map_err(|_| unsupported(seg, "this View type"))?;
            if !(1..=8).contains(&r) {
                return Err(unsupported(seg, "this View rank"));
            }
            Ty::View {
                elem: elem(0)?,
                rank: r,
                layout: layout_of(args.get(1))?,
                writable: false,
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(ty))
}

/// The identifiers of a path's segments, in order (`a::B::c` -> `[a, B, c]`).
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The identifier of a path's last segment (`a::B::c` -> `c`).
pub fn last_segment(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// Whether a type path names the team member.
pub fn is_team(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    p.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "TeamMember")
}

/// The chunk maps a kernel may name, with their C++ spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkMap {
    ContinuousLinear,
    Identity,
}

impl ChunkMap {
    pub fn from_name(name: &str) -> Option<ChunkMap> {
        match name {
            "MapContinuousLinear" => Some(ChunkMap::ContinuousLinear),
            "MapIdentity" => Some(ChunkMap::Identity),
            _ => None,
        }
    }
    pub fn cpp(self) -> &'static str {
        match self {
            ChunkMap::ContinuousLinear => "granule::MapContinuousLinear",
            ChunkMap::Identity => "granule::MapIdentity",
        }
    }
    pub fn rust_variant(self) -> &'static str {
        match self {
            ChunkMap::ContinuousLinear => "ContinuousLinear",
            ChunkMap::Identity => "Identity",
        }
    }
}

/// `TeamChunk<T>` / `TeamChunk<'_, T, M>`: the element type and outer map
/// of a team chunk parameter, if the type is one.
/// `Row<T, R>` (a range kernel's row of a written rank-R View): its
/// element type and R, a literal in 2..=8.
pub fn row_of(ty: &syn::Type, generics: &[String]) -> Result<Option<(Elem, u8)>> {
    let syn::Type::Path(p) = ty else {
        return Ok(None);
    };
    let Some(seg) = p.path.segments.last() else {
        return Ok(None);
    };
    if seg.ident != "Row" {
        return Ok(None);
    }
    let args = type_args(seg);
    let (Some(syn::GenericArgument::Type(t)), Some(r), None) =
        (args.first(), args.get(1), args.get(2))
    else {
        return Err(unsupported(
            seg,
            "a Row without its element type and rank (`Row<f64, 2>`)",
        ));
    };
    let rank = match r {
        syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        })) => n.base10_parse::<u8>().ok().filter(|r| (2..=8).contains(r)),
        _ => None,
    };
    let Some(rank) = rank else {
        return Err(error_at(
            syn::spanned::Spanned::span(r),
            "a Row's rank is the written View's, a literal in 2..=8",
        ));
    };
    Ok(Some((elem_of(t, generics)?, rank)))
}

/// `Segment<T>` (a range kernel's segment of a written rank-1 View): its
/// element type, if the type is one.
pub fn segment_of(ty: &syn::Type, generics: &[String]) -> Result<Option<Elem>> {
    let syn::Type::Path(p) = ty else {
        return Ok(None);
    };
    let Some(seg) = p.path.segments.last() else {
        return Ok(None);
    };
    if seg.ident != "Segment" {
        return Ok(None);
    }
    let args = type_args(seg);
    let (Some(syn::GenericArgument::Type(t)), None) = (args.first(), args.get(1)) else {
        return Err(unsupported(
            seg,
            "a Segment without its element type alone (`Segment<u32>`)",
        ));
    };
    Ok(Some(elem_of(t, generics)?))
}

pub fn team_chunk_of(ty: &syn::Type, generics: &[String]) -> Result<Option<(Elem, ChunkMap)>> {
    let syn::Type::Path(p) = ty else {
        return Ok(None);
    };
    let Some(seg) = p.path.segments.last() else {
        return Ok(None);
    };
    if seg.ident != "TeamChunk" {
        return Ok(None);
    }
    let args = type_args(seg);
    let elem = match args.first() {
        Some(syn::GenericArgument::Type(t)) => elem_of(t, generics)?,
        _ => return Err(unsupported(seg, "a TeamChunk without its element type")),
    };
    let map = match args.get(1) {
        None => ChunkMap::ContinuousLinear,
        Some(syn::GenericArgument::Type(syn::Type::Path(m))) => m
            .path
            .segments
            .last()
            .and_then(|s| ChunkMap::from_name(&s.ident.to_string()))
            .ok_or_else(|| {
                unsupported(m, "this chunk map (use MapContinuousLinear or MapIdentity)")
            })?,
        Some(other) => return Err(unsupported(other, "this chunk map")),
    };
    Ok(Some((elem, map)))
}
