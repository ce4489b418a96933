//! Hash maps in kernels: `&MapInserter<'_, K, V>` (inserting) and
//! `&UnorderedMap<K, V>` (reading) parameters of granule-containers, and
//! the `InsertResult` of an insert. The device side is the header's
//! `granule::MapInserter` / `granule::UnorderedMap` (unordered_map.cuh),
//! whose probe loop is the host's.
//!
//! The methods are exactly the host types' own, so a body means the same
//! on every space: an inserter inserts (`insert`, `insert_add`) and finds
//! (`find`, `exists`, `capacity`) but cannot read values, which other work
//! items may be adding to; a read map finds and reads slots.

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::types::{elem_of, Elem, Scalar, Ty};
use syn::ExprMethodCall;

/// The key types of a map (granule-containers' `MapKey`).
const KEYS: [Scalar; 5] = [
    Scalar::U32,
    Scalar::U64,
    Scalar::I32,
    Scalar::I64,
    Scalar::Usize,
];

/// `MapInserter<'_, K, V>`, `UnorderedMap<K, V>`, `SetInserter<'_, K>` or
/// `UnorderedSet<K>` (a last path segment `name` with type arguments
/// `args`), if it is one.
pub fn map_of(
    seg: &syn::PathSegment,
    name: &str,
    args: &[&syn::GenericArgument],
    generics: &[String],
) -> Result<Option<Ty>> {
    let (insert, set) = match name {
        "MapInserter" => (true, false),
        "UnorderedMap" => (false, false),
        "SetInserter" => (true, true),
        "UnorderedSet" => (false, true),
        _ => return Ok(None),
    };
    let types: Vec<&syn::Type> = args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    let (k, v) = match (&types[..], set) {
        ([k, v], false) => (*k, Some(*v)),
        ([k], true) => (*k, None),
        _ => {
            return Err(unsupported(
                seg,
                "a map parameter without exactly its key and value types (`MapInserter<'_, u64, u32>`, `UnorderedMap<u64, u32>`), or a set's without its key type (`SetInserter<'_, u64>`)",
            ))
        }
    };
    let key = match elem_of(k, generics)? {
        Elem::Scalar(s) if KEYS.contains(&s) => Elem::Scalar(s),
        _ => {
            return Err(unsupported(
                k,
                "this map key type (u32, u64, i32, i64 or usize)",
            ))
        }
    };
    let value = match v.map(|v| (v, elem_of(v, generics))) {
        None => None,
        Some((_, Ok(Elem::Scalar(s)))) => Some(Elem::Scalar(s)),
        Some((v, _)) => {
            return Err(unsupported(
                v,
                "this map value type (a primitive number or bool)",
            ))
        }
    };
    Ok(Some(Ty::Map { key, value, insert }))
}

/// The C++ type arguments of a map parameter: `K, V`, or `K` for a set.
pub fn cpp_args(key: &Elem, value: Option<&Elem>) -> String {
    match (key, value) {
        (Elem::Scalar(k), Some(Elem::Scalar(v))) => format!("{}, {}", k.cpp(), v.cpp()),
        (Elem::Scalar(k), None) => k.cpp().to_string(),
        _ => unreachable!("map_of admits scalar keys and values only"),
    }
}

/// The C++ declaration of a map parameter.
pub fn decl(insert: bool, set: bool, args: &str, name: &str) -> String {
    let ty = match (insert, set) {
        (true, false) => "MapInserter",
        (false, false) => "UnorderedMap",
        (true, true) => "SetInserter",
        (false, true) => "UnorderedSet",
    };
    format!("granule::{ty}<{args}> {name}")
}

impl Cx {
    /// A method of a map parameter.
    pub fn map_method(
        &mut self,
        m: &ExprMethodCall,
        recv: &str,
        key: &Elem,
        value: Option<&Elem>,
        insert: bool,
    ) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        let usize_ = Ty::scalar(Scalar::Usize);
        let bool_ = Ty::scalar(Scalar::Bool);
        let n = m.args.len();
        let arity = |want: usize| -> Result<()> {
            if n == want {
                Ok(())
            } else {
                Err(error_at(
                    m.method.span(),
                    format!("`{name}` takes {want} argument(s)"),
                ))
            }
        };
        match (name.as_str(), insert) {
            ("capacity", _) => {
                arity(0)?;
                Ok((format!("{recv}.capacity()"), usize_))
            }
            ("find" | "exists", _) => {
                arity(1)?;
                let k = self.value_as(&m.args[0], key)?;
                let ty = if name == "find" { usize_ } else { bool_ };
                Ok((format!("{recv}.{name}({k})"), ty))
            }
            ("insert", true) if value.is_none() => {
                arity(1)?;
                let k = self.value_as(&m.args[0], key)?;
                Ok((format!("{recv}.insert({k})"), Ty::InsertResult))
            }
            ("insert" | "insert_add", true) if value.is_some() => {
                arity(2)?;
                let value = value.expect("a map's value type");
                if name == "insert_add" && !atomic_value(value) {
                    return Err(unsupported(
                        &m.method,
                        "`insert_add` on values without device atomics (8- and 16-bit integers, bool)",
                    ));
                }
                let k = self.value_as(&m.args[0], key)?;
                let v = self.value_as(&m.args[1], value)?;
                Ok((format!("{recv}.{name}({k}, {v})"), Ty::InsertResult))
            }
            ("size", false) => {
                arity(0)?;
                Ok((format!("{recv}.size()"), usize_))
            }
            ("failed_insert", false) => {
                arity(0)?;
                Ok((format!("{recv}.failed_insert()"), bool_))
            }
            ("valid_at" | "key_at", false) | ("value_at", false) if name != "value_at" || value.is_some() => {
                arity(1)?;
                let i = self.value_as(&m.args[0], &Elem::Scalar(Scalar::Usize))?;
                let ty = match name.as_str() {
                    "valid_at" => bool_,
                    "key_at" => Ty::Elem(key.clone()),
                    _ => Ty::Elem(value.expect("checked above").clone()),
                };
                Ok((format!("{recv}.{name}({i})"), ty))
            }
            (_, true) => Err(unsupported(
                &m.method,
                &format!("the inserter method `{name}` (insert, insert_add, find, exists, capacity; values are read through the map once the inserts are done)"),
            )),
            (_, false) => Err(unsupported(
                &m.method,
                &format!("the map method `{name}` (find, exists, capacity, size, failed_insert, valid_at, key_at, value_at; inserts go through a MapInserter)"),
            )),
        }
    }

    /// A method of an `InsertResult`.
    pub fn insert_result_method(&mut self, m: &ExprMethodCall, recv: &str) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        if !m.args.is_empty() {
            return Err(error_at(
                m.method.span(),
                format!("`{name}` takes no arguments"),
            ));
        }
        let ty = match name.as_str() {
            "success" | "existing" | "failed" => Ty::scalar(Scalar::Bool),
            "index" => Ty::scalar(Scalar::Usize),
            _ => {
                return Err(unsupported(
                    &m.method,
                    &format!(
                        "the insert result method `{name}` (success, existing, failed, index)"
                    ),
                ))
            }
        };
        Ok((format!("{recv}.{name}()"), ty))
    }
}

/// Whether the device has atomic addition for map values of this type.
fn atomic_value(value: &Elem) -> bool {
    matches!(value, Elem::Scalar(s) if !s.is_narrow() && *s != Scalar::Bool)
}

#[cfg(test)]
mod tests {
    fn error_of(src: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(src).expect("valid Rust");
        match super::super::translate_kernel(&f, super::super::Pattern::For) {
            Ok(t) => panic!("translated, but should not have:\n{}", t.source),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn an_inserter_cannot_read_values_and_a_read_map_cannot_insert() {
        let e = error_of(
            "fn k(i: usize, y: &mut u32, m: &MapInserter<'_, u64, u32>) { *y = m.value_at(i); }",
        );
        assert!(e.contains("inserter method `value_at`"), "{e}");
        let e = error_of("fn k(i: usize, m: &UnorderedMap<u64, u32>) { m.insert(i as u64, 1); }");
        assert!(e.contains("map method `insert`"), "{e}");
    }

    #[test]
    fn maps_are_used_through_their_methods_only() {
        let e = error_of("fn k(i: usize, m: &MapInserter<'_, u64, u32>) { let n = m; }");
        assert!(e.contains("cannot be bound"), "{e}");
    }

    #[test]
    fn keys_are_integers_and_added_values_have_device_atomics() {
        let e = error_of("fn k(i: usize, m: &UnorderedMap<f64, u32>) { }");
        assert!(e.contains("map key type"), "{e}");
        let e = error_of("fn k(i: usize, m: &MapInserter<'_, u32, u8>) { m.insert_add(1, 1); }");
        assert!(e.contains("insert_add"), "{e}");
        let e = error_of("fn k(i: usize, m: &MapInserter<'_, u32>) { }");
        assert!(e.contains("key and value types"), "{e}");
    }
}
