//! The vector instruction sets the host kernels take, detected at run
//! time: the scans' integer sums ([`crate::scan`]'s `simd`), their `f64`
//! sums (`f64_sums`), and the compactions' packing loop each have an
//! AVX-512 and an AVX2 form (the `f32` sums' pass 2, `parts`, only the
//! AVX2 one: its 8 lanes are the 8 parts), and take the widest the CPU
//! has.

/// A vector instruction set of x86-64.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Isa {
    /// 64-byte vectors: AVX-512F.
    Avx512,
    /// 32-byte vectors: AVX2.
    Avx2,
}

impl Isa {
    /// Every set, widest first.
    const ALL: [Isa; 2] = [Isa::Avx512, Isa::Avx2];

    /// Whether this CPU has it (never off x86-64).
    pub(crate) fn present(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Isa::Avx512 => std::is_x86_feature_detected!("avx512f"),
                Isa::Avx2 => std::is_x86_feature_detected!("avx2"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// The widest set this CPU has, if any.
    pub(crate) fn widest() -> Option<Isa> {
        Isa::ALL.into_iter().find(|i| i.present())
    }

    /// Every set this CPU has, widest first: the unit tests check the
    /// narrower forms on CPUs that would not otherwise take them.
    #[cfg(test)]
    pub(crate) fn present_all() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|i| i.present()).collect()
    }
}
