//! Element functions: `#[kernel]` on a function that returns a value
//! (`#[kernel] fn above(x: i64, t: i64) -> bool`). Its leading parameters
//! (one, or two with `#[kernel(binary)]`) are the elements an algorithm
//! passes; the others are captured like a kernel's (scalars and read
//! Views). The constructor takes the captures (`above(10)`) and returns a
//! functor that is a `UnaryFunctor` (`BinaryFunctor`) on the host and a
//! `DeviceElementFn` for a device space, whose device side is the
//! function translated like a `#[device]` helper.

use super::errors::{error_at, unsupported, Result};
use super::host::{captured, Arg, Shell};
use super::sig::{Kind, Param};
use super::{bind_params, check_plain, finish, template_line, types, Cx, Translated};
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

/// Translates an element function of `arity` elements.
pub fn translate_element(f: &syn::ItemFn, arity: usize) -> Result<Translated> {
    let (mut cx, generics, params, ret) = element_signature(f, arity)?;
    let body = cx.block_stmts(&f.block, 1)?;
    let decls: Vec<&str> = params.iter().map(|p| p.decl.as_str()).collect();
    let name = f.sig.ident.to_string();
    let ret_cpp = cx.infer.cpp(&ret);
    let text = format!(
        "{}__device__ __forceinline__ {ret_cpp} {name}({}) {{\n{body}}}\n",
        template_line(&generics),
        decls.join(", ")
    );
    Ok(finish(cx, name, generics, params, &text))
}

/// An element function's signature, checked: its body's context, its
/// generics, its parameters (elements marked) and its result type. The
/// host glue needs only this (see `kernel_signature`).
pub fn element_signature(
    f: &syn::ItemFn,
    arity: usize,
) -> Result<(Cx, Vec<String>, Vec<Param>, types::Elem)> {
    check_plain(f)?;
    let generics = super::sig::generics(&f.sig.generics)?;
    let mut cx = Cx::new(generics.clone());
    cx.fn_name = f.sig.ident.to_string();
    let ret =
        match &f.sig.output {
            syn::ReturnType::Type(_, t) => types::elem_of(t, &generics)?,
            syn::ReturnType::Default => return Err(error_at(
                f.sig.ident.span(),
                "an element function (`#[kernel(unary)]`, `#[kernel(binary)]`) returns its value: \
                 add `-> T`",
            )),
        };
    cx.ret = Some(ret.clone());
    let mut params = bind_params(&mut cx, f, false)?;
    mark_elements(f, &mut params, arity)?;
    Ok((cx, generics, params, ret))
}

/// The first `arity` parameters are the elements, by value; the rest are
/// captured scalars and read Views. An element function writes nothing.
fn mark_elements(f: &syn::ItemFn, params: &mut [Param], arity: usize) -> Result<()> {
    if params.len() < arity {
        return Err(error_at(
            f.sig.ident.span(),
            format!(
                "an element function of {arity} element(s) takes them as its first {arity} \
                 parameter(s)"
            ),
        ));
    }
    let inputs: Vec<&syn::FnArg> = f.sig.inputs.iter().collect();
    for (k, p) in params.iter_mut().enumerate() {
        match (&p.kind, k < arity) {
            (Kind::Scalar, true) => p.kind = Kind::Element,
            (Kind::Scalar | Kind::View { .. }, false) => {}
            (_, true) => {
                return Err(error_at(
                    inputs[k].span(),
                    "an element is passed by value: a scalar type or a generic parameter",
                ))
            }
            _ => {
                return Err(unsupported(
                    inputs[k],
                    "this parameter in an element function (it captures scalars and read Views; \
                     it writes nothing, not even atomically)",
                ))
            }
        }
    }
    Ok(())
}

/// The glue of an element function: the shell (struct, constructor,
/// `name::body`), the host functor impl and the device description.
pub fn element_glue(
    f: &syn::ItemFn,
    params: &[Param],
    arity: usize,
    krate: &syn::Path,
    stat: &syn::Ident,
) -> TokenStream {
    let sh = Shell::new(f, params, krate);
    let (rt, kapi) = (&sh.rt, &sh.kapi);
    let elems: Vec<&Arg> = sh.args.iter().take(arity).collect();
    let elem_ids: Vec<&syn::Ident> = elems.iter().map(|a| &a.ident).collect();
    let elem_tys: Vec<&syn::Type> = elems.iter().map(|a| a.ty).collect();
    let call_args = sh.args.iter().map(|a| {
        let id = &a.ident;
        if captured(a.kind) {
            quote!(self.#id)
        } else {
            quote!(#id)
        }
    });
    let syn::ReturnType::Type(_, out) = &f.sig.output else {
        unreachable!("translate_element requires a return type")
    };
    let trait_path = match arity {
        1 => quote!(#rt::UnaryFunctor<#(#elem_tys),*>),
        _ => quote!(#rt::BinaryFunctor<#(#elem_tys),*>),
    };
    let (b_impl, _, _) = sh.base.split_for_impl();
    let (d_impl, _, _) = sh.dg.split_for_impl();
    let (host_ty, where_preds, run) = (&sh.host_ty, &sh.where_preds, &sh.run);
    let same_space = &sh.same_space;
    let capture_args = sh.capture_args();
    let (scalar_bounds, types) = sh.device_types();
    let s_name = sh.s_name();
    let shell =
        sh.tokens("The function's body, called once per element (what the host spaces run).");
    quote! {
        #shell

        impl #b_impl #trait_path for #host_ty
        where #where_preds #host_ty: ::core::marker::Sync
        {
            type Output = #out;
            #[inline(always)]
            fn call(&self, #(#elem_ids: #elem_tys),*) -> #out {
                Self::body(#(#call_args),*)
            }
        }

        // SAFETY: the static is this function's translation, made by
        // `#[kernel]` from the body above, with its elements first;
        // `captures` lists the captured fields in parameter order, the
        // types are the generic arguments' device spellings, and
        // Args/Output are the signature's.
        unsafe impl #d_impl #kapi::DeviceElementFn<#run> for #s_name
        where #where_preds #same_space #scalar_bounds
        {
            type Args = (#(#elem_tys,)*);
            type Output = #out;
            const FUNCTION: &'static #kapi::DeviceKernel = &#stat;
            const TYPES: &'static [&'static str] = #types;
            fn captures(&self) -> ::std::vec::Vec<#kapi::DeviceArg<'_>> {
                ::std::vec![#(#capture_args),*]
            }
        }
    }
}
