use granule::prelude::*;

// A location accumulator is reduced by its own reducers only.
#[kernel(reduce)]
fn lowest(m: &TeamMember, x: &View1<f64>, acc: &mut usize) {
    TeamThreadRange::new(m, 0..x.extent(0))
        .parallel_reduce(MinMax, |i, a: &mut ValLocScalar<f64, usize>| a.update_min(x[i], i));
    *acc += 1;
}

fn main() {}
