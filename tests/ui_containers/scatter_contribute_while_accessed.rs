// contribute_into reads every copy: not while a handle can still write one.
use granule::containers::ScatterView;
use granule::prelude::*;

fn main() {
    let mut counts = View1::<u32>::zeros("counts", 4).unwrap();
    let mut sv = ScatterView::<u32, 1>::for_view(&Serial, &counts).unwrap();
    let a = sv.access();
    sv.contribute_into(&mut counts).unwrap();
    a.add(0, 1);
}
