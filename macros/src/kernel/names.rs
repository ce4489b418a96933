//! Names the translation cannot carry into C++: a Rust name that is a
//! C++ (or CUDA) keyword, such as a kernel called `double` or a local
//! called `new`, would reach NVRTC as a syntax error at the first launch.
//! Every name a kernel, helper, struct or const introduces is checked
//! here, at compile time, with a message at the name.

use super::errors::{error_at, Result};
use syn::visit::Visit;

/// C++20's keywords and alternative tokens that Rust accepts as
/// identifiers, and the names of CUDA's built-in variables.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "case",
    "catch",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "decltype",
    "default",
    "delete",
    "double",
    "dynamic_cast",
    "explicit",
    "export",
    "float",
    "friend",
    "goto",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "short",
    "signed",
    "sizeof",
    "static_assert",
    "static_cast",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "xor",
    "xor_eq",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "granule",
];

/// Whether `name` cannot be a C++ name in the translation.
pub fn reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

fn check(ident: &syn::Ident) -> Result<()> {
    let name = ident.to_string();
    if reserved(name.trim_start_matches("r#")) {
        return Err(error_at(
            ident.span(),
            format!("`{name}` is a C++ keyword (or a name CUDA reserves), and device code is translated to C++: rename it"),
        ));
    }
    Ok(())
}

/// The names bound by patterns (`let`, `for`, parameters): the first
/// reserved one, if any.
#[derive(Default)]
struct Bindings {
    first: Option<syn::Ident>,
}

impl<'a> Visit<'a> for Bindings {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        if self.first.is_none() && reserved(&p.ident.to_string()) {
            self.first = Some(p.ident.clone());
        }
        syn::visit::visit_pat_ident(self, p);
    }
}

/// Checks a kernel's or helper's name and every name its signature and
/// body bind.
pub fn check_fn(f: &syn::ItemFn) -> Result<()> {
    check(&f.sig.ident)?;
    let mut b = Bindings::default();
    b.visit_item_fn(f);
    b.first.as_ref().map_or(Ok(()), check)
}

/// Checks a `#[device] struct`'s name and its fields' names.
pub fn check_struct(s: &syn::ItemStruct) -> Result<()> {
    check(&s.ident)?;
    s.fields
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .try_for_each(check)
}

/// Checks a `#[device] const`'s name.
pub fn check_const(c: &syn::ItemConst) -> Result<()> {
    check(&c.ident)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_or_a_local_named_after_a_cpp_keyword_is_refused_at_the_name() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn double(i: usize, y: &mut f64) { *y = 2.0 * i as f64; }
        };
        let e = check_fn(&f).unwrap_err().to_string();
        assert!(e.contains("`double` is a C++ keyword"), "{e}");
        let f: syn::ItemFn = syn::parse_quote! {
            fn twice(i: usize, y: &mut f64) { let new = 2.0; *y = new * i as f64; }
        };
        let e = check_fn(&f).unwrap_err().to_string();
        assert!(e.contains("`new`"), "{e}");
        let f: syn::ItemFn = syn::parse_quote! {
            fn twice(i: usize, y: &mut f64) { for k in 0..2 { *y += (i + k) as f64; } }
        };
        assert!(check_fn(&f).is_ok());
    }

    #[test]
    fn struct_fields_and_consts_are_checked() {
        let s: syn::ItemStruct = syn::parse_quote! { struct P { x: f64, float: f64 } };
        assert!(check_struct(&s)
            .unwrap_err()
            .to_string()
            .contains("`float`"));
        let c: syn::ItemConst = syn::parse_quote! { const int: i32 = 1; };
        assert!(check_const(&c).is_err());
    }
}
