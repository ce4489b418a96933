// `#[device]` functions that take and return a `#[device] struct` by
// value: the struct's C++ twin is the parameter and return type, a call's
// result (a `decltype`) meets the declared struct, and a kernel carries
// the value in a local.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pair {
    lo: u64,
    hi: u64,
}

#[device]
fn start(seed: u64) -> Pair {
    Pair { lo: seed, hi: !seed }
}

#[device]
fn step(p: Pair) -> Pair {
    Pair {
        lo: p.hi ^ (p.lo << 7),
        hi: p.lo,
    }
}

#[device]
fn steps(p: Pair, n: usize) -> Pair {
    let mut q = p;
    for _k in 0..n {
        q = step(q);
    }
    q
}

#[kernel]
fn mix(i: usize, y: &mut u64, n: usize) {
    let p = steps(start(i as u64), n);
    *y = p.lo ^ p.hi;
}
