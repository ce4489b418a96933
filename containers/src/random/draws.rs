//! The range draws and normal deviates of a generator in the device's
//! functional form, written once for both generators: a family needs its
//! state type, its step, and the 64 bits, double and float of a state.
//!
//! Each draw comes as a pair: `<gen>_drand_in(s, a, b)` is the value
//! `g.drand_in(a, b)` gives for a generator in state `s` (not advanced
//! beforehand: the draw advances it, by rejection a varying number of
//! times), and `<gen>_after_drand_in(s, a, b)` the state after it.

/// Defines a family's range draws and normal deviates (see the module).
macro_rules! device_draws {
    (
        state: $S:ident,
        next: $next:ident,
        bits: $bits:ident,
        drand: $drand:ident,
        frand: $frand:ident,
        after_urand64_in: $after_u64:ident,
        urand64_in: $u64_range:ident,
        after_urand_in: $after_u32:ident,
        urand_in: $u32_range:ident,
        after_drand_in: $after_d:ident,
        drand_in: $d_range:ident,
        after_frand_in: $after_f:ident,
        frand_in: $f_range:ident,
        polar_radius2: $radius2:ident,
        polar_rejects: $rejects:ident,
        after_normal: $after_n:ident,
        normal: $normal:ident $(,)?
    ) => {
        /// The state after `g.urand64_in(start, end)` of a generator in
        /// state `s`: the next draw at or above the rejection threshold.
        ///
        /// # Panics
        /// If `start >= end` (a failed assertion on the device).
        #[device(crate = granule_core)]
        pub fn $after_u64(s: $S, start: u64, end: u64) -> $S {
            assert!(
                start < end,
                "random pool: cannot draw from {}..{}: the range is empty (start must be below end)",
                start,
                end
            );
            let threshold = reject_below(end - start);
            let mut t = $next(s);
            while $bits(t) < threshold {
                t = $next(t);
            }
            t
        }

        /// `g.urand64_in(start, end)` of a generator in state `s`:
        /// uniform in `start..end`, without modulo bias.
        ///
        /// # Panics
        /// If `start >= end`.
        #[device(crate = granule_core)]
        pub fn $u64_range(s: $S, start: u64, end: u64) -> u64 {
            let t = $after_u64(s, start, end);
            start + $bits(t) % (end - start)
        }

        /// The state after `g.urand_in(start, end)` of a generator in
        /// state `s`.
        ///
        /// # Panics
        /// If `start >= end`.
        #[device(crate = granule_core)]
        pub fn $after_u32(s: $S, start: u32, end: u32) -> $S {
            $after_u64(s, start as u64, end as u64)
        }

        /// `g.urand_in(start, end)` of a generator in state `s`.
        ///
        /// # Panics
        /// If `start >= end`.
        #[device(crate = granule_core)]
        pub fn $u32_range(s: $S, start: u32, end: u32) -> u32 {
            let t = $after_u64(s, start as u64, end as u64);
            start + ($bits(t) % ((end - start) as u64)) as u32
        }

        /// The state after `g.drand_in(start, end)` of a generator in
        /// state `s`: the next draw whose `start + (end - start) * u` stays
        /// below `end`.
        ///
        /// # Panics
        /// If the range is empty, reversed, NaN, or of a width that is not
        /// finite.
        #[device(crate = granule_core)]
        pub fn $after_d(s: $S, start: f64, end: f64) -> $S {
            assert!(
                start < end && (end - start).is_finite(),
                "random pool: cannot draw from {}..{}: the range must be finite with start below end",
                start,
                end
            );
            let mut t = $next(s);
            while start + (end - start) * $drand(t) >= end {
                t = $next(t);
            }
            t
        }

        /// `g.drand_in(start, end)` of a generator in state `s`.
        ///
        /// # Panics
        /// As for the state after it.
        #[device(crate = granule_core)]
        pub fn $d_range(s: $S, start: f64, end: f64) -> f64 {
            let t = $after_d(s, start, end);
            start + (end - start) * $drand(t)
        }

        /// The state after `g.frand_in(start, end)` of a generator in
        /// state `s`.
        ///
        /// # Panics
        /// As for the double's range.
        #[device(crate = granule_core)]
        pub fn $after_f(s: $S, start: f32, end: f32) -> $S {
            assert!(
                start < end && (end - start).is_finite(),
                "random pool: cannot draw from {}..{}: the range must be finite with start below end",
                start,
                end
            );
            let mut t = $next(s);
            while start + (end - start) * $frand(t) >= end {
                t = $next(t);
            }
            t
        }

        /// `g.frand_in(start, end)` of a generator in state `s`.
        ///
        /// # Panics
        /// As for the double's range.
        #[device(crate = granule_core)]
        pub fn $f_range(s: $S, start: f32, end: f32) -> f32 {
            let t = $after_f(s, start, end);
            start + (end - start) * $frand(t)
        }

        /// The polar method's `u^2 + v^2` of the draws of states `a` and
        /// `b` (`u`, `v` uniform in [-1, 1)).
        #[device(crate = granule_core)]
        fn $radius2(a: $S, b: $S) -> f64 {
            let u = 2.0 * $drand(a) - 1.0;
            let v = 2.0 * $drand(b) - 1.0;
            u * u + v * v
        }

        /// Whether the polar method rejects the pair of states `a`, `b`:
        /// its point lies outside the unit circle or is the origin.
        #[device(crate = granule_core)]
        fn $rejects(a: $S, b: $S) -> bool {
            let r = $radius2(a, b);
            !(r < 1.0 && r != 0.0)
        }

        /// The state after `g.normal()` of a generator in state `s`: two
        /// draws per try of the polar method, until a pair is kept.
        #[device(crate = granule_core)]
        pub fn $after_n(s: $S) -> $S {
            let mut a = $next(s);
            let mut b = $next(a);
            while $rejects(a, b) {
                a = $next(b);
                b = $next(a);
            }
            b
        }

        /// `g.normal()` of a generator in state `s`: a standard normal
        /// deviate (Marsaglia's polar method, the first of the pair kept).
        #[device(crate = granule_core)]
        pub fn $normal(s: $S) -> f64 {
            let mut a = $next(s);
            let mut b = $next(a);
            while $rejects(a, b) {
                a = $next(b);
                b = $next(a);
            }
            let u = 2.0 * $drand(a) - 1.0;
            let r = $radius2(a, b);
            u * (-2.0 * r.ln() / r).sqrt()
        }
    };
}

pub(crate) use device_draws;
