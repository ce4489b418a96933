// The inserter borrows the map: it cannot outlive it.
use granule_containers::UnorderedMap;
use granule_views::HostSpace;

fn main() {
    let ins = {
        let mut map = UnorderedMap::<u64, u32>::new_in(HostSpace, "m", 8).unwrap();
        map.inserter()
    };
    ins.insert(1, 2);
}
