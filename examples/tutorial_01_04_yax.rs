//! kokkos-tutorials Exercises 01–04: the inner product yᵀAx.
//!
//! One dispatch per repetition: a `parallel_reduce` over the rows (a
//! RangePolicy), each row looping over the columns. As in the exercises,
//! y, x and A live in the execution space's memory (device Views on
//! Cuda), are filled on the host through mirrors and copied over
//! (Exercise 03), and A is stored row-major (LayoutRight) or column-major
//! (LayoutLeft), which decides whether a row's loop walks memory with
//! stride 1 or with the stride of a column (Exercise 04).
//!
//! Flags as in the original: `-N e` rows = 2^e, `-M e` columns = 2^e,
//! `-S e` total size 2^e, `-nrepeat n`, plus `-layout right|left|both`
//! (default both). The default size is small so the test run stays
//! short; the original's is `-S 22 -nrepeat 100`.
//!
//! It checks the result against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// yⱼ · Σᵢ A(j, i) xᵢ for row j, with A row-major.
#[kernel(reduce)]
pub fn yax_row_right(j: usize, y: &View1<f64>, a: &View2<f64>, x: &View1<f64>, acc: &mut f64) {
    let mut row = 0.0;
    for i in 0..x.extent(0) {
        row += a[[j, i]] * x[i];
    }
    *acc += y[j] * row;
}

/// The same with A column-major: consecutive `i` are a column apart.
#[kernel(reduce)]
pub fn yax_row_left(
    j: usize,
    y: &View1<f64>,
    a: &View2<f64, LayoutLeft>,
    x: &View1<f64>,
    acc: &mut f64,
) {
    let mut row = 0.0;
    for i in 0..x.extent(0) {
        row += a[[j, i]] * x[i];
    }
    *acc += y[j] * row;
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-nrepeat"], "10", "repetitions"),
    common::Flag::new(&["-layout"], "both", "left, right or both"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[common::YAX_FLAGS, FLAGS]);
    let (n, m) = common::yax_sizes(&flags);
    let nrepeat: usize = flags.value("-nrepeat");
    let layouts: String = flags.value("-layout");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let mut y = View1::zeros_on(&space, "y", n)?;
    let mut x = View1::zeros_on(&space, "x", m)?;
    // Exercise 03: fill host mirrors, then copy them to the space's memory.
    let mut h_y = create_mirror(&y)?;
    let mut h_x = create_mirror(&x)?;
    for j in 0..n {
        h_y[j] = common::y_at(j);
    }
    for i in 0..m {
        h_x[i] = common::x_at(i);
    }
    deep_copy(&mut y, &h_y)?;
    deep_copy(&mut x, &h_x)?;
    let solution = common::yax_solution(n, m);

    let mut failed = false;
    if matches!(layouts.as_str(), "right" | "both") {
        let mut a = View2::zeros_on(&space, "A", [n, m])?;
        let mut h_a = create_mirror(&a)?;
        for j in 0..n {
            for i in 0..m {
                h_a[[j, i]] = common::a_at(j, i);
            }
        }
        deep_copy(&mut a, &h_a)?;
        let run = || -> f64 {
            let policy = RangePolicy::new(&space, 0..n);
            parallel_reduce("yAx LayoutRight", policy, Sum, yax_row_right(&y, &a, &x))
        };
        failed |= report("LayoutRight", &space, n, m, nrepeat, solution, run);
    }
    if matches!(layouts.as_str(), "left" | "both") {
        let mut a = View2::<f64, LayoutLeft, _>::zeros_in(space.memory_space(), "A", [n, m])?;
        let mut h_a = create_mirror(&a)?;
        for j in 0..n {
            for i in 0..m {
                h_a[[j, i]] = common::a_at(j, i);
            }
        }
        deep_copy(&mut a, &h_a)?;
        let run = || -> f64 {
            let policy = RangePolicy::new(&space, 0..n);
            parallel_reduce("yAx LayoutLeft", policy, Sum, yax_row_left(&y, &a, &x))
        };
        failed |= report("LayoutLeft", &space, n, m, nrepeat, solution, run);
    }
    if !matches!(layouts.as_str(), "right" | "left" | "both") {
        return Err(format!("-layout: `{layouts}` is not right, left or both").into());
    }
    if failed {
        std::process::exit(1);
    }
    Ok(())
}

/// Runs `run` `nrepeat` times, checks each result, and prints the
/// exercises' line. True when a result was wrong.
fn report(
    layout: &str,
    space: &DefaultExecutionSpace,
    n: usize,
    m: usize,
    nrepeat: usize,
    solution: f64,
    mut run: impl FnMut() -> f64,
) -> bool {
    let mut failed = false;
    let (_, time) = common::timed(space, || {
        for _ in 0..nrepeat {
            let result = run();
            if result != solution {
                println!("  Error: result( {result:.6} ) != solution( {solution:.6} )");
                failed = true;
            }
        }
    });
    let dims = format!("N( {n} ) M( {m} )");
    let prefix = format!("{layout}: ");
    common::print_bandwidth(&prefix, &dims, nrepeat, common::yax_bytes(n, m), time);
    failed
}
