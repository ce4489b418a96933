// A handle writes its thread's private copy with plain stores: sent to
// another thread, two threads would write one copy.
use granule::containers::ScatterView;
use granule::prelude::*;

fn main() {
    let sv = ScatterView::<u32, 1>::new_on(&Serial, "h", 4).unwrap();
    let a = sv.access();
    std::thread::scope(|s| {
        s.spawn(move || a.add(0, 1));
    });
}
