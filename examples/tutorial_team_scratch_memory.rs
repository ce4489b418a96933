//! kokkos-tutorials `team_scratch_memory`: yᵀAx with one team per row,
//! where the team first copies x into team scratch (level 0: a block's
//! shared memory on Cuda, a cache-sized buffer on the host), waits at a
//! barrier, and then reads x from scratch for the row's product.
//!
//! Flags as in the original: `-N e` rows = 2^e, `-M e` columns = 2^e,
//! `-S e` total size 2^e (default 2^16 here, 2^22 in the original),
//! `-nrepeat n` (default 10, 100 in the original).
//!
//! It checks the result against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// Team j computes row j with x staged in its scratch.
#[kernel(reduce)]
pub fn team_scratch_yax(
    team: &TeamMember,
    y: &View1<f64>,
    a: &View2<f64>,
    x: &View1<f64>,
    acc: &mut f64,
) {
    let j = team.league_rank();
    let m = x.extent(0);
    // The policy reserved m f64s per team at level 0: this cannot fail.
    let mut s_x = team.team_scratch::<f64, 1>(0, m).unwrap();
    TeamThreadRange::new(team, 0..m).parallel_for(|i| s_x[i] = x[i]);
    // Every thread reads elements other threads copied.
    team.team_barrier();
    let row = TeamThreadRange::new(team, 0..m)
        .parallel_reduce(Sum, |i, s: &mut f64| *s += a[[j, i]] * s_x[i]);
    // Every thread holds the row's sum: one member adds it.
    single(PerTeam(team), || *acc += y[j] * row);
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[common::Flag::new(&["-nrepeat"], "10", "repetitions")];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[common::YAX_FLAGS, FLAGS]);
    let (n, m) = common::yax_sizes(&flags);
    let nrepeat: usize = flags.value("-nrepeat");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));

    let y = View1::from_fn_on(&space, "y", n, common::y_at)?;
    let x = View1::from_fn_on(&space, "x", m, common::x_at)?;
    let a = View2::from_fn_on(&space, "A", [n, m], |[j, i]| common::a_at(j, i))?;
    let solution = common::yax_solution(n, m);

    // Too many columns for level 0 is a typed error here, not a failed
    // launch.
    let policy = TeamPolicy::new(&space, n, AUTO)
        .with_scratch_size(0, PerTeam(m * std::mem::size_of::<f64>()))?;
    println!(
        "  league size {n}, team size {}, scratch {} bytes per team",
        policy.team_size(),
        policy.team_scratch_size(0)
    );
    let mut wrong = None;
    let (_, time) = common::timed(&space, || {
        for _ in 0..nrepeat {
            let result: f64 =
                parallel_reduce("yAx scratch", policy, Sum, team_scratch_yax(&y, &a, &x));
            if result != solution {
                wrong = Some(result);
            }
        }
    });
    let dims = format!("N( {n} ) M( {m} )");
    common::print_bandwidth("", &dims, nrepeat, common::yax_bytes(n, m), time);
    common::exit_if_wrong(wrong, solution);
    Ok(())
}
