// A UniqueToken: acquire an id, add through an atomic View indexed by it,
// release it; the token's size read as a bound.
#[kernel]
fn per_token_count(i: usize, token: &UniqueToken, partial: &AtomicView<'_, u64, 2>, bins: usize) {
    let id = token.acquire();
    assert!(id < token.size());
    partial.add([id, i % bins], 1);
    token.release(id);
}
