//! The host glue of a `#[kernel]`: a functor struct named like the kernel,
//! holding the captured parameters; a constructor fn of the same name (a
//! struct with named fields lives in the type namespace only, so both
//! coexist); the body as `name::body`; and the functor trait impls that
//! call it. Everything is `#[inline(always)]` and static dispatch, so a
//! kernel costs what the equivalent closure costs.

use super::sig::{Kind, Param};
use super::Pattern;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;

/// The struct's lifetime for borrowed captures.
fn k_lt() -> syn::Lifetime {
    syn::Lifetime::new("'__granule_k", Span::call_site())
}

/// The lifetime of one work item's index and elements.
fn w_lt() -> syn::Lifetime {
    syn::Lifetime::new("'__granule_w", Span::call_site())
}

/// Gives every elided lifetime of a captured parameter's type (`&T`,
/// `'_`) a name, since a struct field cannot elide.
struct NameElided(syn::Lifetime);

impl VisitMut for NameElided {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(self.0.clone());
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
    fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
        // `TeamChunk<T>`, `Row<T, R>` and `Segment<T>` hide their lifetime
        // parameter: name it.
        if seg.ident == "TeamChunk" || seg.ident == "Row" || seg.ident == "Segment" {
            if let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments {
                if !a
                    .args
                    .iter()
                    .any(|g| matches!(g, syn::GenericArgument::Lifetime(_)))
                {
                    a.args
                        .insert(0, syn::GenericArgument::Lifetime(self.0.clone()));
                }
            }
        }
        syn::visit_mut::visit_path_segment_mut(self, seg);
    }
    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        if l.ident == "_" {
            *l = self.0.clone();
        }
    }
}

fn named(ty: &syn::Type, lt: syn::Lifetime) -> syn::Type {
    let mut ty = ty.clone();
    NameElided(lt).visit_type_mut(&mut ty);
    ty
}

/// `&mut X` -> `X`.
fn pointee(ty: &syn::Type) -> syn::Type {
    match ty {
        syn::Type::Reference(r) => (*r.elem).clone(),
        other => other.clone(),
    }
}

/// Generics with extra lifetimes in front.
fn with_lifetimes(g: &syn::Generics, lts: &[syn::Lifetime]) -> syn::Generics {
    let mut g = g.clone();
    for (k, lt) in lts.iter().enumerate() {
        g.params.insert(
            k,
            syn::GenericParam::Lifetime(syn::LifetimeParam::new(lt.clone())),
        );
    }
    g
}

/// The hidden memory-space parameter of a functor that captures Views.
fn mem_ident() -> syn::Ident {
    syn::Ident::new("__GranuleMem", Span::call_site())
}

/// For a View-like type: how many non-lifetime arguments come before its
/// layout (none for `AtomicView`, which has no layout parameter) and
/// before its memory space.
fn space_slot(seg: &syn::PathSegment) -> Option<(Option<usize>, usize)> {
    let name = seg.ident.to_string();
    match name.as_str() {
        "AtomicView" => Some((None, 2)),
        "MapInserter" | "UnorderedMap" => Some((None, 2)),
        "SetInserter" | "UnorderedSet" => Some((None, 1)),
        "ScatterView" => Some((None, 3)),
        "UniqueToken" => Some((None, 0)),
        "View" | "ViewRef" => Some((Some(2), 3)),
        n if n.len() == 5 && n.starts_with("View") => Some((Some(1), 2)),
        _ => None,
    }
}

/// `View1<T>` -> `View1<T, LayoutRight, M>` (and likewise for the other
/// View types and `AtomicView`): a captured View's type, in memory space
/// `mem`, unless the kernel names the space itself.
fn in_space(ty: &syn::Type, rt: &TokenStream, mem: &syn::Ident) -> syn::Type {
    let mut ty = ty.clone();
    let path = match &mut ty {
        syn::Type::Reference(r) => match &mut *r.elem {
            syn::Type::Path(p) => p,
            _ => return ty,
        },
        syn::Type::Path(p) => p,
        _ => return ty,
    };
    let Some(seg) = path.path.segments.last_mut() else {
        return ty;
    };
    let Some((layout_at, mem_at)) = space_slot(seg) else {
        return ty;
    };
    // A type with no arguments at all (`UniqueToken`).
    if mem_at == 0 && seg.arguments.is_empty() {
        seg.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(<#mem>));
        return ty;
    }
    let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments else {
        return ty;
    };
    let count = |a: &syn::AngleBracketedGenericArguments| {
        a.args
            .iter()
            .filter(|g| !matches!(g, syn::GenericArgument::Lifetime(_)))
            .count()
    };
    if layout_at == Some(count(a)) {
        a.args.push(syn::parse_quote!(#rt::LayoutRight));
    }
    if seg.ident == "ScatterView" && count(a) == 2 {
        a.args.push(syn::parse_quote!(#rt::Sum));
    }
    if count(a) == mem_at {
        a.args.push(syn::parse_quote!(#mem));
    }
    ty
}

/// One parameter of the kernel fn as the glue sees it.
pub(super) struct Arg<'a> {
    pub ident: syn::Ident,
    pub ty: &'a syn::Type,
    pub kind: &'a Kind,
}

fn args<'a>(f: &'a syn::ItemFn, params: &'a [Param]) -> Vec<Arg<'a>> {
    f.sig
        .inputs
        .iter()
        .zip(params)
        .enumerate()
        .map(|(k, (arg, p))| {
            let syn::FnArg::Typed(pt) = arg else {
                unreachable!("the translator rejects `self`")
            };
            let ident = match &*pt.pat {
                syn::Pat::Ident(i) => i.ident.clone(),
                // destructured MDRange index: bound whole, passed whole
                _ => format_ident!("__granule_arg{}", k),
            };
            Arg {
                ident,
                ty: &pt.ty,
                kind: &p.kind,
            }
        })
        .collect()
}

pub(super) fn captured(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Scalar
            | Kind::View { .. }
            | Kind::Atomic { .. }
            | Kind::Map { .. }
            | Kind::Scatter { .. }
            | Kind::Token
    )
}

/// `()`, `&'w mut T`, or a tuple of them: what a work item is handed.
fn owned_type(outs: &[&Arg]) -> TokenStream {
    let w = w_lt();
    let tys: Vec<syn::Type> = outs.iter().map(|a| named(a.ty, w.clone())).collect();
    match tys.as_slice() {
        [one] => quote!(#one),
        many => quote!((#(#many,)*)),
    }
}

/// The pattern-specific functor impl's signature pieces:
/// (trait path with args, exec params, statements binding outputs).
fn functor_impl(
    rt: &TokenStream,
    pattern: Pattern,
    index_ty: &TokenStream,
    outs: &[&Arg],
) -> (TokenStream, TokenStream, TokenStream) {
    let names: Vec<&syn::Ident> = outs.iter().map(|a| &a.ident).collect();
    let unpack = |owned: &[&syn::Ident]| match owned {
        [] => quote!(let () = __granule_owned;),
        [one] => quote!(let #one = __granule_owned;),
        many => quote!(let (#(#many,)*) = __granule_owned;),
    };
    match pattern {
        Pattern::For => {
            let w = owned_type(outs);
            (
                quote!(#rt::ForFunctor<#index_ty, #w>),
                quote!(__granule_owned: #w),
                unpack(&names),
            )
        }
        Pattern::Reduce => {
            let acc = &names[0];
            let t = pointee(outs[0].ty);
            (
                quote!(#rt::ReduceFunctor<#index_ty, #t>),
                quote!(#acc: &mut #t),
                quote!(),
            )
        }
        Pattern::Scan => {
            let (partial, elems) = outs.split_last().expect("checked: a scan has a partial");
            let w = owned_type(elems);
            let t = pointee(partial.ty);
            let p = &partial.ident;
            (
                quote!(#rt::ScanFunctor<#index_ty, #w, #t>),
                quote!(__granule_owned: #w, #p: &mut #t, __granule_final: bool),
                unpack(&names[..names.len() - 1]),
            )
        }
    }
}

/// The work index type of the functor impl.
fn index_type(rt: &TokenStream, first: &Arg) -> TokenStream {
    let w = w_lt();
    match first.kind {
        Kind::Team => quote!(&#w #rt::TeamMember),
        _ => {
            let ty = first.ty;
            quote!(#ty)
        }
    }
}

fn is_view(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::View { .. }
            | Kind::Atomic { .. }
            | Kind::Map { .. }
            | Kind::Scatter { .. }
            | Kind::Token
    )
}

/// Generics with a trailing type parameter `mem: MemorySpace`, defaulted
/// to the host's memory when `default` (only a struct may say so), so the
/// functor's type can be named without it.
fn with_mem(g: &syn::Generics, rt: &TokenStream, mem: &syn::Ident, default: bool) -> syn::Generics {
    let mut g = g.clone();
    let mut p: syn::TypeParam = syn::parse_quote!(#mem: #rt::MemorySpace);
    if default {
        p.eq_token = Some(Default::default());
        p.default = Some(syn::parse_quote!(#rt::HostSpace));
    }
    g.params.push(syn::GenericParam::Type(p));
    g
}

/// The argument of one captured parameter, for a device space.
fn capture_arg(rt: &TokenStream, a: &Arg) -> TokenStream {
    let id = &a.ident;
    let by_ref = matches!(a.ty, syn::Type::Reference(_));
    let v = if by_ref {
        quote!(self.#id)
    } else {
        quote!(&self.#id)
    };
    match a.kind {
        Kind::View { .. } => quote!(#rt::view_arg(#v)),
        Kind::Atomic { .. } => quote!(#rt::atomic_arg(#v)),
        Kind::Map { .. } => quote!(#rt::map_arg(#v)),
        Kind::Scatter { .. } => quote!(#rt::scatter_arg(#v)),
        Kind::Token => quote!(#rt::token_arg(#v)),
        _ => quote!(#rt::scalar_arg(#v)),
    }
}

/// The work index as `DeviceFunctor::Index` names it.
fn device_index(rt: &TokenStream, first: &Arg) -> TokenStream {
    match first.kind {
        Kind::Team => quote!(#rt::TeamMember),
        Kind::MdIndex { rank } => {
            let r = usize::from(*rank);
            quote!([::core::primitive::usize; #r])
        }
        _ => quote!(::core::primitive::usize),
    }
}

/// What one work item writes, as `DeviceFunctor::Outputs` names it: the
/// `&mut` elements and team chunks with `'static` borrows (a scan's
/// partial and a reduction's accumulator are bound by the driver, not
/// written through the call's Views).
fn device_outputs(pattern: Pattern, outs: &[&Arg]) -> TokenStream {
    let written = match pattern {
        Pattern::For => outs,
        Pattern::Scan => &outs[..outs.len().saturating_sub(1)],
        Pattern::Reduce => &[],
    };
    let st = syn::Lifetime::new("'static", Span::call_site());
    let tys: Vec<syn::Type> = written.iter().map(|a| named(a.ty, st.clone())).collect();
    match tys.as_slice() {
        [one] => quote!(#one),
        many => quote!((#(#many,)*)),
    }
}

/// The generic parameters that are the elements of atomic Views: the
/// device has atomics of 32 and 64 bits only, so they must be
/// `DeviceAtomic`.
fn atomic_generics<'a>(args: &'a [Arg], params: &'a [Param]) -> Vec<syn::Ident> {
    let mut out: Vec<syn::Ident> = Vec::new();
    for (a, p) in args.iter().zip(params) {
        if matches!(a.kind, Kind::Atomic { .. }) && !out.iter().any(|g| g == p.elem.as_str()) {
            if let Some(g) = generic_elem(&p.elem) {
                out.push(g);
            }
        }
    }
    out
}

/// A parameter's element type if it is a generic parameter (its C++
/// spelling is the parameter's name, not a `granule::` scalar).
fn generic_elem(cpp: &str) -> Option<syn::Ident> {
    (!cpp.contains(':') && cpp != "bool").then(|| syn::Ident::new(cpp, Span::call_site()))
}

/// The accumulator (reduce) or partial (scan) type, `()` for a for kernel.
fn value_type(pattern: Pattern, outs: &[&Arg]) -> TokenStream {
    match (pattern, outs.last()) {
        (Pattern::Reduce | Pattern::Scan, Some(acc)) => {
            let t = named(&pointee(acc.ty), k_lt());
            quote!(#t)
        }
        _ => quote!(()),
    }
}

/// What every functor a `#[kernel]` makes has: the captured parameters,
/// the generics (with the hidden memory space when Views are captured),
/// the struct, its constructor and `name::body`. The pattern functors
/// ([`glue`]) and the element functions (`element.rs`) add their trait
/// impls to it.
///
/// A kernel that captures Views gets a hidden last type parameter, the
/// memory space of those Views (defaulting to the host's): the host
/// functor impls exist for host memory, the device ones for any space,
/// so a device space launches the kernel only with Views of its own
/// memory, and the error for host Views names both spaces.
pub(super) struct Shell<'a> {
    pub rt: TokenStream,
    pub kapi: TokenStream,
    pub f: &'a syn::ItemFn,
    pub args: Vec<Arg<'a>>,
    /// The struct's and constructor's generics.
    pub sg: syn::Generics,
    /// The device impl's generics: `sg` and the space it runs in.
    pub dg: syn::Generics,
    /// `sg` without the hidden space: what the host impls are generic over.
    pub base: syn::Generics,
    /// The space the device impl runs in.
    pub run: syn::Ident,
    /// `Mem: SameMemorySpace<Run>,` when Views are captured.
    pub same_space: Option<TokenStream>,
    /// The functor's type with host Views: what the host impls are for.
    pub host_ty: TokenStream,
    /// The user's where predicates, with a trailing comma.
    pub where_preds: TokenStream,
    pub tparams: Vec<&'a syn::Ident>,
}

impl<'a> Shell<'a> {
    pub fn new(f: &'a syn::ItemFn, params: &'a [Param], krate: &syn::Path) -> Self {
        let rt = quote!(#krate::kernel::__rt);
        let kapi = quote!(#krate::kernel);
        let k = k_lt();
        let mem = mem_ident();
        let args = args(f, params);
        let views = args.iter().any(|a| is_view(a.kind));
        let base = with_lifetimes(&f.sig.generics, std::slice::from_ref(&k));
        let sg = if views {
            with_mem(&base, &rt, &mem, false)
        } else {
            base.clone()
        };
        // The device impl: for every space the kernel's Views are in
        // (`run`), through a bound whose error names both spaces.
        let run = syn::Ident::new("__GranuleRun", Span::call_site());
        let dg = with_mem(&sg, &rt, &run, false);
        let same_space = views.then(|| quote!(#mem: #kapi::SameMemorySpace<#run>,));
        let where_preds = f
            .sig
            .generics
            .where_clause
            .as_ref()
            .map(|wc| {
                let p = &wc.predicates;
                quote!(#p,)
            })
            .unwrap_or_default();
        let tparams: Vec<&syn::Ident> = f.sig.generics.type_params().map(|t| &t.ident).collect();
        let host_space = views.then(|| quote!(#rt::HostSpace));
        let name = &f.sig.ident;
        let host_ty = quote!(#name<#k, #(#tparams,)* #host_space>);
        Shell {
            rt,
            kapi,
            f,
            args,
            sg,
            dg,
            base,
            run,
            same_space,
            host_ty,
            where_preds,
            tparams,
        }
    }

    /// `impl PortableKernel<M>`: the functor over Views in `M` and its form
    /// over host Views (itself when it captures none), for every `M`.
    pub fn portable_impl(&self) -> TokenStream {
        let kapi = &self.kapi;
        let s_name = self.s_name();
        let (host_ty, where_preds) = (&self.host_ty, &self.where_preds);
        let views = self.same_space.is_some();
        let (generics, space, host) = if views {
            (&self.sg, mem_ident(), quote!(#host_ty))
        } else {
            (&self.dg, self.run.clone(), quote!(Self))
        };
        let (g_impl, _, _) = generics.split_for_impl();
        quote! {
            // SAFETY: `Host` is the functor's type with its memory space
            // parameter set to HostSpace (or the type itself when it has
            // none), as the trait requires.
            unsafe impl #g_impl #kapi::PortableKernel<#space> for #s_name
            where #where_preds
            {
                type Host = #host;
            }
        }
    }

    /// The captured parameters (scalars, read and atomic Views).
    pub fn caps(&self) -> Vec<&Arg<'a>> {
        self.args.iter().filter(|a| captured(a.kind)).collect()
    }

    /// `name<'k, T.., Mem>`: the functor's type, generic over the space.
    pub fn s_name(&self) -> TokenStream {
        let name = &self.f.sig.ident;
        let (_, s_ty, _) = self.sg.split_for_impl();
        quote!(#name #s_ty)
    }

    /// The device arguments of the captured parameters, in order.
    pub fn capture_args(&self) -> Vec<TokenStream> {
        self.caps()
            .iter()
            .map(|a| capture_arg(&self.rt, a))
            .collect()
    }

    /// `T: DeviceScalar + DeviceValue,` per generic parameter, and the
    /// `TYPES` constant's value.
    pub fn device_types(&self) -> (TokenStream, TokenStream) {
        let (kapi, tparams) = (&self.kapi, &self.tparams);
        (
            quote!(#(#tparams: #kapi::DeviceScalar + #kapi::DeviceValue,)*),
            quote!(&[#(<#tparams as #kapi::DeviceScalar>::CPP),*]),
        )
    }

    /// The struct, the constructor and `name::body` (documented as
    /// `body_doc`).
    pub fn tokens(&self, body_doc: &str) -> TokenStream {
        let (f, rt) = (self.f, &self.rt);
        let (name, vis) = (&f.sig.ident, &f.vis);
        let k = k_lt();
        let mem = mem_ident();
        let caps = self.caps();
        let views = caps.iter().any(|a| is_view(a.kind));
        let cap_names: Vec<&syn::Ident> = caps.iter().map(|a| &a.ident).collect();
        let cap_tys: Vec<syn::Type> = caps
            .iter()
            .map(|a| match is_view(a.kind) {
                true => named(&in_space(a.ty, rt, &mem), k.clone()),
                false => named(a.ty, k.clone()),
            })
            .collect();
        let decl_g = if views {
            with_mem(&self.base, rt, &mem, true)
        } else {
            self.base.clone()
        };
        let (s_impl, _, s_where) = self.sg.split_for_impl();
        let (b_impl, _, _) = self.base.split_for_impl();
        let marker = marker_type(&f.sig.generics, &k, views.then_some(&mem));
        let host_ty = &self.host_ty;
        // The body, unchanged, as `name::body`: user attributes (docs,
        // lints) stay with it and with the constructor.
        let mut body = f.clone();
        body.sig.ident = syn::Ident::new("body", name.span());
        body.sig.generics = syn::Generics::default();
        body.vis = syn::parse_quote!(pub);
        body.attrs.retain(|a| !a.path().is_ident("doc"));
        if !body.attrs.iter().any(|a| a.path().is_ident("inline")) {
            body.attrs.push(syn::parse_quote!(#[inline(always)]));
        }
        body.attrs.push(syn::parse_quote!(#[doc = #body_doc]));
        let docs: Vec<&syn::Attribute> = f
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .collect();
        let struct_doc = format!(
            "The functor of the `#[kernel]` [`{name}`](fn@{name}): its captured parameters."
        );
        // A hidden kernel hides its functor too, which also keeps it out of
        // rustc's "other types implement KernelSource" lists.
        let hidden = docs
            .iter()
            .any(|a| matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "hidden"));
        let hide = hidden.then(|| quote!(#[doc(hidden)]));
        let s_name = self.s_name();
        let decl_params = &decl_g.params;
        quote! {
            #[doc = #struct_doc]
            #hide
            #[allow(non_camel_case_types)]
            #vis struct #name <#decl_params> #s_where {
                #(#cap_names: #cap_tys,)*
                __granule_marker: #rt::PhantomData<#marker>,
            }

            #(#docs)*
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            #vis fn #name #s_impl (#(#cap_names: #cap_tys),*) -> #s_name #s_where {
                #name { #(#cap_names,)* __granule_marker: #rt::PhantomData }
            }

            impl #b_impl #host_ty #s_where {
                #body
            }
        }
    }
}

/// Everything but the hidden device static, for a kernel of `pattern`.
pub fn glue(
    f: &syn::ItemFn,
    params: &[Param],
    pattern: Pattern,
    krate: &syn::Path,
    stat: &syn::Ident,
) -> TokenStream {
    let sh = Shell::new(f, params, krate);
    let (rt, kapi) = (&sh.rt, &sh.kapi);
    let (k, w) = (k_lt(), w_lt());
    let args = &sh.args;
    // What a work item is handed: `&mut` elements, or team chunks.
    let outs: Vec<&Arg> = args
        .iter()
        .filter(|a| {
            matches!(
                a.kind,
                Kind::Out | Kind::Chunk { .. } | Kind::Row { .. } | Kind::Segment
            )
        })
        .collect();
    let (s_impl, _, s_where) = sh.sg.split_for_impl();
    let (d_impl, _, _) = sh.dg.split_for_impl();
    let ig = with_lifetimes(&f.sig.generics, &[k, w]);
    let (i_impl, _, _) = ig.split_for_impl();
    let (host_ty, where_preds, run) = (&sh.host_ty, &sh.where_preds, &sh.run);
    let same_space = &sh.same_space;

    let index_ty = index_type(rt, &args[0]);
    let (trait_path, exec_params, unpack) = functor_impl(rt, pattern, &index_ty, &outs);
    let first = &args[0].ident;
    let call_args = args.iter().enumerate().map(|(n, a)| {
        let id = &a.ident;
        match a.kind {
            _ if n == 0 => quote!(#first),
            Kind::Final => quote!(__granule_final),
            k if captured(k) => quote!(self.#id),
            _ => quote!(#id),
        }
    });
    let capture_args = sh.capture_args();
    let value = value_type(pattern, &outs);
    let dev_index = device_index(rt, &args[0]);
    let dev_outputs = device_outputs(pattern, &outs);
    let atomic_bounds = atomic_generics(args, params)
        .into_iter()
        .map(|g| quote!(#g: #kapi::DeviceAtomic,));
    let (scalar_bounds, types) = sh.device_types();
    let s_name = sh.s_name();
    let shell = sh.tokens("The kernel body, called once per work item (what the host spaces run).");
    let portable = sh.portable_impl();

    quote! {
        #shell
        #portable

        impl #i_impl #trait_path for #host_ty
        where #where_preds #host_ty: ::core::marker::Sync
        {
            #[inline(always)]
            fn exec(&self, #first: #index_ty, #exec_params) {
                #unpack
                Self::body(#(#call_args),*)
            }
        }

        // SAFETY: the static is this kernel's translation, made by
        // `#[kernel]` from the body above.
        unsafe impl #s_impl #kapi::KernelSource for #s_name #s_where {
            const KERNEL: &'static #kapi::DeviceKernel = &#stat;
        }

        // SAFETY: `captures` lists the captured fields in the kernel's
        // parameter order, the types are the generic arguments' device
        // spellings, and Index/Outputs/Value are the signature's.
        unsafe impl #d_impl #kapi::DeviceFunctor<#run> for #s_name
        where #where_preds #same_space #scalar_bounds #(#atomic_bounds)*
        {
            type Index = #dev_index;
            type Outputs = #dev_outputs;
            type Value = #value;
            const TYPES: &'static [&'static str] = #types;
            fn captures(&self) -> ::std::vec::Vec<#kapi::DeviceArg<'_>> {
                ::std::vec![#(#capture_args),*]
            }
        }
    }
}

/// `(&'k (), &'a (), .., fn() -> (T, ..))`: uses every generic parameter,
/// without owning a `T` (so the functor is `Send + Sync` whatever `T` is).
fn marker_type(g: &syn::Generics, k: &syn::Lifetime, mem: Option<&syn::Ident>) -> TokenStream {
    let lts = g.lifetimes().map(|l| &l.lifetime);
    let tys = g.type_params().map(|t| &t.ident).chain(mem);
    quote!((&#k (), #(&#lts (),)* fn() -> (#(#tys,)*)))
}
