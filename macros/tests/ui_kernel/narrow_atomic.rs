use granule_macros::kernel;

#[kernel]
fn bump(i: usize, h: &AtomicView<'_, u8, 1>) {
    h.add(i, 1);
}

fn main() {}
