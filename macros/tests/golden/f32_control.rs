// An f32 kernel exercising control flow: if/else (also as values), loops
// over ranges with step_by and rev, while, loop/break/continue, blocks,
// consts, math methods and casts. No double appears in the output.
#[kernel]
fn control(i: usize, y: &mut f32, x: &View2<f32, LayoutLeft>, n: usize) {
    const SCALE: f32 = 0.5;
    let mut acc = 0.0;
    for j in 0..x.extent(1) {
        acc += x[[i, j]];
    }
    for j in (0..n).step_by(2) {
        acc -= (j as f32) * SCALE;
    }
    for j in (1..=n).rev() {
        if j % 3 == 0 {
            continue;
        }
        acc = acc.mul_add(0.99, 1.0);
    }
    for j in (0..n).rev().step_by(3) {
        acc += j as f32;
    }
    let mut k = 0u32;
    while k < 4 {
        k += 1;
    }
    loop {
        if acc > 100.0 {
            break;
        }
        acc *= 2.0;
    }
    let sign = if acc < 0.0 { -1.0 } else { 1.0 };
    let mag = {
        let s = acc.abs().sqrt();
        s.max(0.25).min(4.0).clamp(0.0, 3.0)
    };
    let t = if k > 2 {
        let u = mag.exp().ln();
        u.sin() * u.cos() + u.tanh()
    } else {
        mag.powi(3) + mag.powf(1.5) + mag.floor() + mag.ceil()
    };
    *y = sign * t + (acc as i32) as f32;
}
