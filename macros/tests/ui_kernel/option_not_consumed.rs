use granule::prelude::*;

// A `checked_*` result is an Option: the device form has no Option value,
// so the kernel must consume it at once (`.unwrap()`, `.unwrap_or(v)`, ..).
#[kernel]
fn sums(i: usize, y: &mut u32, x: &View1<u32>) {
    let s = x[i].checked_add(1);
    *y = s.unwrap();
}

fn main() {}
