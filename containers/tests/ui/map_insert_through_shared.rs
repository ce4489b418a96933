// Inserting needs the map's unique borrow: a kernel that captures `&map`
// to read it cannot insert.
use granule_containers::UnorderedMap;
use granule_views::HostSpace;

fn main() {
    let map = UnorderedMap::<u64, u32>::new_in(HostSpace, "m", 8).unwrap();
    let shared = &map;
    shared.inserter().insert(1, 2);
}
