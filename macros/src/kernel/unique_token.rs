//! Unique tokens in kernels: a `&UniqueToken` parameter of
//! granule-containers and its `acquire`, `release` and `size`.
//!
//! On the device a token is an atomic View of its `u32` locks, one per id
//! (`ParamKind::Atomic` of rank 1; the glue passes it through
//! `DeviceToken`, and `canon.rs` checks the spelled type with
//! `token_shape`). The methods are the header's `granule::token_acquire`
//! and `token_release` (`unique_token.cuh`), the host's protocol: an id is
//! held while its lock is 1. A token gives ids, not memory: what a kernel
//! writes per id goes through an atomic View indexed by the id, so the
//! write model holds even if a kernel releases an id it does not hold.

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::types::{Elem, Scalar, Ty};
use syn::ExprMethodCall;

/// `UniqueToken` (a last path segment `name` with type arguments
/// `args`): only the memory space may be named, which the glue fills in.
pub fn token_of(
    seg: &syn::PathSegment,
    name: &str,
    args: &[&syn::GenericArgument],
) -> Result<Option<Ty>> {
    if name != "UniqueToken" {
        return Ok(None);
    }
    if args.len() > 1 {
        return Err(unsupported(
            seg,
            "a UniqueToken with type arguments other than its memory space",
        ));
    }
    Ok(Some(Ty::Token))
}

/// The C++ declaration of a token parameter: its locks.
pub fn decl(name: &str) -> String {
    format!("granule::AtomicView<granule::u32, 1> {name}")
}

impl Cx {
    /// A method of a token parameter.
    pub fn token_method(&mut self, m: &ExprMethodCall, recv: &str) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        let usize_ = Elem::Scalar(Scalar::Usize);
        let arity = |want: usize| -> Result<()> {
            if m.args.len() == want {
                Ok(())
            } else {
                Err(error_at(
                    m.method.span(),
                    format!("`{name}` takes {want} argument(s)"),
                ))
            }
        };
        match name.as_str() {
            "size" => {
                arity(0)?;
                Ok((format!("{recv}.extent(0)"), Ty::Elem(usize_)))
            }
            "acquire" => {
                arity(0)?;
                Ok((format!("granule::token_acquire({recv})"), Ty::Elem(usize_)))
            }
            "release" => {
                arity(1)?;
                let id = self.value_as(&m.args[0], &usize_)?;
                Ok((format!("granule::token_release({recv}, {id})"), Ty::Unit))
            }
            _ => Err(unsupported(
                &m.method,
                &format!("the UniqueToken method `{name}` in a kernel (acquire, release, size; guards and rows are the host's)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    fn translate(src: &str) -> Result<String, String> {
        let f: syn::ItemFn = syn::parse_str(src).expect("valid Rust");
        super::super::translate_kernel(&f, super::super::Pattern::For)
            .map(|t| t.source)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn acquire_and_release_are_the_header_functions() {
        let src = translate(
            "fn k(i: usize, t: &UniqueToken, a: &AtomicView<u32, 1>) { let id = t.acquire(); a.fetch_add(id, 1); t.release(id); }",
        )
        .expect("translates");
        assert!(
            src.contains("granule::AtomicView<granule::u32, 1> t"),
            "{src}"
        );
        assert!(src.contains("granule::token_acquire(t)"), "{src}");
        assert!(src.contains("granule::token_release(t, id)"), "{src}");
    }

    #[test]
    fn team_threads_each_acquire_their_own_id() {
        let src = translate(
            "fn k(m: &TeamMember, t: &UniqueToken, a: &AtomicView<u64, 1>) { let id = t.acquire(); a.add(id, m.league_rank() as u64); t.release(id); }",
        )
        .expect("translates");
        assert!(src.contains("granule::token_acquire(t)"), "{src}");
    }

    #[test]
    fn guards_and_other_methods_are_host_only() {
        let e = translate("fn k(i: usize, t: &UniqueToken) { let g = t.acquire_guard(); }")
            .unwrap_err();
        assert!(e.contains("UniqueToken method `acquire_guard`"), "{e}");
        let e = translate("fn k(i: usize, t: &UniqueToken) { t.release(); }").unwrap_err();
        assert!(e.contains("takes 1 argument"), "{e}");
        let e = translate("fn k(i: usize, t: &UniqueToken<u32, HostSpace>) { }").unwrap_err();
        assert!(e.contains("UniqueToken with type arguments"), "{e}");
    }
}
