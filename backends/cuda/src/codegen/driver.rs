//! Drivers brought by crates above granule-cuda (granule-algorithms'
//! scans, compaction, sorts): a trusted description of the driver's
//! entry point ([`DeviceDriver`], made only through an `unsafe`
//! constructor), instantiated with device scalar types, a reducer and
//! `#[kernel]` element functions ([`DriverInstance`]), and wrapped in an
//! `extern "C"` entry point like the patterns' kernels.
//!
//! The entry point of an instance is
//! ```text
//! extern "C" __global__ void granule_drv_<name>__<types>..(
//!     <the driver's parameters>, <each element function's captures>) {
//!   typedef <type> <generic>; ..            // the driver's generics
//!   typedef <reducer over the accumulator> Op;
//!   auto f0 = [&](A e0__) { return ::fn0<..>(e0__, <its captures>); };
//!   <the driver's call>
//! }
//! ```
//! so the call names its element functions `f0`, `f1`, .., its reducer
//! `Op` and its element types by their generic names. A device launches
//! it through [`crate::DriverLaunch`], which checks every argument
//! against the parameters declared here.

use super::{push_fn, CodegenError};
use crate::device::HEADER;
use crate::kernel::{DeviceElementFn, DeviceFn, DeviceKernel, KernelPattern, ParamKind};
use crate::kernel::{ReducerOp, DEVICE_SCALARS};
use granule_views::MemorySpace;

/// The role of a driver's entry parameter: how a launch passes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverParamKind {
    /// A value of a device scalar type (`{cpp} name`).
    Scalar,
    /// A rank-1 View the driver reads
    /// (`granule::View<const {cpp}, 1, granule::LayoutStride> name`).
    Input,
    /// A rank-1 View the driver writes
    /// (`granule::View<{cpp}, 1, granule::LayoutStride> name`).
    Output,
    /// A zeroed buffer the launch allocates and frees (`{cpp}* name`).
    Workspace,
}

/// One parameter of a driver's entry point. `cpp` may name the driver's
/// generics; for `Input` and `Output` it is a device scalar or a generic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverParam {
    /// The C++ name in the entry point (and in the driver's call).
    pub name: &'static str,
    /// How a launch passes it.
    pub kind: DriverParamKind,
    /// The element (or scalar) C++ type.
    pub cpp: &'static str,
}

/// A driver's description: its device code and its entry point's
/// parameters. Only its `unsafe` constructor makes one: the text is
/// pasted into a translation unit and run with the device's full access.
#[derive(Debug)]
pub struct DeviceDriver {
    /// The name in entry points (`granule_drv_<name>..`): letters, digits
    /// and `_`.
    pub name: &'static str,
    /// The generic type names the parameters and the call use, in order.
    pub generics: &'static [&'static str],
    /// The C++ type (in terms of `generics`) of the values the driver
    /// combines with `Op`, the instance's reducer; `None` when the driver
    /// takes no reducer.
    pub reduces: Option<&'static str>,
    /// The entry point's own parameters, in order.
    pub params: &'static [DriverParam],
    /// The number of elements each element function slot (`f0`, `f1`, ..)
    /// takes.
    pub functions: &'static [usize],
    /// Device code the call uses (the driver's `.cuh`), emitted once per
    /// translation unit.
    pub source: &'static str,
    /// The body of the entry point: a C++ statement.
    pub call: &'static str,
    /// The arguments of the entry point's `__launch_bounds__`, a C++
    /// constant expression in terms of `generics` and `Op` (see
    /// [`DeviceDriver::with_launch_bounds`]); `None` for none.
    pub launch_bounds: Option<&'static str>,
    _trusted: Trusted,
}

/// The private field that keeps safe code from making a [`DeviceDriver`].
#[derive(Debug)]
struct Trusted(());

impl DeviceDriver {
    /// A driver description.
    ///
    /// # Safety
    /// `source` and `call` are trusted device code: they run with the
    /// device's full access, in the process (the emulator) or on the GPU.
    /// Launched with arguments that match `params` (each `Input` a rank-1
    /// View of its element type in the device's live memory, borrowed
    /// shared for the launch, or the very memory of an `Output` where the
    /// driver's documentation says it works in place; each `Output` one
    /// borrowed uniquely; each `Workspace` a zeroed buffer of the size the
    /// documentation gives), with the launch configuration the
    /// documentation gives, generics instantiated with device scalar
    /// types, `Op` a reducer of `reduces` values and element functions of
    /// the arities of `functions`, the code:
    /// - reads only the elements of its Views below their extents and its
    ///   workspaces below their sizes, and writes only its Outputs and
    ///   workspaces;
    /// - has no data race: no two threads access the same memory, one of
    ///   them writing, without a barrier, a fence-and-flag protocol or
    ///   atomic (or volatile) accesses between them;
    /// - terminates: every loop whose trip count is not a compile-time
    ///   constant starts with `GRANULE_LOOP_TICK()`, and a block waits
    ///   only on blocks that claimed their work before it;
    /// - reaches barriers and warp collectives in block- (warp-) uniform
    ///   control flow only, and computes sizes and indices without
    ///   wrapping.
    ///
    /// `name` is letters, digits and `_`; `generics` are C++ identifiers;
    /// `call` names the parameters, generics, `Op` and `f0`.. as the
    /// module docs describe.
    ///
    /// ```
    /// use granule_cuda::codegen::driver::{DeviceDriver, DriverParam, DriverParamKind};
    /// // SAFETY: copies x(i) to y(i) for i below both extents (the View
    /// // accessors check bounds); one thread per index, no waits.
    /// static COPY: DeviceDriver = unsafe {
    ///     DeviceDriver::new(
    ///         "copy",
    ///         &["T"],
    ///         None,
    ///         &[
    ///             DriverParam { name: "x", kind: DriverParamKind::Input, cpp: "T" },
    ///             DriverParam { name: "y", kind: DriverParamKind::Output, cpp: "T" },
    ///         ],
    ///         &[],
    ///         "",
    ///         "granule::drive_for(0, x.extent(0), [&](granule::u64 i) { y(i) = x(i); });",
    ///     )
    /// };
    /// assert_eq!(COPY.params.len(), 2);
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub const unsafe fn new(
        name: &'static str,
        generics: &'static [&'static str],
        reduces: Option<&'static str>,
        params: &'static [DriverParam],
        functions: &'static [usize],
        source: &'static str,
        call: &'static str,
    ) -> Self {
        DeviceDriver {
            name,
            generics,
            reduces,
            params,
            functions,
            source,
            call,
            launch_bounds: None,
            _trusted: Trusted(()),
        }
    }

    /// The driver with `__launch_bounds__(bounds)` on its entry points:
    /// the most threads a block of a launch has, then the fewest blocks
    /// the compiler should fit on a multiprocessor at once, which caps the
    /// registers a thread gets. `bounds` may name `generics` and `Op`, so
    /// an instance can pick its own cap. A launch with more threads than
    /// the bound fails with CUDA's error before it runs; the emulator
    /// ignores the bounds.
    ///
    /// # Safety
    /// `bounds` is pasted into the entry point like `call`, so it is
    /// trusted the same way: one or two C++ constant expressions separated
    /// by a comma, and nothing else.
    ///
    /// ```
    /// use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance};
    /// // SAFETY: an empty call that touches nothing, and two constants as
    /// // the bounds.
    /// static NOP: DeviceDriver = unsafe {
    ///     DeviceDriver::new("nop", &["T"], None, &[], &[], "", ";")
    ///         .with_launch_bounds("256, sizeof(T) > 4 ? 2 : 4")
    /// };
    /// assert_eq!(NOP.launch_bounds, Some("256, sizeof(T) > 4 ? 2 : 4"));
    /// ```
    pub const unsafe fn with_launch_bounds(self, bounds: &'static str) -> Self {
        DeviceDriver {
            launch_bounds: Some(bounds),
            ..self
        }
    }
}

/// An element function as an instance uses it: its description and its
/// generic arguments' device spellings.
#[derive(Clone, Copy, Debug)]
pub struct ElementUse {
    /// The function (of pattern [`KernelPattern::Element`]).
    pub function: &'static DeviceKernel,
    /// Its generic arguments, as [`DeviceElementFn::TYPES`] gives them.
    pub types: &'static [&'static str],
}

impl ElementUse {
    /// The use of element function `F` (of a device of memory `M`).
    ///
    /// ```
    /// use granule_core::kernel::kernel;
    /// use granule_cuda::codegen::driver::ElementUse;
    /// #[kernel(crate = granule_core)]
    /// fn odd(x: u32) -> bool { x % 2 == 1 }
    /// let u = ElementUse::of::<odd, granule_views::HostSpace>();
    /// assert_eq!((u.function.name, u.types.len()), ("odd", 0));
    /// ```
    pub fn of<F: DeviceElementFn<M>, M: MemorySpace>() -> Self {
        ElementUse {
            function: F::FUNCTION,
            types: F::TYPES,
        }
    }
}

/// A driver with its generics, reducer and element functions chosen.
#[derive(Clone, Debug)]
pub struct DriverInstance {
    /// The driver.
    pub driver: &'static DeviceDriver,
    /// Device scalar types for the driver's generics, in order.
    pub types: Vec<&'static str>,
    /// The reducer `Op` (when the driver reduces).
    pub reducer: Option<ReducerOp>,
    /// The element functions, one per slot of the driver.
    pub functions: Vec<ElementUse>,
}

/// `T` -> `granule::i64`: whole identifiers named like a generic are
/// replaced by its type.
fn subst(cpp: &str, generics: &[&str], types: &[&str]) -> String {
    let mut out = String::with_capacity(cpp.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let at = generics.iter().position(|g| *g == word.as_str());
        let after_path = out.ends_with("::");
        match at {
            Some(k) if !after_path => out.push_str(types[k]),
            _ => out.push_str(word),
        }
        word.clear();
    };
    for c in cpp.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A type's spelling in an entry name.
fn name_part(t: &str) -> String {
    t.trim_start_matches("granule::")
        .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
}

/// The byte size of a device scalar's spelling.
pub(crate) fn scalar_size(cpp: &str) -> Option<usize> {
    Some(match cpp {
        "bool" | "granule::i8" | "granule::u8" => 1,
        "granule::i16" | "granule::u16" => 2,
        "granule::i32" | "granule::u32" | "granule::f32" => 4,
        "granule::i64" | "granule::u64" | "granule::f64" | "granule::usize" | "granule::isize" => 8,
        _ => return None,
    })
}

impl DriverInstance {
    /// The instance's entry point name: the driver's, the types, the
    /// reducer, then each element function with its types.
    ///
    /// ```
    /// # use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance};
    /// # use granule_cuda::codegen::Reducer;
    /// // SAFETY: an empty call that touches nothing.
    /// static SUM: DeviceDriver = unsafe { DeviceDriver::new("sum", &["T"], Some("T"), &[], &[], "", ";") };
    /// let inst = DriverInstance { driver: &SUM, types: vec!["granule::f64"], reducer: Some(Reducer::Max), functions: vec![] };
    /// assert_eq!(inst.entry(), "granule_drv_sum__f64__max");
    /// ```
    pub fn entry(&self) -> String {
        let mut name = format!("granule_drv_{}", self.driver.name);
        for t in &self.types {
            name.push_str("__");
            name.push_str(&name_part(t));
        }
        if let Some(r) = self.reducer {
            name.push_str("__");
            name.push_str(&r.entry_part());
        }
        for f in &self.functions {
            name.push_str("__");
            name.push_str(f.function.name);
            for t in f.types {
                name.push('_');
                name.push_str(&name_part(t));
            }
        }
        name
    }

    /// Parameter `k`'s C++ type with the generics replaced.
    pub fn param_cpp(&self, k: usize) -> String {
        subst(self.driver.params[k].cpp, self.driver.generics, &self.types)
    }

    /// Checks that the instance fits its driver: device scalar types for
    /// every generic, a reducer exactly when the driver reduces, element
    /// functions of the slots' arities with device scalar arguments, and
    /// View parameters of device scalar elements.
    pub fn check(&self) -> Result<(), CodegenError> {
        let d = self.driver;
        let err = |message: String| {
            Err(CodegenError {
                kernel: d.name,
                message,
            })
        };
        let scalars = || DEVICE_SCALARS.join(", ");
        if self.types.len() != d.generics.len() {
            return err(format!(
                "{} types given for {} generics",
                self.types.len(),
                d.generics.len()
            ));
        }
        if let Some(bad) = self.types.iter().find(|t| !DEVICE_SCALARS.contains(t)) {
            return err(format!(
                "`{bad}` is not a device scalar type (one of {})",
                scalars()
            ));
        }
        if d.reduces.is_some() != self.reducer.is_some() {
            return err("a reducer is given exactly when the driver reduces".into());
        }
        if self.functions.len() != d.functions.len() {
            return err(format!(
                "{} element functions given for {} slots",
                self.functions.len(),
                d.functions.len()
            ));
        }
        for (f, &arity) in self.functions.iter().zip(d.functions) {
            let k = f.function;
            let elements = k
                .params
                .iter()
                .filter(|p| p.kind == ParamKind::Element)
                .count();
            if k.pattern != KernelPattern::Element || elements != arity {
                return err(format!(
                    "`{}` is not an element function of {arity} element(s)",
                    k.name
                ));
            }
            if f.types.len() != k.generics.len()
                || f.types.iter().any(|t| !DEVICE_SCALARS.contains(t))
            {
                return err(format!(
                    "`{}` takes {} device scalar type(s)",
                    k.name,
                    k.generics.len()
                ));
            }
        }
        for (k, p) in d.params.iter().enumerate() {
            let view = matches!(p.kind, DriverParamKind::Input | DriverParamKind::Output);
            if view && scalar_size(&self.param_cpp(k)).is_none() {
                return err(format!(
                    "View parameter `{}` is of `{}`, not a device scalar",
                    p.name,
                    self.param_cpp(k)
                ));
            }
        }
        Ok(())
    }

    /// `(entry name, C++ text)` of the entry point.
    pub(super) fn entry_point(&self) -> Result<(String, String), CodegenError> {
        self.check()?;
        let d = self.driver;
        let mut decls: Vec<String> = (0..d.params.len())
            .map(|k| {
                let (p, t) = (&d.params[k], self.param_cpp(k));
                match p.kind {
                    DriverParamKind::Scalar => format!("{t} {}", p.name),
                    DriverParamKind::Input => {
                        format!(
                            "granule::View<const {t}, 1, granule::LayoutStride> {}",
                            p.name
                        )
                    }
                    DriverParamKind::Output => {
                        format!("granule::View<{t}, 1, granule::LayoutStride> {}", p.name)
                    }
                    DriverParamKind::Workspace => format!("{t}* {}", p.name),
                }
            })
            .collect();
        let mut body = String::new();
        for (g, t) in d.generics.iter().zip(&self.types) {
            body.push_str(&format!("  typedef {t} {g};\n"));
        }
        // The generics and `Op` as the launch bounds name them, outside
        // the body's typedefs.
        let mut names = d.generics.to_vec();
        let mut spelled: Vec<&str> = self.types.clone();
        let op_cpp;
        if let (Some(acc), Some(r)) = (d.reduces, self.reducer) {
            let acc = subst(acc, d.generics, &self.types);
            op_cpp = r.op(&acc).map_err(|message| CodegenError {
                kernel: d.name,
                message,
            })?;
            body.push_str(&format!("  typedef {op_cpp} Op;\n"));
            names.push("Op");
            spelled.push(&op_cpp);
        }
        let bounds = d.launch_bounds.map_or(String::new(), |b| {
            format!("__launch_bounds__({}) ", subst(b, &names, &spelled))
        });
        for (k, f) in self.functions.iter().enumerate() {
            let (caps, lambda) = function_binding(k, f);
            decls.extend(caps);
            body.push_str(&lambda);
        }
        body.push_str("  ");
        body.push_str(d.call);
        let name = self.entry();
        let text = format!(
            "extern \"C\" __global__ void {bounds}{name}({}) {{\n  GRANULE_ENTRY_CHECK();\n{body}\n}}\n\
             extern \"C\" {{ __device__ granule::ParamTable<decltype({name})> {}; }}\n",
            decls.join(", "),
            super::params_symbol(&name)
        );
        Ok((name, text))
    }
}

/// Element function `k`'s capture parameters in the entry (`f<k>_<name>`)
/// and the lambda `f<k>` that calls it, elements first. (The lambda names
/// its parameter types: NVRTC takes a generic lambda in a kernel for a
/// host function.)
fn function_binding(k: usize, f: &ElementUse) -> (Vec<String>, String) {
    let func = f.function;
    let mut decls = Vec::new();
    let mut elems = Vec::new();
    let mut args = Vec::new();
    for p in func.params {
        let t = subst(p.cpp, func.generics, f.types);
        let name = format!("f{k}_{}", p.name);
        match p.kind {
            ParamKind::Element => {
                let e = format!("e{}__", elems.len());
                elems.push(format!("{t} {e}"));
                args.push(e);
                continue;
            }
            ParamKind::Scalar => decls.push(format!("{t} {name}")),
            ParamKind::View { rank, layout } => decls.push(format!(
                "granule::View<const {t}, {rank}, {}> {name}",
                layout.cpp()
            )),
            _ => continue,
        }
        args.push(name);
    }
    let targs = if f.types.is_empty() {
        String::new()
    } else {
        format!("<{}>", f.types.join(", "))
    };
    let lambda = format!(
        "  auto f{k} = [&]({}) {{ return ::{}{targs}({}); }};\n",
        elems.join(", "),
        func.name,
        args.join(", ")
    );
    (decls, lambda)
}

/// The translation unit of driver instances: the header, the custom
/// reducers and the element functions with their `#[device]` items, the
/// drivers' sources (each text once), and the entry points.
pub(super) fn unit_source(insts: &[DriverInstance]) -> Result<(Vec<String>, String), CodegenError> {
    let mut source = String::from(HEADER);
    let mut seen: Vec<*const DeviceFn> = Vec::new();
    let mut seen_fns: Vec<*const DeviceKernel> = Vec::new();
    let mut seen_sources: Vec<&str> = Vec::new();
    let mut entries: Vec<(String, String)> = Vec::new();
    for inst in insts {
        let recursion = |message| CodegenError {
            kernel: inst.driver.name,
            message,
        };
        if let Some(ReducerOp::Custom(f)) = inst.reducer {
            push_fn(&mut source, f, &mut seen, &mut Vec::new()).map_err(recursion)?;
        }
        for f in &inst.functions {
            for dep in f.function.deps {
                push_fn(&mut source, dep, &mut seen, &mut Vec::new()).map_err(recursion)?;
            }
            if !seen_fns.contains(&(f.function as *const _)) {
                seen_fns.push(f.function);
                source.push_str("\n// ---- element function ");
                source.push_str(f.function.name);
                source.push('\n');
                source.push_str(f.function.source);
            }
        }
        if !seen_sources.contains(&inst.driver.source) {
            seen_sources.push(inst.driver.source);
            source.push_str("\n// ---- driver ");
            source.push_str(inst.driver.name);
            source.push('\n');
            source.push_str(inst.driver.source);
        }
        let (name, text) = inst.entry_point()?;
        if !entries.iter().any(|(n, _)| *n == name) {
            entries.push((name, text));
        }
    }
    for (_, text) in &entries {
        source.push('\n');
        source.push_str(text);
    }
    Ok((entries.into_iter().map(|(n, _)| n).collect(), source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generics_are_replaced_as_whole_identifiers() {
        let g = ["T", "U"];
        let t = ["granule::i64", "bool"];
        assert_eq!(
            subst("granule::ValLocScalar<T, granule::usize>", &g, &t),
            "granule::ValLocScalar<granule::i64, granule::usize>"
        );
        assert_eq!(subst("TT U_ U T", &g, &t), "TT U_ bool granule::i64");
        assert_eq!(subst("granule::T", &g, &t), "granule::T");
    }

    #[test]
    fn launch_bounds_name_the_instance_types_and_op() {
        // SAFETY: an empty call that touches nothing; the bounds are two
        // constant expressions.
        static SUM: DeviceDriver = unsafe {
            DeviceDriver::new("sum", &["T"], Some("T"), &[], &[], "", ";")
                .with_launch_bounds("128, sizeof(T) + granule::is_exactly_associative<Op>()")
        };
        let inst = DriverInstance {
            driver: &SUM,
            types: vec!["granule::f64"],
            reducer: Some(ReducerOp::Max),
            functions: vec![],
        };
        let (name, text) = inst.entry_point().unwrap();
        let op = ReducerOp::Max.op("granule::f64").unwrap();
        let want = format!(
            "__global__ void __launch_bounds__(128, sizeof(granule::f64) + granule::is_exactly_associative<{op}>()) {name}("
        );
        assert!(text.contains(&want), "{text}");
        // SAFETY: as above.
        static PLAIN: DeviceDriver =
            unsafe { DeviceDriver::new("plain", &["T"], Some("T"), &[], &[], "", ";") };
        let inst = DriverInstance {
            driver: &PLAIN,
            ..inst
        };
        let (name, text) = inst.entry_point().unwrap();
        assert!(text.contains(&format!("__global__ void {name}(")), "{text}");
    }
}
