//! Assembling a translation unit: the device header, the `#[device]`
//! helpers, the kernels' `__device__` functions, and one `extern "C"`
//! `__global__` entry point per instantiation that hands the kernel to a
//! framework driver.
//!
//! Entry points are plain C names, `granule_<pattern>_<kernel>[__<types>]`,
//! so no NVRTC name expressions are needed to find template instances.

mod workspace;
mod wrapper;

use crate::device::HEADER;
use crate::kernel::{DeviceFn, DeviceKernel, KernelPattern};
use std::fmt;

pub use workspace::{reduce_workspace, scan_items, scan_workspace, ReduceWorkspace, ScanWorkspace};
pub use wrapper::entry_name;

/// A built-in reducer of `parallel_reduce`, as named in the device header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reducer {
    /// Sum, identity 0.
    Sum,
    /// Product, identity 1.
    Prod,
    /// Minimum, identity the type's maximum (+inf for floats).
    Min,
    /// Maximum, identity the type's minimum (-inf for floats).
    Max,
    /// Logical and.
    LAnd,
    /// Logical or.
    LOr,
    /// Bitwise and.
    BAnd,
    /// Bitwise or.
    BOr,
    /// Smallest value and its location (`ValLocScalar`).
    MinLoc,
    /// Largest value and its location (`ValLocScalar`).
    MaxLoc,
    /// Both, with locations (`MinMaxLocScalar`).
    MinMaxLoc,
    /// Smallest and largest value (`MinMaxScalar`).
    MinMax,
    /// A tuple of reducers over a tuple accumulator
    /// (`granule::Tuple<T0, T1, ..>`): reducer k reduces field k, as the
    /// host's tuples of reducers do. Its reducers are scalar ones.
    Tuple(&'static [Reducer]),
    /// A custom reducer, `#[device] impl Reducer<T> for R`
    /// ([`crate::kernel::DeviceReducer::DEVICE`]): its C++ struct is
    /// emitted with the translation unit's helpers.
    Custom(&'static DeviceFn),
}

impl Reducer {
    /// The reducers that apply to C++ type `t`: logical ones for `bool`,
    /// arithmetic and min/max for floats, all for integers (and for a
    /// template parameter, which is instantiated with a scalar).
    ///
    /// ```
    /// use granule_cuda::codegen::Reducer;
    /// assert_eq!(Reducer::for_type("granule::f32").len(), 4);
    /// assert_eq!(
    ///     Reducer::for_type("granule::ValLocScalar<granule::f64, granule::usize>"),
    ///     [Reducer::MinLoc, Reducer::MaxLoc]
    /// );
    /// ```
    pub fn for_type(t: &str) -> Vec<Reducer> {
        use Reducer::*;
        match t {
            _ if t.starts_with("granule::ValLocScalar<") => vec![MinLoc, MaxLoc],
            _ if t.starts_with("granule::MinMaxLocScalar<") => vec![MinMaxLoc],
            _ if t.starts_with("granule::MinMaxScalar<") => vec![MinMax],
            "bool" => vec![LAnd, LOr],
            "granule::f32" | "granule::f64" => vec![Sum, Prod, Min, Max],
            _ if tuple_fields(t).is_some() => vec![],
            _ => vec![Sum, Prod, Min, Max, LAnd, LOr, BAnd, BOr],
        }
    }

    /// Choices of reducers for a tuple accumulator's C++ type `t`
    /// (`granule::Tuple<..>`), one per field, such that every reducer that
    /// applies to a field (by [`Reducer::for_type`]) appears in some choice
    /// (choice k gives field i its reducer k modulo their count); empty when
    /// `t` is not a tuple. ([`Reducer::for_type`] gives no reducer for a
    /// tuple: a [`Reducer::Tuple`] borrows its reducers for `'static`.)
    ///
    /// ```
    /// use granule_cuda::codegen::Reducer;
    /// let c = Reducer::for_tuple("granule::Tuple<granule::f64, bool>");
    /// assert_eq!(c.len(), 4);
    /// assert_eq!(c[1], [Reducer::Prod, Reducer::LOr]);
    /// ```
    pub fn for_tuple(t: &str) -> Vec<Vec<Reducer>> {
        let Some(fields) = tuple_fields(t) else {
            return Vec::new();
        };
        let each: Vec<Vec<Reducer>> = fields.iter().map(|f| Reducer::for_type(f)).collect();
        let n = each.iter().map(Vec::len).max().unwrap_or(0);
        (0..n)
            .map(|k| each.iter().map(|rs| rs[k % rs.len()]).collect())
            .collect()
    }

    /// The name in entry points: the C++ name in lower case; a tuple's is
    /// `tuple_` and its reducers' names joined by `_`.
    fn entry_part(self) -> String {
        match self {
            Reducer::Custom(f) => format!("custom_{}", f.name),
            Reducer::Tuple(rs) => {
                let names: Vec<String> = rs.iter().map(|r| r.entry_part()).collect();
                format!("tuple_{}", names.join("_"))
            }
            r => r.cpp().to_lowercase(),
        }
    }

    /// The device reducer over accumulator C++ type `t`:
    /// `granule::Sum<t>`, or for a tuple `granule::Reducers<granule::Sum<T0>, ..>`.
    fn op(self, t: &str) -> Result<String, String> {
        let rs = match self {
            Reducer::Tuple(rs) => rs,
            // The C++ compiler checks that its value type is `t`.
            Reducer::Custom(f) => return Ok(f.name.to_string()),
            _ => return Ok(format!("granule::{}<{t}>", self.cpp())),
        };
        let fields = tuple_fields(t)
            .ok_or_else(|| format!("a tuple of reducers needs a tuple accumulator, not `{t}`"))?;
        if fields.len() != rs.len() {
            return Err(format!(
                "{} reducers for a tuple of {} fields",
                rs.len(),
                fields.len()
            ));
        }
        let ops = rs
            .iter()
            .zip(&fields)
            .map(|(r, f)| match r {
                Reducer::Tuple(_) => Err("a tuple of reducers does not nest tuples".to_string()),
                Reducer::Custom(_) => Err(
                    "a tuple of reducers holds built-in reducers (a custom one reduces a struct)"
                        .to_string(),
                ),
                r => r.op(f),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(format!("granule::Reducers<{}>", ops.join(", ")))
    }

    fn cpp(self) -> &'static str {
        match self {
            Reducer::Tuple(_) => "Reducers",
            Reducer::Custom(f) => f.name,
            Reducer::Sum => "Sum",
            Reducer::Prod => "Prod",
            Reducer::Min => "Min",
            Reducer::Max => "Max",
            Reducer::LAnd => "LAnd",
            Reducer::LOr => "LOr",
            Reducer::BAnd => "BAnd",
            Reducer::BOr => "BOr",
            Reducer::MinLoc => "MinLoc",
            Reducer::MaxLoc => "MaxLoc",
            Reducer::MinMaxLoc => "MinMaxLoc",
            Reducer::MinMax => "MinMax",
        }
    }
}

/// The field types of a tuple accumulator's C++ type
/// (`granule::Tuple<T0, T1, ..>`, fields scalars), or `None`.
fn tuple_fields(t: &str) -> Option<Vec<&str>> {
    let inner = t.strip_prefix("granule::Tuple<")?.strip_suffix('>')?;
    Some(inner.split(',').map(str::trim).collect())
}

/// Which driver runs the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `parallel_for` over a range: outputs are element `i` of their View.
    For,
    /// `parallel_reduce` over a range with a built-in reducer: the kernel's
    /// single output is the accumulator.
    Reduce(Reducer),
    /// `parallel_for` over a team policy: a team is a block (`For` on a
    /// team kernel means the same).
    Team,
    /// `parallel_scan` over a range combined by a built-in reducer: the
    /// kernel's last `&mut` is the partial, followed by the final flag.
    Scan(Reducer),
}

impl Pattern {
    /// The patterns a `#[kernel]` written for `pattern` can be wrapped in
    /// with accumulator C++ type `acc` (the type of its last `&mut`): every
    /// reducer that applies to the type (reducers are the call's choice).
    ///
    /// ```
    /// use granule_cuda::codegen::{Pattern, Reducer};
    /// use granule_cuda::kernel::KernelPattern;
    /// assert_eq!(Pattern::all_for(KernelPattern::Reduce, "bool"), [Pattern::Reduce(Reducer::LAnd), Pattern::Reduce(Reducer::LOr)]);
    /// ```
    pub fn all_for(pattern: KernelPattern, acc: &str) -> Vec<Pattern> {
        let reducers = Reducer::for_type(acc);
        match pattern {
            KernelPattern::For => vec![Pattern::For],
            KernelPattern::Reduce => reducers.into_iter().map(Pattern::Reduce).collect(),
            KernelPattern::Scan => reducers.into_iter().map(Pattern::Scan).collect(),
        }
    }
}

impl Pattern {
    /// The custom reducer's definition, if the pattern uses one.
    fn custom_reducer(self) -> Option<&'static DeviceFn> {
        match self {
            Pattern::Reduce(Reducer::Custom(f)) | Pattern::Scan(Reducer::Custom(f)) => Some(f),
            _ => None,
        }
    }
}

/// One kernel, one pattern, one choice of template arguments.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    /// The kernel.
    pub kernel: &'static DeviceKernel,
    /// The driver.
    pub pattern: Pattern,
    /// C++ types for the kernel's generics, in order
    /// (see [`crate::kernel::DeviceScalar::CPP`]).
    pub types: &'static [&'static str],
}

impl Instance {
    /// An instance.
    ///
    /// ```
    /// # use granule_cuda::codegen::{Instance, Pattern};
    /// # use granule_cuda::kernel::DeviceKernel;
    /// static K: DeviceKernel = DeviceKernel { name: "k", pattern: granule_cuda::kernel::KernelPattern::For, generics: &[], params: &[], source: "", deps: &[] };
    /// assert_eq!(Instance::new(&K, Pattern::Team, &[]).entry(), "granule_team_k");
    /// ```
    pub fn new(
        kernel: &'static DeviceKernel,
        pattern: Pattern,
        types: &'static [&'static str],
    ) -> Self {
        Instance {
            kernel,
            pattern,
            types,
        }
    }

    /// The `extern "C"` name of the entry point.
    pub fn entry(&self) -> String {
        entry_name(self.kernel.name, self.pattern, self.types)
    }
}

/// Why an instance cannot be wrapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError {
    /// The kernel.
    pub kernel: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`: {}", self.kernel, self.message)
    }
}

impl std::error::Error for CodegenError {}

/// A complete CUDA C++ source with its entry points.
#[derive(Clone, Debug)]
pub struct TranslationUnit {
    source: String,
    entries: Vec<String>,
}

impl TranslationUnit {
    /// Header, helpers (each once, callees first), kernels (each once) and
    /// one entry point per instance.
    pub fn new(instances: &[Instance]) -> Result<Self, CodegenError> {
        let mut source = String::from(HEADER);
        let mut seen_fns: Vec<*const DeviceFn> = Vec::new();
        let mut seen_kernels: Vec<*const DeviceKernel> = Vec::new();
        for inst in instances {
            for dep in inst
                .kernel
                .deps
                .iter()
                .copied()
                .chain(inst.pattern.custom_reducer())
            {
                push_fn(&mut source, dep, &mut seen_fns);
            }
            if !seen_kernels.contains(&(inst.kernel as *const _)) {
                seen_kernels.push(inst.kernel);
                source.push_str("\n// ---- kernel ");
                source.push_str(inst.kernel.name);
                source.push('\n');
                source.push_str(inst.kernel.source);
            }
        }
        let mut entries = Vec::new();
        for inst in instances {
            let (name, text) = wrapper::entry_point(inst)?;
            if !entries.contains(&name) {
                source.push('\n');
                source.push_str(&text);
                entries.push(name);
            }
        }
        Ok(TranslationUnit { source, entries })
    }

    /// The full CUDA C++ text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The `extern "C"` entry points, in instance order.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }
}

fn push_fn(source: &mut String, f: &'static DeviceFn, seen: &mut Vec<*const DeviceFn>) {
    if seen.contains(&(f as *const _)) {
        return;
    }
    seen.push(f);
    for dep in f.deps {
        push_fn(source, dep, seen);
    }
    source.push_str("\n// ---- device fn ");
    source.push_str(f.name);
    source.push('\n');
    source.push_str(f.source);
}
