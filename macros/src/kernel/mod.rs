//! `#[kernel]` and `#[device]`: translation of a Rust subset to CUDA C++.
//! See README.md in this folder for the design and the subset's rules.

mod assert;
mod call;
mod canon;
mod cx;
mod element;
mod emit;
mod errors;
mod expr;
mod host;
mod infer;
mod methods;
mod names;
mod nested;
mod print;
mod reducer;
mod scatter;
mod sig;
mod stmt;
mod structs;
mod team_rules;
#[cfg(test)]
mod tests;
mod types;
mod unique_token;
mod unordered_map;

pub use emit::{expand_device, expand_kernel};

use cx::Cx;
use errors::{unsupported, Result};
use sig::{Kind, Param};

/// The pattern a kernel is written for (`#[kernel]`, `#[kernel(reduce)]`,
/// `#[kernel(scan)]`), mirrored by `granule_core::kernel::KernelPattern`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    For,
    Reduce,
    Scan,
}

impl Pattern {
    pub fn rust_variant(self) -> &'static str {
        match self {
            Pattern::For => "For",
            Pattern::Reduce => "Reduce",
            Pattern::Scan => "Scan",
        }
    }
}

/// A translated function: everything the generated metadata needs.
pub struct Translated {
    pub name: String,
    pub generics: Vec<String>,
    pub params: Vec<Param>,
    /// The C++ definition.
    pub source: String,
    /// `#[device]` items used, as written at the use.
    pub deps: Vec<syn::Path>,
    /// `#[device] struct`s used, as written at the use.
    pub struct_deps: Vec<syn::Path>,
    /// `#[device]` custom reducers used, as written at the use.
    pub reducer_deps: Vec<syn::Path>,
    /// For a team kernel: why its writes need one vector lane per thread.
    pub one_lane: Option<String>,
}

pub(super) fn template_line(generics: &[String]) -> String {
    if generics.is_empty() {
        String::new()
    } else {
        let ps: Vec<String> = generics.iter().map(|g| format!("class {g}")).collect();
        format!("template <{}>\n", ps.join(", "))
    }
}

pub(super) fn check_plain(f: &syn::ItemFn) -> Result<()> {
    let s = &f.sig;
    if let Some(a) = &s.asyncness {
        return Err(unsupported(a, "an `async` function"));
    }
    if let Some(u) = &s.unsafety {
        return Err(unsupported(u, "an `unsafe` function"));
    }
    if let Some(v) = &s.variadic {
        return Err(unsupported(v, "a variadic function"));
    }
    Ok(())
}

/// Translates a `#[kernel]` function written for `pattern`.
pub fn translate_kernel(f: &syn::ItemFn, pattern: Pattern) -> Result<Translated> {
    names::check_fn(f)?;
    let Signature {
        mut cx,
        generics,
        params,
    } = kernel_signature(f, pattern)?;
    // The write model's errors come after the translator's own, which
    // say what is outside the subset (the model reads only the subset).
    let rules = (params[0].kind == Kind::Team).then(|| team_rules::check(f));
    let rules = match rules {
        Some(Err(e)) => Err(e),
        Some(Ok(r)) => {
            cx.team_rules = Some(r);
            Ok(())
        }
        None => Ok(()),
    };
    let body = cx.block_stmts(&f.block, 1)?;
    rules?;
    let decls: Vec<&str> = params.iter().map(|p| p.decl.as_str()).collect();
    let name = f.sig.ident.to_string();
    let text = format!(
        "{}__device__ void {name}({}) {{\n{body}}}\n",
        template_line(&generics),
        decls.join(", ")
    );
    Ok(finish(cx, name, generics, params, &text))
}

/// A kernel's signature, checked, with the context its body translates in.
pub struct Signature {
    cx: Cx,
    pub generics: Vec<String>,
    pub params: Vec<Param>,
}

/// Checks a kernel's signature against `pattern` and binds its
/// parameters, before (and apart from) its body: the host glue needs only
/// this, so a kernel whose body is rejected still gets its glue, and the
/// translator's message is the only one at its call sites.
pub fn kernel_signature(f: &syn::ItemFn, pattern: Pattern) -> Result<Signature> {
    check_plain(f)?;
    if let syn::ReturnType::Type(_, t) = &f.sig.output {
        return Err(unsupported(
            t,
            "a kernel return value (write through outputs instead)",
        ));
    }
    let generics = sig::generics(&f.sig.generics)?;
    let mut cx = Cx::new(generics.clone());
    cx.fn_name = f.sig.ident.to_string();
    let mut params = bind_params(&mut cx, f, true)?;
    if params.is_empty() {
        return Err(errors::error_at(
            proc_macro2::Span::call_site(),
            "a kernel takes the work index or team member first",
        ));
    }
    check_shape(&mut params, pattern).map_err(|m| errors::error_at(f.sig.ident.span(), m))?;
    Ok(Signature {
        cx,
        generics,
        params,
    })
}

/// Translates a `#[device]` helper function.
pub fn translate_device(f: &syn::ItemFn) -> Result<Translated> {
    names::check_fn(f)?;
    check_plain(f)?;
    let generics = sig::generics(&f.sig.generics)?;
    let mut cx = Cx::new(generics.clone());
    cx.fn_name = f.sig.ident.to_string();
    let ret = match &f.sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some(match types::struct_of(t, &generics) {
            // A helper may return a `#[device] struct` by value.
            Some(path) => {
                let name = types::last_segment(&path);
                cx.struct_deps.push(path);
                types::Elem::Struct(name)
            }
            None => {
                // An array or tuple result, which may name constants and
                // structs.
                cx.type_deps(t);
                types::value_elem_of(t, &generics)?
            }
        }),
    };
    cx.ret = ret.clone();
    let params = bind_params(&mut cx, f, false)?;
    if let Some(p) = params.iter().find(|p| {
        matches!(
            p.kind,
            Kind::Out
                | Kind::Scatter { .. }
                | Kind::Token
                | Kind::Team
                | Kind::Chunk { .. }
                | Kind::Row { .. }
                | Kind::Segment
                | Kind::Map { .. }
        )
    }) {
        return Err(errors::error_at(
            proc_macro2::Span::call_site(),
            format!(
                "`#[device]` parameter `{}`: helpers take scalars, read Views and atomic Views",
                p.name
            ),
        ));
    }
    let body = cx.block_stmts(&f.block, 1)?;
    let name = f.sig.ident.to_string();
    reject_recursion(&cx, &name)?;
    let decls: Vec<&str> = params.iter().map(|p| p.decl.as_str()).collect();
    let ret_cpp = ret.map_or("void".to_string(), |r| cx.infer.cpp(&r));
    let text = format!(
        "{}__device__ __forceinline__ {ret_cpp} {name}({}) {{\n{body}}}\n",
        template_line(&generics),
        decls.join(", ")
    );
    Ok(finish(cx, name, generics, params, &text))
}

/// A `#[device]` function may not call itself: the emulator runs a GPU
/// thread on a fiber of 64 KiB and a GPU launch sizes no stack for
/// recursion, so a deep one would crash instead of failing. Calls that
/// come back through other functions are rejected when the translation
/// unit is assembled (granule-cuda's codegen).
fn reject_recursion(cx: &Cx, name: &str) -> Result<()> {
    match cx.deps.iter().find(|p| types::last_segment(p) == name) {
        Some(call) => Err(errors::error_at(
            syn::spanned::Spanned::span(call),
            format!("`#[device]` fn `{name}` calls itself: recursion is not supported in device code (a GPU thread has no stack sized for it); write it as a loop"),
        )),
        None => Ok(()),
    }
}

/// Translates a `#[device] const`.
pub fn translate_const(c: &syn::ItemConst) -> Result<Translated> {
    names::check_const(c)?;
    let mut cx = Cx::new(Vec::new());
    let elem = cx.type_elem(&c.ty)?;
    let value = cx.value_as(&c.expr, &elem)?;
    let name = c.ident.to_string();
    // A scalar constant is a C++ constant the host and device share (its
    // value may be a template argument: `[0.0; N]`). An array or tuple is
    // indexed at run time, so it must live in device memory: a
    // `__device__ constexpr` variable.
    let space = match elem {
        types::Elem::Scalar(_) => "",
        _ => "__device__ ",
    };
    let text = format!(
        "{space}constexpr {} {name} = {value};\n",
        cx.infer.cpp(&elem)
    );
    Ok(finish(cx, name, Vec::new(), Vec::new(), &text))
}

pub(super) fn bind_params(cx: &mut Cx, f: &syn::ItemFn, kernel: bool) -> Result<Vec<Param>> {
    let mut params = Vec::new();
    for (k, arg) in f.sig.inputs.iter().enumerate() {
        if !kernel {
            // A helper (not a kernel, whose captures the launch marshals
            // as scalars) may take a `#[device] struct` by value.
            if let Some((p, path)) = sig::struct_value(arg, &cx.generics)? {
                cx.bind(p.name.clone(), p.ty.clone(), false);
                cx.struct_deps.push(path);
                params.push(p);
                continue;
            }
        }
        let p = sig::param(arg, &cx.generics, kernel && k == 0, &cx.infer)?;
        if let syn::FnArg::Typed(pt) = arg {
            if matches!(&*pt.ty, syn::Type::Array(_) | syn::Type::Tuple(_)) && !(kernel && k == 0) {
                cx.type_deps(&pt.ty);
            }
        }
        if let Some(path) = sig::struct_path(arg, &cx.generics) {
            cx.struct_deps.push(path);
        } else if let Some(elem_ty) = sig::element_type(arg, &cx.generics) {
            // The `#[device] struct`s of a View's or `&mut`'s elements.
            types::struct_names(elem_ty, &cx.generics, &mut cx.struct_deps);
        }
        // An MDRange index binds one usize per destructured name.
        for name in p.name.split(',').filter(|n| *n != "_") {
            cx.bind(name.to_string(), p.ty.clone(), false);
        }
        params.push(p);
    }
    Ok(params)
}

/// Checks the parameters against the pattern (and marks a scan's final
/// flag): what the host glue and the device drivers rely on.
fn check_shape(params: &mut [Param], pattern: Pattern) -> std::result::Result<(), String> {
    let first = params[0].kind.clone();
    let outs = params.iter().filter(|p| p.kind == Kind::Out).count();
    let chunks = params
        .iter()
        .filter(|p| matches!(p.kind, Kind::Chunk { .. }))
        .count();
    let ranged = params.iter().find_map(|p| match p.kind {
        Kind::Row { .. } => Some("Row"),
        Kind::Segment => Some("Segment"),
        _ => None,
    });
    if let Some(what) = ranged.filter(|_| pattern != Pattern::For || first != Kind::Index) {
        return Err(format!(
            "a `{what}` output belongs to a range `#[kernel]` (parallel_for over a RangePolicy)"
        ));
    }
    if chunks != 0 && (pattern != Pattern::For || first != Kind::Team) {
        return Err(
            "a `TeamChunk` output belongs to a team `#[kernel]` (parallel_for over a TeamPolicy)"
                .to_string(),
        );
    }
    // Tuples and structs are values of reducers only.
    let reduced_only = params.iter().find_map(|p| match p.ty {
        types::Ty::Out(types::Elem::Tuple(_)) => Some(
            "a tuple `&mut` is the accumulator of a `#[kernel(reduce)]` (reduced by a tuple of reducers)",
        ),
        types::Ty::Out(types::Elem::Struct(_)) if pattern == Pattern::Scan => Some(
            "a `#[device] struct` `&mut` is the accumulator of a `#[kernel(reduce)]` (reduced by a custom reducer) or an element of a `#[kernel]`'s written View",
        ),
        _ => None,
    });
    if let (Some(m), true) = (reduced_only, pattern != Pattern::Reduce) {
        return Err(m.to_string());
    }
    match (pattern, first) {
        (Pattern::Reduce, _) if outs != 1 => Err(format!(
            "a `#[kernel(reduce)]` has exactly one `&mut` parameter, the accumulator; found {outs}"
        )),
        (Pattern::For, Kind::Team) if outs != 0 => Err(
            "a team `#[kernel]` writes through `TeamChunk` outputs, atomic Views or team scratch, not `&mut`"
                .to_string(),
        ),
        (Pattern::Scan, Kind::Index) => sig::mark_final(params).map_err(str::to_string),
        (Pattern::Scan, _) => {
            Err("a `#[kernel(scan)]` runs over a range: its first parameter is `usize`".to_string())
        }
        _ => Ok(()),
    }
}

pub(super) fn finish(
    cx: Cx,
    name: String,
    generics: Vec<String>,
    params: Vec<Param>,
    text: &str,
) -> Translated {
    let source = cx.infer.finish(text);
    let one_lane = cx.team_rules.and_then(|r| r.one_lane);
    Translated {
        name,
        generics,
        params,
        source,
        deps: cx.deps,
        struct_deps: cx.struct_deps,
        reducer_deps: cx.reducer_deps,
        one_lane,
    }
}
