//! The Rust tokens a `#[kernel]` / `#[device]` item expands to: the item
//! itself, unchanged (for the host), and a hidden static describing it for
//! the device (see README.md).

use super::sig::Kind;
use super::types::Layout;
use super::{translate_const, translate_device, translate_kernel, Translated};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Arguments of the attribute: optional `crate = path` naming where
/// `kernel::{DeviceKernel, ..}` live (default `::granule_cuda`).
fn crate_path(attr: TokenStream) -> syn::Result<syn::Path> {
    if attr.is_empty() {
        return Ok(syn::parse_quote!(::granule_cuda));
    }
    let nv: syn::MetaNameValue = syn::parse2(attr)?;
    if !nv.path.is_ident("crate") {
        return Err(syn::Error::new(
            nv.path.span(),
            "#[kernel]: the only argument is `crate = path`",
        ));
    }
    match nv.value {
        syn::Expr::Path(p) => Ok(p.path),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.parse(),
        other => Err(syn::Error::new(other.span(), "#[kernel]: expected a path")),
    }
}

/// The hidden static's name for a kernel or device item.
fn hidden(prefix: &str, ident: &syn::Ident) -> syn::Ident {
    format_ident!("__GRANULE_{}_{}", prefix, ident, span = ident.span())
}

/// References to the statics of the `#[device]` items used, each spanned
/// at its use so that a missing `#[device]` is reported there.
fn deps(t: &Translated) -> Vec<TokenStream> {
    let mut seen: Vec<String> = Vec::new();
    t.deps
        .iter()
        .filter(|p| {
            let key = quote!(#p).to_string();
            !seen.contains(&key) && {
                seen.push(key);
                true
            }
        })
        .map(|p| {
            let mut p = p.clone();
            let last = p.segments.last_mut().expect("a path has a segment");
            let span = last.ident.span();
            last.ident = hidden("DEVICE", &last.ident);
            quote_spanned!(span=> &#p)
        })
        .collect()
}

fn param_tokens(t: &Translated, krate: &syn::Path) -> Vec<TokenStream> {
    t.params
        .iter()
        .map(|p| {
            let name = &p.name;
            let cpp = &p.elem;
            let kind = match &p.kind {
                Kind::Index => quote!(Index),
                Kind::Team => quote!(Team),
                Kind::Scalar => quote!(Scalar),
                Kind::Out => quote!(Out),
                Kind::Atomic { rank } => quote!(Atomic { rank: #rank }),
                Kind::View { rank, layout } => {
                    let l = format_ident!("{}", Layout::rust_variant(*layout));
                    quote!(View { rank: #rank, layout: #krate::kernel::DeviceLayout::#l })
                }
            };
            quote!(#krate::kernel::Param { name: #name, kind: #krate::kernel::ParamKind::#kind, cpp: #cpp })
        })
        .collect()
}

fn or_error(item: TokenStream, r: syn::Result<TokenStream>) -> TokenStream {
    // On error the item is still emitted, so that the only diagnostic is
    // ours and not a cascade of "cannot find function".
    r.unwrap_or_else(|e| {
        let err = e.to_compile_error();
        quote!(#item #err)
    })
}

/// `#[kernel]`.
pub fn expand_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    or_error(item.clone(), kernel_tokens(attr, item))
}

fn kernel_tokens(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let krate = crate_path(attr)?;
    let mut f: syn::ItemFn = syn::parse2(item)?;
    let t = translate_kernel(&f)?;
    let (name, source, generics) = (&t.name, &t.source, &t.generics);
    let params = param_tokens(&t, &krate);
    let deps = deps(&t);
    let stat = hidden("KERNEL", &f.sig.ident);
    let vis = &f.vis;
    // The host body is called per element: it must inline into the
    // dispatch loop like a closure does.
    f.attrs.push(syn::parse_quote!(#[inline(always)]));
    Ok(quote! {
        #f
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis static #stat: #krate::kernel::DeviceKernel = #krate::kernel::DeviceKernel {
            name: #name,
            generics: &[#(#generics),*],
            params: &[#(#params),*],
            source: #source,
            deps: &[#(#deps),*],
        };
    })
}

/// `#[device]` on a function or a `const`.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    or_error(item.clone(), device_tokens(attr, item))
}

fn device_tokens(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let krate = crate_path(attr)?;
    let parsed: syn::Item = syn::parse2(item)?;
    let (t, ident, vis, item) = match parsed {
        syn::Item::Fn(mut f) => {
            let t = translate_device(&f)?;
            f.attrs.push(syn::parse_quote!(#[inline(always)]));
            (t, f.sig.ident.clone(), f.vis.clone(), quote!(#f))
        }
        syn::Item::Const(c) => (
            translate_const(&c)?,
            c.ident.clone(),
            c.vis.clone(),
            quote!(#c),
        ),
        other => {
            return Err(syn::Error::new(
                Span::call_site().located_at(other.span()),
                "#[device] applies to a function or a `const`",
            ))
        }
    };
    let (name, source) = (&t.name, &t.source);
    let deps = deps(&t);
    let stat = hidden("DEVICE", &ident);
    Ok(quote! {
        #item
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis static #stat: #krate::kernel::DeviceFn = #krate::kernel::DeviceFn {
            name: #name,
            source: #source,
            deps: &[#(#deps),*],
        };
    })
}
