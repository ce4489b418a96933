//! Drivers brought by crates above granule-cuda (`codegen::driver`,
//! `DriverLaunch`) on the emulator: an instance with an element function
//! and its captures runs, and every argument that does not match the
//! driver's declared parameters, every View outside the space's memory
//! and every instance that does not fit its driver is refused before the
//! launch, naming the dispatch, with nothing written.

use granule_core::kernel::{kernel, ViewArg};
use granule_core::prelude::*;
use granule_cuda::codegen::driver::{
    DeviceDriver, DriverInstance, DriverParam, DriverParamKind as K, ElementUse,
};
use granule_cuda::codegen::Reducer;
use granule_cuda::device_api::LaunchConfig;
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{create_mirror_view_and_copy, LayoutRight};
use std::sync::OnceLock;

fn cuda() -> Cuda {
    static SPACE: OnceLock<Cuda> = OnceLock::new();
    SPACE
        .get_or_init(|| {
            Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
        })
        .clone()
}

type DView1<T> = View1<T, LayoutRight, CudaSpace>;

fn panic_message(f: impl FnOnce()) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .expect_err("the launch must be refused");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

// SAFETY: y(i) = f0(x(i)) for i below both extents (the accessors check
// bounds), one thread per index, grid-stride: any geometry, no workspace.
static MAP: DeviceDriver = unsafe {
    DeviceDriver::new(
        "map",
        &["T", "U"],
        None,
        &[
            DriverParam {
                name: "x",
                kind: K::Input,
                cpp: "T",
            },
            DriverParam {
                name: "y",
                kind: K::Output,
                cpp: "U",
            },
        ],
        &[1],
        "",
        "granule::drive_for(0, x.extent(0), [&](granule::u64 i) { y(i) = f0(x(i)); });",
    )
};

#[kernel(crate = granule_core)]
fn offset_scale(v: i32, by: f64, table: &View1<f64>) -> f64 {
    v as f64 * by + table[(v % 4) as usize]
}

#[kernel(crate = granule_core)]
fn checked_half(v: i32) -> f64 {
    assert!(v != 77, "user code failed at {}", v);
    v as f64 * 0.5
}

fn instance(f: ElementUse) -> DriverInstance {
    DriverInstance {
        driver: &MAP,
        types: vec!["granule::i32", "granule::f64"],
        reducer: None,
        functions: vec![f],
    }
}

fn one_block() -> LaunchConfig {
    LaunchConfig {
        grid_dim: (2, 1, 1),
        block_dim: (64, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn arg<T>(label: &'static str, address: usize, n: usize) -> ViewArg<'static> {
    ViewArg::of::<T>(label, address, &[n], &[1])
}

fn views(c: &Cuda, n: usize) -> (DView1<i32>, DView1<f64>, DView1<f64>) {
    let x = DView1::<i32>::from_fn_in(c.memory_space(), "x", n, |i| i as i32).unwrap();
    let y = DView1::<f64>::full_in(c.memory_space(), "y", n, -1.0).unwrap();
    let table = DView1::<f64>::from_fn_in(c.memory_space(), "table", 4, |i| i as f64).unwrap();
    (x, y, table)
}

#[test]
fn an_element_function_and_its_captures_run_in_a_driver() {
    let c = cuda();
    let n = 300;
    let (x, mut y, table) = views(&c, n);
    let f = offset_scale(2.5, &table);
    let mut l = c.driver_launch(
        "map",
        instance(ElementUse::of::<offset_scale<'static, CudaSpace>, CudaSpace>()),
    );
    let out = y.as_mut_ptr() as usize;
    // SAFETY: `x` and `y` are this test's Views of n elements, borrowed
    // until the launch ends.
    unsafe {
        l.input(arg::<i32>("x", x.as_ptr() as usize, n))
            .output(arg::<f64>("y", out, n))
    };
    l.function(&f);
    // SAFETY: the map driver runs any geometry and has no workspace.
    unsafe { l.run(&one_block()) };
    drop(l);
    let got = create_mirror_view_and_copy(&y).unwrap().to_vec();
    let want: Vec<f64> = (0..n).map(|i| i as f64 * 2.5 + (i % 4) as f64).collect();
    assert_eq!(got, want);
}

#[test]
fn a_failed_assertion_in_an_element_function_fails_the_launch_with_its_message() {
    // A space of its own: the failure is reported at the space's next
    // synchronization point (the fence below), never at another test's.
    let c = Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"));
    let n = 100;
    let (x, mut y, _) = views(&c, n);
    let text = panic_message(|| {
        let mut l = c.driver_launch(
            "halves",
            instance(ElementUse::of::<checked_half, CudaSpace>()),
        );
        let out = y.as_mut_ptr() as usize;
        // SAFETY: as above.
        unsafe {
            l.input(arg::<i32>("x", x.as_ptr() as usize, n))
                .output(arg::<f64>("y", out, n))
        };
        l.function(&checked_half());
        // SAFETY: as above.
        unsafe { l.run(&one_block()) };
        drop(l);
        c.fence();
    });
    assert!(
        text.contains("\"halves\"")
            && text.contains("driver `map` with `checked_half`")
            && text.contains("user code failed at 77"),
        "{text}"
    );
}

#[test]
fn arguments_that_do_not_match_the_parameters_are_refused_before_the_launch() {
    let c = cuda();
    let n = 64;
    let (x, mut y, table) = views(&c, n);
    let (xa, ya) = (x.as_ptr() as usize, y.as_mut_ptr() as usize);
    let inst = || instance(ElementUse::of::<offset_scale<'static, CudaSpace>, CudaSpace>());
    // a host address
    let host = vec![0i32; n];
    let text = panic_message(|| {
        let mut l = c.driver_launch("host", inst());
        // SAFETY: refused before any launch: the address is not the device's.
        unsafe { l.input(arg::<i32>("host", host.as_ptr() as usize, n)) };
    });
    assert!(
        text.contains("dispatch \"host\"") && text.contains("not in this Cuda space's memory"),
        "{text}"
    );
    // a View of another element size
    let text = panic_message(|| {
        let mut l = c.driver_launch("size", inst());
        // SAFETY: refused: 8-byte elements for an i32 parameter.
        unsafe { l.input(arg::<f64>("y", ya, n)) };
    });
    assert!(
        text.contains("8-byte elements") && text.contains("`granule::i32`"),
        "{text}"
    );
    // an argument of another kind
    let text = panic_message(|| {
        let mut l = c.driver_launch("kind", inst());
        l.workspace(8);
    });
    assert!(
        text.contains("is a Workspace") && text.contains("`x` is a Input"),
        "{text}"
    );
    // another element function
    let text = panic_message(|| {
        let mut l = c.driver_launch("other", inst());
        // SAFETY: the test's Views, borrowed until the launch ends.
        unsafe {
            l.input(arg::<i32>("x", xa, n))
                .output(arg::<f64>("y", ya, n))
        };
        l.function(&checked_half());
    });
    assert!(
        text.contains("is `offset_scale`, given `checked_half`"),
        "{text}"
    );
    // a launch with an argument missing
    let text = panic_message(|| {
        let mut l = c.driver_launch("missing", inst());
        // SAFETY: as above.
        unsafe {
            l.input(arg::<i32>("x", xa, n))
                .output(arg::<f64>("y", ya, n))
        };
        // SAFETY: refused before the launch: the element function is missing.
        unsafe { l.run(&one_block()) };
    });
    assert!(text.contains("0 of 1 element functions"), "{text}");
    let _ = &table;
    assert!(create_mirror_view_and_copy(&y)
        .unwrap()
        .to_vec()
        .iter()
        .all(|&v| v == -1.0));
}

#[test]
fn instances_that_do_not_fit_their_driver_are_refused() {
    let c = cuda();
    let f = ElementUse::of::<offset_scale<'static, CudaSpace>, CudaSpace>();
    let bad = |types: Vec<&'static str>, reducer, functions| {
        panic_message(|| {
            c.driver_launch(
                "bad",
                DriverInstance {
                    driver: &MAP,
                    types,
                    reducer,
                    functions,
                },
            );
        })
    };
    let text = bad(
        vec!["granule::i32", "int>(); } void evil() {"],
        None,
        vec![f],
    );
    assert!(text.contains("is not a device scalar type"), "{text}");
    let text = bad(vec!["granule::i32"], None, vec![f]);
    assert!(text.contains("1 types given for 2 generics"), "{text}");
    let text = bad(
        vec!["granule::i32", "granule::f64"],
        Some(Reducer::Sum),
        vec![f],
    );
    assert!(
        text.contains("a reducer is given exactly when the driver reduces"),
        "{text}"
    );
    let text = bad(vec!["granule::i32", "granule::f64"], None, vec![]);
    assert!(
        text.contains("0 element functions given for 1 slots"),
        "{text}"
    );
}
