// A team kernel: member calls, scratch, nested ranges with closures, in
// granule-core's syntax.
#[kernel]
fn rows(team: &TeamMember, a: &View2<f64>, x: &View1<f64>, out: &AtomicView<'_, f64, 1>, counts: &AtomicView<'_, i64, 1>) {
    let row = team.league_rank();
    let n = x.extent(0);
    let mut cache = team.team_scratch::<f64, 1>(0, n).unwrap();
    TeamThreadRange::new(team, 0..n).parallel_for(|j| {
        cache[j] = x[j];
    });
    team.team_barrier();
    let sum = TeamThreadRange::new(team, 0..a.extent(1)).parallel_reduce(Sum, |j, acc: &mut f64| {
        let inner = ThreadVectorRange::new(team, 0..4).parallel_reduce(Sum, |v, part: &mut f64| {
            *part += a[[row, j]] * cache[j] * (v as f64);
        });
        *acc += inner;
    });
    let biggest = TeamVectorRange::new(team, 0..n).parallel_reduce(Max, |j, m: &mut f64| {
        *m = m.max(x[j]);
    });
    let total = TeamThreadRange::new(team, 0..8).parallel_scan(|j, partial: &mut i64, last: bool| {
        *partial += j as i64;
        if last {
            counts.add(j, *partial);
        }
    });
    let lead = team.team_broadcast(sum, 0);
    let ranks = team.team_reduce(Sum, team.team_rank());
    if team.team_rank() == 0 {
        out.add(row, lead + biggest + (total as f64) + (team.league_size() + team.team_size() + ranks) as f64);
    }
}
