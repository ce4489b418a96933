//! kokkos-tutorials `team_vector_loop`: a batch of E problems yᵀA⁽ᵉ⁾x,
//! with all three levels of hierarchical parallelism. Team e takes
//! problem e, its threads split the rows (TeamThreadRange), each thread's
//! vector lanes split a row's columns (ThreadVectorRange), one lane per
//! thread multiplies by yⱼ (`single(PerThread)`), and one member per team
//! adds the team's sum (`single(PerTeam)`).
//!
//! Flags as in the original: `-N e` rows = 2^e, `-M e` columns = 2^e,
//! `-S e` size of one problem 2^e, `-E e` problems = 2^e, `-nrepeat n`.
//! Defaults are small (S = 2^12, E = 2^4, nrepeat 10) so the test run
//! stays short; pass larger sizes with the flags. `-team t` and
//! `-vector v` set the team size and vector length (by default up to 32
//! lanes, and AUTO).
//!
//! It checks the result against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// Team e computes problem e.
#[kernel(reduce)]
pub fn team_vector_yax(
    team: &TeamMember,
    y: &View1<f64>,
    a: &View3<f64>,
    x: &View1<f64>,
    acc: &mut f64,
) {
    let e = team.league_rank();
    let n = y.extent(0);
    let m = x.extent(0);
    let problem = TeamThreadRange::new(team, 0..n).parallel_reduce(Sum, |j, rs: &mut f64| {
        let row = ThreadVectorRange::new(team, 0..m)
            .parallel_reduce(Sum, |i, s: &mut f64| *s += a[[e, j, i]] * x[i]);
        *rs += single(PerThread(team), || y[j] * row);
    });
    // Every thread holds the problem's sum: one member adds it.
    single(PerTeam(team), || *acc += problem);
}

/// A(e, j, i): the yᵀAx exercises' A, shifted by the problem index.
fn a_at(e: usize, j: usize, i: usize) -> f64 {
    ((i + 2 * j + e) % 3 + 1) as f64
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-S", "-Size"], "12", "elements per matrix = 2^S"),
    common::Flag::new(
        &["-M", "-Columns"],
        "",
        "columns = 2^M (default min(2^S, 1024))",
    ),
    common::Flag::new(&["-N", "-Rows"], "", "rows = 2^N (default 2^S / columns)"),
    common::Flag::new(&["-E"], "4", "matrices = 2^E"),
    common::Flag::new(&["-nrepeat"], "10", "repetitions"),
    common::Flag::new(
        &["-vector"],
        "",
        "vector lanes (default the space's maximum, at most 32)",
    ),
    common::Flag::new(&["-team"], "0", "threads per team (0: AUTO)"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let s = flags.pow2("-S").expect("-S has a default");
    let m = flags.pow2("-M").unwrap_or(s.min(1024));
    let n = flags.pow2("-N").unwrap_or(s / m);
    let e = flags.pow2("-E").expect("-E has a default");
    println!("  Total size S = {} N = {n} M = {m} E = {e}", n * m);
    let nrepeat: usize = flags.value("-nrepeat");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let (y_at, x_at) = (common::y_at, common::x_at);
    let y = View1::from_fn_on(&space, "y", n, y_at)?;
    let x = View1::from_fn_on(&space, "x", m, x_at)?;
    let a = View3::from_fn_on(&space, "A", [e, n, m], |[p, j, i]| a_at(p, j, i))?;
    let solution: f64 = (0..e)
        .map(|p| {
            (0..n)
                .map(|j| y_at(j) * (0..m).map(|i| a_at(p, j, i) * x_at(i)).sum::<f64>())
                .sum::<f64>()
        })
        .sum();

    // Lanes split a row: as many as the space allows, up to 32.
    let vector = flags
        .given("-vector")
        .unwrap_or(32usize.min(space.vector_length_max()));
    // AUTO divides the recommended team size by the lanes (on Cuda: 8
    // threads of 32 lanes, a block of 256).
    let team: usize = flags.value("-team");
    let policy = if team == 0 {
        TeamPolicy::new(&space, e, AUTO)
    } else {
        TeamPolicy::new(&space, e, team)
    };
    let policy = policy.with_vector_length(vector)?;
    println!(
        "  league size {e}, team size {}, vector length {}",
        policy.team_size(),
        policy.vector_length()
    );
    let mut wrong = None;
    let (_, time) = common::timed(&space, || {
        for _ in 0..nrepeat {
            let result: f64 =
                parallel_reduce("yAx team vector", policy, Sum, team_vector_yax(&y, &a, &x));
            if result != solution {
                wrong = Some(result);
            }
        }
    });
    let bytes = std::mem::size_of::<f64>() * (n + m + n * m * e);
    let dims = format!("N( {n} ) M( {m} ) E( {e} )");
    common::print_bandwidth("", &dims, nrepeat, bytes, time);
    common::exit_if_wrong(wrong, solution);
    Ok(())
}
