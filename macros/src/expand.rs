//! Turning a checked [`Spec`] into a call of `ReshapeMap::new`, which
//! re-validates at run time what only the run time knows (zero extents,
//! overflow) and returns a `Result`.

use crate::layout::resolve;
use crate::parse::{Extent, Spec};
use proc_macro2::TokenStream;
use quote::quote;

/// The expansion: `<crate>::chunk::ReshapeMap::new(&[..], &[..], &[..], offset)`.
pub fn expand(spec: &Spec) -> syn::Result<TokenStream> {
    let layout = resolve(spec)?;
    let krate = &spec.krate;
    let chunk = quote!(#krate::chunk);
    let local = spec.local.dims.iter().map(|e| dim(&chunk, e));
    let thread = spec.thread.dims.iter().map(|e| dim(&chunk, e));
    let entries = layout.iter().map(|r| {
        let (d, rev) = (r.dim, r.reversed);
        quote!(#chunk::LayoutEntry::new(#d, #rev))
    });
    let offset = spec
        .offset
        .as_ref()
        .map_or_else(|| quote!(0usize), |e| quote!(#e));
    Ok(quote! {
        #chunk::ReshapeMap::new(
            &[#(#local),*],
            &[#(#thread),*],
            &[#(#entries),*],
            #offset,
        )
    })
}

fn dim(chunk: &TokenStream, e: &Extent) -> TokenStream {
    match e {
        Extent::Single(d) => quote!(#chunk::Dim::new(#d)),
        Extent::Pair(d, td) => quote!(#chunk::Dim::pair(#d, #td)),
    }
}
