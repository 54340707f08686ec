//! Conversion between the caller's block-cyclic layout and the library's tiles, over MPI or
//! through shared memory.
//!
//! Between nodes ([`exchange`]), one `MPI_Alltoallv` per direction. Every rank enumerates the
//! elements it holds in the source layout in column-major order of sub(A) and packs each into the
//! part of the send buffer of the rank that holds it in the target layout; every receiver enumerates the elements it holds in the
//! target layout in the same order and takes each from the part of the rank that held it. Between
//! any two ranks both sides therefore see the same sequence (the column-major order of the
//! elements they share), so no indices travel, only values; the elements a rank holds in both
//! layouts are copied directly, outside the buffers. Only the referenced part of sub(A)
//! (a triangle for Cholesky) moves, so on the way back nothing else in the caller's arrays is
//! written.
//!
//! On one node ([`exchange_shared`]), the tiles are in memory every rank maps ([`super::shm`]),
//! and each rank copies its caller values straight to (or from) their place in the tiles,
//! whichever rank holds them: each value is copied once.

use super::grid::Grid;
use super::layout::Axis;
use crate::backend::mpi::Equivalence;
use crate::backend::mpi::SystemOperation;
use crate::tile::{ColMajor, Elem};

/// Which elements of sub(A) take part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Lower,
    Upper,
    Full,
}

impl Part {
    /// The positions in `rows` (increasing) of the rows column j keeps: a contiguous run.
    fn kept_range(self, rows: &[usize], j: usize) -> std::ops::Range<usize> {
        match self {
            Part::Lower => rows.partition_point(|&i| i < j)..rows.len(),
            Part::Upper => 0..rows.partition_point(|&i| i <= j),
            Part::Full => 0..rows.len(),
        }
    }
    /// The rows column j keeps, of `rows` (increasing).
    #[cfg(test)]
    fn kept(self, rows: &[usize], j: usize) -> &[usize] {
        &rows[self.kept_range(rows, j)]
    }
}

/// A 2-D layout of sub(A): the row map and the column map; element (i, j) is on position
/// (`rows.owner[i]`, `cols.owner[j]`) of the layout's process grid (`shape`).
pub struct Layout<'a> {
    pub rows: &'a Axis,
    pub cols: &'a Axis,
    pub shape: Shape,
}

/// The process grid a layout deals over: the caller's P×Q grid, or the same ranks as one process
/// row of P·Q columns, column c being the caller's grid position (c / Q, c mod Q) (a layout the
/// library may choose for its tiles: every tile column on one rank), or as one process column of
/// P·Q rows in the same order (every tile row on one rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Grid,
    OneRow,
    OneCol,
}

impl Shape {
    /// (process rows, process columns) of the shape over `grid`.
    pub fn dims(self, grid: &Grid) -> (usize, usize) {
        match self {
            Shape::Grid => (grid.nprow, grid.npcol),
            Shape::OneRow => (1, grid.nprow * grid.npcol),
            Shape::OneCol => (grid.nprow * grid.npcol, 1),
        }
    }
    /// This process's position in the shape.
    pub fn me(self, grid: &Grid) -> (usize, usize) {
        match self {
            Shape::Grid => (grid.myrow, grid.mycol),
            Shape::OneRow => (0, grid.myrow * grid.npcol + grid.mycol),
            Shape::OneCol => (grid.myrow * grid.npcol + grid.mycol, 0),
        }
    }
    /// The rank of position (prow, pcol) of the shape.
    pub fn rank_of(self, grid: &Grid, prow: usize, pcol: usize) -> usize {
        match self {
            Shape::Grid => grid.rank_of(prow, pcol),
            Shape::OneRow => grid.rank_of(pcol / grid.npcol, pcol % grid.npcol),
            Shape::OneCol => grid.rank_of(prow / grid.npcol, prow % grid.npcol),
        }
    }
}

impl Layout<'_> {
    fn held(&self, grid: &Grid) -> (Vec<usize>, Vec<usize>) {
        let (r, c) = self.shape.me(grid);
        (self.rows.held_by(r), self.cols.held_by(c))
    }
}

/// Where [`exchange`] reads the elements this rank holds in the source layout: any
/// `Fn(i, j) -> T`, or a type that can also copy a run of rows of one column at once.
pub trait Source<T: Elem = f64> {
    /// Element (i, j) of sub(A).
    fn get(&self, i: usize, j: usize) -> T;
    /// Rows lo..lo+out.len() of column j into `out`; called only for consecutive rows that this
    /// rank holds.
    fn get_col(&self, j: usize, lo: usize, out: &mut [T]) {
        for (t, o) in out.iter_mut().enumerate() {
            *o = self.get(lo + t, j);
        }
    }
    /// Rows lo..lo+len of column j in place, when the source keeps them as one slice.
    fn col(&self, _j: usize, _lo: usize, _len: usize) -> Option<&[T]> {
        None
    }
}

/// A column-major storage whose element (i, j) of sub(A) lies at a position every rank can
/// compute from the leading dimension of the rank holding it (the maps behind it are the same
/// on every rank).
pub trait Placed {
    /// The offset, in values, of element (i, j) in the storage of the rank holding it, whose
    /// leading dimension is `ld`.
    fn offset(&self, i: usize, j: usize, ld: usize) -> usize;
}

/// Where [`exchange`] stores the elements this rank holds in the target layout: any
/// `FnMut(i, j, v)`, or a type that can also store a run of rows of one column at once.
pub trait Sink<T: Elem = f64> {
    /// Stores element (i, j) of sub(A).
    fn set(&mut self, i: usize, j: usize, v: T);
    /// Stores `vals` as rows lo..lo+vals.len() of column j; called only for consecutive rows that
    /// this rank holds.
    fn set_col(&mut self, j: usize, lo: usize, vals: &[T]) {
        for (t, &v) in vals.iter().enumerate() {
            self.set(lo + t, j, v);
        }
    }
    /// Rows lo..lo+len of column j in place, writable, when the sink keeps them as one slice.
    fn col_mut(&mut self, _j: usize, _lo: usize, _len: usize) -> Option<&mut [T]> {
        None
    }
}

impl<T: Elem, F: Fn(usize, usize) -> T> Source<T> for F {
    fn get(&self, i: usize, j: usize) -> T {
        self(i, j)
    }
}

impl<T: Elem, F: FnMut(usize, usize, T)> Sink<T> for F {
    fn set(&mut self, i: usize, j: usize, v: T) {
        self(i, j, v)
    }
}

/// A rank's tiles as one column-major local matrix (`data`, leading dimension in `coloff`):
/// row i of sub(A) at `rowoff[i]`, column j at `coloff[j]` (offsets of the rows and columns this
/// rank holds). Runs of rows are slice copies where their local rows are consecutive.
pub struct LocalMatrix<'a, D> {
    pub data: D,
    pub rowoff: &'a [usize],
    pub coloff: &'a [usize],
    /// The leading dimension `coloff` was computed with (column j is local column
    /// `coloff[j] / ld`).
    pub ld: usize,
}

impl<D> Placed for LocalMatrix<'_, D> {
    fn offset(&self, i: usize, j: usize, ld: usize) -> usize {
        self.rowoff[i] + self.coloff[j] / self.ld.max(1) * ld
    }
}

impl<D> LocalMatrix<'_, D> {
    /// The local offset of rows lo..lo+len of column j, when they are consecutive there.
    fn run(&self, j: usize, lo: usize, len: usize) -> Option<usize> {
        let first = self.rowoff[lo];
        (len == 0 || self.rowoff[lo + len - 1] == first + len - 1).then_some(first + self.coloff[j])
    }
}

impl<T: Elem, D: AsRef<[T]>> Source<T> for LocalMatrix<'_, D> {
    fn get(&self, i: usize, j: usize) -> T {
        self.data.as_ref()[self.rowoff[i] + self.coloff[j]]
    }
    fn get_col(&self, j: usize, lo: usize, out: &mut [T]) {
        match self.col(j, lo, out.len()) {
            Some(src) => out.copy_from_slice(src),
            None => out.iter_mut().enumerate().for_each(|(t, o)| *o = self.get(lo + t, j)),
        }
    }
    fn col(&self, j: usize, lo: usize, len: usize) -> Option<&[T]> {
        self.run(j, lo, len).map(|at| &self.data.as_ref()[at..at + len])
    }
}

impl<T: Elem, D: AsMut<[T]>> Sink<T> for LocalMatrix<'_, D> {
    fn set(&mut self, i: usize, j: usize, v: T) {
        let at = self.rowoff[i] + self.coloff[j];
        self.data.as_mut()[at] = v;
    }
    fn set_col(&mut self, j: usize, lo: usize, vals: &[T]) {
        match self.col_mut(j, lo, vals.len()) {
            Some(dst) => dst.copy_from_slice(vals),
            None => vals.iter().enumerate().for_each(|(t, &v)| self.set(lo + t, j, v)),
        }
    }
    fn col_mut(&mut self, j: usize, lo: usize, len: usize) -> Option<&mut [T]> {
        self.run(j, lo, len).map(|at| &mut self.data.as_mut()[at..at + len])
    }
}

/// The caller's local array under its block-cyclic maps: row i of sub(A) at local row
/// `rows.local[i]`, column j at local column `cols.local[j]`.
pub struct CallerArray<'a, T: Elem = f64> {
    pub a: ColMajor<T>,
    pub rows: &'a Axis,
    pub cols: &'a Axis,
}

impl<T: Elem> CallerArray<'_, T> {
    /// The first local row of rows lo..lo+len, when their local rows are consecutive.
    fn run(&self, lo: usize, len: usize) -> Option<usize> {
        let first = self.rows.local[lo];
        (len == 0 || self.rows.local[lo + len - 1] == first + len - 1).then_some(first)
    }
}

impl<T: Elem> Source<T> for CallerArray<'_, T> {
    fn get(&self, i: usize, j: usize) -> T {
        self.a.get(self.rows.local[i], self.cols.local[j])
    }
    fn get_col(&self, j: usize, lo: usize, out: &mut [T]) {
        match self.run(lo, out.len()) {
            Some(first) => self.a.read_col(first, self.cols.local[j], out),
            None => out.iter_mut().enumerate().for_each(|(t, o)| *o = self.get(lo + t, j)),
        }
    }
}

impl<T: Elem> Sink<T> for CallerArray<'_, T> {
    fn set(&mut self, i: usize, j: usize, v: T) {
        self.a.set(self.rows.local[i], self.cols.local[j], v)
    }
    fn set_col(&mut self, j: usize, lo: usize, vals: &[T]) {
        match self.run(lo, vals.len()) {
            Some(first) => self.a.write_col(first, self.cols.local[j], vals),
            None => vals.iter().enumerate().for_each(|(t, &v)| self.set(lo + t, j, v)),
        }
    }
}

/// Maximal runs of `rows` (increasing indices) that are consecutive indices held by one process
/// row in `other`'s row map: (position of the run's first index in `rows`, length, that process
/// row). A run is consecutive in the local storage of both layouts (block-cyclic maps keep the
/// indices of one block together), so each one moves as a slice copy.
fn row_runs(rows: &[usize], other: &Axis) -> Vec<(usize, usize, usize)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (pos, &i) in rows.iter().enumerate() {
        let o = other.owner[i];
        match runs.last_mut() {
            Some((p0, len, o0)) if *o0 == o && rows[*p0] + *len == i => *len += 1,
            _ => runs.push((pos, 1, o)),
        }
    }
    runs
}

/// Calls `f(first row, rows, process row)` for the parts of `runs` inside positions `keep` of
/// `rows`, in increasing order.
fn each_run(
    rows: &[usize],
    runs: &[(usize, usize, usize)],
    keep: std::ops::Range<usize>,
    mut f: impl FnMut(usize, usize, usize),
) {
    let first = runs.partition_point(|&(p, len, _)| p + len <= keep.start);
    for &(p, len, o) in &runs[first..] {
        if p >= keep.end {
            break;
        }
        let (lo, hi) = (p.max(keep.start), (p + len).min(keep.end));
        f(rows[lo], hi - lo, o);
    }
}

/// Moves the `part` of sub(A) from layout `from` (values given by `read(i, j)` for the elements
/// this rank holds there) to layout `to` (stored with `write(i, j, v)` for the elements this rank
/// holds there). Collective over the grid. The elements this rank holds in both layouts are
/// copied directly in pass 2 and do not go through the MPI buffers (with equal block sizes on a
/// 1×Q grid that is all of them). Every column moves in runs of rows that are consecutive on both
/// sides (slice copies, no lookup per element), and the buffers are kept for the next call
/// ([`crate::tile::recycle`]).
pub fn exchange<T: Elem + Equivalence>(
    grid: &Grid,
    part: Part,
    from: &Layout,
    to: &Layout,
    read: impl Source<T>,
    mut write: impl Sink<T>,
) {
    let (src_rows, src_cols) = from.held(grid);
    let (dst_rows, dst_cols) = to.held(grid);
    let src_runs = row_runs(&src_rows, to.rows);
    let dst_runs = row_runs(&dst_rows, from.rows);
    // MPI counts and displacements are i32: the columns go in rounds of at most `limit` values
    // per rank (every rank computes the same rounds from sub(A)'s shape).
    let (m, n) = (from.rows.owner.len(), from.cols.owner.len());
    let per_round = (round_limit() / m.max(1)).max(1);
    for lo in (0..n.max(1)).step_by(per_round) {
        let hi = (lo + per_round).min(n);
        let (sc, dc) = (in_range(&src_cols, lo, hi), in_range(&dst_cols, lo, hi));
        let rows =
            Held { src_rows: &src_rows, src_runs: &src_runs, dst_rows: &dst_rows, dst_runs: &dst_runs };
        exchange_round(grid, part, from, to, &rows, sc, dc, &read, &mut write);
    }
}

/// Which side of a conversion is in the ranks' shared tile storage ([`super::shm`]): every
/// rank's storage as mapped here, with its leading dimension, and where element (i, j) lies in
/// it ([`Placed::offset`]).
pub enum SharedSide<'a, T = f64> {
    /// The target: each rank writes the values it holds in `from` into the holder's storage.
    Sink(&'a [(*mut T, usize)], &'a dyn Placed),
    /// The source: each rank reads the values it holds in `to` from the holder's storage.
    Source(&'a [(*mut T, usize)], &'a dyn Placed),
}

/// [`exchange`] through shared tile storage: every value moves once, by plain copies, from its
/// place in the source to its place in the target, whichever ranks hold them. Collective: it
/// starts when every rank's storage is ready (converting back: every rank's tasks have
/// finished) and ends when every rank has copied.
pub fn exchange_shared<T: Elem>(
    grid: &Grid,
    part: Part,
    from: &Layout,
    to: &Layout,
    read: impl Source<T>,
    mut write: impl Sink<T>,
    side: SharedSide<T>,
) {
    let me = grid.me();
    let barrier = || {
        let mut all = 0i32;
        grid.comm.all_reduce_into(&1i32, &mut all, SystemOperation::min());
    };
    barrier();
    // Each rank walks what it holds on the side that is not shared (its caller values), which
    // the shared side's holders take from or leave in place.
    let ((rows, cols), other) = match side {
        SharedSide::Sink(..) => (from.held(grid), to),
        SharedSide::Source(..) => (to.held(grid), from),
    };
    let runs = row_runs(&rows, other.rows);
    let mut tmp = Vec::new();
    for &j in &cols {
        let c = other.cols.owner[j];
        each_run(&rows, &runs, part.kept_range(&rows, j), |lo, len, o| {
            let r = other.shape.rank_of(grid, o, c);
            if r == me {
                copy_here(&read, &mut write, j, lo, len, &mut tmp);
                return;
            }
            match side {
                SharedSide::Sink(peers, at) => {
                    let (base, ld) = peers[r];
                    // SAFETY: rank r's storage is mapped here whole ([`super::shm`]), rows
                    // lo..lo+len of column j are consecutive in it at this offset (a run lies in
                    // one of its tiles, or in tiles it keeps one below the other), and only this
                    // rank writes them during the conversion (it holds them in `from`); r reads
                    // nothing before the closing barrier.
                    let dst = unsafe { std::slice::from_raw_parts_mut(base.add(at.offset(lo, j, ld)), len) };
                    read.get_col(j, lo, dst);
                }
                SharedSide::Source(peers, at) => {
                    let (base, ld) = peers[r];
                    // SAFETY: as above; rank r finished writing its storage before the opening
                    // barrier and writes nothing until the closing one.
                    let src = unsafe { std::slice::from_raw_parts(base.add(at.offset(lo, j, ld)), len) };
                    write.set_col(j, lo, src);
                }
            }
        });
    }
    barrier();
}

/// Copies rows lo..lo+len of column j, which this rank holds in both layouts, from `read` to
/// `write`: straight from one side's slice to the other when either keeps the run as one, else
/// through `tmp`.
fn copy_here<T: Elem>(
    read: &impl Source<T>,
    write: &mut impl Sink<T>,
    j: usize,
    lo: usize,
    len: usize,
    tmp: &mut Vec<T>,
) {
    if let Some(src) = read.col(j, lo, len) {
        write.set_col(j, lo, src);
    } else if let Some(dst) = write.col_mut(j, lo, len) {
        read.get_col(j, lo, dst);
    } else {
        if tmp.len() < len {
            *tmp = T::zeroed(len);
        }
        let tmp = &mut tmp[..len];
        read.get_col(j, lo, tmp);
        write.set_col(j, lo, tmp);
    }
}

/// The most values one rank exchanges with the others in one `MPI_Alltoallv`: `i32::MAX`, or
/// `HETLA_TEST_ROUND_VALUES` (a test hook that makes small problems take several rounds).
fn round_limit() -> usize {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("HETLA_TEST_ROUND_VALUES")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&v| v > 0)
            .map_or(i32::MAX as usize, |v| v.min(i32::MAX as usize))
    })
}

/// The part of `cols` (increasing) in lo..hi.
fn in_range(cols: &[usize], lo: usize, hi: usize) -> &[usize] {
    &cols[cols.partition_point(|&j| j < lo)..cols.partition_point(|&j| j < hi)]
}

/// The rows this rank holds in both layouts and their runs ([`row_runs`]).
struct Held<'a> {
    src_rows: &'a [usize],
    src_runs: &'a [(usize, usize, usize)],
    dst_rows: &'a [usize],
    dst_runs: &'a [(usize, usize, usize)],
}

/// One round of [`exchange`]: the columns `src_cols` this rank holds in `from` and `dst_cols`
/// it holds in `to`, one `MPI_Alltoallv`.
#[allow(clippy::too_many_arguments)]
fn exchange_round<T: Elem + Equivalence>(
    grid: &Grid,
    part: Part,
    from: &Layout,
    to: &Layout,
    held: &Held,
    src_cols: &[usize],
    dst_cols: &[usize],
    read: &impl Source<T>,
    write: &mut impl Sink<T>,
) {
    let size = grid.comm.size() as usize;
    let me = grid.me();
    let (src_rows, src_runs, dst_rows, dst_runs) =
        (held.src_rows, held.src_runs, held.dst_rows, held.dst_runs);

    // Pass 1: how much goes to and comes from each rank.
    let mut scounts = vec![0i32; size];
    for &j in src_cols {
        let c = to.cols.owner[j];
        each_run(src_rows, src_runs, part.kept_range(src_rows, j), |_, len, o| {
            let r = to.shape.rank_of(grid, o, c);
            if r != me {
                scounts[r] += len as i32;
            }
        });
    }
    let mut rcounts = vec![0i32; size];
    for &j in dst_cols {
        let c = from.cols.owner[j];
        each_run(dst_rows, dst_runs, part.kept_range(dst_rows, j), |_, len, o| {
            let r = from.shape.rank_of(grid, o, c);
            if r != me {
                rcounts[r] += len as i32;
            }
        });
    }
    let displs = |c: &[i32]| -> Vec<i32> {
        c.iter()
            .scan(0i32, |acc, &x| {
                let d = *acc;
                *acc += x;
                Some(d)
            })
            .collect()
    };
    let (sdispls, rdispls) = (displs(&scounts), displs(&rcounts));
    let stotal: i32 = scounts.iter().sum();
    let rtotal: i32 = rcounts.iter().sum();

    // Pass 2: pack in column-major order; what stays on this rank is copied directly.
    // Both buffers are written in full before they are read (packed here, filled by MPI).
    let mut sbuf = T::scratch(stotal as usize);
    let mut cursor: Vec<usize> = sdispls.iter().map(|&d| d as usize).collect();
    let mut tmp = Vec::new();
    for &j in src_cols {
        let c = to.cols.owner[j];
        each_run(src_rows, src_runs, part.kept_range(src_rows, j), |lo, len, o| {
            let r = to.shape.rank_of(grid, o, c);
            if r == me {
                copy_here(read, write, j, lo, len, &mut tmp);
            } else {
                read.get_col(j, lo, &mut sbuf[cursor[r]..cursor[r] + len]);
                cursor[r] += len;
            }
        });
    }
    let mut rbuf = T::scratch(rtotal as usize);
    grid.comm.all_to_all_v(
        &sbuf[..stotal as usize],
        &scounts,
        &sdispls,
        &mut rbuf[..rtotal as usize],
        &rcounts,
        &rdispls,
    );

    // Pass 3: unpack in the same order.
    let mut cursor: Vec<usize> = rdispls.iter().map(|&d| d as usize).collect();
    for &j in dst_cols {
        let c = from.cols.owner[j];
        each_run(dst_rows, dst_runs, part.kept_range(dst_rows, j), |lo, len, o| {
            let r = from.shape.rank_of(grid, o, c);
            if r != me {
                write.set_col(j, lo, &rbuf[cursor[r]..cursor[r] + len]);
                cursor[r] += len;
            }
        });
    }
    T::release(sbuf);
    T::release(rbuf);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tiles rows of 2 on a 2-row grid: rows 0,1 and 4,5 are this rank's (local rows 0..4).
    fn offsets() -> (Vec<usize>, Vec<usize>) {
        let rowoff = vec![0, 1, 99, 99, 2, 3];
        let coloff = vec![0, 4, 8];
        (rowoff, coloff)
    }

    #[test]
    fn local_matrix_runs_are_slices_only_where_rows_are_adjacent() {
        let (rowoff, coloff) = offsets();
        let mut data: Vec<f64> = (0..12).map(|x| x as f64).collect();
        {
            let lm = LocalMatrix { data: &data[..], rowoff: &rowoff, coloff: &coloff, ld: 4 };
            let mut out = [0.0; 2];
            lm.get_col(1, 0, &mut out);
            assert_eq!(out, [4.0, 5.0]);
            assert_eq!(lm.get(5, 2), 11.0);
        }
        let mut lm = LocalMatrix { data: &mut data[..], rowoff: &rowoff, coloff: &coloff, ld: 4 };
        lm.set_col(2, 4, &[-1.0, -2.0]);
        lm.set(1, 0, -3.0);
        assert_eq!(data, [0.0, -3.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, -1.0, -2.0]);
        // Runs of adjacent local rows are slices of the data, in place.
        {
            let mut lm = LocalMatrix { data: &mut data[..], rowoff: &rowoff, coloff: &coloff, ld: 4 };
            assert_eq!(lm.col(2, 4, 2), Some(&[-1.0, -2.0][..]));
            lm.col_mut(1, 0, 2).expect("rows 0 and 1 are adjacent").copy_from_slice(&[7.0, 8.0]);
            assert_eq!(lm.get(0, 1), 7.0);
            assert_eq!(lm.get(1, 1), 8.0);
            lm.set_col(1, 0, &[4.0, 5.0]);
        }
        // Rows 1 and 2 are not adjacent locally: the run falls back to element by element.
        let lm = LocalMatrix { data: &data[..], rowoff: &[0, 1, 3], coloff: &[0], ld: 4 };
        assert_eq!(lm.run(0, 0, 3), None);
        assert_eq!(lm.col(0, 0, 3), None);
        let mut out = [0.0; 3];
        lm.get_col(0, 0, &mut out);
        assert_eq!(out, [0.0, -3.0, 3.0]);
    }

    #[test]
    fn closures_are_sources_and_sinks() {
        let src = |i: usize, j: usize| (i * 10 + j) as f64;
        let mut out = [0.0; 3];
        src.get_col(2, 1, &mut out);
        assert_eq!(out, [12.0, 22.0, 32.0]);
        let mut seen = Vec::new();
        let mut sink = |i: usize, j: usize, v: f64| seen.push((i, j, v));
        sink.set_col(4, 7, &[1.0, 2.0]);
        assert_eq!(seen, [(7, 4, 1.0), (8, 4, 2.0)]);
    }

    #[test]
    fn rows_move_in_runs_split_where_the_other_owner_or_the_index_changes() {
        // Rows held here: 0..4 and 8..12 (caller blocks of 4 on 2 process rows); the other layout
        // deals blocks of 2 over 2 process rows.
        let rows: Vec<usize> = (0..4).chain(8..12).collect();
        let other = Axis::tiles(12, 2, 0, 2, false);
        let runs = row_runs(&rows, &other);
        assert_eq!(runs, [(0, 2, 0), (2, 2, 1), (4, 2, 0), (6, 2, 1)]);
        let mut seen = Vec::new();
        each_run(&rows, &runs, 1..7, |lo, len, o| seen.push((lo, len, o)));
        assert_eq!(seen, [(1, 1, 0), (2, 2, 1), (8, 2, 0), (10, 1, 1)]);
        // A run over the whole range when one process row holds everything.
        let one = Axis::tiles(12, 5, 0, 1, false);
        assert_eq!(row_runs(&rows, &one), [(0, 4, 0), (4, 4, 0)]);
    }

    #[test]
    fn a_part_keeps_a_contiguous_run_of_rows() {
        let rows = [0, 1, 4, 5, 8];
        assert_eq!(Part::Lower.kept(&rows, 4), &[4, 5, 8]);
        assert_eq!(Part::Upper.kept(&rows, 4), &[0, 1, 4]);
        assert_eq!(Part::Full.kept(&rows, 4), &rows);
        assert!(Part::Lower.kept(&rows, 9).is_empty());
    }
}
