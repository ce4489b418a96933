//! Type-level ranks, so that signatures can depend on a rank computed at
//! compile time (a subview's rank) and rank 1 can use plain `usize` indices.

/// The rank `N` as a type.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rank<const N: usize>;

/// A rank a View may have (1..=8), with its natural index type: `usize`
/// for rank 1, `[usize; N]` otherwise.
pub trait ValidRank<const N: usize> {
    /// What `from_fn` closures receive.
    type Idx: Copy;
    /// Converts the array form to the natural form.
    fn idx(a: [usize; N]) -> Self::Idx;
}

impl ValidRank<1> for Rank<1> {
    type Idx = usize;
    #[inline(always)]
    fn idx(a: [usize; 1]) -> usize {
        a[0]
    }
}

macro_rules! multi_rank {
    ($($n:literal),*) => { $(
        impl ValidRank<$n> for Rank<$n> {
            type Idx = [usize; $n];
            #[inline(always)]
            fn idx(a: [usize; $n]) -> [usize; $n] { a }
        }
    )* };
}
multi_rank!(2, 3, 4, 5, 6, 7, 8);

/// Rank `N + 1`, for counting kept dimensions of a subview.
pub trait Succ {
    /// The next rank.
    type Next;
}

macro_rules! succ {
    ($($n:literal => $m:literal),*) => { $( impl Succ for Rank<$n> { type Next = Rank<$m>; } )* };
}
succ!(0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 5, 5 => 6, 6 => 7, 7 => 8);

/// Something that names an index or extents of rank `R`: `[usize; R]`,
/// or a bare `usize` for rank 1.
pub trait IntoIndex<const R: usize>: Copy {
    /// The array form.
    fn into_index(self) -> [usize; R];
}

impl<const R: usize> IntoIndex<R> for [usize; R] {
    #[inline(always)]
    fn into_index(self) -> [usize; R] {
        self
    }
}

impl IntoIndex<1> for usize {
    #[inline(always)]
    fn into_index(self) -> [usize; 1] {
        [self]
    }
}
