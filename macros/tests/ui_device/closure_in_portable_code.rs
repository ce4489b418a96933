// Code generic over the space runs on device spaces too, so its patterns
// take #[kernel] functors only: a closure is refused with a message
// saying so.
use granule::portable::parallel_for;
use granule::prelude::*;

fn ones<S: PortableSpace>(space: &S, n: usize) {
    let mut y = View1::zeros_on(space, "y", n).unwrap();
    parallel_for("ones", RangePolicy::new(space, 0..n), &mut y, |_i: usize, y: &mut f64| {
        *y = 1.0
    });
}

fn main() {
    ones(&Serial, 4);
}
