//! The draws every generator offers, with Kokkos's names. Kokkos
//! overloads each draw three ways, `urand()`, `urand(end)` and
//! `urand(start, end)`; Rust has no overloading, so the bound forms are
//! spelled `urand_to(end)` (in `0..end`) and `urand_in(start, end)` (in
//! `start..end`), and likewise for `urand64`, `rand`, `rand64`, `frand`
//! and `drand`. The `try_*_in` forms return the range's error instead of
//! panicking.

use super::bits::{reject_below, unit_f32, unit_f64};
use super::range::{check_float, check_int};
use super::RandomError;
use std::fmt::Debug;
use std::ops::{Add, Mul, Sub};

/// The draws every generator offers, built on its 64-bit output.
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
/// let pool = XorShift64Pool::new(&Serial, 12345);
/// let mut g = pool.get_state();
/// let die = g.urand_in(1, 7);
/// assert!((1..7).contains(&die));
/// assert!(g.rand_to(10) < 10);
/// let x = g.drand_in(-1.0, 1.0);
/// assert!((-1.0..1.0).contains(&x));
/// pool.free_state(g);
/// ```
pub trait RandomGenerator {
    /// The label of the pool the generator came from.
    fn label(&self) -> &str;
    /// The next 64 uniform bits (Kokkos's `urand64()`).
    fn urand64(&mut self) -> u64;

    /// The next 32 uniform bits (the top half of a 64-bit draw, the
    /// scrambled generators' best bits).
    fn urand(&mut self) -> u32 {
        (self.urand64() >> 32) as u32
    }
    /// A uniform i32 in `0..2^31` (Kokkos's `rand()`: `urand() / 2`).
    fn rand(&mut self) -> i32 {
        (self.urand() >> 1) as i32
    }
    /// A uniform i64 in `0..2^63` (Kokkos's `rand64()`: `urand64() / 2`).
    fn rand64(&mut self) -> i64 {
        (self.urand64() >> 1) as i64
    }
    /// A uniform f32 in [0, 1), a multiple of 2^-24.
    fn frand(&mut self) -> f32 {
        unit_f32(self.urand64())
    }
    /// A uniform f64 in [0, 1), a multiple of 2^-53.
    fn drand(&mut self) -> f64 {
        unit_f64(self.urand64())
    }

    /// A uniform u64 in `start..end`, without modulo bias (draws below
    /// 2^64 mod (end - start) are rejected).
    ///
    /// # Panics
    /// If `start >= end`, naming the pool.
    #[track_caller]
    fn urand64_in(&mut self, start: u64, end: u64) -> u64 {
        self.try_urand64_in(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`urand64_in`](Self::urand64_in), with an error instead of a panic.
    fn try_urand64_in(&mut self, start: u64, end: u64) -> Result<u64, RandomError> {
        check_int(self.label(), start, end, start < end)?;
        Ok(start + below(self, end - start))
    }
    /// A uniform u32 in `start..end`.
    ///
    /// # Panics
    /// If `start >= end`, naming the pool.
    #[track_caller]
    fn urand_in(&mut self, start: u32, end: u32) -> u32 {
        self.try_urand_in(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`urand_in`](Self::urand_in), with an error instead of a panic.
    fn try_urand_in(&mut self, start: u32, end: u32) -> Result<u32, RandomError> {
        check_int(self.label(), start, end, start < end)?;
        Ok(start + below(self, u64::from(end - start)) as u32)
    }
    /// A uniform i32 in `start..end`.
    ///
    /// # Panics
    /// If `start >= end`, naming the pool.
    #[track_caller]
    fn rand_in(&mut self, start: i32, end: i32) -> i32 {
        self.try_rand_in(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`rand_in`](Self::rand_in), with an error instead of a panic.
    fn try_rand_in(&mut self, start: i32, end: i32) -> Result<i32, RandomError> {
        check_int(self.label(), start, end, start < end)?;
        let span = (i64::from(end) - i64::from(start)) as u64;
        Ok(start.wrapping_add(below(self, span) as i32))
    }
    /// A uniform i64 in `start..end`.
    ///
    /// # Panics
    /// If `start >= end`, naming the pool.
    #[track_caller]
    fn rand64_in(&mut self, start: i64, end: i64) -> i64 {
        self.try_rand64_in(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`rand64_in`](Self::rand64_in), with an error instead of a panic.
    fn try_rand64_in(&mut self, start: i64, end: i64) -> Result<i64, RandomError> {
        check_int(self.label(), start, end, start < end)?;
        // At most 2^64 - 1: exact in u64.
        let span = (i128::from(end) - i128::from(start)) as u64;
        Ok(start.wrapping_add(below(self, span) as i64))
    }
    /// A uniform f32 in `[start, end)`.
    ///
    /// # Panics
    /// If the range is empty, reversed, not finite or wider than f32's
    /// largest value, naming the pool.
    #[track_caller]
    fn frand_in(&mut self, start: f32, end: f32) -> f32 {
        self.try_frand_in(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`frand_in`](Self::frand_in), with an error instead of a panic.
    fn try_frand_in(&mut self, start: f32, end: f32) -> Result<f32, RandomError> {
        uniform_in(self, start, end, (end - start).is_finite(), Self::frand)
    }
    /// A uniform f64 in `[start, end)`.
    ///
    /// # Panics
    /// As [`frand_in`](Self::frand_in).
    #[track_caller]
    fn drand_in(&mut self, start: f64, end: f64) -> f64 {
        self.try_drand_in(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`drand_in`](Self::drand_in), with an error instead of a panic.
    fn try_drand_in(&mut self, start: f64, end: f64) -> Result<f64, RandomError> {
        uniform_in(self, start, end, (end - start).is_finite(), Self::drand)
    }

    /// A uniform u64 in `0..end` (Kokkos's `urand64(range)`):
    /// [`urand64_in(0, end)`](Self::urand64_in).
    #[track_caller]
    fn urand64_to(&mut self, end: u64) -> u64 {
        self.urand64_in(0, end)
    }
    /// A uniform u32 in `0..end`: [`urand_in(0, end)`](Self::urand_in).
    #[track_caller]
    fn urand_to(&mut self, end: u32) -> u32 {
        self.urand_in(0, end)
    }
    /// A uniform i32 in `0..end`: [`rand_in(0, end)`](Self::rand_in).
    #[track_caller]
    fn rand_to(&mut self, end: i32) -> i32 {
        self.rand_in(0, end)
    }
    /// A uniform i64 in `0..end`: [`rand64_in(0, end)`](Self::rand64_in).
    #[track_caller]
    fn rand64_to(&mut self, end: i64) -> i64 {
        self.rand64_in(0, end)
    }
    /// A uniform f32 in `[0, end)`: [`frand_in(0.0, end)`](Self::frand_in).
    #[track_caller]
    fn frand_to(&mut self, end: f32) -> f32 {
        self.frand_in(0.0, end)
    }
    /// A uniform f64 in `[0, end)`: [`drand_in(0.0, end)`](Self::drand_in).
    #[track_caller]
    fn drand_to(&mut self, end: f64) -> f64 {
        self.drand_in(0.0, end)
    }

    /// A standard normal deviate (Marsaglia's polar method, one of the
    /// pair kept, as Kokkos does). It calls `ln` and `sqrt`, so on a GPU
    /// its bits may differ from the host's within the bounds of the kernel
    /// README's "Bounded functions"; the uniform draws are bit-identical.
    fn normal(&mut self) -> f64 {
        loop {
            let u = 2.0 * self.drand() - 1.0;
            let v = 2.0 * self.drand() - 1.0;
            let s = u * u + v * v;
            if s < 1.0 && s != 0.0 {
                return u * (-2.0 * s.ln() / s).sqrt();
            }
        }
    }
    /// A normal deviate of mean `mean` and standard deviation `std_dev`
    /// (Kokkos's `normal(mean, std_dev)`).
    fn normal_with(&mut self, mean: f64, std_dev: f64) -> f64 {
        mean + std_dev * self.normal()
    }
}

/// A uniform float in `[start, end)` from `unit`'s draws in [0, 1), after
/// checking the range (`width_finite`: `end - start` is finite). A draw
/// that rounds up to `end` is rejected, so `end` is never returned.
fn uniform_in<G, T>(
    g: &mut G,
    start: T,
    end: T,
    width_finite: bool,
    unit: fn(&mut G) -> T,
) -> Result<T, RandomError>
where
    G: RandomGenerator + ?Sized,
    T: Copy + Debug + PartialOrd + Add<Output = T> + Sub<Output = T> + Mul<Output = T>,
{
    check_float(g.label(), start, end, width_finite)?;
    loop {
        let v = start + (end - start) * unit(g);
        if v < end {
            return Ok(v);
        }
    }
}

/// A uniform draw in `0..span` (`span > 0`), by rejection.
fn below<G: RandomGenerator + ?Sized>(g: &mut G, span: u64) -> u64 {
    let threshold = reject_below(span);
    loop {
        let r = g.urand64();
        if r >= threshold {
            return r % span;
        }
    }
}
