//! A held id, released on drop.

use super::UniqueToken;
use granule_views::{HostAccessible, HostSpace};

/// An id of a [`UniqueToken`], held until the guard is dropped
/// ([`UniqueToken::acquire_guard`]).
///
/// ```
/// use granule::containers::UniqueToken;
/// use granule::prelude::*;
/// let token = UniqueToken::with_size_on(&Serial, 2)?;
/// let first = token.acquire_guard();
/// let second = token.acquire_guard();
/// assert_ne!(first.id(), second.id());
/// drop(first);
/// assert!(token.try_acquire().is_some());
/// # Ok::<(), granule::containers::TokenError>(())
/// ```
#[derive(Debug)]
#[must_use = "the id is released as soon as the guard is dropped"]
pub struct TokenGuard<'t, M: HostAccessible = HostSpace> {
    token: &'t UniqueToken<M>,
    id: usize,
}

impl<'t, M: HostAccessible> TokenGuard<'t, M> {
    /// Takes charge of `id`, which `token` just gave this caller.
    pub(super) fn new(token: &'t UniqueToken<M>, id: usize) -> Self {
        TokenGuard { token, id }
    }

    /// The held id, in `0..token.size()`.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let token = UniqueToken::new_on(&Serial)?;
    /// assert_eq!(token.acquire_guard().id(), 0);
    /// # Ok::<(), granule::containers::TokenError>(())
    /// ```
    pub fn id(&self) -> usize {
        self.id
    }
}

impl<M: HostAccessible> Drop for TokenGuard<'_, M> {
    fn drop(&mut self) {
        // The guard holds its id, so only a raw `release` of it by someone
        // else can make this fail; report that rather than hide it.
        if let Err(e) = self.token.try_release(self.id) {
            if !std::thread::panicking() {
                panic!("{e}");
            }
        }
    }
}
