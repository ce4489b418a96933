//! Parsing `reshape_map!`'s input into a [`Spec`], keeping every token's
//! span so that later errors point at what the user wrote.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{bracketed, Expr, Ident, LitInt, Token};

/// One local or thread dimension: `D`, or `(D, TD)`.
// A handful per macro call: the size of the variants does not matter (and
// depends on proc-macro2's span-locations feature, on for `#[kernel]`).
#[allow(clippy::large_enum_variant)]
pub enum Extent {
    /// The logical extent, which is also the target extent.
    Single(Expr),
    /// Logical extent `D` and target extent `TD`.
    Pair(Expr, Expr),
}

/// Which dimension a layout entry names.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A number over all dims: locals first, then threads.
    Number(usize),
    /// `i<k>`.
    Local(usize),
    /// `t<k>`.
    Thread(usize),
}

/// One layout entry, as written.
pub struct Entry {
    /// Whether it had a leading `-`.
    pub reversed: bool,
    /// The dimension it names.
    pub kind: EntryKind,
    /// Its tokens (with the `-`), for error spans.
    pub tokens: TokenStream,
    /// How the user spelled it, for error messages.
    pub text: String,
}

/// A bracketed list of dims, with the span of its brackets.
pub struct Dims {
    /// The dims in order (lowest first).
    pub dims: Vec<Extent>,
    /// The brackets' span, where "no dims" errors point.
    pub span: Span,
}

/// A whole `reshape_map!` invocation.
pub struct Spec {
    /// Path of the crate that owns `chunk::ReshapeMap`.
    pub krate: TokenStream,
    /// Local dims.
    pub local: Dims,
    /// Thread dims.
    pub thread: Dims,
    /// The layout entries and the span of their brackets, if given.
    pub layout: Option<(Vec<Entry>, Span)>,
    /// The offset expression, if given.
    pub offset: Option<Expr>,
}

/// Parses `<crate path> ; [dims] | [dims] (=> layout: [..], offset: e)?`.
pub fn parse(input: TokenStream) -> syn::Result<Spec> {
    let mut tokens = input.into_iter();
    let mut krate = TokenStream::new();
    for tt in tokens.by_ref() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ';' => break,
            _ => krate.extend([tt]),
        }
    }
    let rest: TokenStream = tokens.collect();
    let parser = |input: ParseStream| parse_body(input, krate.clone());
    parser.parse2(rest)
}

fn parse_body(input: ParseStream, krate: TokenStream) -> syn::Result<Spec> {
    let local = parse_dims(input)?;
    input.parse::<Token![|]>()?;
    let thread = parse_dims(input)?;
    let mut spec = Spec {
        krate,
        local,
        thread,
        layout: None,
        offset: None,
    };
    if input.parse::<Option<Token![=>]>>()?.is_some() {
        parse_options(input, &mut spec)?;
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens; expected `=> layout: [..], offset: expr`"));
    }
    Ok(spec)
}

fn parse_dims(input: ParseStream) -> syn::Result<Dims> {
    let content;
    let brackets = bracketed!(content in input);
    let list = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    let dims = list.into_iter().map(extent).collect::<syn::Result<_>>()?;
    Ok(Dims {
        dims,
        span: brackets.span.join(),
    })
}

fn extent(e: Expr) -> syn::Result<Extent> {
    let Expr::Tuple(t) = e else {
        return Ok(Extent::Single(e));
    };
    let whole = t.to_token_stream();
    match <[Expr; 2]>::try_from(t.elems.into_iter().collect::<Vec<_>>()) {
        Ok([d, td]) => Ok(Extent::Pair(d, td)),
        Err(_) => Err(syn::Error::new_spanned(
            whole,
            "a dimension is `D` or `(D, TD)`: a logical extent and an optional target extent",
        )),
    }
}

/// `layout: [..]` and `offset: e`, each at most once, in any order.
fn parse_options(input: ParseStream, spec: &mut Spec) -> syn::Result<()> {
    while !input.is_empty() {
        let key: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        match key.to_string().as_str() {
            "layout" if spec.layout.is_none() => spec.layout = Some(parse_layout(input)?),
            "offset" if spec.offset.is_none() => spec.offset = Some(input.parse()?),
            "layout" | "offset" => {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` is given twice"),
                ))
            }
            _ => return Err(syn::Error::new(key.span(), "expected `layout` or `offset`")),
        }
        if input.parse::<Option<Token![,]>>()?.is_none() {
            break;
        }
    }
    Ok(())
}

fn parse_layout(input: ParseStream) -> syn::Result<(Vec<Entry>, Span)> {
    let content;
    let brackets = bracketed!(content in input);
    let mut entries = Vec::new();
    while !content.is_empty() {
        entries.push(parse_entry(&content)?);
        if content.parse::<Option<Token![,]>>()?.is_none() {
            break;
        }
    }
    if !content.is_empty() {
        return Err(content.error("expected `,` between layout entries"));
    }
    Ok((entries, brackets.span.join()))
}

fn parse_entry(input: ParseStream) -> syn::Result<Entry> {
    let minus: Option<Token![-]> = input.parse()?;
    let mut tokens = minus.to_token_stream();
    let kind = if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        lit.to_tokens(&mut tokens);
        EntryKind::Number(lit.base10_parse()?)
    } else if input.peek(Ident) {
        let id: Ident = input.parse()?;
        id.to_tokens(&mut tokens);
        named_entry(&id)?
    } else {
        return Err(
            input.error("expected a layout entry: a number, `i<k>` or `t<k>`, optionally negated")
        );
    };
    let text = tokens.to_string().replace(' ', "");
    Ok(Entry {
        reversed: minus.is_some(),
        kind,
        tokens,
        text,
    })
}

fn named_entry(id: &Ident) -> syn::Result<EntryKind> {
    let name = id.to_string();
    let (head, digits) = name.split_at(1);
    let k = digits
        .parse::<usize>()
        .ok()
        .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()));
    match (head, k) {
        ("i", Some(k)) => Ok(EntryKind::Local(k)),
        ("t", Some(k)) => Ok(EntryKind::Thread(k)),
        _ => Err(syn::Error::new(
            id.span(),
            format!("`{name}` is not a layout entry: use `i<k>` for local dim k, `t<k>` for thread dim k, or a number"),
        )),
    }
}
