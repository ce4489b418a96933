// The `core` methods with an exact device form: each becomes the header's
// function of the same name. `overflowing_*` pairs are destructured or read
// by field; `checked_*` Options are consumed at once, and a failed `unwrap`
// or `expect` fails on the device with Rust's message.
#[kernel]
fn core_methods(i: usize, y: &mut u64, z: &mut f32, a: i32, b: u16, x: &View1<f32>) {
    let (v, over) = a.overflowing_mul(3);
    let w = a.overflowing_sub(v).0;
    let s = b.saturating_add(60000).rotate_left(3) + b.count_ones() as u16;
    let c = a.checked_div(v).unwrap() + a.checked_rem(7).expect("seven")
        + i32::checked_add(a, 1).unwrap_or(0);
    let d = if a.checked_neg().is_some() {
        a.wrapping_neg()
    } else {
        a.abs_diff(w) as i32
    };
    let bits = f32::from_bits(b as u32).to_bits() as u64;
    *y = (c as u64) ^ (d.rem_euclid(5) as u64) ^ (s as u64) ^ (over as u64) ^ bits;
    let f = x[i];
    let sign = if f.is_nan() { 0.0 } else { f.signum() };
    *z = f.round().copysign(-1.0) + f.fract().max(f32::from_bits(1)) + f.mul_add(2.0, f.powi(3)) + sign;
}

// Untyped literals next to a `#[device]` call take its result type,
// spelled `Plain<decltype(..)>`; a literal among the call's arguments
// keeps its own type inside that spelling. A block among the arguments is
// a lambda, which C++17 keeps out of `decltype`: that result is `auto`,
// and its arithmetic still wraps, in the left operand's type.
#[device]
fn twice(v: i64) -> i64 {
    v * 2
}

#[kernel]
fn device_literals(_i: usize, y: &mut i64, n: i64) {
    *y = twice(1) * 3 + twice(n - 1);
    *y += twice({
        let t = n + 1;
        t * t
    }) * 2;
}
