// Nor may two threads share one handle by reference.
use granule::containers::ScatterView;
use granule::prelude::*;

fn main() {
    let sv = ScatterView::<u32, 1>::new_on(&Serial, "h", 4).unwrap();
    let a = sv.access();
    std::thread::scope(|s| {
        s.spawn(|| a.add(0, 1));
        a.add(1, 1);
    });
}
