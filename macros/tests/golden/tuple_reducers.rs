// Tuple accumulators: fields read and written as `acc.N`, reduced by a
// tuple of reducers (the call's choice, e.g. `(Sum, Max, Sum)`).
use granule::prelude::*;

#[kernel(reduce)]
pub fn sum_max_count(i: usize, x: &View1<f64>, a: &mut (f64, f64, usize)) {
    a.0 += x[i];
    a.1 = a.1.max(x[i]);
    a.2 += 1;
}

#[kernel(reduce)]
pub fn min_and_flag(i: usize, a: &mut (f32, bool)) {
    (*a).0 = a.0.min(0.5 * i as f32);
    a.1 = a.1 || i % 7 == 3;
}
