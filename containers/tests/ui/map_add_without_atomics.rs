// An atomic-add insert needs a value type with atomic addition.
use granule_containers::UnorderedMap;
use granule_views::{HostSpace, Pod};

#[derive(Clone, Copy, PartialEq, PartialOrd)]
#[repr(C)]
struct Pair(f64, f64);
// SAFETY: two f64s.
unsafe impl Pod for Pair {}

fn main() {
    let mut map = UnorderedMap::<u64, Pair>::new_in(HostSpace, "m", 8).unwrap();
    map.inserter().insert_add(1, Pair(1.0, 2.0));
}
