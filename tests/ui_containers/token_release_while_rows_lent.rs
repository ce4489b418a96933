// While rows are lent, the token is borrowed uniquely: a raw release
// could free an id whose guard still lends its row.
use granule::containers::UniqueToken;
use granule::prelude::*;

fn main() {
    let mut token = UniqueToken::with_size_on(&Serial, 1).unwrap();
    let mut v = View2::<u32>::zeros("v", [1, 4]).unwrap();
    let rows = token.rows(&mut v).unwrap();
    let g = rows.acquire();
    token.release(g.id());
    drop(g);
}
