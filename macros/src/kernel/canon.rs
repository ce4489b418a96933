//! Type checks for the glue: the translator reads every type by its
//! spelling (`f64`, `View1<u32, LayoutLeft>`, `ValLocScalar<f32, usize>`),
//! so for each spelling it read, the glue asserts in the item's own scope
//! that the name means the type the C++ was made for
//! (`granule_core::kernel::check`). A `type u64 = u8;` in scope then fails
//! to compile, where the host and the device would otherwise disagree on
//! a layout.

use super::types::{acc_of, elem_of, is_team, team_chunk_of, tuple_of, view_of, Elem, Ty};
use super::types::{AccKind, ChunkMap, Layout, Loc, Scalar};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit::Visit;

/// The checks of one item, as statements of a function that is never
/// called: only their trait bounds matter.
pub struct Checks<'a> {
    rt: TokenStream,
    generics: &'a [String],
    out: Vec<TokenStream>,
}

impl<'a> Checks<'a> {
    pub fn new(krate: &syn::Path, generics: &'a [String]) -> Self {
        Checks {
            rt: quote!(#krate::kernel::__rt),
            generics,
            out: Vec::new(),
        }
    }

    /// The statements, in the order the types were met.
    pub fn finish(self) -> Vec<TokenStream> {
        self.out
    }

    fn same(&mut self, user: &syn::Type, canon: TokenStream) {
        let rt = &self.rt;
        let user = with_inferred_lifetimes(user);
        self.out.push(quote!(#rt::same_type::<#user, #canon>();));
    }

    /// `::core::primitive::f64`, the generic parameter, or `None` for an
    /// element only C++ can name.
    fn elem(&self, e: &Elem) -> Option<TokenStream> {
        match e {
            Elem::Scalar(s) => Some(primitive(*s)),
            Elem::Generic(g) => {
                let g = format_ident!("{}", g);
                Some(quote!(#g))
            }
            _ => None,
        }
    }

    /// A scalar or generic element type: checked when it is a scalar (a
    /// generic parameter means itself).
    pub fn element(&mut self, ty: &syn::Type) {
        if let syn::Type::Array(_) | syn::Type::Tuple(_) = ty {
            if let Some(c) = self.value_canon(ty) {
                self.same(ty, c);
            }
            return;
        }
        if let Ok(Elem::Scalar(s)) = elem_of(ty, self.generics) {
            self.same(ty, primitive(s));
        }
    }

    /// The canonical spelling of a value type the translator reads: a
    /// scalar, a generic parameter, a `#[device] struct` (which its own
    /// trait names, so it stands for itself), or an array or tuple of
    /// them; `None` for another.
    fn value_canon(&self, ty: &syn::Type) -> Option<TokenStream> {
        match ty {
            syn::Type::Array(a) => {
                let e = self.value_canon(&a.elem)?;
                let len = &a.len;
                Some(quote!([#e; #len]))
            }
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let fs = t
                    .elems
                    .iter()
                    .map(|e| self.value_canon(e))
                    .collect::<Option<Vec<_>>>()?;
                Some(quote!((#(#fs,)*)))
            }
            syn::Type::Paren(p) => self.value_canon(&p.elem),
            other => match elem_of(other, self.generics) {
                Ok(e) => self.elem(&e),
                Err(_) => super::types::struct_of(other, self.generics).map(|_| quote!(#other)),
            },
        }
    }

    /// Any type the translator reads: a reference's target, a View, an
    /// atomic View, the team member, a team chunk, an accumulator, a tuple
    /// or a scalar. Types it does not read (a `#[device] struct`, which
    /// its own trait names) are left alone.
    pub fn ty(&mut self, ty: &syn::Type) {
        let ty = match ty {
            syn::Type::Reference(r) => &*r.elem,
            syn::Type::Paren(p) => &*p.elem,
            other => other,
        };
        if is_team(ty) {
            let rt = &self.rt;
            return self.same(ty, quote!(#rt::TeamMember));
        }
        if let Ok(Some((elem, map))) = team_chunk_of(ty, self.generics) {
            return self.chunk(ty, &elem, map);
        }
        if let Ok(Some(v)) = view_of(ty, self.generics) {
            return self.view(ty, &v);
        }
        if let Ok(Some(acc)) = acc_of(ty) {
            return self.acc(ty, acc);
        }
        if let Ok(Some(fields)) = tuple_of(ty) {
            let fs = fields.iter().map(|s| primitive(*s));
            return self.same(ty, quote!((#(#fs,)*)));
        }
        // Arrays (an MDRange index `[usize; R]` among them) and tuples.
        self.element(ty)
    }

    fn chunk(&mut self, ty: &syn::Type, elem: &Elem, map: ChunkMap) {
        let Some(e) = self.elem(elem) else { return };
        let rt = &self.rt;
        let m = format_ident!("{}", map_name(map));
        self.same(ty, quote!(#rt::TeamChunk<'_, #e, #rt::#m>));
    }

    fn view(&mut self, ty: &syn::Type, v: &Ty) {
        let rt = self.rt.clone();
        let user = with_inferred_lifetimes(ty);
        if let Ty::Map { key, value, insert } = v {
            return self.map(&user, key, value.as_ref(), *insert);
        }
        if let Ty::Token = v {
            self.out.push(quote!(#rt::token_shape::<#user>();));
            return;
        }
        let (elem, rank, layout) = match v {
            Ty::View {
                elem, rank, layout, ..
            } => (elem, *rank as usize, Some(*layout)),
            Ty::Atomic { elem, rank } => (elem, *rank as usize, None),
            Ty::Scatter { elem, rank, op } => {
                let Some(e) = self.elem(elem) else { return };
                let (r, o) = (*rank as usize, format_ident!("{}", op.rust_name()));
                self.out
                    .push(quote!(#rt::scatter_shape::<#user, #e, #rt::Rank<#r>, #rt::#o>();));
                return;
            }
            _ => return,
        };
        let Some(e) = self.elem(elem) else { return };
        self.out.push(match layout {
            Some(l) => {
                let l = format_ident!("{}", layout_name(l));
                quote!(#rt::view_shape::<#user, #e, #rt::Rank<#rank>, #rt::#l>();)
            }
            None => quote!(#rt::atomic_shape::<#user, #e, #rt::Rank<#rank>>();),
        });
    }

    /// A map parameter: the type is granule-containers' map or inserter
    /// of these keys and values.
    fn map(&mut self, user: &syn::Type, key: &Elem, value: Option<&Elem>, insert: bool) {
        let rt = self.rt.clone();
        let v = match value {
            Some(v) => self.elem(v),
            None => Some(quote!(#rt::NoValue)),
        };
        let (Some(k), Some(v)) = (self.elem(key), v) else {
            return;
        };
        let access = if insert {
            quote!(#rt::Insert)
        } else {
            quote!(#rt::Read)
        };
        self.out
            .push(quote!(#rt::map_shape::<#user, #k, #v, #access>();));
    }

    fn acc(&mut self, ty: &syn::Type, acc: super::types::Acc) {
        let rt = self.rt.clone();
        let val = primitive(acc.val);
        let loc = acc.loc.map(|l| match l {
            Loc::Scalar(s) => primitive(s),
            Loc::Array(r) => {
                let u = primitive(Scalar::Usize);
                let r = r as usize;
                quote!([#u; #r])
            }
        });
        let canon = match (acc.kind, loc) {
            (AccKind::ValLoc, Some(l)) => quote!(#rt::ValLocScalar<#val, #l>),
            (AccKind::MinMaxLoc, Some(l)) => quote!(#rt::MinMaxLocScalar<#val, #l>),
            (_, _) => quote!(#rt::MinMaxScalar<#val>),
        };
        self.same(ty, canon)
    }

    /// A name the translator maps to one of granule's types: a reducer,
    /// a chunk map, a nested range or a `single` scope.
    fn named(&mut self, ident: &syn::Ident) {
        let name = ident.to_string();
        if !KNOWN.contains(&name.as_str()) {
            return;
        }
        let rt = &self.rt;
        let user = ident;
        let canon = format_ident!("{}", name);
        // The generic ones are named with a placeholder argument.
        let (u, c) = match name.as_str() {
            "PerTeam" | "PerThread" => (quote!(#user<()>), quote!(#rt::#canon<()>)),
            "TeamThreadRange" | "ThreadVectorRange" | "TeamVectorRange" => {
                (quote!(#user<'_>), quote!(#rt::#canon<'_>))
            }
            _ => (quote!(#user), quote!(#rt::#canon)),
        };
        self.out.push(quote!(#rt::same_type::<#u, #c>();));
    }

    /// Every type and granule name the translator reads in a body.
    pub fn body(&mut self, block: &syn::Block) {
        let mut v = BodyTypes { checks: self };
        v.visit_block(block);
    }
}

/// The granule types the translator recognizes by name in a body.
const KNOWN: &[&str] = &[
    "Sum",
    "Prod",
    "Min",
    "Max",
    "LAnd",
    "LOr",
    "BAnd",
    "BOr",
    "MinLoc",
    "MaxLoc",
    "MinMaxLoc",
    "MinMaxFirstLastLoc",
    "MinMax",
    "MapIdentity",
    "MapContinuousLinear",
    "PerTeam",
    "PerThread",
    "TeamThreadRange",
    "ThreadVectorRange",
    "TeamVectorRange",
];

struct BodyTypes<'c, 'a> {
    checks: &'c mut Checks<'a>,
}

impl<'ast> Visit<'ast> for BodyTypes<'_, '_> {
    fn visit_expr_cast(&mut self, c: &'ast syn::ExprCast) {
        self.checks.element(&c.ty);
        syn::visit::visit_expr_cast(self, c);
    }
    fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
        // `let x: T`, closure parameters (`acc: &mut ValLocScalar<..>`).
        self.checks.ty(&p.ty);
        syn::visit::visit_pat_type(self, p);
    }
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.checks.element(&c.ty);
        syn::visit::visit_item_const(self, c);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // `team_scratch::<T, R>(..)`: T is the scratch's element type.
        if let Some(t) = &m.turbofish {
            if let Some(syn::GenericArgument::Type(ty)) = t.args.first() {
                self.checks.element(ty);
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        // `Sum`, `MapIdentity`, `MapContinuousLinear::new`,
        // `TeamThreadRange::new`, `PerTeam`: the first segment of a value
        // path names the type (types in type position are checked above).
        let p = &e.path;
        if p.leading_colon.is_none() && e.qself.is_none() && p.segments.len() <= 2 {
            if let Some(first) = p.segments.first() {
                self.checks.named(&first.ident);
            }
        }
        syn::visit::visit_expr_path(self, e);
    }
}

/// `::core::primitive::f64`, ...
fn primitive(s: Scalar) -> TokenStream {
    let name = syn::Ident::new(s.cpp().trim_start_matches("granule::"), Span::call_site());
    quote!(::core::primitive::#name)
}

fn layout_name(l: Layout) -> &'static str {
    match l {
        Layout::Right => "LayoutRight",
        Layout::Left => "LayoutLeft",
        Layout::Stride => "LayoutStride",
    }
}

fn map_name(m: ChunkMap) -> &'static str {
    match m {
        ChunkMap::ContinuousLinear => "MapContinuousLinear",
        ChunkMap::Identity => "MapIdentity",
    }
}

/// The type with every lifetime inferred (`'_`): the checks sit in a
/// function body, where the lifetimes of the signature are not in scope.
fn with_inferred_lifetimes(ty: &syn::Type) -> syn::Type {
    struct Infer;
    impl syn::visit_mut::VisitMut for Infer {
        fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
            *l = syn::Lifetime::new("'_", l.span());
        }
    }
    let mut ty = ty.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Infer, &mut ty);
    ty
}
