// Nested reductions with location and min-max accumulators, and nested
// scans combined by any scalar reducer, on the three nested ranges. (No
// assertions here: their messages name the golden input's parse order.)
#[kernel(reduce)]
fn nested_folds(team: &TeamMember, x: &View1<f64>, k: &View1<u32>, acc: &mut ValLocScalar<f64, usize>) {
    let n = x.extent(0);
    let lo = ThreadVectorRange::new(team, 0..n).parallel_reduce(MinLoc, |i, a: &mut ValLocScalar<f64, usize>| {
        a.update_min(x[i], i);
    });
    let both = TeamVectorRange::new(team, 0..n).parallel_reduce(MinMaxLoc, |i, a: &mut MinMaxLocScalar<f64, u32>| {
        a.update(x[i], k[i]);
    });
    let span = TeamThreadRange::new(team, 0..n).parallel_reduce(MinMax, |i, a: &mut MinMaxScalar<f64>| a.update(x[i]));
    let bits = TeamThreadRange::new(team, 0..n).parallel_scan_with(BOr, |i, p: &mut u32, last: bool| {
        *p |= k[i];
        if last && *p < k[i] {
            *p = 0;
        }
    });
    let all = ThreadVectorRange::new(team, 0..n).parallel_scan_with(LAnd, |i, p: &mut bool, _| *p = *p && x[i] > 0.0);
    let count = ThreadVectorRange::new(team, 0..n).parallel_scan(|_, p: &mut usize, _| *p += 1);
    let least = TeamVectorRange::new(team, 0..n).parallel_scan_with(Min, |i, p: &mut f64, _| *p = p.min(x[i]));
    if all && bits != 0 && count == n && lo.val == least && both.min_val == span.min_val {
        acc.update_max(both.max_val, lo.loc);
        acc.val += span.max_val - span.min_val + (both.max_loc as f64);
    }
}
