// The shared host drivers trust their write parts: calling one takes `unsafe`.
use granule::base::exec::{host, Sequential};
use granule::base::write::Writes;
use granule::prelude::*;

fn main() {
    let mut y = View1::<f64>::zeros("y", 16).unwrap();
    let parts = (&mut y).into_parts("driver", 16usize);
    let f = |i: usize, yi: &mut f64| *yi = i as f64;
    host::range_for(Sequential, "driver", &RangePolicy::new(&Serial, 0..16), &parts, &f);
}
