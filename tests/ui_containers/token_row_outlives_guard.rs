// A per-token row is lent by the guard that holds its id: it cannot be
// kept once the guard has released the id.
use granule::containers::UniqueToken;
use granule::prelude::*;

fn main() {
    let mut token = UniqueToken::with_size_on(&Serial, 1).unwrap();
    let mut v = View2::<u32>::zeros("v", [1, 4]).unwrap();
    let rows = token.rows(&mut v).unwrap();
    let row = {
        let mut g = rows.acquire();
        g.row_mut()
    };
    row[0] = 1;
}
