// The handle's only write is the view's operation: `add` is Sum's.
use granule::containers::ScatterView;
use granule::prelude::*;

fn main() {
    let sv = ScatterView::<i32, 1, Min>::new_on(&Serial, "lo", 4).unwrap();
    sv.access().add(0, 1);
}
