use granule_macros::kernel;

#[kernel]
fn named(i: usize, label: String) {}

fn main() {}
