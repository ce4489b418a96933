// Clearing (or rehashing) replaces the slots: not while an inserter lives.
use granule_containers::UnorderedMap;
use granule_views::HostSpace;

fn main() {
    let mut map = UnorderedMap::<u64, u32>::new_in(HostSpace, "m", 8).unwrap();
    let ins = map.inserter();
    map.clear().unwrap();
    ins.insert(1, 2);
}
