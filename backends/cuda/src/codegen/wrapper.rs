//! The `extern "C"` entry point of one instance.

use super::{CodegenError, Instance, Pattern};
use crate::kernel::{Param, ParamKind};

/// `granule_<pattern>_<kernel>` plus `__<type>` per template argument, the
/// type's `granule::` prefix dropped.
///
/// ```
/// use granule_cuda::codegen::{entry_name, Pattern, Reducer};
/// assert_eq!(entry_name("dot", Pattern::Reduce(Reducer::Sum), &["granule::f32"]), "granule_reduce_sum_dot__f32");
/// ```
pub fn entry_name(kernel: &str, pattern: Pattern, types: &[&str]) -> String {
    let mut name = match pattern {
        Pattern::For => format!("granule_for_{kernel}"),
        Pattern::Reduce(r) => format!("granule_reduce_{}_{kernel}", r.cpp().to_lowercase()),
        Pattern::Team => format!("granule_team_{kernel}"),
    };
    for t in types {
        name.push_str("__");
        name.push_str(
            &t.trim_start_matches("granule::")
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        );
    }
    name
}

/// `(entry name, C++ text)`.
pub(super) fn entry_point(inst: &Instance) -> Result<(String, String), CodegenError> {
    let k = inst.kernel;
    let err = |message: String| CodegenError {
        kernel: k.name,
        message,
    };
    if inst.types.len() != k.generics.len() {
        return Err(err(format!(
            "{} template arguments given, {} expected",
            inst.types.len(),
            k.generics.len()
        )));
    }
    let subst = |cpp: &str| -> String {
        k.generics
            .iter()
            .position(|g| *g == cpp)
            .map_or(cpp.to_string(), |p| inst.types[p].to_string())
    };
    let first = k.params.first().map(|p| p.kind);
    let outs: Vec<&Param> = k
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Out)
        .collect();
    let (head, lambda_param) = match (inst.pattern, first) {
        (Pattern::For, Some(ParamKind::Index)) => ("granule::u64 begin, granule::u64 end".to_string(), "granule::u64 i__"),
        (Pattern::Reduce(_), Some(ParamKind::Index)) => {
            let [acc] = outs.as_slice() else {
                return Err(err(format!("a reduction kernel has exactly one `&mut` accumulator, found {}", outs.len())));
            };
            let t = subst(acc.cpp);
            (format!("granule::u64 begin, granule::u64 end, {t}* partials__, granule::u32* counter__, {t}* result__"), "")
        }
        (Pattern::Team, Some(ParamKind::Team)) if outs.is_empty() => {
            ("granule::u64 league__, granule::u64 scratch__".to_string(), "const granule::TeamMember& team__")
        }
        (Pattern::Team, Some(ParamKind::Team)) => return Err(err("team kernels write through atomic Views or scratch; `&mut` outputs need chunk maps, not yet on the device".into())),
        (p, _) => return Err(err(format!("its first parameter does not fit the {p:?} pattern"))),
    };
    let mut decl = vec![head];
    let mut args = Vec::new();
    for p in k.params {
        let t = subst(p.cpp);
        match p.kind {
            ParamKind::Index => args.push("i__".to_string()),
            ParamKind::Team => args.push("team__".to_string()),
            ParamKind::Scalar => {
                decl.push(format!("{t} {}", p.name));
                args.push(p.name.to_string());
            }
            ParamKind::View { rank, layout } => {
                decl.push(format!(
                    "granule::View<const {t}, {rank}, {}> {}",
                    layout.cpp(),
                    p.name
                ));
                args.push(p.name.to_string());
            }
            ParamKind::Atomic { rank } => {
                decl.push(format!("granule::AtomicView<{t}, {rank}> {}", p.name));
                args.push(p.name.to_string());
            }
            ParamKind::Out if matches!(inst.pattern, Pattern::Reduce(_)) => {
                args.push("acc__".to_string())
            }
            ParamKind::Out => {
                decl.push(format!(
                    "granule::View<{t}, 1, granule::LayoutStride> {}",
                    p.name
                ));
                args.push(format!("{}(i__)", p.name));
            }
        }
    }
    let targs = if inst.types.is_empty() {
        String::new()
    } else {
        format!("<{}>", inst.types.join(", "))
    };
    let call = format!("{}{targs}({})", k.name, args.join(", "));
    let name = inst.entry();
    let body = match inst.pattern {
        Pattern::For => {
            format!("  granule::drive_for(begin, end, [&]({lambda_param}) {{ {call}; }});")
        }
        Pattern::Team => format!(
            "  granule::drive_team(league__, scratch__, [&]({lambda_param}) {{ {call}; }});"
        ),
        Pattern::Reduce(r) => {
            let t = subst(outs[0].cpp);
            format!(
                "  granule::drive_reduce<granule::{}<{t}>>(begin, end, partials__, counter__, result__, \
                 [&](granule::u64 i__, {t}& acc__) {{ {call}; }});",
                r.cpp()
            )
        }
    };
    let text = format!(
        "extern \"C\" __global__ void {name}({}) {{\n{body}\n}}\n",
        decl.join(", ")
    );
    Ok((name, text))
}
