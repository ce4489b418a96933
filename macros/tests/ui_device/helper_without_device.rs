// A helper that a kernel calls must be a #[device] fn: the error is at
// the call.
use granule::prelude::*;

mod helpers {
    pub fn twice(x: f64) -> f64 {
        2.0 * x
    }
}

use helpers::twice;

#[kernel]
fn scale(i: usize, y: &mut f64) {
    *y = twice(i as f64);
}

fn main() {}
