//! Caller memory as it arrives through the C/Fortran ABI.

use super::{Elem, Part, TiledMatrix};

/// A pointer received from a LAPACK caller. Creating one is the single place where the library
/// takes the caller's word, as LAPACK does, that the array is as large as the routine's
/// documentation requires for the arguments given; everything built from it afterwards is safe
/// code that first checks those arguments.
#[derive(Clone, Copy, Debug)]
pub struct Raw<T>(*mut T);

impl<T: Elem> Raw<T> {
    /// # Safety
    /// For every shape that the routine receiving `p` is documented to access given its other
    /// arguments (after argument checks pass), `p` must be valid for reads and writes of that
    /// shape for the duration of the call, and not accessed by anyone else meanwhile.
    pub unsafe fn new(p: *mut T) -> Self {
        Raw(p)
    }
    pub fn ptr(self) -> *mut T {
        self.0
    }
    /// Stores `v` at element `i` of the array, as LAPACK stores WORK(1) = optimal LWORK. The
    /// caller has checked that the routine's documentation gives the array more than `i`
    /// elements for the arguments received.
    pub fn set(self, i: usize, v: T) {
        // SAFETY: `Raw::new`'s contract and the caller's check above make element `i` valid to
        // write, and no task of the call is running (entry points call this outside `run_tiles`).
        unsafe { *self.0.add(i) = v }
    }
    /// The `m`×`n` matrix with leading dimension `ld` at this address. The caller has checked
    /// `ld >= max(1, m)`.
    pub fn matrix(self, m: usize, n: usize, ld: usize) -> ColMajor<T> {
        assert!(m == 0 || n == 0 || ld >= m);
        ColMajor { ptr: self.0, m, n, ld: ld.max(1) }
    }
}

impl<T: Elem> Raw<T> {
    /// A copy of the first `len` elements of the array, which the learner's trials run on
    /// instead of the caller's data (`api::tune::trials`). `len` must not exceed what the
    /// routine is documented to access given its (checked) arguments: for an m×n matrix with
    /// leading dimension ld, [`span`].
    pub fn snapshot(self, len: usize) -> Snapshot<T> {
        let mut orig = Vec::with_capacity(len);
        if len > 0 {
            // SAFETY: `Raw::new`'s contract makes the first `len` elements valid for reads (the
            // caller passes at most the routine's documented extent), and no task of the call
            // runs yet: trials come before the call itself.
            orig.extend_from_slice(unsafe { std::slice::from_raw_parts(self.0, len) });
        }
        let work = orig.clone();
        Snapshot { orig, work }
    }
}

/// The elements an m×n column-major matrix with leading dimension `ld` spans, from its first
/// element to its last (0 when it is empty).
pub fn span(m: usize, n: usize, ld: usize) -> usize {
    if m == 0 || n == 0 {
        0
    } else {
        (n - 1) * ld + m
    }
}

/// A caller's array as it was at the start of a call, and a working copy of it: each trial of
/// the learner gets the working copy reset to the original ([`Snapshot::fresh`]), so every trial
/// sees the caller's input and none writes the caller's memory.
pub struct Snapshot<T> {
    orig: Vec<T>,
    work: Vec<T>,
}

impl<T: Elem> Snapshot<T> {
    /// The working copy, reset to the caller's input, as the array argument of a call. An empty
    /// snapshot (a zero-sized argument) still gives a non-null pointer, as a caller would.
    pub fn fresh(&mut self) -> Raw<T> {
        self.work.copy_from_slice(&self.orig);
        if self.work.is_empty() {
            return Raw(std::ptr::NonNull::dangling().as_ptr());
        }
        Raw(self.work.as_mut_ptr())
    }
}

/// An m×n column-major matrix in caller memory.
#[derive(Clone, Copy, Debug)]
pub struct ColMajor<T> {
    ptr: *mut T,
    pub m: usize,
    pub n: usize,
    pub ld: usize,
}

impl<T: Elem> ColMajor<T> {
    /// The address of element (0, 0); element (i, j) is at `i + j * ld` from it.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }
    /// The `m`×`n` block at (i, j) of this matrix (same leading dimension).
    pub fn block(&self, i: usize, j: usize, m: usize, n: usize) -> ColMajor<T> {
        assert!(i + m <= self.m && j + n <= self.n, "block outside the matrix");
        if m == 0 || n == 0 {
            return ColMajor { ptr: self.ptr, m, n, ld: self.ld };
        }
        // SAFETY: (i, j) lies inside the m×n block that `Raw::new`'s contract makes valid (checked
        // above), so the offset stays inside the caller's array.
        let ptr = unsafe { self.ptr.add(i + j * self.ld) };
        ColMajor { ptr, m, n, ld: self.ld }
    }
    /// Copies rows i..i+out.len() of column j into `out`, outside any task (the conversions).
    pub fn read_col(&self, i: usize, j: usize, out: &mut [T]) {
        assert!(i + out.len() <= self.m && j < self.n, "column run outside the matrix");
        // SAFETY: the run lies inside the m×n block that `Raw::new`'s contract makes valid
        // (checked above), and no task of the call runs while conversions use it.
        let src = unsafe { std::slice::from_raw_parts(self.ptr.add(i + j * self.ld), out.len()) };
        out.copy_from_slice(src);
    }
    /// Stores `vals` as rows i..i+vals.len() of column j, outside any task; see
    /// [`ColMajor::read_col`].
    pub fn write_col(&self, i: usize, j: usize, vals: &[T]) {
        assert!(i + vals.len() <= self.m && j < self.n, "column run outside the matrix");
        // SAFETY: as for `read_col`; the block is writable by the same contract, and `vals` is
        // the library's own buffer, which cannot overlap the caller's array.
        let dst = unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i + j * self.ld), vals.len()) };
        dst.copy_from_slice(vals);
    }
    /// The same memory cut into `mb`×`nb` tiles.
    pub fn tiled(&self, mb: usize, nb: usize) -> TiledMatrix<T> {
        // SAFETY: `Raw::new`'s contract makes the m×n block valid for the whole call, which is
        // as long as any task of the call runs (a sequence is drained before the call returns).
        unsafe { TiledMatrix::from_raw(self.ptr, self.m, self.n, self.ld, mb, nb) }
    }
    /// The same memory with rows cut by `rows` and columns by `cols`.
    pub fn tiled_parts(&self, rows: Part, cols: Part) -> TiledMatrix<T> {
        // SAFETY: as for `tiled`.
        unsafe { TiledMatrix::from_raw_parts(self.ptr, self.m, self.n, self.ld, rows, cols) }
    }
    pub fn ptr(&self) -> *mut T {
        self.ptr
    }
    /// Element (i, j), read outside any task (layout conversions before a sequence starts).
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(i < self.m && j < self.n);
        // SAFETY: (i, j) lies in the m×n block that `Raw::new`'s contract makes valid, and no
        // task of the call is running while conversions use this.
        unsafe { *self.ptr.add(i + j * self.ld) }
    }
    /// Stores element (i, j), outside any task; see [`ColMajor::get`].
    pub fn set(&self, i: usize, j: usize, v: T) {
        assert!(i < self.m && j < self.n);
        // SAFETY: as for `get`; the block is writable by the same contract.
        unsafe { *self.ptr.add(i + j * self.ld) = v }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 7×5 array with LDA 9 holding i + 10·j (padding rows hold -1).
    fn array() -> Vec<f64> {
        let mut a = vec![-1.0; 9 * 5];
        for j in 0..5 {
            for i in 0..7 {
                a[i + 9 * j] = (i + 10 * j) as f64;
            }
        }
        a
    }

    #[test]
    fn blocks_and_column_runs_address_the_right_elements() {
        let mut a = array();
        // SAFETY: `a` outlives every use of the pointer below.
        let m = unsafe { Raw::new(a.as_mut_ptr()) }.matrix(7, 5, 9);
        let b = m.block(2, 1, 4, 3);
        assert_eq!((b.m, b.n, b.ld), (4, 3, 9));
        assert_eq!(b.get(0, 0), 12.0);
        assert_eq!(b.get(3, 2), 35.0);
        let mut out = [0.0; 3];
        b.read_col(1, 2, &mut out);
        assert_eq!(out, [33.0, 34.0, 35.0]);
        b.write_col(0, 1, &[-5.0, -6.0]);
        assert_eq!(m.get(2, 2), -5.0);
        assert_eq!(m.get(3, 2), -6.0);
        // Nothing else changed, the padding rows included.
        let want = array();
        for (k, (&x, &y)) in a.iter().zip(&want).enumerate() {
            if k != 2 + 9 * 2 && k != 3 + 9 * 2 {
                assert_eq!(x, y, "element {k}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "column run outside the matrix")]
    fn a_column_run_past_the_block_is_refused() {
        let mut a = array();
        // SAFETY: `a` outlives the pointer's use.
        let m = unsafe { Raw::new(a.as_mut_ptr()) }.matrix(7, 5, 9);
        let mut out = [0.0; 3];
        m.block(0, 0, 4, 2).read_col(2, 0, &mut out);
    }
}
