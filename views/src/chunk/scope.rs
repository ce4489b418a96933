//! Scopes: one step down the hierarchy Grid -> Block -> Warp -> Thread,
//! as types, and their chaining.
//!
//! A scope names a parent level and a child level; its thread ids say, per
//! axis, how many children the parent has and which child the caller is.
//! Two scopes chain when the first one's child is the second one's parent
//! ([`Chain`]); the bound sits on the type itself, so naming a chain whose
//! ends do not meet is a compile error.

use std::fmt::Debug;
use std::marker::PhantomData;

/// A level of the execution hierarchy ([`Grid`], [`Block`], [`Warp`], [`Thread`]).
pub trait Level: Copy + Debug + Default + Send + Sync + 'static {
    /// Name used in messages.
    const NAME: &'static str;
}

macro_rules! level {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl Level for $name {
            const NAME: &'static str = stringify!($name);
        }
    };
}

level!(
    /// The whole launch (a league, on the host).
    Grid
);
level!(
    /// A group of threads that share memory (a team, on the host).
    Block
);
level!(
    /// A group of threads that run in lock-step on a GPU.
    Warp
);
level!(
    /// One thread (a work item or team member, on the host).
    Thread
);

/// One step (or a chain of steps) down the hierarchy, from `From` to `To`.
///
/// ```
/// use granule_views::chunk::{Block, Chain, GridToBlock, BlockToThread, Scope, Thread};
/// fn ends_at_thread<S: Scope<To = Thread>>() {}
/// ends_at_thread::<BlockToThread>();
/// ends_at_thread::<Chain<GridToBlock, BlockToThread>>();
/// assert_eq!(<Chain<GridToBlock, BlockToThread> as Scope>::name(), "Grid->Block->Thread");
/// ```
pub trait Scope: Copy + Debug + Default + Send + Sync + 'static {
    /// The parent level.
    type From: Level;
    /// The child level: the callers whose ids the scope reports.
    type To: Level;
    /// The scope as written in messages: `"Grid->Thread"`.
    fn name() -> String;
}

macro_rules! scope {
    ($(#[$doc:meta])* $name:ident: $from:ident -> $to:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl Scope for $name {
            type From = $from;
            type To = $to;
            fn name() -> String {
                concat!(stringify!($from), "->", stringify!($to)).into()
            }
        }
    };
}

scope!(
    /// Every thread of the grid (a flat range of work items, on the host).
    GridToThread: Grid -> Thread
);
scope!(
    /// The blocks of the grid (the teams of a league, on the host).
    GridToBlock: Grid -> Block
);
scope!(
    /// The threads of a block (the members of a team, on the host).
    BlockToThread: Block -> Thread
);
scope!(
    /// The warps of the grid.
    GridToWarp: Grid -> Warp
);
scope!(
    /// The warps of a block.
    BlockToWarp: Block -> Warp
);
scope!(
    /// The threads (lanes) of a warp.
    WarpToThread: Warp -> Thread
);

/// Scope `A` followed by scope `B`: `B` must start where `A` ends.
///
/// `Chain<GridToBlock, BlockToThread>` behaves like [`GridToThread`] (see
/// [`ScopedIds::then`](super::ScopedIds::then)); `Chain<GridToBlock,
/// WarpToThread>` does not compile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chain<A: Scope, B: Scope<From = A::To>>(PhantomData<(A, B)>);

impl<A: Scope, B: Scope<From = A::To>> Scope for Chain<A, B> {
    type From = A::From;
    type To = B::To;
    fn name() -> String {
        let inner = B::name();
        let tail = inner.split_once("->").map_or(inner.as_str(), |(_, t)| t);
        format!("{}->{tail}", A::name())
    }
}

/// The context a chunk is made in: [`Top`] for a whole View, or the scope
/// of the chunk being divided further.
pub trait Context: Copy + Debug + Send + Sync + 'static {}

/// The context of a whole View: any scope may divide it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Top;

impl Context for Top {}
impl<S: Scope> Context for S {}

/// Scopes that may divide a chunk made in context `C`, and the scope of
/// the resulting parts.
///
/// Any scope may divide a whole View ([`Top`]); a part made in scope `A`
/// may only be divided by a scope starting at `A::To`, and the result has
/// scope `Chain<A, Self>`.
pub trait Follows<C: Context>: Scope {
    /// The scope of the parts: `Self` under [`Top`], `Chain<C, Self>` otherwise.
    type Full: Scope<To = Self::To>;
}

impl<S: Scope> Follows<Top> for S {
    type Full = S;
}

impl<A: Scope, S: Scope<From = A::To>> Follows<A> for S {
    type Full = Chain<A, S>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<A: Scope>() -> (&'static str, &'static str) {
        (A::From::NAME, A::To::NAME)
    }

    #[test]
    fn chains_report_their_outer_ends() {
        assert_eq!(
            same::<Chain<GridToBlock, BlockToThread>>(),
            ("Grid", "Thread")
        );
        assert_eq!(
            same::<Chain<GridToWarp, WarpToThread>>(),
            ("Grid", "Thread")
        );
        assert_eq!(
            same::<Chain<Chain<GridToBlock, BlockToWarp>, WarpToThread>>(),
            ("Grid", "Thread")
        );
    }

    #[test]
    fn names_read_as_paths() {
        assert_eq!(GridToWarp::name(), "Grid->Warp");
        assert_eq!(
            <Chain<Chain<GridToBlock, BlockToWarp>, WarpToThread>>::name(),
            "Grid->Block->Warp->Thread"
        );
    }

    #[test]
    fn following_a_scope_chains_it() {
        fn full<C: Context, S: Follows<C>>() -> String {
            S::Full::name()
        }
        assert_eq!(full::<Top, BlockToThread>(), "Block->Thread");
        assert_eq!(full::<GridToBlock, BlockToThread>(), "Grid->Block->Thread");
    }
}
