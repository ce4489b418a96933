//! Per-id rows: the safe form of Kokkos's `data(id, j) += ..`.
//!
//! Why the `&mut` rows are sound: [`TokenRows`] borrows the View uniquely
//! (nothing else reads or writes it meanwhile) and the token uniquely (no
//! raw `release` or other guard can free an id it lent), and lends row
//! `id` only through the [`RowGuard`] that holds `id`. A token gives an id
//! to one holder at a time, so two live guards have different ids, hence
//! disjoint rows; a row borrows its guard, so it ends before the guard
//! releases the id, and the release (Release) happens before the next
//! holder's acquire (Acquire) of it.

use super::{TokenError, TokenGuard, UniqueToken};
use granule_views::{Element, HostAccessible, HostSpace, LayoutRight, View2};
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// A View with a row per id, lent row by row to the holders of the ids
/// ([`UniqueToken::rows`]).
///
/// ```
/// use granule::containers::UniqueToken;
/// use granule::prelude::*;
/// let space = Rayon::new(2)?;
/// let mut token = UniqueToken::new_on(&space)?;
/// let mut sums = View2::<f64>::zeros("sums", [token.size(), 1])?;
/// let rows = token.rows(&mut sums)?;
/// parallel_for("sum", RangePolicy::new(&space, 0..100), (), |i, ()| {
///     rows.acquire().row_mut()[0] += i as f64;
/// });
/// drop(rows);
/// assert_eq!(sums.to_vec().iter().sum::<f64>(), 4950.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TokenRows<'a, T, M: HostAccessible = HostSpace> {
    token: &'a UniqueToken<M>,
    data: NonNull<T>,
    row_len: usize,
    _view: PhantomData<&'a mut [T]>,
}

// SAFETY: the rows are lent to one guard at a time (see the module), so
// sharing `TokenRows` between threads hands each a distinct row, which is
// what `T: Send` allows; the token's locks are atomics.
unsafe impl<T: Send, M: HostAccessible> Sync for TokenRows<'_, T, M> {}
// SAFETY: as above; it owns nothing thread-bound.
unsafe impl<T: Send, M: HostAccessible> Send for TokenRows<'_, T, M> {}

impl<T, M: HostAccessible> fmt::Debug for TokenRows<'_, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRows")
            .field("size", &self.token.size())
            .field("row_len", &self.row_len)
            .finish()
    }
}

impl<T, M: HostAccessible> fmt::Debug for RowGuard<'_, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RowGuard")
            .field("id", &self.id())
            .field("len", &self.len)
            .finish()
    }
}

impl<M: HostAccessible> UniqueToken<M> {
    /// Lends the rows of `view` (one per id: `view.extent(0) >=
    /// self.size()`) to the holders of the ids, through
    /// [`TokenRows::acquire`]. Both borrows are unique for as long as the
    /// rows live.
    ///
    /// ```
    /// use granule::containers::{TokenError, UniqueToken};
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 4)?;
    /// let mut short = View2::<u32>::zeros("short", [3, 8])?;
    /// let e = token.rows(&mut short).unwrap_err();
    /// assert_eq!(e, TokenError::TooFewRows { label: "short".into(), rows: 3, size: 4 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TokenError::TooFewRows`] when the View has fewer rows than ids.
    pub fn rows<'a, T: Element + Send>(
        &'a mut self,
        view: &'a mut View2<T, LayoutRight, M>,
    ) -> Result<TokenRows<'a, T, M>, TokenError> {
        let rows = view.extent(0);
        if rows < self.size() {
            return Err(TokenError::TooFewRows {
                label: view.label().to_owned(),
                rows,
                size: self.size(),
            });
        }
        let row_len = view.extent(1);
        let data = NonNull::new(view.as_mut_ptr()).expect("a View's data pointer is never null");
        Ok(TokenRows {
            token: self,
            data,
            row_len,
            _view: PhantomData,
        })
    }
}

impl<'a, T, M: HostAccessible> TokenRows<'a, T, M> {
    /// An id, held until the guard drops, and with it its row.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 2)?;
    /// let mut v = View2::<i32>::zeros("v", [2, 3])?;
    /// let rows = token.rows(&mut v)?;
    /// let mut g = rows.acquire();
    /// g.row_mut()[1] = 7;
    /// assert_eq!(g.row(), [0, 7, 0]);
    /// let id = g.id();
    /// drop(g);
    /// drop(rows);
    /// assert_eq!(v.to_vec()[id * 3 + 1], 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn acquire(&self) -> RowGuard<'_, T, M> {
        let guard = self.token.acquire_guard();
        // SAFETY: id < size <= rows (checked by `rows`), so the row lies
        // in the LayoutRight View `data` points into, borrowed for 'a.
        let row = unsafe { self.data.add(guard.id() * self.row_len) };
        RowGuard {
            guard,
            row,
            len: self.row_len,
            _rows: PhantomData,
        }
    }

    /// The token's size: how many rows are lent.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 2)?;
    /// let mut v = View2::<i32>::zeros("v", [5, 3])?;
    /// assert_eq!(token.rows(&mut v)?.size(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn size(&self) -> usize {
        self.token.size()
    }

    /// The length of a row.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 2)?;
    /// let mut v = View2::<i32>::zeros("v", [2, 3])?;
    /// assert_eq!(token.rows(&mut v)?.row_len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row_len(&self) -> usize {
        self.row_len
    }
}

/// A held id and its row of a [`TokenRows`]; the id is released when the
/// guard drops.
///
/// ```
/// use granule::containers::UniqueToken;
/// use granule::prelude::*;
/// let mut token = UniqueToken::with_size_on(&Serial, 1)?;
/// let mut v = View2::<u64>::zeros("v", [1, 2])?;
/// let rows = token.rows(&mut v)?;
/// for k in 0..3 {
///     let mut g = rows.acquire();
///     g.row_mut()[k % 2] += 1;
/// }
/// drop(rows);
/// assert_eq!(v.to_vec(), [2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "the id is released as soon as the guard is dropped"]
pub struct RowGuard<'r, T, M: HostAccessible = HostSpace> {
    guard: TokenGuard<'r, M>,
    row: NonNull<T>,
    len: usize,
    _rows: PhantomData<&'r TokenRows<'r, T, M>>,
}

impl<T, M: HostAccessible> RowGuard<'_, T, M> {
    /// The held id.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 1)?;
    /// let mut v = View2::<u8>::zeros("v", [1, 1])?;
    /// assert_eq!(token.rows(&mut v)?.acquire().id(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn id(&self) -> usize {
        self.guard.id()
    }

    /// The row of the held id, to read.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 1)?;
    /// let mut v = View2::<u8>::zeros("v", [1, 2])?;
    /// assert_eq!(token.rows(&mut v)?.acquire().row(), [0, 0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> &[T] {
        // SAFETY: the row is `len` elements of the lent View that only
        // this guard reaches while it holds the id (see the module).
        unsafe { std::slice::from_raw_parts(self.row.as_ptr(), self.len) }
    }

    /// The row of the held id, to write. It borrows the guard, so it ends
    /// before the id is released, and only one is live at a time.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let mut token = UniqueToken::with_size_on(&Serial, 1)?;
    /// let mut v = View2::<u8>::zeros("v", [1, 2])?;
    /// let rows = token.rows(&mut v)?;
    /// let mut g = rows.acquire();
    /// g.row_mut().copy_from_slice(&[4, 5]);
    /// assert_eq!(g.row(), [4, 5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `row`, and `&mut self` makes this the only borrow
        // of the row for its lifetime.
        unsafe { std::slice::from_raw_parts_mut(self.row.as_ptr(), self.len) }
    }
}
