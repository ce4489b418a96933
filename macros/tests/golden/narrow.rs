// 8- and 16-bit integers: typed literals, results cast back to the narrow
// type (C++ promotes to int), so `+`, `!`, `<<` wrap like Rust's; `+ - *`
// go through the header's helpers, since `u16 * u16` overflows `int`.
#[kernel]
fn narrow(i: usize, y: &mut u8, z: &mut i16, a: i8, b: u16, x: &View1<u8>) {
    let s = x[i] + 200;
    let n = !s;
    let mut t = (b * 3) << 4u32;
    t *= b;
    let c = (a - 1).abs().max(-5);
    *y = s.min(n) | (t as u8);
    *z = (c as i16) * 300 + (2.5e9f64 as i16) / 2;
}
