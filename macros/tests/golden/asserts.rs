// Assertions: the device checks the condition, records file:line, the
// kernel and the condition's text or the custom message with its scalar
// arguments, and traps.
#[kernel]
fn checked(i: usize, y: &mut i64, n: usize, x: &View1<i64>) {
    assert!(i < n, "index {i} past {n}");
    assert_eq!(x[i] % 2, 0);
    assert_ne!(x[i], -2, "sentinel");
    *y = x[i] / 2;
}
