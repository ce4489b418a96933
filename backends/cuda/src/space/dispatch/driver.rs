//! Launching a driver brought by a crate above granule-cuda (see
//! [`crate::codegen::driver`]): the same checks as the patterns' dispatch,
//! argument by argument against the driver's declared parameters.

use super::{Cuda, Launch};
use crate::codegen::driver::{scalar_size, DriverInstance, DriverParamKind};
use crate::device_api::LaunchConfig;
use crate::kernel::{DeviceArg, DeviceElementFn, DeviceScalar, DeviceValue, ViewArg};
use crate::CudaSpace;

/// A zeroed buffer of one driver launch (see [`DriverLaunch::workspace`]),
/// freed with the launch; [`DriverLaunch::read`] reads it back.
///
/// ```
/// use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance, DriverParam, DriverParamKind};
/// use granule_cuda::device_api::LaunchConfig;
/// use granule_cuda::Cuda;
///
/// // SAFETY: block 0's thread 0 writes n * (n + 1) / 2 into the u64 its
/// // workspace holds; no other access.
/// static TRIANGLE: DeviceDriver = unsafe {
///     DeviceDriver::new("triangle", &[], None,
///         &[
///             DriverParam { name: "n", kind: DriverParamKind::Scalar, cpp: "granule::u64" },
///             DriverParam { name: "out", kind: DriverParamKind::Workspace, cpp: "granule::u64" },
///         ],
///         &[], "", "if (blockIdx.x == 0 && threadIdx.x == 0) *out = n * (n + 1) / 2;")
/// };
/// let cuda = Cuda::emulated()?;
/// let inst = DriverInstance { driver: &TRIANGLE, types: vec![], reducer: None, functions: vec![] };
/// let mut launch = cuda.driver_launch("triangle", inst);
/// launch.scalar(10u64);
/// let out = launch.workspace(8);
/// let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
/// // SAFETY: one u64 of workspace, any geometry.
/// unsafe { launch.run(&config) };
/// assert_eq!(launch.read::<u64>(out), 55);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverWorkspace(u64);

/// One launch of a [`DriverInstance`] on a [`Cuda`] space, assembled
/// argument by argument in the order of the driver's parameters, then its
/// element functions' captures.
///
/// Every argument is checked before anything runs, and a mismatch panics
/// naming the dispatch, the driver and the device (as a pattern's
/// dispatch does): a scalar must have its parameter's type, a View its
/// parameter's element size and rank 1 and lie in a live allocation of
/// this space, an element function must be the instance's; the launch
/// configuration must fit the device. A failure on the device (an
/// element function's failed assertion, an index out of bounds) panics
/// with the device's message.
///
/// ```
/// use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance, DriverParam, DriverParamKind};
/// use granule_cuda::device_api::LaunchConfig;
/// use granule_cuda::kernel::ViewArg;
/// use granule_cuda::{Cuda, CudaSpace};
/// use granule_views::{LayoutRight, View1};
///
/// // SAFETY: writes y(i) = i * a below y's extent, one thread per index.
/// static RAMP: DeviceDriver = unsafe {
///     DeviceDriver::new("ramp", &["T"], None,
///         &[
///             DriverParam { name: "a", kind: DriverParamKind::Scalar, cpp: "T" },
///             DriverParam { name: "y", kind: DriverParamKind::Output, cpp: "T" },
///         ],
///         &[], "", "granule::drive_for(0, y.extent(0), [&](granule::u64 i) { y(i) = (T)i * a; });")
/// };
/// let cuda = Cuda::emulated()?;
/// let mut y = View1::<f32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "y", 4)?;
/// let inst = DriverInstance { driver: &RAMP, types: vec!["granule::f32"], reducer: None, functions: vec![] };
/// let mut launch = cuda.driver_launch("ramp", inst);
/// launch.scalar(0.5f32);
/// let address = y.as_mut_ptr() as usize;
/// let out = ViewArg::of::<f32>("y", address, &[4], &[1]);
/// // SAFETY: `y` is borrowed uniquely until the launch ends.
/// unsafe { launch.output(out) };
/// let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
/// // SAFETY: the driver runs any geometry and has no workspace.
/// unsafe { launch.run(&config) };
/// drop(launch);
/// assert_eq!(granule_views::create_mirror_view_and_copy(&y)?.to_vec(), [0.0, 0.5, 1.0, 1.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DriverLaunch<'a> {
    launch: Launch<'a>,
    instance: DriverInstance,
    /// The next driver parameter to bind.
    next: usize,
    /// The element functions bound.
    functions: usize,
}

impl Cuda {
    /// Starts a launch of `instance` labelled `label` (see
    /// [`DriverLaunch`]).
    ///
    /// # Panics
    /// When the instance does not fit its driver (types that are not
    /// device scalars, a missing reducer, element functions of other
    /// arities), naming the dispatch.
    pub fn driver_launch<'a>(
        &'a self,
        label: &'a str,
        instance: DriverInstance,
    ) -> DriverLaunch<'a> {
        let launch = Launch::driver(self, label, instance.clone());
        if let Err(e) = instance.check() {
            launch.fail(&e.message);
        }
        DriverLaunch {
            launch,
            instance,
            next: 0,
            functions: 0,
        }
    }
}

impl DriverLaunch<'_> {
    /// The next parameter, which must be of `kind`; returns its index.
    fn take(&mut self, kind: DriverParamKind) -> usize {
        let params = self.instance.driver.params;
        let k = self.next;
        match params.get(k) {
            Some(p) if p.kind == kind => {
                self.next += 1;
                k
            }
            Some(p) => self.launch.fail(&format!(
                "argument {k} is a {kind:?}, but parameter `{}` is a {:?}",
                p.name, p.kind
            )),
            None => self.launch.fail(&format!(
                "a {kind:?} argument past the driver's {} parameters",
                params.len()
            )),
        }
    }

    /// The next parameter, a scalar of type `T`.
    pub fn scalar<T: DeviceScalar + DeviceValue>(&mut self, value: T) -> &mut Self {
        let k = self.take(DriverParamKind::Scalar);
        let cpp = self.instance.param_cpp(k);
        if cpp != T::CPP {
            self.launch.fail(&format!(
                "parameter `{}` is a `{cpp}`, given a `{}`",
                self.instance.driver.params[k].name,
                T::CPP
            ));
        }
        let mut bytes = vec![0; T::SIZE];
        value.store(&mut bytes);
        self.launch.push(DeviceArg::Scalar(bytes));
        self
    }

    /// Checks a View argument for parameter `k` and pushes it.
    fn view(&mut self, k: usize, view: ViewArg<'_>, written: bool) {
        let p = &self.instance.driver.params[k];
        let cpp = self.instance.param_cpp(k);
        if view.extents.len() != 1 || view.strides.len() != 1 {
            self.launch.fail(&format!(
                "View \"{}\" for parameter `{}` has rank {}, not 1",
                view.label,
                p.name,
                view.extents.len()
            ));
        }
        if scalar_size(&cpp) != Some(view.elem_size) {
            self.launch.fail(&format!(
                "View \"{}\" has {}-byte elements, but parameter `{}` is of `{cpp}`",
                view.label, view.elem_size, p.name
            ));
        }
        self.launch.push(match written {
            true => DeviceArg::Written(view),
            false => DeviceArg::View(view),
        });
    }

    /// The next parameter, a View the driver reads.
    ///
    /// # Safety
    /// `view` describes a View of the parameter's element type, in this
    /// space's memory, that stays borrowed (shared) until the launch is
    /// done, or the memory of an [`output`](Self::output) of this launch
    /// where the driver's documentation says it works in place.
    pub unsafe fn input(&mut self, view: ViewArg<'_>) -> &mut Self {
        let k = self.take(DriverParamKind::Input);
        self.view(k, view, false);
        self
    }

    /// The next parameter, a View the driver writes.
    ///
    /// # Safety
    /// `view` describes a View of the parameter's element type, in this
    /// space's memory, that stays borrowed uniquely until the launch is
    /// done (only this launch's inputs may name the same memory).
    pub unsafe fn output(&mut self, view: ViewArg<'_>) -> &mut Self {
        let k = self.take(DriverParamKind::Output);
        self.view(k, view, true);
        self
    }

    /// The next parameter, a zeroed buffer of `bytes` (at least one),
    /// freed with the launch; [`read`](Self::read) reads it back.
    pub fn workspace(&mut self, bytes: usize) -> DriverWorkspace {
        self.take(DriverParamKind::Workspace);
        DriverWorkspace(self.launch.workspace(bytes))
    }

    /// The captures of the next element function, which must be the
    /// instance's function for its slot.
    pub fn function<F: DeviceElementFn<CudaSpace>>(&mut self, f: &F) -> &mut Self {
        let d = self.instance.driver;
        if self.next != d.params.len() {
            self.launch.fail(&format!(
                "element functions come after the driver's {} parameters ({} given)",
                d.params.len(),
                self.next
            ));
        }
        let slot = self.functions;
        let Some(used) = self.instance.functions.get(slot) else {
            self.launch
                .fail(&format!("more element functions than its {slot}"));
        };
        if !std::ptr::eq(used.function, F::FUNCTION) || used.types != F::TYPES {
            self.launch.fail(&format!(
                "element function {slot} is `{}`, given `{}`",
                used.function.name,
                F::FUNCTION.name
            ));
        }
        self.functions += 1;
        for arg in f.captures() {
            self.launch.push(arg);
        }
        self
    }

    /// Compiles the instance (once per space) and launches it.
    ///
    /// # Panics
    /// When an argument is missing, the configuration does not fit the
    /// device, or the launch fails (with the device's message).
    ///
    /// # Safety
    /// `config` and the workspace sizes are the ones the driver's
    /// documentation asks for these arguments.
    pub unsafe fn run(&mut self, config: &LaunchConfig) {
        let (params, fns) = (
            self.instance.driver.params.len(),
            self.instance.functions.len(),
        );
        if self.next != params || self.functions != fns {
            self.launch.fail(&format!(
                "{} of {params} parameters and {} of {fns} element functions given",
                self.next, self.functions
            ));
        }
        // Profiling tools and the kernel timer see a driver launch as a
        // dispatch of its label, as they see the patterns' (the time is
        // that of issuing it: the launch is asynchronous).
        let _timed = granule_core::profiling::begin_kernel(
            self.launch.label,
            granule_core::profiling::KernelKind::For,
            "Cuda",
            "Driver",
        );
        // SAFETY: every parameter and element function was bound in order
        // and checked (kinds, types, Views in this space's memory); the
        // configuration and workspaces are the caller's promise.
        unsafe { self.launch.run(config) }
    }

    /// Reads a `T` from the start of a workspace of this launch.
    ///
    /// # Panics
    /// When `w` is not a workspace of this launch, or reading fails.
    pub fn read<T: DeviceValue>(&self, w: DriverWorkspace) -> T {
        self.launch.read(w.0)
    }
}
