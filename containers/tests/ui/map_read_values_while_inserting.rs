// While an inserter lives, other work items may add to any value, so the
// map's values cannot be read.
use granule_containers::UnorderedMap;
use granule_views::HostSpace;

fn main() {
    let mut map = UnorderedMap::<u64, u32>::new_in(HostSpace, "m", 8).unwrap();
    let ins = map.inserter();
    let r = ins.insert_add(1, 2);
    let v = map.value_at(r.index());
    ins.insert_add(1, v);
}
