// The translator reads the operation by its name; a name that means
// another type is refused, so the device cannot apply another operation
// than the host.
use granule::containers::ScatterView;
use granule::prelude::*;
use granule::reducer::Max as Min;

#[kernel]
fn lowest(i: usize, sv: &ScatterView<i64, 1, Min>) {
    sv.access().update(0, i as i64);
}

fn main() {}
