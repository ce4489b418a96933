// `!` on #[device] results, whose types only C++ sees: the header's
// `not_` is logical on a bool and bitwise on an integer. On a known bool
// it is `!`, on a known integer `~` (cast back when narrow).
#[device]
fn even(x: u32) -> bool {
    x % 2 == 0
}

#[device]
fn low(x: u32) -> u8 {
    x as u8
}

#[device]
fn flip<T: Copy + core::ops::Not<Output = T>>(x: T) -> T {
    !x
}

#[kernel]
fn not_device(i: usize, y: &mut u32, m: &mut u8, b: &mut bool) {
    let mut x = i as u32;
    while !even(x) {
        x += 1;
    }
    if !even(x + 1) && !(x > 7) {
        *y = !x;
    }
    *m = !low(x);
    *b = !flip(even(x));
}
