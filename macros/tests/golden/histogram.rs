// Scatter through an atomic View, with a #[device] helper and constant.
#[device]
const BINS: usize = 16;

#[device]
fn bin_of(v: f32, lo: f32, width: f32) -> usize {
    let b = ((v - lo) / width) as usize;
    if b >= 16 { 15 } else { b }
}

#[kernel]
fn histogram(i: usize, x: &View1<f32>, lo: f32, width: f32, h: &AtomicView<'_, u32, 1>, m: &AtomicView<'_, f32, 1>) {
    let b: usize = bin_of(x[i], lo, width);
    h.add(b % BINS, 1);
    let old = h.fetch_add(0, 0);
    m.max(0, x[i]);
    m.min(1, x[i]);
    let prev = m.exchange(2, x[i]);
    if !m.compare_exchange(3, prev, x[i]).is_ok() {
        m.store(4, h.load(5) as f32 + (old as f32));
    }
}
