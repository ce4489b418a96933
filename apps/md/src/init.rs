//! The initial state, made on the host as ExaMiniMD makes it: the FCC
//! lattice in its loop order, and velocities from a generator seeded per
//! atom by its position (LAMMPS's `velocity .. loop geom`), with the
//! centre-of-mass motion removed and the temperature scaled to the
//! target.

use crate::Config;

/// The four sites of the FCC unit cell, in lattice units.
const BASIS: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [0.5, 0.5, 0.0],
    [0.5, 0.0, 0.5],
    [0.0, 0.5, 0.5],
];

/// Positions and velocities, `[x, y, z]` per atom in atom order, and the
/// (cubic) box length.
pub struct Initial {
    /// Positions.
    pub x: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// The edge of the cubic box.
    pub box_len: f64,
}

/// The lattice constant of an FCC lattice of reduced density `density`.
pub fn lattice_constant(density: f64) -> f64 {
    (4.0 / density).powf(1.0 / 3.0)
}

/// The FCC lattice of `cfg.cells`³ unit cells: cells by z, then y, then
/// x, and the four sites of each; a site is kept when it lies in `[0, L)`
/// in every dimension (the loops run one cell past the box, as the
/// original's do, and those sites fall outside).
pub fn lattice(cfg: &Config) -> (Vec<f64>, f64) {
    let a = lattice_constant(cfg.density);
    let n = cfg.cells;
    let box_len = a * n as f64;
    let mut x = Vec::with_capacity(12 * n * n * n);
    for iz in 0..=n {
        for iy in 0..=n {
            for ix in 0..=n {
                for b in BASIS {
                    let site = [
                        a * (ix as f64 + b[0]),
                        a * (iy as f64 + b[1]),
                        a * (iz as f64 + b[2]),
                    ];
                    if site.iter().all(|&c| c >= 0.0 && c < box_len) {
                        x.extend(site);
                    }
                }
            }
        }
    }
    (x, box_len)
}

/// The Park–Miller minimal standard generator, seeded from an integer and
/// a position by a one-at-a-time hash of their bytes: LAMMPS's
/// `RanPark::reset(seed, coord)`, which ExaMiniMD reproduces.
pub struct GeomRandom {
    seed: i32,
}

impl GeomRandom {
    const IA: i32 = 16807;
    const IM: i32 = 2147483647;
    const IQ: i32 = 127773;
    const IR: i32 = 2836;

    /// The generator for the atom at `coord`, warmed up by five draws.
    pub fn new(seed: i32, coord: [f64; 3]) -> Self {
        let mut hash: u32 = 0;
        // The original hashes `char`s, signed on x86: bytes above 127 add
        // as negative numbers.
        let mut mix = |byte: u8| {
            hash = hash.wrapping_add(byte as i8 as i32 as u32);
            hash = hash.wrapping_add(hash << 10);
            hash ^= hash >> 6;
        };
        seed.to_ne_bytes().into_iter().for_each(&mut mix);
        coord
            .iter()
            .flat_map(|c| c.to_ne_bytes())
            .for_each(&mut mix);
        hash = hash.wrapping_add(hash << 3);
        hash ^= hash >> 11;
        hash = hash.wrapping_add(hash << 15);
        let seed = (hash & 0x7ff_ffff) as i32;
        let mut r = GeomRandom {
            seed: if seed == 0 { 1 } else { seed },
        };
        for _ in 0..5 {
            r.uniform();
        }
        r
    }

    /// The next draw, uniform on (0, 1).
    pub fn uniform(&mut self) -> f64 {
        let k = self.seed / Self::IQ;
        self.seed = Self::IA * (self.seed - k * Self::IQ) - Self::IR * k;
        if self.seed < 0 {
            self.seed += Self::IM;
        }
        (1.0 / Self::IM as f64) * self.seed as f64
    }
}

/// The lattice with its velocities: each component `(u - 0.5) / sqrt(m)`
/// from the atom's own generator, the mean momentum subtracted, then all
/// scaled so that the temperature (3N - 3 degrees of freedom) is the
/// target.
pub fn initial(cfg: &Config) -> Initial {
    let (x, box_len) = lattice(cfg);
    let n = x.len() / 3;
    let m = cfg.mass;
    let mut v = Vec::with_capacity(3 * n);
    let mut momentum = [0.0; 3];
    let mut total_mass = 0.0;
    for i in 0..n {
        let mut r = GeomRandom::new(cfg.seed, [x[3 * i], x[3 * i + 1], x[3 * i + 2]]);
        for p in &mut momentum {
            let vk = (r.uniform() - 0.5) / m.sqrt();
            v.push(vk);
            *p += m * vk;
        }
        total_mass += m;
    }
    let drift = momentum.map(|p| p / total_mass);
    for (k, vk) in v.iter_mut().enumerate() {
        *vk -= drift[k % 3];
    }
    let mv2: f64 = v
        .chunks(3)
        .map(|c| (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) * m)
        .sum();
    let scale = (cfg.temperature / temperature_of(mv2, n)).sqrt();
    v.iter_mut().for_each(|vk| *vk *= scale);
    Initial { x, v, box_len }
}

/// The temperature of `n` atoms whose `Σ m v²` is `mv2` (reduced units:
/// Boltzmann's constant and the energy conversion are 1).
pub fn temperature_of(mv2: f64, n: usize) -> f64 {
    mv2 / (3 * n - 3) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lattice_has_four_atoms_per_cell_inside_the_box() {
        let cfg = Config {
            cells: 3,
            ..Config::default()
        };
        let (x, l) = lattice(&cfg);
        assert_eq!(x.len(), 3 * 4 * 27);
        assert!(x.iter().all(|&c| (0.0..l).contains(&c)));
        assert_eq!(
            &x[3..6],
            &[
                0.5 * lattice_constant(0.8442),
                0.5 * lattice_constant(0.8442),
                0.0
            ]
        );
    }

    #[test]
    fn the_generator_is_park_miller() {
        // From seed 1, the minimal standard's first draws are 16807 and
        // 282475249 (Park and Miller, 1988).
        let mut r = GeomRandom { seed: 1 };
        assert_eq!(r.uniform(), 16807.0 / 2147483647.0);
        assert_eq!(r.uniform(), 282475249.0 / 2147483647.0);
    }

    #[test]
    fn velocities_have_no_drift_and_the_target_temperature() {
        let cfg = Config {
            cells: 4,
            ..Config::default()
        };
        let s = initial(&cfg);
        let n = s.x.len() / 3;
        for k in 0..3 {
            let p: f64 = s.v.iter().skip(k).step_by(3).sum();
            assert!(p.abs() < 1e-12, "momentum {k}: {p}");
        }
        let mv2: f64 = s.v.iter().map(|vk| vk * vk * cfg.mass).sum();
        assert!((temperature_of(mv2, n) - cfg.temperature).abs() < 1e-12);
    }
}
