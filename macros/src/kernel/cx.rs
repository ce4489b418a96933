//! The translation context: scopes of typed variables, inference, and the
//! `#[device]` items a body refers to.

use super::errors::{error_at, Result};
use super::infer::Infer;
use super::team_rules::TeamRules;
use super::types::{Elem, Ty};
use proc_macro2::Span;

/// A variable in scope.
#[derive(Clone, Debug)]
pub struct Var {
    pub ty: Ty,
    pub mutable: bool,
}

/// Where `return`, `break` and `continue` may appear.
#[derive(Clone, Copy, Default)]
pub struct Frame {
    /// Inside a loop of the current function or closure.
    pub loops: usize,
    /// Inside a block expression lowered to a C++ lambda, where these
    /// would change meaning.
    pub in_value_block: bool,
}

pub struct Cx {
    pub infer: Infer,
    scopes: Vec<Vec<(String, Var)>>,
    pub generics: Vec<String>,
    /// `#[device]` functions and constants used, as written.
    pub deps: Vec<syn::Path>,
    /// `#[device] struct`s used (reached through `DeviceStruct`).
    pub struct_deps: Vec<syn::Path>,
    /// `#[device]` custom reducers used by team-level reductions (reached
    /// through `DeviceReducer`).
    pub reducer_deps: Vec<syn::Path>,
    /// The return type of a `#[device]` function (None for kernels).
    pub ret: Option<Elem>,
    pub frame: Frame,
    /// The kernel's or `#[device]` function's name, for assertion messages.
    pub fn_name: String,
    /// A team kernel's write model: which constructs are phases.
    pub team_rules: Option<TeamRules>,
    tmp: usize,
}

impl Cx {
    pub fn new(generics: Vec<String>) -> Self {
        Cx {
            infer: Infer::default(),
            scopes: vec![Vec::new()],
            generics,
            deps: Vec::new(),
            struct_deps: Vec::new(),
            reducer_deps: Vec::new(),
            ret: None,
            frame: Frame::default(),
            fn_name: String::new(),
            team_rules: None,
            tmp: 0,
        }
    }

    pub fn push(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub fn pop(&mut self) {
        self.scopes.pop();
    }

    pub fn bind(&mut self, name: String, ty: Ty, mutable: bool) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, Var { ty, mutable }));
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The C++ of a nested pattern or `single` at `at`, wrapped in the
    /// synchronization its writes need (see `team_rules`): team barriers
    /// around a construct that writes team scratch, a lane barrier around
    /// one that writes a thread's memory.
    pub fn phase(&self, at: Span, team: &str, text: String) -> String {
        let Some(rules) = &self.team_rules else {
            return text;
        };
        let k = super::team_rules::key(at);
        if rules.team_phases.contains(&k) {
            format!("granule::team_phase({team}, [&]() {{ return {text}; }})")
        } else if rules.lane_phases.contains(&k) {
            format!("granule::lane_phase([&]() {{ return {text}; }})")
        } else {
            text
        }
    }

    /// An array length that names a constant (`[0.0; N]`): a `#[device]
    /// const` is a dependency, a `const` of the body is in scope already.
    pub fn length_dep(&mut self, len: &syn::Expr) {
        if let syn::Expr::Path(p) = len {
            let local = p
                .path
                .get_ident()
                .is_some_and(|id| self.lookup(&id.to_string()).is_some());
            if !local {
                self.deps.push(p.path.clone());
            }
        }
    }

    /// The element type a type annotation names (a scalar, a generic, a
    /// `#[device] struct`, an array or tuple of them), with the constants
    /// and structs it names recorded as dependencies.
    pub fn type_elem(&mut self, ty: &syn::Type) -> Result<Elem> {
        let elem = super::types::value_elem_of(ty, &self.generics)?;
        self.type_deps(ty);
        Ok(elem)
    }

    /// Records the array-length constants and `#[device] struct`s a type
    /// names.
    pub fn type_deps(&mut self, ty: &syn::Type) {
        let mut lens = Vec::new();
        super::types::array_len_names(ty, &mut lens);
        for p in lens {
            self.length_dep(&syn::Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: p,
            }));
        }
        super::types::struct_names(ty, &self.generics, &mut self.struct_deps);
    }

    /// A fresh C++ name for a hidden temporary.
    pub fn tmp(&mut self, stem: &str) -> String {
        self.tmp += 1;
        format!("{stem}_g{}", self.tmp)
    }

    /// `a` and `b` as one element type.
    pub fn unify(&mut self, a: &Elem, b: &Elem, span: Span) -> Result<Elem> {
        self.infer.unify(a, b, &SpanOf(span))
    }

    /// The element type of a value, or an error naming what it is instead.
    pub fn elem(&self, ty: &Ty, span: Span) -> Result<Elem> {
        match ty {
            Ty::Elem(e) => Ok(e.clone()),
            Ty::Out(_) => Err(error_at(
                span,
                "an output is a reference: read or write it through `*`",
            )),
            Ty::Unit => Err(error_at(span, "this expression has no value")),
            _ => Err(error_at(span, "expected a scalar value here")),
        }
    }
}

/// Lets a bare span be used where syn wants a `Spanned` node.
pub struct SpanOf(pub Span);

impl quote::ToTokens for SpanOf {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        tokens.extend(quote::quote_spanned!(self.0=> _));
    }
}
