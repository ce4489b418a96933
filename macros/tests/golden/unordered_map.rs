// Maps: an inserter (insert, insert_add, find) and a read map (find,
// value_at), and the InsertResult of an insert bound by `let`.
#[kernel]
fn count_keys(i: usize, what: &mut u32, ins: &MapInserter<'_, u64, u32>, n: usize) {
    let r = ins.insert_add((i % n) as u64, 1);
    *what = if r.success() { 0 } else if r.existing() { 1 } else { 2 };
    assert!(ins.find((i % n) as u64) == r.index() || r.failed());
}

#[kernel]
fn lookup(i: usize, out: &mut u32, map: &UnorderedMap<u64, u32>) {
    let k = i as u64;
    *out = if map.exists(k) { map.value_at(map.find(k)) } else { 0 };
}
