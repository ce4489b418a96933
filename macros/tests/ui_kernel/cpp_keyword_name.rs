use granule::prelude::*;

// Device code is translated to C++, where `double` and `new` are
// keywords: the names are refused where they are written, not by NVRTC
// at the first launch.
#[kernel]
fn double(i: usize, y: &mut f64) {
    *y = 2.0 * i as f64;
}

#[kernel]
fn twice(i: usize, y: &mut f64) {
    let new = 2.0;
    *y = new * i as f64;
}

fn main() {}
