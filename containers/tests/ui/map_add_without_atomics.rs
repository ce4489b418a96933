// An atomic-add insert needs a value type with atomic addition.
use granule_containers::UnorderedMap;
use granule_views::HostSpace;

#[derive(Clone, Copy, PartialEq, PartialOrd, granule_views::Zeroable)]
#[bytemuck(crate = "granule_views::bytemuck")]
#[repr(C)]
struct Pair(f64, f64);

fn main() {
    let mut map = UnorderedMap::<u64, Pair>::new_in(HostSpace, "m", 8).unwrap();
    map.inserter().insert_add(1, Pair(1.0, 2.0));
}
