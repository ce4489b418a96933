//! `println!` and `print!` in a `#[kernel]`, on every space: the host runs
//! Rust's macros, Cuda the device's `printf` with the conversion that
//! prints each value as the host does where the type allows. The test runs
//! itself as a child process per space and compares the lines the child
//! wrote to its standard output (the device's `printf` writes there too,
//! outside the test harness's capture).

use granule::portable::parallel_for;
use granule::prelude::*;
use std::process::Command;

const CHILD: &str = "GRANULE_KERNEL_PRINT_TEST_CHILD";

#[kernel]
fn report(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x[i] * 0.5;
    println!(
        "mark {i}: x = {:.3}, half = {}, odd = {:?}, minus = {}",
        x[i],
        *y,
        i % 2 == 1,
        -(i as i64)
    );
    print!("mark {i}: 100% of {n} {{braces}}", n = 4u8);
    println!();
}

#[kernel]
fn tenth(i: usize, y: &mut f64) {
    *y = 0.1;
    if i == 0 {
        println!("tenth {}", *y);
    }
}

/// What the child runs: the kernels on `space`.
fn print_on<S: PortableSpace>(space: &S) {
    let data: Vec<f64> = (0..4).map(|i| i as f64 + 0.25).collect();
    let x = View1::<f64, LayoutRight, _>::from_vec_in(space.memory_space(), "x", 4, data).unwrap();
    let mut y =
        View1::<f64, LayoutRight, S::MemorySpace>::zeros_in(space.memory_space(), "y", 4).unwrap();
    parallel_for("report", RangePolicy::new(space, 0..4), &mut y, report(&x));
    parallel_for("tenth", RangePolicy::new(space, 0..4), &mut y, tenth());
    space.fence();
}

/// The `mark` and `tenth` lines the child for `space` printed, sorted
/// (threads print in any order).
fn lines_of(space: &str) -> Vec<String> {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "kernels_print_on_every_space",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, space)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{space}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // The harness writes `test <name> ... ` before the first line.
    let mut lines: Vec<String> = text
        .lines()
        .filter_map(|l| {
            l.find("mark ")
                .or_else(|| l.find("tenth "))
                .map(|at| l[at..].to_string())
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn kernels_print_on_every_space() {
    match std::env::var(CHILD).as_deref() {
        Ok("serial") => return print_on(&Serial),
        #[cfg(feature = "rayon")]
        Ok("rayon") => return print_on(&granule::Rayon::new(2).unwrap()),
        #[cfg(feature = "cuda")]
        Ok("cuda") => return print_on(&granule::Cuda::emulated().unwrap()),
        Ok(other) => panic!("no space {other} in this build"),
        Err(_) => {}
    }
    let serial = lines_of("serial");
    let mut expect: Vec<String> = (0..4)
        .flat_map(|i| {
            let x = i as f64 + 0.25;
            [
                format!(
                    "mark {i}: x = {x:.3}, half = {}, odd = {:?}, minus = {}",
                    x * 0.5,
                    i % 2 == 1,
                    -i
                ),
                format!("mark {i}: 100% of 4 {{braces}}"),
            ]
        })
        .collect();
    expect.push("tenth 0.1".into());
    expect.sort();
    assert_eq!(serial, expect);
    #[cfg(feature = "rayon")]
    assert_eq!(lines_of("rayon"), expect);
    #[cfg(feature = "cuda")]
    {
        // Every line but the tenth's is the host's text; a float in `{}`
        // prints digits that read back as the same value.
        let cuda = lines_of("cuda");
        let (tenth, marks): (Vec<_>, Vec<_>) = cuda.iter().partition(|l| l.starts_with("tenth "));
        assert_eq!(
            marks,
            expect
                .iter()
                .filter(|l| l.starts_with("mark "))
                .collect::<Vec<_>>()
        );
        let value: f64 = tenth[0]["tenth ".len()..].parse().unwrap();
        assert_eq!((tenth.len(), value), (1, 0.1), "{tenth:?}");
    }
}

/// The kernels compile for every GPU target.
#[cfg(feature = "cuda")]
#[test]
fn print_kernels_compile_for_gpus() {
    use granule::kernel::KernelSource;
    if !granule_cuda::nvrtc::available_or_skip("print_kernels_compile_for_gpus") {
        return;
    }
    let kernels = [
        <report<'static> as KernelSource>::KERNEL,
        <tenth as KernelSource>::KERNEL,
    ];
    assert_eq!(
        granule_cuda::nvrtc::check_kernels_everywhere(&kernels, "print.cu"),
        Ok(2)
    );
}
