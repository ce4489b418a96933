// Team chunk outputs: the team's part of a chunked View (read-only), the
// thread's part from `chunk_mut(..).unwrap()` (writable); `single`,
// `team_scan` and `team_scan_global`. A team reads its part or divides it
// among its threads, not both.
#[kernel]
fn read_rows(m: &TeamMember, g: &AtomicView<'_, u64, 1>, row: TeamChunk<u64>) {
    let first = single(PerTeam(m), || row[0] + 1);
    single(PerTeam(m), || g.add(0, first));
}

#[kernel]
fn chunk_rows(m: &TeamMember, n: usize, g: &AtomicView<'_, u64, 1>, mut row: TeamChunk<u64>) {
    let first = single(PerTeam(m), || m.league_rank() as u64 + 1);
    let mut mine = row.chunk_mut(MapIdentity, m.thread_ids()).unwrap();
    let lane = single(PerThread(m), || {
        let t = m.team_rank() as u64;
        t * 2
    });
    mine[n - 1] = m.team_scan(first) + lane;
    mine[0] = m.team_scan_global(first, g, 0);
}

#[kernel]
fn blocks(m: &TeamMember, mut part: TeamChunk<'_, f32, MapContinuousLinear>) {
    let mut mine = part.chunk_mut(MapContinuousLinear::new(2), m.thread_ids()).unwrap();
    mine[1] = mine[0] * 0.5;
}
