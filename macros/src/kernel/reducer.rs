//! `#[device] impl Reducer<T> for R`: a custom reducer the device can run.
//! Its `init`, `join` and `finalize` become the static members of a C++
//! struct with the interface of the header's built-in reducers
//! (`identity`, `join`, and `final_`, which only custom reducers have).

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::types::{elem_of, last_segment, struct_of, tuple_of, Elem, Ty};
use super::Translated;
use syn::spanned::Spanned;

/// The reduced value type `T`: a scalar, a tuple of scalars or a
/// `#[device] struct`; the struct's path is returned as a dependency.
fn value_type(ty: &syn::Type) -> Result<(Elem, Option<syn::Path>)> {
    if let Some(fields) = tuple_of(ty)? {
        return Ok((Elem::Tuple(fields), None));
    }
    if let Some(path) = struct_of(ty, &[]) {
        return Ok((Elem::Struct(last_segment(&path)), Some(path)));
    }
    Ok((elem_of(ty, &[])?, None))
}

/// `Reducer<T>` of the impl header, and the reducer type's name.
fn header(imp: &syn::ItemImpl) -> Result<(syn::Type, String)> {
    if let Some(g) = imp.generics.params.first() {
        return Err(unsupported(g, "a generic `#[device]` reducer"));
    }
    let Some((None, trait_path, _)) = &imp.trait_ else {
        return Err(error_at(
            imp.self_ty.span(),
            "#[device] on an `impl` block applies to `impl Reducer<T> for R`",
        ));
    };
    let seg = trait_path.segments.last().expect("a path has a segment");
    let value = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if seg.ident == "Reducer" && a.args.len() == 1 => {
            match &a.args[0] {
                syn::GenericArgument::Type(t) => t.clone(),
                other => return Err(unsupported(other, "this `Reducer` argument")),
            }
        }
        _ => {
            return Err(error_at(
                trait_path.span(),
                "#[device] on an `impl` block applies to `impl Reducer<T> for R`",
            ))
        }
    };
    let name = match &*imp.self_ty {
        syn::Type::Path(p)
            if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) =>
        {
            last_segment(&p.path)
        }
        other => return Err(unsupported(other, "this reducer type (a plain named type)")),
    };
    Ok((value, name))
}

/// Translates the impl block to `struct R { typedef T value_type; .. }`.
pub fn translate_reducer(imp: &syn::ItemImpl) -> Result<Translated> {
    let (value, name) = header(imp)?;
    let (elem, dep) = value_type(&value)?;
    // `elem` is never an inference variable, so no context is needed.
    let t = super::infer::Infer::default().cpp(&elem);
    let mut deps = Vec::new();
    let mut struct_deps: Vec<syn::Path> = dep.into_iter().collect();
    let mut members = Vec::new();
    let mut has = (false, false);
    for item in &imp.items {
        let syn::ImplItem::Fn(f) = item else {
            return Err(unsupported(
                item,
                "this item in a `#[device]` reducer (only `fn`s)",
            ));
        };
        let method = Method::of(f)?;
        match method {
            Method::Init => has.0 = true,
            Method::Join => has.1 = true,
            Method::Finalize => {}
        }
        let (text, cx) = method.translate(f, &elem, &t, &name)?;
        members.push(text);
        deps.extend(cx.deps);
        struct_deps.extend(cx.struct_deps);
    }
    if has != (true, true) {
        return Err(error_at(
            imp.self_ty.span(),
            "a `#[device]` reducer defines `init` and `join` (the device has no defaults)",
        ));
    }
    let source = format!(
        "struct {name} {{\n  typedef {t} value_type;\n{}}};\n",
        members.concat()
    );
    Ok(Translated {
        name,
        generics: Vec::new(),
        params: Vec::new(),
        source,
        deps,
        struct_deps,
        reducer_deps: Vec::new(),
        one_lane: None,
    })
}

#[derive(Clone, Copy)]
enum Method {
    Init,
    Join,
    Finalize,
}

impl Method {
    fn of(f: &syn::ImplItemFn) -> Result<Method> {
        Ok(match f.sig.ident.to_string().as_str() {
            "init" => Method::Init,
            "join" => Method::Join,
            "finalize" => Method::Finalize,
            _ => {
                return Err(unsupported(
                    &f.sig.ident,
                    "this method in a `#[device]` reducer (`init`, `join`, `finalize`)",
                ))
            }
        })
    }

    /// The member's C++ head (`\u{2}k` marks parameter k's name) and the
    /// number of parameters after `&self`. Each is a reference in Rust;
    /// `join`'s source is a C++ copy, as in the built-in reducers, which
    /// the body cannot write to because the host compiler already
    /// rejects writes through `&T`.
    fn shape(self, t: &str) -> (String, usize) {
        match self {
            Method::Init => (format!("{t} identity()"), 0),
            Method::Join => (format!("void join({t}& \u{2}0, {t} \u{2}1)"), 2),
            Method::Finalize => (format!("void final_({t}& \u{2}0)"), 1),
        }
    }

    /// `static __device__` member text, and the context that holds the
    /// `#[device]` items it uses.
    fn translate(
        self,
        f: &syn::ImplItemFn,
        elem: &Elem,
        t: &str,
        reducer: &str,
    ) -> Result<(String, Cx)> {
        let mut cx = Cx::new(Vec::new());
        cx.fn_name = format!("{reducer}::{}", f.sig.ident);
        let (mut head, count) = self.shape(t);
        let mut inputs = f.sig.inputs.iter();
        match inputs.next() {
            Some(syn::FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
            _ => {
                return Err(error_at(
                    f.sig.span(),
                    "a reducer method takes `&self` first, as `Reducer` declares",
                ))
            }
        }
        let rest: Vec<&syn::FnArg> = inputs.collect();
        if rest.len() != count {
            return Err(error_at(
                f.sig.span(),
                "this method's parameters do not match `Reducer`",
            ));
        }
        for (k, arg) in rest.iter().enumerate() {
            let name = plain_name(arg)?;
            head = head.replace(&format!("\u{2}{k}"), &name);
            cx.bind(name, Ty::Out(elem.clone()), false);
        }
        if let Method::Init = self {
            cx.ret = Some(elem.clone());
        }
        let body = cx.block_stmts(&f.block, 2)?;
        let text = format!("  static __device__ __forceinline__ {head} {{\n{body}  }}\n");
        Ok((cx.infer.finish(&text), cx))
    }
}

fn plain_name(arg: &syn::FnArg) -> Result<String> {
    if let syn::FnArg::Typed(pt) = arg {
        if let syn::Pat::Ident(i) = &*pt.pat {
            if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() {
                return Ok(i.ident.to_string());
            }
        }
    }
    Err(unsupported(
        arg,
        "this parameter pattern (only a plain name)",
    ))
}
