// The handle a dispatch lends a work item (the ScatterView as its written
// argument) lives for that item only: it cannot be kept for later.
use granule::containers::scatter::{ScatterAccess, ScatterView};
use granule::prelude::*;
use std::cell::RefCell;

thread_local! {
    static KEPT: RefCell<Option<ScatterAccess<'static, u32, 1>>> = const { RefCell::new(None) };
}

fn main() {
    let sv = ScatterView::<u32, 1>::new_on(&Serial, "h", 4).unwrap();
    parallel_for("h", RangePolicy::new(&Serial, 0..4), &sv, |_i: usize, a: ScatterAccess<'_, u32, 1>| {
        KEPT.with(|k| *k.borrow_mut() = Some(a));
    });
}
