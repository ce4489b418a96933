// Location and min-max accumulators: the reducers' structs, updated through
// their methods (ties keep the smaller location, as on the host).
#[kernel(reduce)]
fn peak(i: usize, x: &View1<f32>, a: &mut ValLocScalar<f32, u32>) {
    a.update_max(x[i] * 2.0, i as u32);
}

#[kernel(reduce)]
fn spread(i: usize, x: &View1<i64>, a: &mut MinMaxLocScalar<i64, usize>) {
    a.update(x[i] - 1, i);
}

#[kernel(reduce)]
fn range_of(i: usize, a: &mut MinMaxScalar<u16>) {
    a.update((i % 7) as u16);
}

// A multi-index location: `[usize; R]` is `granule::Loc<R>`, written `[i, j]`.
#[kernel(reduce)]
fn peak2([i, j]: [usize; 2], a: &View2<f64>, acc: &mut ValLocScalar<f64, [usize; 2]>) {
    acc.update_max(a[[i, j]], [i, j + 1]);
}
