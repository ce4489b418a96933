// The handle lends no element: there is nothing to assign through.
use granule::containers::ScatterView;
use granule::prelude::*;

fn main() {
    let sv = ScatterView::<u32, 1>::new_on(&Serial, "h", 4).unwrap();
    let a = sv.access();
    a[0] = 5;
}
