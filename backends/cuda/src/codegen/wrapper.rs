//! The `extern "C"` entry point of one instance.

use super::workspace::{reduce_tail, scan_tail, CUDA_SCAN_TILE_THREADS};
use super::{CodegenError, Instance, Pattern};
use crate::kernel::{KernelPattern, Param, ParamKind, DEVICE_SCALARS};

/// The policy a kernel runs under, from its first parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Range,
    Md(u8),
    Team,
}

/// `granule_<pattern>_<kernel>` plus `__<type>` per template argument, the
/// type's `granule::` prefix dropped. Reductions and scans name their
/// reducer; MDRange and team kernels their policy.
///
/// ```
/// use granule_cuda::codegen::{entry_name, Pattern, Reducer};
/// assert_eq!(entry_name("dot", Pattern::Reduce(Reducer::Sum), &["granule::f32"]), "granule_reduce_sum_dot__f32");
/// assert_eq!(entry_name("prefix", Pattern::Scan(Reducer::Prod), &[]), "granule_scan_prod_prefix");
/// let pair = Pattern::Reduce(Reducer::Tuple(&[Reducer::Sum, Reducer::Max]));
/// assert_eq!(entry_name("stats", pair, &[]), "granule_reduce_tuple_sum_max_stats");
/// ```
pub fn entry_name(kernel: &str, pattern: Pattern, types: &[&str]) -> String {
    let mut name = match pattern {
        Pattern::For => format!("granule_for_{kernel}"),
        Pattern::Reduce(r) => format!("granule_reduce_{}_{kernel}", r.entry_part()),
        Pattern::Scan(r) => format!("granule_scan_{}_{kernel}", r.entry_part()),
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

/// The name of `entry`'s parameter table, a `__device__` variable the
/// unit defines next to the entry: `granule::ParamTable` (error.cuh),
/// the parameter count then `sizeof` of each parameter, as the compiler
/// sees the entry's own type. Devices read it when they load a module and
/// refuse a launch whose arguments do not match it. The `granule_params_`
/// prefix cannot start an entry name (those are `granule_<pattern>_..`).
///
/// ```
/// assert_eq!(granule_cuda::codegen::params_symbol("granule_for_axpy"), "granule_params_granule_for_axpy");
/// ```
pub fn params_symbol(entry: &str) -> String {
    format!("granule_params_{entry}")
}

/// What the instance binds: the entry's leading parameters, the lambda's
/// parameters, and the driver call around `{call}`.
struct Driver {
    head: Vec<String>,
    tail: Vec<String>,
    body: String,
    /// `__launch_bounds__(..) `, or nothing.
    bounds: String,
}

/// The leading parameters of a team entry: the league size and the
/// scratch the policy reserved, as `granule::TeamScratch` (team.cuh):
/// bytes per team and per team thread at levels 0 and 1 and the level-1
/// global memory. The launch also sizes dynamic shared memory as
/// `reserved_smem(threads) + scratch_block_bytes(scratch, 0, team_size)`
/// and gives `level1` `gridDim.x * scratch_block_bytes(scratch, 1,
/// team_size)` bytes; the driver zeroes both per team.
const TEAM_HEAD: &str = "granule::u64 league__, granule::TeamScratch scratch__";

/// The tail parameters of reductions and scans are the buffers the launch
/// provides besides the kernel's arguments. Their text comes from
/// `workspace.rs`, next to the sizes: the tail order is the order of
/// `ReduceWorkspace::buffers` and `ScanWorkspace::buffers`.
fn driver(inst: &Instance, shape: Shape, acc: Option<&str>) -> Result<Driver, String> {
    let md = |r: u8| format!("granule::MdRange<{r}> range__");
    Ok(match (inst.pattern, shape, acc) {
        (Pattern::For, Shape::Range, _) => Driver {
            head: vec!["granule::u64 begin, granule::u64 end".into()],
            tail: vec![],
            body: "granule::drive_for(begin, end, [&](granule::u64 i__) { {call}; });".into(),
            bounds: String::new(),
        },
        (Pattern::For, Shape::Md(r), _) => Driver {
            head: vec![md(r)],
            tail: vec![],
            body: "granule::drive_md_for(range__, [&](const granule::u64* i__) { {call}; });".into(),
            bounds: String::new(),
        },
        (Pattern::Team | Pattern::For, Shape::Team, _) => Driver {
            head: vec![TEAM_HEAD.into()],
            tail: vec![],
            body: "granule::drive_team(league__, scratch__, [&](const granule::TeamMember& team__) { {call}; });".into(),
            bounds: String::new(),
        },
        (Pattern::Reduce(r), shape, Some(t)) => {
            let op = r.op(t)?;
            let (head, body) = match shape {
                Shape::Range => ("granule::u64 begin, granule::u64 end".to_string(), format!(
                    "granule::drive_reduce<{op}>(begin, end, partials__, counter__, result__, [&](granule::u64 i__, {t}& acc__) {{ {{call}}; }});")),
                Shape::Md(r) => (md(r), format!(
                    "granule::drive_md_reduce<{op}>(range__, partials__, counter__, result__, [&](const granule::u64* i__, {t}& acc__) {{ {{call}}; }});")),
                Shape::Team => (TEAM_HEAD.to_string(), format!(
                    "granule::drive_team_reduce<{op}>(league__, scratch__, partials__, counter__, result__, [&](const granule::TeamMember& team__, {t}& acc__) {{ {{call}}; }});")),
            };
            Driver { head: vec![head], tail: vec![reduce_tail(t)], body, bounds: String::new() }
        }
        (Pattern::Scan(r), Shape::Range, Some(t)) => Driver {
            head: vec!["granule::u64 begin, granule::u64 end".into()],
            tail: vec![scan_tail(t)],
            body: format!(
                "granule::drive_scan<{}>(begin, end, status__, values__, tiles__, result__, \
                 [&](granule::u64 i__, {t}& acc__, bool final__) {{ {{call}}; }});",
                r.op(t)?
            ),
            // The launch's block is CUDA_SCAN_TILE_THREADS (dispatch/range.rs).
            bounds: format!(
                "__launch_bounds__({CUDA_SCAN_TILE_THREADS}, granule::scan_min_blocks(sizeof({t}))) "
            ),
        },
        (p, _, _) => return Err(format!("its parameters do not fit the {p:?} pattern")),
    })
}

/// A device scalar's spelling, or `granule::Tuple<..>` of them.
fn is_device_type(t: &str) -> bool {
    let tuple = t
        .strip_prefix("granule::Tuple<")
        .and_then(|r| r.strip_suffix('>'));
    match tuple {
        Some(fields) => fields
            .split(',')
            .all(|f| DEVICE_SCALARS.contains(&f.trim())),
        None => DEVICE_SCALARS.contains(&t),
    }
}

/// `(entry name, C++ text)`.
pub(super) fn entry_point(inst: &Instance) -> Result<(String, String), CodegenError> {
    let k = inst.kernel;
    let err = |message: String| CodegenError {
        kernel: k.name,
        message,
    };
    if k.pattern == KernelPattern::Element {
        return Err(err(
            "it is an element function: an algorithm's driver calls it (see `codegen::driver`), \
             no pattern wraps it"
                .into(),
        ));
    }
    if inst.types.len() != k.generics.len() {
        return Err(err(format!(
            "{} template arguments given, {} expected",
            inst.types.len(),
            k.generics.len()
        )));
    }
    // Template arguments are pasted into the entry point: only the
    // device header's scalar types (and its tuples of them) may stand there.
    if let Some(bad) = inst.types.iter().find(|t| !is_device_type(t)) {
        return Err(err(format!(
            "template argument `{bad}` is not a device scalar type (one of {}) or a \
             `granule::Tuple` of them",
            DEVICE_SCALARS.join(", ")
        )));
    }
    let subst = |cpp: &str| -> String {
        k.generics
            .iter()
            .position(|g| *g == cpp)
            .map_or(cpp.to_string(), |p| inst.types[p].to_string())
    };
    let shape = match k.params.first().map(|p| p.kind) {
        Some(ParamKind::Index) => Shape::Range,
        Some(ParamKind::MdIndex { rank }) => Shape::Md(rank),
        Some(ParamKind::Team) => Shape::Team,
        _ => {
            return Err(err(
                "its first parameter is not a work index or team member".into(),
            ))
        }
    };
    let outs: Vec<&Param> = k
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Out)
        .collect();
    // The accumulator (reduce) or partial (scan): the last `&mut`.
    let acc = match inst.pattern {
        Pattern::Reduce(_) if outs.len() != 1 => {
            return Err(err(format!(
                "a reduction kernel has exactly one `&mut` accumulator, found {}",
                outs.len()
            )))
        }
        Pattern::Reduce(_) | Pattern::Scan(_) => outs.last().map(|p| subst(p.cpp)),
        _ => None,
    };
    if matches!(inst.pattern, Pattern::For | Pattern::Team)
        && shape == Shape::Team
        && !outs.is_empty()
    {
        return Err(err(
            "team kernels write through TeamChunk outputs, atomic Views or scratch, not `&mut`"
                .into(),
        ));
    }
    let drv = driver(inst, shape, acc.as_deref()).map_err(err)?;
    let (decl, args) = bind_params(inst, shape, &outs, &subst);
    let decl: Vec<String> = drv.head.into_iter().chain(decl).chain(drv.tail).collect();
    let targs = if inst.types.is_empty() {
        String::new()
    } else {
        format!("<{}>", inst.types.join(", "))
    };
    let call = format!("{}{targs}({})", k.name, args.join(", "));
    let name = inst.entry();
    let body = drv.body.replace("{call}", &call);
    let text = format!(
        "extern \"C\" __global__ void {}{name}({}) {{\n  GRANULE_ENTRY_CHECK();\n  {body}\n}}\n\
         extern \"C\" {{ __device__ granule::ParamTable<decltype({name})> {}; }}\n",
        drv.bounds,
        decl.join(", "),
        params_symbol(&name)
    );
    Ok((name, text))
}

/// The entry's own parameters and the kernel call's arguments.
fn bind_params(
    inst: &Instance,
    shape: Shape,
    outs: &[&Param],
    subst: &dyn Fn(&str) -> String,
) -> (Vec<String>, Vec<String>) {
    let (rank, elem_at) = match shape {
        Shape::Md(r) => (
            r,
            (0..r)
                .map(|d| format!("i__[{d}]"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => (1, "i__".to_string()),
    };
    // The last `&mut` of a reduce or scan is bound by the driver.
    let driver_out = match inst.pattern {
        Pattern::Reduce(_) | Pattern::Scan(_) => outs.last().map(|p| p.name),
        _ => None,
    };
    let mut decl = Vec::new();
    let mut args = Vec::new();
    for p in inst.kernel.params {
        let t = subst(p.cpp);
        match p.kind {
            ParamKind::Index | ParamKind::MdIndex { .. } => args.push(elem_at.clone()),
            ParamKind::Team => args.push("team__".to_string()),
            ParamKind::Final => args.push("final__".to_string()),
            ParamKind::Element => unreachable!("entry_point refuses element functions"),
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
            ParamKind::Map { insert, set } => {
                let access = match (insert, set) {
                    (true, false) => "MapInserter",
                    (false, false) => "UnorderedMap",
                    (true, true) => "SetInserter",
                    (false, true) => "UnorderedSet",
                };
                decl.push(format!("granule::{access}<{t}> {}", p.name));
                args.push(p.name.to_string());
            }
            ParamKind::Chunk { map } => {
                decl.push(format!("granule::Chunked<{t}, {}> {}", map.cpp(), p.name));
                args.push(format!("granule::team_part({}, team__)", p.name));
            }
            ParamKind::Row { rank } => {
                decl.push(format!(
                    "granule::View<{t}, {rank}, granule::LayoutStride> {}",
                    p.name
                ));
                args.push(format!("granule::row_of({}, {elem_at})", p.name));
            }
            ParamKind::Segment => {
                decl.push(format!(
                    "granule::View<{t}, 1, granule::LayoutStride> {}",
                    p.name
                ));
                decl.push(format!(
                    "granule::View<const granule::usize, 1, granule::LayoutStride> {}__offsets",
                    p.name
                ));
                args.push(format!(
                    "granule::segment_of({0}, {0}__offsets, {elem_at})",
                    p.name
                ));
            }
            ParamKind::Out if Some(p.name) == driver_out => args.push("acc__".to_string()),
            ParamKind::Out => {
                decl.push(format!(
                    "granule::View<{t}, {rank}, granule::LayoutStride> {}",
                    p.name
                ));
                args.push(format!("{}({elem_at})", p.name));
            }
        }
    }
    (decl, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{DeviceKernel, KernelPattern};

    // SAFETY: the source defines the generic `k` its parameters describe
    // and writes only its output.
    static K: DeviceKernel = unsafe {
        DeviceKernel::new(
            "k",
            KernelPattern::For,
            &["T"],
            &[
                Param {
                    name: "i",
                    kind: ParamKind::Index,
                    cpp: "granule::usize",
                },
                Param {
                    name: "y",
                    kind: ParamKind::Out,
                    cpp: "T",
                },
            ],
            "template <class T> __device__ void k(granule::usize i, T& y) { y = (T)i; }\n",
            &[],
        )
    };

    #[test]
    fn template_arguments_are_device_scalars_only() {
        let ok = Instance::new(&K, Pattern::For, &["granule::u16"]);
        assert!(entry_point(&ok).is_ok());
        let pair = Instance::new(&K, Pattern::For, &["granule::Tuple<granule::f32, bool>"]);
        assert!(entry_point(&pair).is_ok());
        let nested = Instance::new(&K, Pattern::For, &["granule::Tuple<granule::f32, X>"]);
        assert!(entry_point(&nested).is_err());
        let forged = Instance::new(
            &K,
            Pattern::For,
            &["int>(granule::usize, int&); } void evil() { /* */ } template <class X"],
        );
        let e = entry_point(&forged).unwrap_err();
        assert!(e.message.contains("is not a device scalar type"), "{e}");
    }

    #[test]
    fn scan_entries_alone_carry_launch_bounds_naming_their_block() {
        let scan = Instance::new(
            &K,
            Pattern::Scan(super::super::Reducer::Sum),
            &["granule::i32"],
        );
        let (_, text) = entry_point(&scan).unwrap();
        let bounds = format!(
            "__global__ void __launch_bounds__({CUDA_SCAN_TILE_THREADS}, granule::scan_min_blocks(sizeof(granule::i32))) granule_scan"
        );
        assert!(text.contains(&bounds), "{text}");
        let each = Instance::new(&K, Pattern::For, &["granule::i32"]);
        assert!(!entry_point(&each).unwrap().1.contains("__launch_bounds__"));
    }
}
