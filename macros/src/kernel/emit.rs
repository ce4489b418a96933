//! The Rust tokens a `#[kernel]` / `#[device]` item expands to: the item
//! itself, unchanged (for the host), and a hidden static describing it for
//! the device (see README.md).

use super::canon::Checks;
use super::element::{element_glue, element_signature, translate_element};
use super::reducer::translate_reducer;
use super::sig::Kind;
use super::structs::{add_repr_c, translate_struct};
use super::types::Layout;
use super::{host, translate_const, translate_device, translate_kernel, Pattern, Translated};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The default home of `kernel::{DeviceKernel, ..}`: the umbrella crate.
fn default_crate() -> syn::Path {
    syn::parse_quote!(::granule)
}

/// One `crate = path` argument.
fn crate_arg(nv: syn::MetaNameValue) -> syn::Result<syn::Path> {
    match nv.value {
        syn::Expr::Path(p) => Ok(p.path),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.parse(),
        other => Err(syn::Error::new(other.span(), "#[kernel]: expected a path")),
    }
}

/// The arguments of `#[kernel(..)]`.
pub struct KernelArgs {
    pub krate: syn::Path,
    pub pattern: Pattern,
    /// `unary` (1) or `binary` (2): an element function of that many
    /// elements. A function that returns a value without either is unary.
    pub arity: Option<usize>,
}

impl KernelArgs {
    /// The number of elements when `f` is an element function: it
    /// returns a value, or the attribute names its arity.
    pub fn element_arity(&self, f: &syn::ItemFn) -> syn::Result<Option<usize>> {
        let returns = matches!(f.sig.output, syn::ReturnType::Type(..));
        match (self.arity, returns, self.pattern) {
            (None, false, _) => Ok(None),
            (_, _, Pattern::Reduce | Pattern::Scan) => Err(syn::Error::new(
                f.sig.ident.span(),
                "#[kernel]: a `#[kernel(reduce)]` or `#[kernel(scan)]` writes through its `&mut` \
                 parameters and returns nothing; a function that returns a value is an element \
                 function (`#[kernel]`, `#[kernel(binary)]`)",
            )),
            (arity, _, Pattern::For) => Ok(Some(arity.unwrap_or(1))),
        }
    }
}

/// `#[kernel]`, `#[kernel(reduce)]`, `#[kernel(scan)]`, each optionally
/// with `crate = path` (where `kernel::{DeviceKernel, ..}` live; default
/// `::granule`).
pub fn kernel_args(attr: TokenStream) -> syn::Result<KernelArgs> {
    let mut args = KernelArgs {
        krate: default_crate(),
        pattern: Pattern::For,
        arity: None,
    };
    let metas = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    for meta in syn::parse::Parser::parse2(metas, attr)? {
        match meta {
            syn::Meta::Path(p) if p.is_ident("reduce") => args.pattern = Pattern::Reduce,
            syn::Meta::Path(p) if p.is_ident("scan") => args.pattern = Pattern::Scan,
            syn::Meta::Path(p) if p.is_ident("unary") => args.arity = Some(1),
            syn::Meta::Path(p) if p.is_ident("binary") => args.arity = Some(2),
            syn::Meta::NameValue(nv) if nv.path.is_ident("crate") => args.krate = crate_arg(nv)?,
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "#[kernel]: expected `reduce`, `scan`, `unary`, `binary` or `crate = path`",
                ))
            }
        }
    }
    Ok(args)
}

/// `#[device]`'s only argument: optional `crate = path`.
fn crate_path(attr: TokenStream) -> syn::Result<syn::Path> {
    if attr.is_empty() {
        return Ok(default_crate());
    }
    let nv: syn::MetaNameValue = syn::parse2(attr)?;
    if !nv.path.is_ident("crate") {
        return Err(syn::Error::new(
            nv.path.span(),
            "#[device]: the only argument is `crate = path`",
        ));
    }
    crate_arg(nv)
}

/// The hidden static's name for a kernel or device item.
fn hidden(prefix: &str, ident: &syn::Ident) -> syn::Ident {
    format_ident!("__GRANULE_{}_{}", prefix, ident, span = ident.span())
}

/// References to the definitions of the `#[device]` items used, each
/// spanned at its use so that a missing `#[device]` is reported there:
/// helpers through their companions (`path::name::device()`, reached by the
/// path the body calls them by), structs through `DeviceStruct` (whose
/// diagnostic says to add `#[device]`), custom reducers through
/// `DeviceReducer`. Each item once, structs first, then reducers, as C++
/// needs a type before its uses.
fn deps(t: &Translated, krate: &syn::Path) -> Vec<TokenStream> {
    let mut seen: Vec<String> = Vec::new();
    let mut first = |p: &&syn::Path| {
        let key = quote!(#p).to_string();
        !seen.contains(&key) && {
            seen.push(key);
            true
        }
    };
    let structs = t.struct_deps.iter().filter(&mut first).map(|p| {
        let span = last_span(p);
        quote_spanned!(span=> <#p as #krate::kernel::DeviceStruct>::DEVICE)
    });
    let structs: Vec<TokenStream> = structs.collect();
    let reducers = t.reducer_deps.iter().filter(&mut first).map(|p| {
        let span = last_span(p);
        quote_spanned!(span=> <#p as #krate::kernel::DeviceReducer>::DEVICE)
    });
    let reducers: Vec<TokenStream> = reducers.collect();
    let items = t.deps.iter().filter(first).map(|p| {
        let span = last_span(p);
        quote_spanned!(span=> #p::device())
    });
    structs.into_iter().chain(reducers).chain(items).collect()
}

/// The span of a path's last segment: the item's name at its use.
fn last_span(p: &syn::Path) -> Span {
    p.segments
        .last()
        .expect("a path has a segment")
        .ident
        .span()
}

fn param_tokens(t: &Translated, krate: &syn::Path) -> Vec<TokenStream> {
    t.params
        .iter()
        .map(|p| {
            let name = &p.name;
            let cpp = &p.elem;
            let kind = match &p.kind {
                Kind::Index => quote!(Index),
                Kind::MdIndex { rank } => quote!(MdIndex { rank: #rank }),
                Kind::Final => quote!(Final),
                Kind::Element => quote!(Element),
                Kind::Team => quote!(Team),
                Kind::Scalar => quote!(Scalar),
                Kind::Out => quote!(Out),
                Kind::Row { rank } => quote!(Row { rank: #rank }),
                Kind::Segment => quote!(Segment),
                // A ScatterView is an atomic View of its shared copy there.
                Kind::Atomic { rank } | Kind::Scatter { rank } => quote!(Atomic { rank: #rank }),
                Kind::Map { insert, set } => quote!(Map { insert: #insert, set: #set }),
                // A UniqueToken is an atomic View of its locks there.
                Kind::Token => quote!(Atomic { rank: 1u8 }),
                Kind::Chunk { map } => {
                    let m = format_ident!("{}", map.rust_variant());
                    quote!(Chunk { map: #krate::kernel::DeviceChunkMap::#m })
                }
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
    let args = kernel_args(attr)?;
    let f: syn::ItemFn = syn::parse2(item)?;
    if let Some(arity) = args.element_arity(&f)? {
        return element_tokens(&f, arity, &args.krate);
    }
    let KernelArgs { krate, pattern, .. } = args;
    let t = match translate_kernel(&f, pattern) {
        Ok(t) => t,
        Err(e) => return rejected_body(&f, pattern, &krate, e),
    };
    let (name, source, generics) = (&t.name, &t.source, &t.generics);
    let params = param_tokens(&t, &krate);
    let deps = deps(&t, &krate);
    let stat = hidden("KERNEL", &f.sig.ident);
    let vis = &f.vis;
    let glue = host::glue(&f, &t.params, pattern, &krate, &stat);
    let pat = format_ident!("{}", pattern.rust_variant());
    let one_lane = t.one_lane.as_ref().map(|why| quote!(.with_one_lane(#why)));
    let types = fn_type_checks(&f, &krate, generics);
    let layouts = layout_checks(&f, &krate);
    Ok(quote! {
        #glue
        #types
        #layouts
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        // SAFETY: `#[kernel]` translated `source` from the function above
        // and described its parameters; `deps` are its `#[device]` items.
        #vis static #stat: #krate::kernel::DeviceKernel = unsafe {
            #krate::kernel::DeviceKernel::new(
                #name,
                #krate::kernel::KernelPattern::#pat,
                &[#(#generics),*],
                &[#(#params),*],
                #source,
                &[#(#deps),*],
            )
        } #one_lane;
    })
}

/// A kernel whose signature is good and whose body the translator
/// rejects: its error, with the host glue (so that call sites type-check
/// and report nothing more) and a hidden static without device code that
/// the error keeps from ever being built.
fn rejected_body(
    f: &syn::ItemFn,
    pattern: Pattern,
    krate: &syn::Path,
    e: syn::Error,
) -> syn::Result<TokenStream> {
    let sig = super::kernel_signature(f, pattern).map_err(|_| e.clone())?;
    let stat = hidden("KERNEL", &f.sig.ident);
    let glue = host::glue(f, &sig.params, pattern, krate, &stat);
    let pat = format_ident!("{}", pattern.rust_variant());
    Ok(without_device_code(
        f,
        krate,
        &stat,
        glue,
        quote!(#pat),
        &sig.generics,
        e,
    ))
}

/// [`rejected_body`] for an element function.
fn rejected_element(
    f: &syn::ItemFn,
    arity: usize,
    krate: &syn::Path,
    e: syn::Error,
) -> syn::Result<TokenStream> {
    let (_, generics, params, _) = element_signature(f, arity).map_err(|_| e.clone())?;
    let stat = hidden("KERNEL", &f.sig.ident);
    let glue = element_glue(f, &params, arity, krate, &stat);
    Ok(without_device_code(
        f,
        krate,
        &stat,
        glue,
        quote!(Element),
        &generics,
        e,
    ))
}

/// The error `e`, the glue, and the hidden static with no device code.
fn without_device_code(
    f: &syn::ItemFn,
    krate: &syn::Path,
    stat: &syn::Ident,
    glue: TokenStream,
    pattern: TokenStream,
    generics: &[String],
    e: syn::Error,
) -> TokenStream {
    let (name, vis, err) = (f.sig.ident.to_string(), &f.vis, e.to_compile_error());
    quote! {
        #err
        #glue
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        // SAFETY: never built: the compile error above stops the crate.
        #vis static #stat: #krate::kernel::DeviceKernel = unsafe {
            #krate::kernel::DeviceKernel::new(
                #name,
                #krate::kernel::KernelPattern::#pattern,
                &[#(#generics),*],
                &[],
                "",
                &[],
            )
        };
    }
}

/// `#[kernel]` on an element function: the glue and the hidden static,
/// of pattern `Element`.
fn element_tokens(f: &syn::ItemFn, arity: usize, krate: &syn::Path) -> syn::Result<TokenStream> {
    let t = match translate_element(f, arity) {
        Ok(t) => t,
        Err(e) => return rejected_element(f, arity, krate, e),
    };
    let (name, source, generics) = (&t.name, &t.source, &t.generics);
    let params = param_tokens(&t, krate);
    let deps = deps(&t, krate);
    let stat = hidden("KERNEL", &f.sig.ident);
    let vis = &f.vis;
    let glue = element_glue(f, &t.params, arity, krate, &stat);
    let types = fn_type_checks(f, krate, generics);
    Ok(quote! {
        #glue
        #types
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        // SAFETY: `#[kernel]` translated `source` from the element
        // function above and described its parameters (elements first);
        // `deps` are its `#[device]` items.
        #vis static #stat: #krate::kernel::DeviceKernel = unsafe {
            #krate::kernel::DeviceKernel::new(
                #name,
                #krate::kernel::KernelPattern::Element,
                &[#(#generics),*],
                &[#(#params),*],
                #source,
                &[#(#deps),*],
            )
        };
    })
}

/// `#[device]` on a function, a `const`, a struct or `impl Reducer<T> for R`.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    or_error(item.clone(), device_tokens(attr, item))
}

fn device_tokens(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let krate = crate_path(attr)?;
    let parsed: syn::Item = syn::parse2(item)?;
    // Each kind gives its translation, the name and visibility of its
    // hidden static, the item for the host, and the trait impls that
    // point at the static.
    // Functions and constants live in the value namespace, so they get a
    // companion in the type namespace (see `companion`); a struct or a
    // reducer is found through its trait impl instead.
    let is_value = matches!(parsed, syn::Item::Fn(_) | syn::Item::Const(_));
    let (t, ident, vis, item, impls) =
        match parsed {
            syn::Item::Fn(mut f) => {
                let t = translate_device(&f)?;
                let types = fn_type_checks(&f, &krate, &t.generics);
                f.attrs.push(syn::parse_quote!(#[inline(always)]));
                (t, f.sig.ident.clone(), f.vis.clone(), quote!(#f), types)
            }
            syn::Item::Const(c) => {
                let t = translate_const(&c)?;
                let mut checks = Checks::new(&krate, &[]);
                checks.element(&c.ty);
                let types = check_fn(&syn::Generics::default(), checks);
                (t, c.ident.clone(), c.vis.clone(), quote!(#c), types)
            }
            syn::Item::Struct(mut s) => {
                let t = translate_struct(&s)?;
                add_repr_c(&mut s);
                let mut checks = Checks::new(&krate, &[]);
                for field in &s.fields {
                    checks.element(&field.ty);
                }
                let types = check_fn(&syn::Generics::default(), checks);
                let impls = struct_impls(&krate, &s);
                (
                    t,
                    s.ident.clone(),
                    s.vis.clone(),
                    quote!(#s),
                    quote!(#impls #types),
                )
            }
            syn::Item::Impl(imp) => {
                let t = translate_reducer(&imp)?;
                let ident = format_ident!("{}", t.name, span = imp.self_ty.span());
                let (self_ty, stat) = (&imp.self_ty, hidden("DEVICE", &ident));
                let types = reducer_type_checks(&imp, &krate);
                let impls = quote! {
                    #types
                    // SAFETY: the static is the translation of this impl's
                    // methods, made by `#[device]`.
                    unsafe impl #krate::kernel::DeviceReducer for #self_ty {
                        const DEVICE: &'static #krate::kernel::DeviceFn = &#stat;
                    }
                };
                (t, ident, syn::Visibility::Inherited, quote!(#imp), impls)
            }
            other => return Err(syn::Error::new(
                Span::call_site().located_at(other.span()),
                "#[device] applies to a function, a `const`, a struct or `impl Reducer<T> for R`",
            )),
        };
    let (name, source) = (&t.name, &t.source);
    let deps = deps(&t, &krate);
    let stat = hidden("DEVICE", &ident);
    let companion = is_value.then(|| companion(&ident, &vis, &krate, &stat));
    Ok(quote! {
        #item
        #impls
        #companion
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        // SAFETY: `#[device]` translated `source` from the item above;
        // `deps` are the `#[device]` items it uses.
        #vis static #stat: #krate::kernel::DeviceFn = unsafe {
            #krate::kernel::DeviceFn::new(#name, #source, &[#(#deps),*])
        };
    })
}

/// The companion of a `#[device]` fn or `const` named `ident`: a struct
/// of the same name, which lives in the type namespace while the item
/// lives in the value namespace, so one `use path::ident;` imports both.
/// Its associated `device()` points at the hidden static, and that is how
/// a kernel names a helper it calls (`path::ident::device()`, see `deps`):
/// whatever path reaches the helper reaches its device definition.
fn companion(
    ident: &syn::Ident,
    vis: &syn::Visibility,
    krate: &syn::Path,
    stat: &syn::Ident,
) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, clippy::upper_case_acronyms)]
        #vis struct #ident {}
        impl #ident {
            /// A `const fn`, not an associated `const`: helpers that call
            /// each other name each other's statics, and a `const` would
            /// be validated through them, a cycle; the recursion check
            /// refuses such helpers later, with a message that says so.
            #[doc(hidden)]
            pub const fn device() -> &'static #krate::kernel::DeviceFn {
                &#stat
            }
        }
    }
}

/// For every View a kernel reads or writes in place whose elements are
/// arrays or `#[device] struct`s: `DeviceElement::SAME_LAYOUT`, evaluated
/// (an unnamed constant always is), which fails to compile where the
/// device's layout of the element is not the host's. Scalars and generic
/// parameters (scalars too) need no check.
fn layout_checks(f: &syn::ItemFn, krate: &syn::Path) -> TokenStream {
    let generics = super::sig::generics(&f.sig.generics).unwrap_or_default();
    let elems: Vec<&syn::Type> = f
        .sig
        .inputs
        .iter()
        .filter_map(|arg| {
            let syn::FnArg::Typed(pt) = arg else {
                return None;
            };
            match &*pt.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => Some(&*r.elem),
                _ => super::sig::element_type(arg, &generics),
            }
        })
        .filter(|t| match t {
            syn::Type::Array(_) => true,
            other => super::types::struct_of(other, &generics).is_some(),
        })
        .collect();
    if elems.is_empty() {
        return quote!();
    }
    quote! {
        const _: () = {
            #( let () = <#elems as #krate::kernel::DeviceElement>::SAME_LAYOUT; )*
        };
    }
}

/// The type checks (see `canon.rs`) of a kernel or `#[device]` function:
/// its parameters, its result and every type its body names.
fn fn_type_checks(f: &syn::ItemFn, krate: &syn::Path, generics: &[String]) -> TokenStream {
    let mut checks = Checks::new(krate, generics);
    for arg in &f.sig.inputs {
        if let syn::FnArg::Typed(pt) = arg {
            checks.ty(&pt.ty);
        }
    }
    if let syn::ReturnType::Type(_, t) = &f.sig.output {
        checks.ty(t);
    }
    checks.body(&f.block);
    check_fn(&f.sig.generics, checks)
}

/// The type checks of `#[device] impl Reducer<T> for R`: `T` and the
/// types its methods name.
fn reducer_type_checks(imp: &syn::ItemImpl, krate: &syn::Path) -> TokenStream {
    let mut checks = Checks::new(krate, &[]);
    if let Some((_, path, _)) = &imp.trait_ {
        if let Some(syn::PathArguments::AngleBracketed(a)) =
            path.segments.last().map(|s| &s.arguments)
        {
            for arg in &a.args {
                if let syn::GenericArgument::Type(t) = arg {
                    checks.ty(t);
                }
            }
        }
    }
    for item in &imp.items {
        if let syn::ImplItem::Fn(f) = item {
            checks.body(&f.block);
        }
    }
    check_fn(&syn::Generics::default(), checks)
}

/// The checks as a function that is never called, in an anonymous
/// `const` beside the item, so that names resolve as in the item.
fn check_fn(generics: &syn::Generics, checks: Checks) -> TokenStream {
    let stmts = checks.finish();
    if stmts.is_empty() {
        return quote!();
    }
    let (g, _, w) = generics.split_for_impl();
    quote! {
        #[allow(non_snake_case, clippy::extra_unused_type_parameters)]
        const _: () = {
            #[allow(dead_code)]
            fn __granule_types #g () #w {
                #(#stmts)*
            }
        };
    }
}

/// A `#[device] struct`'s impls: `DeviceStruct`, pointing at its hidden
/// static; `DeviceValue`, its bytes as the device lays them out; and
/// `ReduceTarget`, since the struct is a reduction's value that `&mut S`
/// may receive (`parallel_reduce_into`), as `&mut f64` does.
fn struct_impls(krate: &syn::Path, s: &syn::ItemStruct) -> TokenStream {
    let ident = &s.ident;
    let stat = hidden("DEVICE", ident);
    let members: Vec<syn::Member> = s
        .fields
        .iter()
        .enumerate()
        .map(|(k, f)| match &f.ident {
            Some(id) => syn::Member::Named(id.clone()),
            None => syn::Member::Unnamed(syn::Index::from(k)),
        })
        .collect();
    let tys: Vec<&syn::Type> = s.fields.iter().map(|f| &f.ty).collect();
    let value = quote!(#krate::kernel::DeviceValue);
    let element = quote!(#krate::kernel::DeviceElement);
    quote! {
        // Every field has the host's layout on the device (evaluated: an
        // unnamed constant always is), which the impls below rely on.
        const _: () = {
            #( let () = <#tys as #element>::SAME_LAYOUT; )*
        };
        // SAFETY: `#[device]` made the struct `#[repr(C)]` and its fields
        // are scalars, arrays and structs whose device layout is the
        // host's (checked above), so its size, alignment and field offsets
        // are those of the C++ struct of the same fields in the same order.
        unsafe impl #value for #ident {
            const SIZE: usize = ::core::mem::size_of::<#ident>();
            const ALIGN: usize = ::core::mem::align_of::<#ident>();
            fn store(&self, out: &mut [u8]) {
                #( #value::store(&self.#members, &mut out[::core::mem::offset_of!(#ident, #members)..]); )*
            }
            fn load(bytes: &[u8]) -> Self {
                #ident {
                    #( #members: <#tys as #value>::load(&bytes[::core::mem::offset_of!(#ident, #members)..]), )*
                }
            }
        }
        impl #krate::reducer::ReduceTarget<#ident> for &mut #ident {
            fn store(self, value: #ident) {
                *self = value
            }
        }
        // SAFETY: as for `DeviceValue` above: `SIZE` and `ALIGN` are the
        // host's, and so are the fields' offsets.
        unsafe impl #element for #ident {}
        // SAFETY: `#[device]` made the struct `#[repr(C)]` and its static
        // is the C++ struct of the same fields in the same order.
        unsafe impl #krate::kernel::DeviceStruct for #ident {
            const DEVICE: &'static #krate::kernel::DeviceFn = &#stat;
        }
    }
}
