// In a #[kernel] too, `mul` is Prod's only.
use granule::containers::ScatterView;
use granule::prelude::*;

#[kernel]
fn wrong(i: usize, sv: &ScatterView<u64, 1>) {
    sv.access().mul(i, 2);
}

fn main() {}
