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
        // `TeamChunk<T>` hides its lifetime parameter: name it.
        if seg.ident == "TeamChunk" {
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

/// One parameter of the kernel fn as the glue sees it.
struct Arg<'a> {
    ident: syn::Ident,
    ty: &'a syn::Type,
    kind: &'a Kind,
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

fn captured(kind: &Kind) -> bool {
    matches!(kind, Kind::Scalar | Kind::View { .. } | Kind::Atomic { .. })
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

/// Everything but the hidden device static.
pub fn glue(
    f: &syn::ItemFn,
    params: &[Param],
    pattern: Pattern,
    krate: &syn::Path,
    stat: &syn::Ident,
) -> TokenStream {
    let rt = quote!(#krate::kernel::__rt);
    let name = &f.sig.ident;
    let vis = &f.vis;
    let (k, w) = (k_lt(), w_lt());
    let args = args(f, params);
    let caps: Vec<&Arg> = args.iter().filter(|a| captured(a.kind)).collect();
    // What a work item is handed: `&mut` elements, or team chunks.
    let outs: Vec<&Arg> = args
        .iter()
        .filter(|a| matches!(a.kind, Kind::Out | Kind::Chunk { .. }))
        .collect();
    let cap_names: Vec<&syn::Ident> = caps.iter().map(|a| &a.ident).collect();
    let cap_tys: Vec<syn::Type> = caps.iter().map(|a| named(a.ty, k.clone())).collect();

    let sg = with_lifetimes(&f.sig.generics, std::slice::from_ref(&k));
    let (s_impl, s_ty, s_where) = sg.split_for_impl();
    let ig = with_lifetimes(&f.sig.generics, &[k.clone(), w.clone()]);
    let (i_impl, _, _) = ig.split_for_impl();
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
    let marker = marker_type(&f.sig.generics, &k);

    let index_ty = index_type(&rt, &args[0]);
    let (trait_path, exec_params, unpack) = functor_impl(&rt, pattern, &index_ty, &outs);
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

    // The body, unchanged, as `name::body`: user attributes (docs, lints)
    // stay with it and with the constructor.
    let mut body = f.clone();
    body.sig.ident = syn::Ident::new("body", name.span());
    body.sig.generics = syn::Generics::default();
    body.vis = syn::parse_quote!(pub);
    body.attrs.retain(|a| !a.path().is_ident("doc"));
    body.attrs.push(syn::parse_quote!(#[inline(always)]));
    body.attrs.push(syn::parse_quote!(#[doc = "The kernel body, called once per work item (what the host spaces run)."]));
    let docs: Vec<&syn::Attribute> = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let struct_doc = format!(
        "The functor of the `#[kernel]` [`{name}`](fn@{name}): its captured parameters, ready for a pattern."
    );
    let s_name = quote!(#name #s_ty);

    quote! {
        #[doc = #struct_doc]
        #[allow(non_camel_case_types)]
        #vis struct #name #s_impl #s_where {
            #(#cap_names: #cap_tys,)*
            __granule_marker: #rt::PhantomData<#marker>,
        }

        #(#docs)*
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        #vis fn #name #s_impl (#(#cap_names: #cap_tys),*) -> #s_name #s_where {
            #name { #(#cap_names,)* __granule_marker: #rt::PhantomData }
        }

        impl #s_impl #s_name #s_where {
            #body
        }

        impl #i_impl #trait_path for #s_name
        where #where_preds #s_name: ::core::marker::Sync
        {
            #[inline(always)]
            fn exec(&self, #first: #index_ty, #exec_params) {
                #unpack
                Self::body(#(#call_args),*)
            }
        }

        impl #s_impl #krate::kernel::KernelSource for #s_name #s_where {
            const KERNEL: &'static #krate::kernel::DeviceKernel = &#stat;
        }

        impl #s_impl #krate::kernel::DeviceFunctor for #s_name #s_where {}
    }
}

/// `(&'k (), &'a (), .., fn() -> (T, ..))`: uses every generic parameter,
/// without owning a `T` (so the functor is `Send + Sync` whatever `T` is).
fn marker_type(g: &syn::Generics, k: &syn::Lifetime) -> TokenStream {
    let lts = g.lifetimes().map(|l| &l.lifetime);
    let tys = g.type_params().map(|t| &t.ident);
    quote!((&#k (), #(&#lts (),)* fn() -> (#(#tys,)*)))
}
