// reset frees the threads' copies: not while a kernel holds the ScatterView.
use granule::containers::ScatterView;
use granule::prelude::*;

fn main() {
    let mut sv = ScatterView::<u32, 1>::new_on(&Serial, "h", 4).unwrap();
    let r = &sv;
    sv.reset().unwrap();
    parallel_for("h", RangePolicy::new(&Serial, 0..4), (), |i: usize, (): ()| r.access().add(i, 1));
}
