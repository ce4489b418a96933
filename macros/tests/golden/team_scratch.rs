// Team and thread scratch: levels 0 and 1 (or a run-time level), ranks 1
// and 2, and requests probed with `is_ok` / `is_err`. (No assertions here:
// their messages name the golden input's parse order.)
#[kernel]
fn staged(team: &TeamMember, x: &View2<f64>, out: &AtomicView<'_, f64, 1>) {
    let rows = x.extent(0);
    let cols = x.extent(1);
    let mut tile = team.team_scratch::<f64, 2>(1, [rows, cols]).unwrap();
    let mut mine = team.thread_scratch::<f64, 1>(0, [cols]).expect("per-thread row");
    let level = team.league_rank() % 2;
    if team.thread_scratch::<u32, 1>(level, 8).is_ok() {
        let mut flags = team.thread_scratch::<u32, 1>(level, 8).unwrap();
        flags[7] = 1;
    }
    let spills = team.team_scratch::<f64, 2>(0, [rows, cols]).is_err();
    TeamThreadRange::new(team, 0..rows).parallel_for(|r| {
        ThreadVectorRange::new(team, 0..cols).parallel_for(|c| {
            tile[[r, c]] = x[[r, c]];
            mine[c] += x[[r, c]];
        });
    });
    team.team_barrier();
    if spills {
        out.add(team.league_rank(), tile[[rows - 1, cols - 1]] + mine[0]);
    }
}
