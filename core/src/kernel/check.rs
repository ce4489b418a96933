//! Compile-time checks that a `#[kernel]`'s C++ names the types its Rust
//! names: the translator reads a type by how it is spelled (`f64`,
//! `View1<u32>`, `ValLocScalar<f32, usize>`), so the glue asserts, in the
//! kernel's own scope, that each spelling is the type the C++ was made
//! for. A `type u64 = u8;` or a `use other::View1;` in scope then fails to
//! compile instead of giving the device a different layout than the host.
//!
//! ```
//! use granule_core::kernel::check::{same_type, view_shape, Rank};
//! use granule_views::{LayoutRight, View1};
//! same_type::<u64, ::core::primitive::u64>();
//! view_shape::<View1<f32>, f32, Rank<1>, LayoutRight>();
//! ```
//!
//! ```compile_fail
//! use granule_core::kernel::check::same_type;
//! #[allow(non_camel_case_types)]
//! type u64 = u8;
//! same_type::<u64, ::core::primitive::u64>();
//! ```

use granule_views::storage::Storage;
use granule_views::{Atomic, AtomicView, Layout, MemorySpace, ViewBase};

/// Implemented by a type for itself only: `A: SameType<B>` holds exactly
/// when `A` and `B` are one type.
#[diagnostic::on_unimplemented(
    message = "#[kernel] translated this type by its name as `{T}`, but here the name means `{Self}`",
    label = "the device code was made for `{T}`",
    note = "a `type` alias, `use` or generic parameter shadows the name of a primitive or granule type; #[kernel] and #[device] read types by name, so rename the alias or name the type as granule and `core` export it"
)]
pub trait SameType<T: ?Sized> {}

impl<T: ?Sized> SameType<T> for T {}

/// Compiles only when `A` and `B` are one type.
pub fn same_type<A: ?Sized + SameType<B>, B: ?Sized>() {}

/// A View's rank as a type, so that it can be compared by [`SameType`].
#[derive(Debug)]
pub struct Rank<const R: usize>;

/// The shape of a View type as the translator reads it: element type,
/// rank and layout. Implemented for granule's Views (`View`, `ViewRef`,
/// `ViewMut` and their rank aliases) only.
#[diagnostic::on_unimplemented(
    message = "#[kernel] translated `{Self}` as a granule View, but it is not one",
    note = "a `type` alias or `use` shadows the name of a granule View type"
)]
pub trait ViewShape {
    /// The element type.
    type Elem;
    /// [`Rank`] of the View's rank.
    type Rank;
    /// The layout.
    type Layout;
}

impl<S: Storage, const R: usize, L: Layout> ViewShape for ViewBase<S, R, L> {
    type Elem = S::Elem;
    type Rank = Rank<R>;
    type Layout = L;
}

/// The shape of an atomic View type: element type and rank. Implemented
/// for [`AtomicView`] only, so that nothing else is written atomically.
#[diagnostic::on_unimplemented(
    message = "#[kernel] translated `{Self}` as a granule AtomicView, but it is not one",
    note = "a `type` alias or `use` shadows the name `AtomicView`"
)]
pub trait AtomicShape {
    /// The element type.
    type Elem;
    /// [`Rank`] of the View's rank.
    type Rank;
}

impl<T: Atomic, const R: usize, M: MemorySpace> AtomicShape for AtomicView<'_, T, R, M> {
    type Elem = T;
    type Rank = Rank<R>;
}

/// Compiles only when `V` is a granule View of `E`s, of [`Rank`] `R`,
/// laid out by `L`.
pub fn view_shape<V, E, R, L>()
where
    V: ViewShape + ?Sized,
    V::Elem: SameType<E>,
    V::Rank: SameType<R>,
    V::Layout: SameType<L>,
{
}

/// Compiles only when `V` is an atomic View of `E`s of [`Rank`] `R`.
pub fn atomic_shape<V, E, R>()
where
    V: AtomicShape + ?Sized,
    V::Elem: SameType<E>,
    V::Rank: SameType<R>,
{
}
