//! `reshape_map!` expands to paths that resolve from a user crate, through
//! granule-views and through the umbrella crate and its prelude.

#[test]
fn through_granule_views() {
    let map = granule_views::reshape_map!([3] | [4] => layout: [t0, i0]).unwrap();
    let owners = granule_views::chunk::owner_table(map, 4, 3, 12);
    assert_eq!(owners, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3].map(Some));
}

#[test]
fn through_the_umbrella_crate() {
    let map = granule::reshape_map!([(3, 4)] | [2, 2] => layout: [i0, t0, t1]).unwrap();
    let owners = granule::chunk::owner_table(map, 4, 3, 12);
    let expected = [0, 0, 0, 9, 1, 1, 1, 9, 2, 2, 2, 9].map(|o| (o != 9).then_some(o));
    assert_eq!(owners, expected);
}

#[test]
fn through_the_prelude() {
    use granule::prelude::*;
    let extent = 2;
    let map: ReshapeMap =
        reshape_map!([extent] | [extent] => layout: [-t0, i0], offset: 1).unwrap();
    let t = ThreadIds::linear(2, 0).unwrap();
    assert_eq!((map.map(0, &t), map.map(1, &t)), (Some(2), Some(4)));
}
