// One guard lends its row once at a time: two `&mut` rows of one id
// would alias.
use granule::containers::UniqueToken;
use granule::prelude::*;

fn main() {
    let mut token = UniqueToken::with_size_on(&Serial, 1).unwrap();
    let mut v = View2::<u32>::zeros("v", [1, 4]).unwrap();
    let rows = token.rows(&mut v).unwrap();
    let mut g = rows.acquire();
    let a = g.row_mut();
    let b = g.row_mut();
    a[0] = b[0] + 1;
}
