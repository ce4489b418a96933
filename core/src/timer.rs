//! Kokkos's `Timer`: wall-clock seconds since it was made or last reset.

use std::time::{Duration, Instant};

/// Wall-clock time since the timer was made or last [`reset`](Timer::reset),
/// as Kokkos's `Kokkos::Timer` measures it. It does not fence: time a
/// dispatch on an asynchronous space (Cuda) with a fence before reading it.
///
/// ```
/// use granule_core::Timer;
/// let mut t = Timer::new();
/// std::thread::sleep(std::time::Duration::from_millis(2));
/// assert!(t.seconds() >= 0.002);
/// t.reset();
/// assert!(t.seconds() < 1.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Timer {
    start: Instant,
}

impl Timer {
    /// A timer that starts now.
    pub fn new() -> Self {
        Timer {
            start: Instant::now(),
        }
    }

    /// Seconds since the start (Kokkos's `seconds()`).
    pub fn seconds(&self) -> f64 {
        self.elapsed().as_secs_f64()
    }

    /// The time since the start, as a `Duration`.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Starts again from now (Kokkos's `reset()`).
    pub fn reset(&mut self) {
        self.start = Instant::now();
    }
}

impl Default for Timer {
    /// [`Timer::new`].
    fn default() -> Self {
        Timer::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_grow_and_reset_starts_again() {
        let mut t = Timer::new();
        let a = t.seconds();
        std::thread::sleep(Duration::from_millis(5));
        let b = t.seconds();
        assert!(b >= a + 0.005, "{a} then {b}");
        t.reset();
        assert!(t.seconds() < b, "reset starts from now");
    }
}
