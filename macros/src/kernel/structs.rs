//! `#[device] struct`: a plain struct of scalars, arrays and other device
//! structs that kernels and custom reducers use as a value (a reduction's
//! accumulator, a View's element), mirrored as a C++ struct with the same
//! fields in the same order.

use super::errors::{error_at, unsupported, Result};
use super::types::{struct_names, value_elem_of, Elem};
use super::Translated;
use syn::spanned::Spanned;

/// The C++ definition of a `#[device] struct`.
///
/// The host and device layouts agree because the struct is `#[repr(C)]`
/// (the attribute adds it: [`add_repr_c`]; another `repr` is rejected) and
/// every field is a scalar whose C++ type has the Rust type's size and
/// alignment, a `#[device] struct` (by induction), or an array of them
/// (`granule::Array`, the elements back to back); the glue checks the
/// arrays' lengths (`DeviceElement`).
pub fn translate_struct(s: &syn::ItemStruct) -> Result<Translated> {
    super::names::check_struct(s)?;
    if let Some(g) = s.generics.params.first() {
        return Err(unsupported(g, "a generic `#[device] struct`"));
    }
    check_repr(&s.attrs)?;
    let syn::Fields::Named(fields) = &s.fields else {
        return Err(unsupported(
            &s.fields,
            "a `#[device] struct` without named fields",
        ));
    };
    let mut body = String::new();
    let mut struct_deps = Vec::new();
    let infer = super::infer::Infer::default();
    for f in &fields.named {
        let name = f.ident.as_ref().expect("named fields have names");
        let elem = value_elem_of(&f.ty, &[]).ok().filter(field_ok);
        let Some(elem) = elem else {
            return Err(unsupported(
                &f.ty,
                "this field type in a `#[device] struct` (scalars, other `#[device] struct`s, and arrays of them with a literal length)",
            ));
        };
        // The structs a field names are defined before this one.
        struct_names(&f.ty, &[], &mut struct_deps);
        body.push_str(&format!("  {} {name};\n", infer.cpp(&elem)));
    }
    let name = s.ident.to_string();
    Ok(Translated {
        source: format!("struct {name} {{\n{body}}};\n"),
        name,
        generics: Vec::new(),
        params: Vec::new(),
        deps: Vec::new(),
        struct_deps,
        reducer_deps: Vec::new(),
        one_lane: None,
    })
}

/// A field the device lays out as the host does: a scalar, a struct, or
/// an array of them whose length is a literal (a constant's name would
/// be a dependency the struct's static cannot list).
fn field_ok(e: &Elem) -> bool {
    match e {
        Elem::Scalar(_) | Elem::Struct(_) => true,
        Elem::Array(inner, len) => len.parse::<usize>().is_ok() && field_ok(inner),
        _ => false,
    }
}

/// Rejects any `repr` but `C`, which would break the agreement with the
/// C++ layout.
fn check_repr(attrs: &[syn::Attribute]) -> Result<()> {
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        if !a.parse_args::<syn::Ident>().is_ok_and(|i| i == "C") {
            return Err(error_at(
                a.span(),
                "a `#[device] struct` is laid out as C (`#[repr(C)]`, added by `#[device]`): remove this `repr`",
            ));
        }
    }
    Ok(())
}

/// Adds `#[repr(C)]` to a struct [`translate_struct`] accepted, unless it
/// is there already (the only `repr` that translation lets through).
pub fn add_repr_c(s: &mut syn::ItemStruct) {
    if !s.attrs.iter().any(|a| a.path().is_ident("repr")) {
        s.attrs.push(syn::parse_quote!(#[repr(C)]));
    }
}
