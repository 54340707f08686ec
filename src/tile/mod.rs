//! Tiles: an M×N column-major array seen as a grid of tiles whose row and column sizes follow a
//! [`Part`] (a partition pattern).
//!
//! ```text
//!  uniform nb (Part::uniform):          hybrid B/b×s (Part::hybrid, seeds 001 §3.1, 000):
//!
//!       j = 0    1    2                     |<------- B ------->|<------- B ------->|
//!         +----+----+--+                    | b  | b  |  wide   | b  | b  |  wide   |
//!  i = 0  |nb× |    |  |                    +----+----+---------+----+----+---------+
//!         |nb  |    |  |                    |host|host| device 0|host|host| device 1|
//!         +----+----+--+                    +----+----+---------+----+----+---------+
//!      1  |    |    |  |                 j =  0    1      2       3    4      5
//!         +----+----+--+
//!                                           s = 2 thin tiles of width b, then one wide
//!  the last tile row/column may be short    tile of width B − s·b, repeated every B
//!                                           columns; the last period may be cut short.
//! ```
//!
//! Tile (i, j) starts at element (`row_offset(i)`, `col_offset(j)`) and is `tile_rows(i)` ×
//! `tile_cols(j)`; all four are O(1) from the pattern, as is the tile holding an element
//! (`tile_row_of`, `tile_col_of`). Square factorizations (Cholesky, LU, QR) use the same pattern
//! for rows and columns, so diagonal tiles stay square and tile (k, k) starts on the diagonal.
//! Every tile is a strided view into the same array (leading dimension LD), so a range of tiles
//! is itself one column-major block.
//!
//! The library works on views into the caller's own array: no conversion copy is needed for a
//! single-process call, and a range of tiles (an LU or QR panel) is again a plain column-major
//! block that LAPACK kernels accept. [`Workspace`] owns storage laid out the same way for the
//! auxiliary data of an algorithm (QR's T factors).

mod part;
mod raw;
pub mod recycle;
pub use part::Part;
pub use raw::{span, ColMajor, Raw, Snapshot};

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};

/// The element type of a block whose type is not in the Rust type (a device's copy of a tile):
/// what a device needs to pick its library's routine and the bytes per element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    F32,
    F64,
    C32,
    C64,
    I32,
}

impl Kind {
    /// Bytes of one element.
    pub const fn bytes(self) -> usize {
        match self {
            Kind::F32 | Kind::I32 => 4,
            Kind::F64 | Kind::C32 => 8,
            Kind::C64 => 16,
        }
    }
}

/// Element types a tiled matrix may hold.
pub trait Elem: Copy + Send + Sync + 'static {
    /// The type as a value ([`Kind`]).
    const KIND: Kind;
    /// A zero-filled buffer of `len` elements (large f64 buffers come from [`recycle`]).
    fn zeroed(len: usize) -> Vec<Self>;
    /// Hands a buffer from [`Elem::zeroed`] back (large f64 buffers are kept by [`recycle`]).
    fn release(_buf: Vec<Self>) {}
    /// A buffer of `len` elements its user writes before reading: a recycled f64 buffer keeps its
    /// old values ([`recycle::take_scratch`]); the other types get a zero-filled one.
    fn scratch(len: usize) -> Vec<Self> {
        Self::zeroed(len)
    }
}
impl Elem for f64 {
    const KIND: Kind = Kind::F64;
    fn zeroed(len: usize) -> Vec<f64> {
        recycle::take(len)
    }
    fn release(buf: Vec<f64>) {
        recycle::give(buf)
    }
    fn scratch(len: usize) -> Vec<f64> {
        recycle::take_scratch(len)
    }
}
impl Elem for i32 {
    const KIND: Kind = Kind::I32;
    fn zeroed(len: usize) -> Vec<i32> {
        vec![0; len]
    }
}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A grid of tiles over one column-major array. It does not own the array; it is `Copy` so tile
/// tasks can capture it. Access to the elements goes through the runtime, which hands out views
/// only for the tiles a task declared (see `runtime::Ctx`).
#[derive(Clone, Copy, Debug)]
pub struct TiledMatrix<T: Elem> {
    ptr: *mut T,
    pub m: usize,
    pub n: usize,
    pub ld: usize,
    /// How the rows are cut into tile rows.
    pub rows: Part,
    /// How the columns are cut into tile columns.
    pub cols: Part,
    id: u32,
}

// SAFETY: a TiledMatrix is only a description plus an address; the runtime's dependency tracking
// decides which thread may touch which tile and when, so sharing the description is harmless.
unsafe impl<T: Elem> Send for TiledMatrix<T> {}
// SAFETY: as above.
unsafe impl<T: Elem> Sync for TiledMatrix<T> {}

impl<T: Elem> TiledMatrix<T> {
    /// Describes the `m`×`n` array at `ptr` with leading dimension `ld`, cut into `mb`×`nb`
    /// tiles.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of the whole `m`×`n` block (element (i, j) at
    /// `ptr + i + j*ld`) for as long as any task using this matrix runs, and nothing outside the
    /// runtime may access it meanwhile.
    pub unsafe fn from_raw(ptr: *mut T, m: usize, n: usize, ld: usize, mb: usize, nb: usize) -> Self {
        // SAFETY: the caller's contract is this function's.
        unsafe { Self::from_raw_parts(ptr, m, n, ld, Part::uniform(mb), Part::uniform(nb)) }
    }

    /// As [`TiledMatrix::from_raw`], with the rows cut by `rows` and the columns by `cols`.
    ///
    /// # Safety
    /// As for [`TiledMatrix::from_raw`].
    pub unsafe fn from_raw_parts(ptr: *mut T, m: usize, n: usize, ld: usize, rows: Part, cols: Part) -> Self {
        assert!(m == 0 || n == 0 || ld >= m, "leading dimension too small");
        assert!(rows.count(m) < 1 << 20 && cols.count(n) < 1 << 20, "too many tiles for a dependency key");
        TiledMatrix { ptr, m, n, ld, rows, cols, id: NEXT_ID.fetch_add(1, Ordering::Relaxed) }
    }

    /// The same memory cut by other patterns: a new matrix as far as dependencies go (its own
    /// identity), to be used by sequences that do not also use this one.
    pub fn repartitioned(&self, rows: Part, cols: Part) -> Self {
        TiledMatrix { rows, cols, id: NEXT_ID.fetch_add(1, Ordering::Relaxed), ..*self }
    }

    /// Number of tile rows.
    pub fn mt(&self) -> usize {
        self.rows.count(self.m)
    }
    /// Number of tile columns.
    pub fn nt(&self) -> usize {
        self.cols.count(self.n)
    }
    /// Rows of tile row `i`.
    pub fn tile_rows(&self, i: usize) -> usize {
        self.rows.size(i).min(self.m - self.rows.offset(i))
    }
    /// Columns of tile column `j`.
    pub fn tile_cols(&self, j: usize) -> usize {
        self.cols.size(j).min(self.n - self.cols.offset(j))
    }
    /// First row of tile row `i`.
    pub fn row_offset(&self, i: usize) -> usize {
        self.rows.offset(i)
    }
    /// First column of tile column `j`.
    pub fn col_offset(&self, j: usize) -> usize {
        self.cols.offset(j)
    }
    /// The tile row holding row `r`.
    pub fn tile_row_of(&self, r: usize) -> usize {
        self.rows.index_of(r)
    }
    /// The tile column holding column `c`.
    pub fn tile_col_of(&self, c: usize) -> usize {
        self.cols.index_of(c)
    }
    /// Whether rows and columns are cut alike (diagonal tiles square, tile (k, k) on the
    /// diagonal), as square factorizations need.
    pub fn square_tiles(&self) -> bool {
        self.rows == self.cols
    }
    /// Identity of this matrix within the process (used as part of a tile's dependency key).
    pub fn id(&self) -> u32 {
        self.id
    }
    /// Dependency key of tile (i, j): unique across all live matrices.
    pub fn key(&self, i: usize, j: usize) -> u64 {
        debug_assert!(i < self.mt() && j < self.nt());
        ((self.id as u64) << 40) | ((j as u64) << 20) | i as u64
    }

    /// The leading `m`×`n` part of this matrix on the same tile grid (R's square inside a tall
    /// QR factor, the solution rows of a tall right-hand side). Its tile (i, j) lies inside this
    /// matrix's tile (i, j) and has the same dependency key, so tasks on either are ordered
    /// against each other.
    pub fn leading(&self, m: usize, n: usize) -> Self {
        assert!(m <= self.m && n <= self.n, "the leading part must lie inside the matrix");
        TiledMatrix { m, n, ..*self }
    }

    /// Raw block covering tile rows `rows` and tile columns `cols`.
    pub(crate) fn raw_block(&self, rows: Range<usize>, cols: Range<usize>) -> RawBlock<T> {
        let r0 = self.rows.offset(rows.start).min(self.m);
        let c0 = self.cols.offset(cols.start).min(self.n);
        let r1 = self.rows.offset(rows.end).min(self.m);
        let c1 = self.cols.offset(cols.end).min(self.n);
        RawBlock {
            // The offset stays inside the array described by `from_raw`'s contract.
            ptr: self.ptr.wrapping_add(r0 + c0 * self.ld),
            m: r1.saturating_sub(r0),
            n: c1.saturating_sub(c0),
            ld: self.ld,
        }
    }
}

/// An address and shape; turned into a [`View`] or [`ViewMut`] by the runtime once it knows the
/// task owns the data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawBlock<T> {
    pub ptr: *mut T,
    pub m: usize,
    pub n: usize,
    pub ld: usize,
}

/// Read-only view of an m×n column-major block.
#[derive(Clone, Copy, Debug)]
pub struct View<'a, T> {
    ptr: *const T,
    pub m: usize,
    pub n: usize,
    pub ld: usize,
    _life: PhantomData<&'a T>,
}

/// Writable view of an m×n column-major block.
#[derive(Debug)]
pub struct ViewMut<'a, T> {
    ptr: *mut T,
    pub m: usize,
    pub n: usize,
    pub ld: usize,
    _life: PhantomData<&'a mut T>,
}

impl<T> RawBlock<T> {
    /// # Safety
    /// The block must be valid for reads for `'a` and not written by anyone else meanwhile.
    pub(crate) unsafe fn view<'a>(self) -> View<'a, T> {
        View { ptr: self.ptr, m: self.m, n: self.n, ld: self.ld.max(1), _life: PhantomData }
    }
    /// # Safety
    /// The block must be valid for reads and writes for `'a` and accessed by no one else.
    pub(crate) unsafe fn view_mut<'a>(self) -> ViewMut<'a, T> {
        ViewMut { ptr: self.ptr, m: self.m, n: self.n, ld: self.ld.max(1), _life: PhantomData }
    }
}

impl<'a, T: Copy> View<'a, T> {
    /// The m×n block of `s` with leading dimension `ld` (element (i, j) at `s[i + j * ld]`).
    pub fn from_slice(s: &'a [T], m: usize, n: usize, ld: usize) -> Self {
        assert!(
            ld >= m.max(1) && (m == 0 || n == 0 || s.len() >= ld * (n - 1) + m),
            "slice too short for the block"
        );
        View { ptr: s.as_ptr(), m, n, ld, _life: PhantomData }
    }
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }
    /// Column `j` of the block (its m elements).
    pub fn column(&self, j: usize) -> &'a [T] {
        assert!(j < self.n);
        // SAFETY: the column's m elements lie inside the block, which the view's creator
        // guaranteed readable (and not written by anyone) for 'a.
        unsafe { std::slice::from_raw_parts(self.ptr.add(j * self.ld), self.m) }
    }
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(i < self.m && j < self.n);
        // SAFETY: (i, j) is inside the block, which the view's creator guaranteed readable.
        unsafe { *self.ptr.add(i + j * self.ld) }
    }
    /// Sub-block starting at (i, j) of size m×n.
    pub fn sub(&self, i: usize, j: usize, m: usize, n: usize) -> View<'a, T> {
        assert!(i + m <= self.m && j + n <= self.n);
        View { ptr: self.ptr.wrapping_add(i + j * self.ld), m, n, ld: self.ld, _life: PhantomData }
    }
}

impl<'a, T: Copy> ViewMut<'a, T> {
    /// The m×n block of `s` with leading dimension `ld`, writable.
    pub fn from_slice(s: &'a mut [T], m: usize, n: usize, ld: usize) -> Self {
        assert!(
            ld >= m.max(1) && (m == 0 || n == 0 || s.len() >= ld * (n - 1) + m),
            "slice too short for the block"
        );
        ViewMut { ptr: s.as_mut_ptr(), m, n, ld, _life: PhantomData }
    }
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr
    }
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(i < self.m && j < self.n);
        // SAFETY: (i, j) is inside the block.
        unsafe { *self.ptr.add(i + j * self.ld) }
    }
    pub fn set(&mut self, i: usize, j: usize, v: T) {
        assert!(i < self.m && j < self.n);
        // SAFETY: (i, j) is inside the block, which this view may write.
        unsafe { *self.ptr.add(i + j * self.ld) = v }
    }
    /// Column `j` of the block (its m elements), writable.
    pub fn column_mut(&mut self, j: usize) -> &mut [T] {
        assert!(j < self.n);
        // SAFETY: the column's m elements lie inside the block, which this view may write and
        // no one else accesses while it lives; the slice borrows the view mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(j * self.ld), self.m) }
    }
    /// Read-only view of the same block.
    pub fn as_view(&self) -> View<'_, T> {
        View { ptr: self.ptr, m: self.m, n: self.n, ld: self.ld, _life: PhantomData }
    }
    /// Writable sub-block starting at (i, j) of size m×n, borrowing this view.
    pub fn sub_mut(&mut self, i: usize, j: usize, m: usize, n: usize) -> ViewMut<'_, T> {
        assert!(i + m <= self.m && j + n <= self.n);
        ViewMut { ptr: self.ptr.wrapping_add(i + j * self.ld), m, n, ld: self.ld, _life: PhantomData }
    }
    /// Splits the block into its rows before `i` and its rows from `i` on, both writable (an LU
    /// column block's U rows, solved first, and the rows below them that they then update).
    pub fn split_rows(self, i: usize) -> (ViewMut<'a, T>, ViewMut<'a, T>) {
        assert!(i <= self.m);
        let top = ViewMut { ptr: self.ptr, m: i, n: self.n, ld: self.ld, _life: PhantomData };
        // The two parts share no element: rows 0..i and i..m of each column.
        let bottom = ViewMut {
            ptr: self.ptr.wrapping_add(i),
            m: self.m - i,
            n: self.n,
            ld: self.ld,
            _life: PhantomData,
        };
        (top, bottom)
    }
    /// Splits the block into its columns before `j` and its columns from `j` on, both writable.
    pub fn split_cols_mut(self, j: usize) -> (ViewMut<'a, T>, ViewMut<'a, T>) {
        assert!(j <= self.n);
        let left = ViewMut { ptr: self.ptr, m: self.m, n: j, ld: self.ld, _life: PhantomData };
        // The two parts share no element: columns 0..j and j..n of one block.
        let right = ViewMut {
            ptr: self.ptr.wrapping_add(j * self.ld),
            m: self.m,
            n: self.n - j,
            ld: self.ld,
            _life: PhantomData,
        };
        (left, right)
    }
    /// Splits the block into its columns before `j`, read-only, and its columns from `j` on,
    /// writable (a QR panel's reflectors and the columns they update).
    pub fn split_cols(self, j: usize) -> (View<'a, T>, ViewMut<'a, T>) {
        let (left, right) = self.split_cols_mut(j);
        (left.into_view(), right)
    }
    /// The same block, read-only, for the rest of the view's lifetime.
    pub fn into_view(self) -> View<'a, T> {
        View { ptr: self.ptr, m: self.m, n: self.n, ld: self.ld, _life: PhantomData }
    }
    /// The same block, writable, borrowing this view (to hand to a kernel and keep the view).
    pub fn reborrow(&mut self) -> ViewMut<'_, T> {
        ViewMut { ptr: self.ptr, m: self.m, n: self.n, ld: self.ld, _life: PhantomData }
    }
}

/// Storage owned by an algorithm, laid out as a column-major array and tiled like a caller's
/// matrix (QR's T factors, for instance).
pub struct Workspace<T: Elem> {
    _buf: Vec<T>,
    tiles: TiledMatrix<T>,
}

impl<T: Elem + Default> Workspace<T> {
    pub fn new(m: usize, n: usize, mb: usize, nb: usize) -> Self {
        Self::with_parts(m, n, Part::uniform(mb), Part::uniform(nb))
    }
    /// An m×n workspace with rows cut by `rows` and columns by `cols`.
    pub fn with_parts(m: usize, n: usize, rows: Part, cols: Part) -> Self {
        let ld = m.max(1);
        let mut buf = T::zeroed(ld * n.max(1));
        // SAFETY: the buffer holds ld*n elements and lives as long as the Workspace, which the
        // algorithm keeps until its sequence has finished.
        let tiles = unsafe { TiledMatrix::from_raw_parts(buf.as_mut_ptr(), m, n, ld, rows, cols) };
        Workspace { _buf: buf, tiles }
    }
    pub fn tiles(&self) -> TiledMatrix<T> {
        self.tiles
    }
    /// The storage, column-major with leading dimension `max(1, m)`, for filling or reading it
    /// while no task of a sequence uses it (the distributed layer's conversions and messages).
    pub fn as_slice(&self) -> &[T] {
        &self._buf
    }
    /// Writable storage; see [`Workspace::as_slice`].
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self._buf
    }
}

impl<T: Elem> Workspace<T> {
    /// [`Workspace::new`] for storage whose every element the algorithm writes before it reads
    /// it: a recycled buffer keeps its old values ([`Elem::scratch`]).
    pub fn scratch(m: usize, n: usize, mb: usize, nb: usize) -> Self {
        let ld = m.max(1);
        let mut buf = T::scratch(ld * n.max(1));
        // SAFETY: as in `with_parts`: the buffer holds ld*n elements and lives as long as the
        // Workspace.
        let tiles = unsafe {
            TiledMatrix::from_raw_parts(buf.as_mut_ptr(), m, n, ld, Part::uniform(mb), Part::uniform(nb))
        };
        Workspace { _buf: buf, tiles }
    }
}

impl<T: Elem> Drop for Workspace<T> {
    fn drop(&mut self) {
        T::release(std::mem::take(&mut self._buf));
    }
}
