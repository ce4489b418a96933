use granule_macros::kernel;

#[kernel]
fn mixed(i: usize, y: &mut f32, a: f64) {
    *y = a;
}

fn main() {}
