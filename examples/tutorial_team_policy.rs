//! kokkos-tutorials `team_policy`: yᵀAx with one team per row. The team's
//! threads split the row's columns (a TeamThreadRange reduction), and one
//! member of the team adds yⱼ times the row's sum (`single(PerTeam)`).
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

/// Team j computes row j.
#[kernel(reduce)]
pub fn team_policy_yax(
    team: &TeamMember,
    y: &View1<f64>,
    a: &View2<f64>,
    x: &View1<f64>,
    acc: &mut f64,
) {
    let j = team.league_rank();
    let row = TeamThreadRange::new(team, 0..x.extent(0))
        .parallel_reduce(Sum, |i, s: &mut f64| *s += a[[j, i]] * x[i]);
    // Every thread of the team holds the row's sum: one member adds it,
    // or the row would count once per thread.
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

    let policy = TeamPolicy::new(&space, n, AUTO);
    println!("  league size {n}, team size {} (AUTO)", policy.team_size());
    let mut wrong = None;
    let (_, time) = common::timed(&space, || {
        for _ in 0..nrepeat {
            let result: f64 = parallel_reduce("yAx team", policy, Sum, team_policy_yax(&y, &a, &x));
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
