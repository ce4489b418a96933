//! The types of the kernel subset, their C++ spelling, and how they are
//! read from the Rust types of a kernel's signature. Literals whose type
//! is not known yet are inference variables (`infer.rs`).

use super::errors::{error_at, unsupported, Result};

mod acc;
mod view;

pub use acc::*;
pub use view::*;

/// A scalar type of the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Usize,
    Isize,
    Bool,
}

impl Scalar {
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "usize" => Scalar::Usize,
            "isize" => Scalar::Isize,
            "bool" => Scalar::Bool,
            _ => return None,
        })
    }

    pub fn cpp(self) -> &'static str {
        match self {
            Scalar::F32 => "granule::f32",
            Scalar::F64 => "granule::f64",
            Scalar::I8 => "granule::i8",
            Scalar::I16 => "granule::i16",
            Scalar::I32 => "granule::i32",
            Scalar::I64 => "granule::i64",
            Scalar::U8 => "granule::u8",
            Scalar::U16 => "granule::u16",
            Scalar::U32 => "granule::u32",
            Scalar::U64 => "granule::u64",
            Scalar::Usize => "granule::usize",
            Scalar::Isize => "granule::isize",
            Scalar::Bool => "bool",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 | Scalar::Isize
        )
    }

    /// 8- and 16-bit integers: C++ promotes them to `int` in arithmetic,
    /// so their results are cast back to keep Rust's wrapping.
    pub fn is_narrow(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::U8 | Scalar::U16)
    }

    /// The unsigned integer of the same width (itself if unsigned).
    pub fn unsigned(self) -> Scalar {
        match self {
            Scalar::I8 => Scalar::U8,
            Scalar::I16 => Scalar::U16,
            Scalar::I32 => Scalar::U32,
            Scalar::I64 => Scalar::U64,
            Scalar::Isize => Scalar::Usize,
            s => s,
        }
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    /// A literal of this type; `text` has no suffix.
    pub fn literal(self, text: &str) -> String {
        match self {
            Scalar::F32 => format!("{}f", float_text(text)),
            Scalar::F64 => float_text(text),
            // i32::MIN is not an int literal in C++ (`-2147483648` negates
            // a `long`): it takes the typed form below.
            Scalar::I32
                if text
                    .parse::<i64>()
                    .is_ok_and(|v| v > i64::from(i32::MIN) && v <= i64::from(i32::MAX)) =>
            {
                text.to_string()
            }
            Scalar::U32 => format!("{text}u"),
            Scalar::U64 | Scalar::Usize => format!("{text}ull"),
            Scalar::Bool => text.to_string(),
            // A narrow literal is typed, so that `min(x, 3)` deduces one type.
            s if s.is_narrow() => format!("(({}){text})", s.cpp()),
            // Signed 64-bit (and i32 beyond i32::MAX, only valid negated):
            // through unsigned, so that `-9223372036854775808` is valid C++.
            _ => format!("(({}){text}ull)", self.cpp()),
        }
    }
}

/// A float literal's text as C++ reads it: `1` becomes `1.0`, `_` goes.
fn float_text(text: &str) -> String {
    let t = text.replace('_', "");
    if t.contains(['.', 'e', 'E']) {
        t
    } else {
        format!("{t}.0")
    }
}

/// Layouts a View type can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Right,
    Left,
    Stride,
}

impl Layout {
    pub fn cpp(self) -> &'static str {
        match self {
            Layout::Right => "granule::LayoutRight",
            Layout::Left => "granule::LayoutLeft",
            Layout::Stride => "granule::LayoutStride",
        }
    }
    pub fn rust_variant(self) -> &'static str {
        match self {
            Layout::Right => "Right",
            Layout::Left => "Left",
            Layout::Stride => "Stride",
        }
    }
}

/// An element type: a scalar, a generic parameter, or a literal whose type
/// is not known yet (an inference variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    Scalar(Scalar),
    Generic(String),
    /// Index into the inference table.
    Var(usize),
    /// A value whose type the translator cannot see and C++ cannot name
    /// either (a `#[device]` call with a lambda among its arguments, which
    /// `decltype` may not hold in C++17): `auto`.
    Auto,
    /// The accumulator of a location or min-max reducer (only as a
    /// reduction kernel's `&mut`, updated through its methods).
    Acc(Acc),
    /// A tuple of 2 to 6 scalars: the accumulator of a tuple of reducers
    /// (only as a reduction kernel's `&mut`, used through its fields).
    Tuple(Vec<Scalar>),
    /// A `#[device] struct`, by its C++ name (the Rust name): the value of
    /// a custom reducer, used through its named fields.
    Struct(String),
    /// A value whose type only C++ can see, spelled `decltype(..)`: a field
    /// of a `#[device] struct` (`decltype(S::field)`), a `#[device]`
    /// function's result or constant. Arithmetic and casts go through the
    /// header's templates (as for a generic parameter) and literals take
    /// the value's type; the host compiler has already checked the types.
    Deduced(String),
    /// A `[T; N]` value (a local, a helper's argument or result, a
    /// constant): its element type and its length as C++ reads it (the
    /// digits of an integer literal, or the name of a constant).
    /// `granule::Array<T, N>`, which copies by value as Rust's arrays do.
    Array(Box<Elem>, String),
    /// A tuple value of any element types (a local, a helper's argument or
    /// result): `granule::Tuple<..>`, read by field (`t.0`) or
    /// destructured.
    TupleOf(Vec<Elem>),
}

/// The C++ spelling of an array: `granule::Array<T, N>`.
pub fn array_cpp(elem: &str, len: &str) -> String {
    format!("granule::Array<{elem}, {len}>")
}

/// An array length as C++ reads it: the digits of an integer literal
/// (`3`, `3usize`) or a constant's name (`N`, a `#[device] const` or a
/// `const` of the body); `None` for anything else, which is not a
/// constant the translator can name.
pub fn array_len(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) if n.suffix().is_empty() || n.suffix() == "usize" => Some(n.base10_digits().to_string()),
        syn::Expr::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?.to_string();
            id.starts_with(|c: char| c.is_ascii_uppercase())
                .then_some(id)
        }
        syn::Expr::Group(g) => array_len(&g.expr),
        syn::Expr::Paren(p) => array_len(&p.expr),
        _ => None,
    }
}

/// The error for an array length [`array_len`] does not accept.
pub fn array_len_error(e: &syn::Expr) -> syn::Error {
    error_at(
        syn::spanned::Spanned::span(e),
        "an array length in device code is an integer literal or the name of a constant (`[f64; 3]`, `[0.0; N]` with `#[device] const N: usize = 3;`)",
    )
}

/// The constants a type names as array lengths (`N` in `[[f64; N]; 3]`).
pub fn array_len_names(ty: &syn::Type, out: &mut Vec<syn::Path>) {
    match ty {
        syn::Type::Array(a) => {
            if let syn::Expr::Path(p) = &a.len {
                if array_len(&a.len).is_some() {
                    out.push(p.path.clone());
                }
            }
            array_len_names(&a.elem, out);
        }
        syn::Type::Tuple(t) => t.elems.iter().for_each(|e| array_len_names(e, out)),
        syn::Type::Paren(p) => array_len_names(&p.elem, out),
        syn::Type::Reference(r) => array_len_names(&r.elem, out),
        _ => {}
    }
}

/// The C++ spelling of a tuple accumulator: `granule::Tuple<T0, T1, ..>`.
pub fn tuple_cpp(fields: &[Scalar]) -> String {
    let fs: Vec<&str> = fields.iter().map(|s| s.cpp()).collect();
    format!("granule::Tuple<{}>", fs.join(", "))
}

/// The accumulator type named by `ty` if it is a tuple: 2 to 6 fields,
/// each a scalar (as the host's tuples of reducers allow).
pub fn tuple_of(ty: &syn::Type) -> Result<Option<Vec<Scalar>>> {
    let syn::Type::Tuple(t) = ty else {
        return Ok(None);
    };
    if !(2..=6).contains(&t.elems.len()) {
        return Err(unsupported(
            t,
            "a tuple accumulator of this length (2 to 6 fields)",
        ));
    }
    t.elems
        .iter()
        .map(|e| match elem_of(e, &[]) {
            Ok(Elem::Scalar(s)) => Ok(s),
            _ => Err(unsupported(
                e,
                "this tuple accumulator field type (scalars only)",
            )),
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// The type of an expression or variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Elem(Elem),
    /// A read View (or team scratch, which is also writable).
    View {
        elem: Elem,
        rank: u8,
        layout: Layout,
        writable: bool,
    },
    /// An owned output or reduction accumulator: `&mut T`.
    Out(Elem),
    Atomic {
        elem: Elem,
        rank: u8,
    },
    /// A `&ScatterView<T, R, Op>` parameter (`scatter.rs`).
    Scatter {
        elem: Elem,
        rank: u8,
        op: super::scatter::ScatterOp,
    },
    /// Its `access()` handle.
    ScatterAccess {
        elem: Elem,
        rank: u8,
        op: super::scatter::ScatterOp,
    },
    Team,
    /// A chunk of a chunked View: a team's part (`TeamChunk`, read-only)
    /// or a thread's part (from `chunk_mut(..).unwrap()`, writable).
    Chunk {
        elem: Elem,
        writable: bool,
    },
    /// `team.thread_ids()`, only an argument of `chunk_mut`.
    Ids,
    /// A map parameter: `&MapInserter<'_, K, V>` (`insert`) or
    /// `&UnorderedMap<K, V>`, or the set forms `&SetInserter<'_, K>` and
    /// `&UnorderedSet<K>` (no `value`; see `unordered_map.rs`).
    Map {
        key: Elem,
        value: Option<Elem>,
        insert: bool,
    },
    /// What an insert into a map returns.
    InsertResult,
    /// A `&UniqueToken` parameter (`unique_token.rs`).
    Token,
    Unit,
}

impl Ty {
    pub fn scalar(s: Scalar) -> Ty {
        Ty::Elem(Elem::Scalar(s))
    }
}

/// The element type named by a Rust type: a scalar, a generic parameter,
/// or an array or tuple of them.
pub fn elem_of(ty: &syn::Type, generics: &[String]) -> Result<Elem> {
    match ty {
        syn::Type::Array(a) => {
            let len = array_len(&a.len).ok_or_else(|| array_len_error(&a.len))?;
            let elem = value_elem_of(&a.elem, generics)?;
            return Ok(Elem::Array(Box::new(elem), len));
        }
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            return t
                .elems
                .iter()
                .map(|e| value_elem_of(e, generics))
                .collect::<Result<Vec<_>>>()
                .map(Elem::TupleOf);
        }
        syn::Type::Paren(p) => return elem_of(&p.elem, generics),
        syn::Type::Slice(_) => {
            return Err(unsupported(
                ty,
                "a slice (device code has arrays of a constant length: `[T; N]`)",
            ))
        }
        _ => {}
    }
    if let syn::Type::Path(p) = ty {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            if let Some(s) = Scalar::from_name(&name) {
                return Ok(Elem::Scalar(s));
            }
            if generics.contains(&name) {
                return Ok(Elem::Generic(name));
            }
        }
    }
    Err(unsupported(
        ty,
        "this type (use f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, isize, bool or a generic parameter)",
    ))
}

/// The element of an array or tuple type: what [`elem_of`] reads, or a
/// `#[device] struct` (by its C++ name, the Rust name).
pub fn value_elem_of(ty: &syn::Type, generics: &[String]) -> Result<Elem> {
    match struct_of(ty, generics) {
        Some(path) => Ok(Elem::Struct(last_segment(&path))),
        None => elem_of(ty, generics),
    }
}

/// Why `elem` cannot be the element of a View a kernel reads or writes in
/// place, if it cannot: the device must lay it out as the host does
/// (`DeviceElement`), which holds for scalars, `#[device] struct`s and
/// arrays of them of a known element type, and not for tuples (whose
/// `granule::Tuple` is laid out otherwise).
pub fn view_elem_error(elem: &Elem) -> Option<&'static str> {
    match elem {
        Elem::TupleOf(_) => Some(
            "a View or `&mut` of tuples (the device lays tuples out otherwise: use a `#[device] struct` or an array)",
        ),
        Elem::Array(e, _) => match &**e {
            Elem::Generic(_) => Some(
                "a View or `&mut` of arrays of a generic parameter (name the element type)",
            ),
            inner => view_elem_error(inner),
        },
        _ => None,
    }
}

/// The `#[device] struct`s a type names (`Atom` in `[Atom; 4]`), which a
/// translation lists as dependencies.
pub fn struct_names(ty: &syn::Type, generics: &[String], out: &mut Vec<syn::Path>) {
    match ty {
        syn::Type::Array(a) => struct_names(&a.elem, generics, out),
        syn::Type::Tuple(t) => t.elems.iter().for_each(|e| struct_names(e, generics, out)),
        syn::Type::Paren(p) => struct_names(&p.elem, generics, out),
        other => out.extend(struct_of(other, generics)),
    }
}

/// A user type named by a plain path (`Triple`, `crate::stats::Triple`):
/// a `#[device] struct`, whose hidden static the use refers to (so a
/// struct without `#[device]` fails to compile at the use). Generic
/// parameters and the framework's own types are not structs.
pub fn struct_of(ty: &syn::Type, generics: &[String]) -> Option<syn::Path> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    let plain = p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none());
    let user = last.starts_with(|c: char| c.is_ascii_uppercase())
        && !generics.contains(&last)
        && Scalar::from_name(&last).is_none()
        && !is_team(ty);
    (plain && user).then(|| p.path.clone())
}

/// The type of `#[device]` call or constant `text`, as C++ deduces it.
pub fn deduced(text: &str) -> Elem {
    if text.contains("[&]") {
        Elem::Auto
    } else {
        // A constant's decltype is `const T`; a mutable copy needs `T`.
        Elem::Deduced(format!("granule::Plain<decltype({text})>"))
    }
}

#[cfg(test)]
mod aggregate_tests {
    use super::*;

    #[test]
    fn array_lengths_are_literals_or_constant_names() {
        let len = |s: &str| array_len(&syn::parse_str(s).unwrap());
        assert_eq!(len("3"), Some("3".into()));
        assert_eq!(len("3usize"), Some("3".into()));
        assert_eq!(len("NODES"), Some("NODES".into()));
        assert_eq!(len("n"), None);
        assert_eq!(len("2 * N"), None);
        assert_eq!(len("3u8"), None);
    }

    #[test]
    fn array_and_tuple_types_read_as_values() {
        let ty: syn::Type = syn::parse_str("[[f64; 3]; N]").unwrap();
        let inner = Elem::Array(Box::new(Elem::Scalar(Scalar::F64)), "3".into());
        assert_eq!(
            elem_of(&ty, &[]).unwrap(),
            Elem::Array(Box::new(inner), "N".into())
        );
        let ty: syn::Type = syn::parse_str("(f32, [Atom; 2])").unwrap();
        let atoms = Elem::Array(Box::new(Elem::Struct("Atom".into())), "2".into());
        assert_eq!(
            elem_of(&ty, &[]).unwrap(),
            Elem::TupleOf(vec![Elem::Scalar(Scalar::F32), atoms])
        );
        assert!(elem_of(&syn::parse_str("[f64]").unwrap(), &[]).is_err());
        assert!(view_elem_error(&Elem::TupleOf(vec![])).is_some());
        let generic = Elem::Array(Box::new(Elem::Generic("T".into())), "3".into());
        assert!(view_elem_error(&generic).is_some());
    }

    #[test]
    fn arrays_unify_elementwise_and_spell_as_granule_arrays() {
        let mut infer = crate::kernel::infer::Infer::default();
        let lit = infer.fresh(crate::kernel::infer::VarKind::Float);
        let a = Elem::Array(Box::new(lit), "N".into());
        let b = Elem::Array(Box::new(Elem::Scalar(Scalar::F32)), "4".into());
        let at = proc_macro2::Span::call_site();
        let u = infer.unify(&a, &b, &crate::kernel::cx::SpanOf(at)).unwrap();
        assert_eq!(infer.cpp(&u), "granule::Array<granule::f32, 4>");
        let c = Elem::Array(Box::new(Elem::Scalar(Scalar::F32)), "5".into());
        assert!(infer.unify(&b, &c, &crate::kernel::cx::SpanOf(at)).is_err());
    }
}
