//! ScatterView in kernels (granule-containers): a `&ScatterView<T, R, Op>`
//! parameter, its `access()` handle and the handle's contributions.
//!
//! On the device a ScatterView is an atomic View of its shared copy
//! (`ParamKind::Atomic`; the glue passes it through `DeviceScatter`, and
//! `canon.rs` checks the spelled type with `scatter_shape`). `access()`
//! wraps it in the header's `ScatterAccess<Op, T, R>` (`scatter.cuh`),
//! whose only write is the operation, applied atomically: the device form
//! of Kokkos's atomic ScatterView, which is what Cuda uses by default.

use super::cx::Cx;
use super::errors::{unsupported, Result};
use super::types::{Elem, Scalar, Ty};
use syn::{Expr, ExprMethodCall};

/// The operation a ScatterView combines with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterOp {
    Sum,
    Prod,
    Min,
    Max,
}

impl ScatterOp {
    /// The operation named by a ScatterView's third type argument
    /// (granule's reducer names; `Sum` when there is none).
    pub fn of(arg: Option<&syn::GenericArgument>) -> Option<ScatterOp> {
        let Some(arg) = arg else {
            return Some(ScatterOp::Sum);
        };
        let syn::GenericArgument::Type(syn::Type::Path(p)) = arg else {
            return None;
        };
        let seg = p.path.segments.last()?;
        if !seg.arguments.is_empty() {
            return None;
        }
        match seg.ident.to_string().as_str() {
            "Sum" => Some(ScatterOp::Sum),
            "Prod" => Some(ScatterOp::Prod),
            "Min" => Some(ScatterOp::Min),
            "Max" => Some(ScatterOp::Max),
            _ => None,
        }
    }

    /// The name of granule's reducer, as `#rt::<name>` spells it.
    pub fn rust_name(self) -> &'static str {
        match self {
            ScatterOp::Sum => "Sum",
            ScatterOp::Prod => "Prod",
            ScatterOp::Min => "Min",
            ScatterOp::Max => "Max",
        }
    }

    /// The operation's type in `scatter.cuh`.
    fn cpp(self) -> &'static str {
        match self {
            ScatterOp::Sum => "granule::ScatterSum",
            ScatterOp::Prod => "granule::ScatterProd",
            ScatterOp::Min => "granule::ScatterMin",
            ScatterOp::Max => "granule::ScatterMax",
        }
    }
}

/// Element types a ScatterView takes (granule-containers' `ScatterValue`:
/// the device has atomics of 32 and 64 bits).
pub fn scatter_elem_ok(elem: &Elem) -> bool {
    use Scalar::*;
    matches!(
        elem,
        Elem::Scalar(I32 | I64 | U32 | U64 | Isize | Usize | F32 | F64)
    )
}

impl Cx {
    /// A method of a ScatterView (`access`) or of its handle (`update`,
    /// `add` for Sum, `mul` for Prod).
    pub fn scatter_method(
        &mut self,
        m: &ExprMethodCall,
        recv: &str,
        ty: Ty,
    ) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        match (ty, name.as_str()) {
            (Ty::Scatter { elem, rank, op }, "access") => {
                if !m.args.is_empty() {
                    return Err(unsupported(m, "arguments to `access`"));
                }
                Ok((
                    format!("granule::scatter_access<{}>({recv})", op.cpp()),
                    Ty::ScatterAccess { elem, rank, op },
                ))
            }
            (Ty::ScatterAccess { elem, rank, op }, "update" | "add" | "mul") => {
                let allowed = match name.as_str() {
                    "add" => op == ScatterOp::Sum,
                    "mul" => op == ScatterOp::Prod,
                    _ => true,
                };
                if !allowed {
                    return Err(unsupported(
                        &m.method,
                        &format!(
                            "`{name}` on a ScatterView of `{}` (use `update`, which applies the view's operation)",
                            op.rust_name()
                        ),
                    ));
                }
                let args: Vec<&Expr> = m.args.iter().collect();
                let [i, v] = args.as_slice() else {
                    return Err(unsupported(
                        m,
                        &format!("`{name}` without two arguments (index, value)"),
                    ));
                };
                let at = self.usize_list(
                    i,
                    rank,
                    &format!("this ScatterView has rank {rank}: give {rank} indices"),
                )?;
                let v = self.value_as(v, &elem)?;
                Ok((format!("{recv}.at({at}).update({v})"), Ty::Unit))
            }
            (Ty::Scatter { .. }, _) => Err(unsupported(
                &m.method,
                &format!("the method `{name}` of a ScatterView in a kernel (use `access()`)"),
            )),
            _ => Err(unsupported(
                &m.method,
                &format!(
                    "the method `{name}` of a ScatterView handle (use `update`, `add` or `mul`)"
                ),
            )),
        }
    }
}
