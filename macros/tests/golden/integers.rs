// Integer semantics: exact widths, wrapping signed ops, checked division,
// masked shifts, bit operators, integer min/max/abs, saturating casts.
#[kernel]
fn ints(i: usize, y: &mut i64, a: i32, b: u32, c: isize, x: &View1<u64>) {
    let q = a / 7 + a % 7 - (-a);
    let r = (b << 3) >> 1u32 | b & 0xff ^ !b;
    let m = q.min(-3).max(a.abs());
    let w = x[i] * 3 + (c as u64);
    let ok = q > 0 && r != 0 || !(w == 0);
    let f = (w as f64) * 0.5;
    if ok {
        *y = (m as i64) + (f as i64) + (r as i64) + i64::MAX / (i as i64 + 1);
    } else {
        *y = -1;
    }
}
