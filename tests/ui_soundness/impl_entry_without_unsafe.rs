// A backend entry point trusts its write parts: calling it takes `unsafe`.
use granule::base::pattern::ParallelForImpl;
use granule::base::write::Writes;
use granule::prelude::*;

fn main() {
    let mut y = View1::<f64>::zeros("y", 16).unwrap();
    let parts = (&mut y).into_parts("direct", 16usize);
    let f = |i: usize, yi: &mut f64| *yi = i as f64;
    Serial.parallel_for_impl("direct", &RangePolicy::new(&Serial, 0..16), parts, &f);
}
