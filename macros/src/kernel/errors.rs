//! Compile errors of the translator: a span and what is unsupported.

use proc_macro2::Span;
use syn::spanned::Spanned;

/// The translator's result type.
pub type Result<T> = std::result::Result<T, syn::Error>;

/// An error at `node` saying that `what` is outside the kernel subset.
pub fn unsupported(node: &impl Spanned, what: &str) -> syn::Error {
    syn::Error::new(
        node.span(),
        format!("#[kernel]: {what} is not supported in device code"),
    )
}

/// An error at `span` with a free-form message.
pub fn error_at(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, format!("#[kernel]: {msg}"))
}
