use granule_macros::kernel;

#[kernel]
fn noisy(i: usize, y: &mut f64) {
    dbg!(i);
    *y = 1.0;
}

fn main() {}
