//! Checking a layout at compile time: every entry in range, none
//! repeated, every dimension listed, and at least one local and one thread
//! dimension.

use crate::parse::{Entry, EntryKind, Spec};
use proc_macro2::Span;

/// A checked layout entry: the dimension's number (locals first) and
/// whether it is reversed.
pub struct Resolved {
    /// Number of the dimension, locals first then threads.
    pub dim: usize,
    /// Whether the entry had a `-`.
    pub reversed: bool,
}

/// Checks `spec` and returns its layout, lowest entry first.
pub fn resolve(spec: &Spec) -> syn::Result<Vec<Resolved>> {
    let (locals, threads) = (spec.local.dims.len(), spec.thread.dims.len());
    non_empty(locals, spec.local.span, "local")?;
    non_empty(threads, spec.thread.span, "thread")?;
    let Some((entries, span)) = &spec.layout else {
        return Ok((0..locals + threads)
            .map(|dim| Resolved {
                dim,
                reversed: false,
            })
            .collect());
    };
    let mut seen: Vec<Option<&Entry>> = vec![None; locals + threads];
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let dim = number(entry, locals, threads)?;
        if let Some(first) = seen[dim].replace(entry) {
            return Err(repeated(entry, first, locals));
        }
        out.push(Resolved {
            dim,
            reversed: entry.reversed,
        });
    }
    all_listed(&seen, locals, *span)?;
    Ok(out)
}

fn non_empty(count: usize, span: Span, what: &str) -> syn::Result<()> {
    if count > 0 {
        return Ok(());
    }
    Err(syn::Error::new(
        span,
        format!("reshape_map! needs at least one {what} dimension; this list is empty"),
    ))
}

/// The entry's number among all dims, or an out-of-range error at its span.
fn number(entry: &Entry, locals: usize, threads: usize) -> syn::Result<usize> {
    let (dim, ok, range) = match entry.kind {
        EntryKind::Number(n) => (n, n < locals + threads, all_range(locals, threads)),
        EntryKind::Local(k) => (k, k < locals, name_range("i", locals, "local")),
        EntryKind::Thread(k) => (locals + k, k < threads, name_range("t", threads, "thread")),
    };
    if ok {
        return Ok(dim);
    }
    let msg = format!("layout entry `{}` is out of range: {range}", entry.text);
    Err(syn::Error::new_spanned(&entry.tokens, msg))
}

fn all_range(locals: usize, threads: usize) -> String {
    format!(
        "there are {} dimensions, numbered 0..={} ({locals} local first, then {threads} thread)",
        locals + threads,
        locals + threads - 1
    )
}

fn name_range(prefix: &str, count: usize, what: &str) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!(
        "there {} {count} {what} dimension{plural} ({prefix}0..={prefix}{})",
        if count == 1 { "is" } else { "are" },
        count - 1
    )
}

fn repeated(entry: &Entry, first: &Entry, locals: usize) -> syn::Error {
    let name = dim_name(number_of(entry, locals), locals);
    let msg = format!(
        "layout entry `{}` repeats dimension {name}, already listed as `{}`; each dimension appears exactly once",
        entry.text, first.text
    );
    syn::Error::new_spanned(&entry.tokens, msg)
}

fn number_of(entry: &Entry, locals: usize) -> usize {
    match entry.kind {
        EntryKind::Number(n) | EntryKind::Local(n) => n,
        EntryKind::Thread(k) => locals + k,
    }
}

fn dim_name(dim: usize, locals: usize) -> String {
    if dim < locals {
        format!("i{dim}")
    } else {
        format!("t{}", dim - locals)
    }
}

fn all_listed(seen: &[Option<&Entry>], locals: usize, span: Span) -> syn::Result<()> {
    let missing: Vec<String> = (0..seen.len())
        .filter(|&d| seen[d].is_none())
        .map(|d| format!("`{}`", dim_name(d, locals)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let msg = format!(
        "the layout must list every dimension once; missing {}",
        missing.join(", ")
    );
    Err(syn::Error::new(span, msg))
}
