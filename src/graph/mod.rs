//! The interface every tile algorithm is written against, and that every runtime implements.
//!
//! An algorithm is a *task generator*: a plain loop over tile indices that calls
//! [`Graph::submit`] once per task, in program order, naming the tiles the task writes and reads
//! by [`TileId`] and saying what it computes as an [`Op`] (the one statement of each task's
//! math, [`op`]). It knows nothing of threads, devices, ranks or messages. Runtimes:
//!
//! * shared memory ([`crate::runtime::shared::SharedGraph`]): every task runs in this process
//!   on the [`crate::runtime::Seq`] workers and devices;
//! * distributed ([`crate::dist::tasks::DistSeq`]): every rank runs the same generator, keeps the
//!   tasks whose output it owns and turns reads of remote tiles into messages (seeds 000 §6:
//!   the same serial generator on every process, each executing the instances its data owns).
//!
//! Failures follow one rule, kept by the runtimes: an op that reports INFO > 0 (a Cholesky pivot
//! that is not positive) records the whole-matrix INFO; the tasks of its step and later steps do
//! not compute (earlier steps finish), and the smallest INFO is the call's. On ranks the failure travels
//! with the tiles: a tile message carries its sender's earliest failed step (`dist::comm::HEADER`).

pub mod op;

pub use crate::device::{DeviceOp as Op, Tiles};

/// A tile of the matrix the generator works on (`i + j * mt`), or an extra buffer a runtime
/// allocated for the algorithm (ids from `mt * nt` on).
pub type TileId = usize;

/// Tile edges of the matrix the generator works on (uniform or hybrid: any widths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiling {
    row_off: Vec<usize>,
    col_off: Vec<usize>,
}

impl Tiling {
    /// An `m`×`n` matrix in `mb`×`nb` tiles (the last row and column of tiles may be smaller).
    pub fn uniform(m: usize, mb: usize, n: usize, nb: usize) -> Self {
        let edges =
            |n: usize, b: usize| (0..n.div_ceil(b)).map(|i| i * b).chain(std::iter::once(n)).collect();
        Tiling { row_off: edges(m, mb), col_off: edges(n, nb) }
    }
    /// The tiles of a tiled matrix.
    pub fn of<T: crate::tile::Elem>(a: &crate::tile::TiledMatrix<T>) -> Self {
        let row_off = (0..a.mt()).map(|i| a.row_offset(i)).chain(std::iter::once(a.m)).collect();
        let col_off = (0..a.nt()).map(|j| a.col_offset(j)).chain(std::iter::once(a.n)).collect();
        Tiling { row_off, col_off }
    }
    /// An `m`×`n` matrix with rows cut by `rows` and columns by `cols` (hybrid tiles).
    pub fn of_parts(m: usize, n: usize, rows: &crate::tile::Part, cols: &crate::tile::Part) -> Self {
        let edges = |n: usize, p: &crate::tile::Part| {
            (0..p.count(n)).map(|j| p.offset(j).min(n)).chain(std::iter::once(n)).collect()
        };
        Tiling { row_off: edges(m, rows), col_off: edges(n, cols) }
    }
    pub fn mt(&self) -> usize {
        self.row_off.len() - 1
    }
    pub fn nt(&self) -> usize {
        self.col_off.len() - 1
    }
    pub fn m(&self) -> usize {
        self.row_off[self.mt()]
    }
    pub fn n(&self) -> usize {
        self.col_off[self.nt()]
    }
    pub fn rows(&self, i: usize) -> usize {
        self.row_off[i + 1] - self.row_off[i]
    }
    pub fn cols(&self, j: usize) -> usize {
        self.col_off[j + 1] - self.col_off[j]
    }
    pub fn row_offset(&self, i: usize) -> usize {
        self.row_off[i]
    }
    pub fn col_offset(&self, j: usize) -> usize {
        self.col_off[j]
    }
    /// The id of tile (i, j).
    pub fn id(&self, i: usize, j: usize) -> TileId {
        debug_assert!(i < self.mt() && j < self.nt());
        i + j * self.mt()
    }
    /// Whether row and column edges coincide (square diagonal tiles).
    pub fn square_tiles(&self) -> bool {
        self.row_off == self.col_off
    }
}

/// One task: its op, urgency, the step of the algorithm it belongs to, and its tiles. The op's
/// operands name the tiles by position in `writes` followed by `reads` ([`Tiles::one`] for one
/// tile, [`Tiles::stack`] for consecutive positions holding consecutive tile rows of one tile
/// column, which the op sees as one block).
pub struct Spec<'a> {
    pub op: Op,
    pub prio: i64,
    pub step: usize,
    /// (m, n, k) of the work, for traces and the cost model.
    pub dims: [usize; 3],
    pub writes: &'a [TileId],
    pub reads: &'a [TileId],
}

/// What a task generator submits to.
pub trait Graph {
    /// The tiles of the matrix being worked on.
    fn tiling(&self) -> &Tiling;
    /// Appends a task (program order is the order of calls).
    fn submit(&mut self, t: Spec);
    /// A new extra buffer of `rows`×`cols` (zero-filled) for the generator's tasks, kept with
    /// matrix tile `with` (where that tile is: on its rank in the distributed runtime); returns
    /// its id (ids from `mt * nt` on, in the order asked).
    fn buffer(&mut self, rows: usize, cols: usize, with: TileId) -> TileId;
    /// Where tile or buffer `id` is, as a number: tiles of one place are in one address space
    /// (one rank of the distributed runtime), so that a task may take them as one block; tiles
    /// of different places are moved as messages. Shared memory and the recorder are one place.
    fn place(&self, _id: TileId) -> usize {
        0
    }
    /// True once the runtime has stopped for good (a failure it does not recover from); a
    /// generator may then stop generating.
    fn stopped(&self) -> bool {
        false
    }
}

/// Priority of a task whose output lies in tile column `j` of `nt`, with a kernel `bonus` 0..3:
/// `(nt - j) * 4 + bonus`, so work on the next panel's column runs first (dynamic lookahead) and
/// within a column the factorization kernel outranks its solves, which outrank updates.
pub fn prio(nt: usize, j: usize, bonus: i64) -> i64 {
    (nt as i64 - j as i64) * 4 + bonus
}

/// Priority of a task of step `k` of a right-looking factorization with `steps` panels over `mt`
/// tile rows, whose output lies in tile column `j` ≥ k (the panel itself: j = k), with a kernel
/// `bonus` 0..3. It estimates the task's bottom level, the longest chain of work from it to the
/// end, costing a column's work at step s as the tile rows it spans (mt − s) and taking a panel
/// as dear as one column's update: column j's updates of steps k..j, then from panel j on a
/// panel and the next column's update per step, i.e. S(k) + S(j) with S(x) = Σ_{s≥x} (mt − s).
/// So the next panel's column outranks the rest of its step (dynamic lookahead) as with
/// [`prio`], but an early step's update of a far column is not left behind the later steps of
/// nearer columns: with [`prio`] the last tile column's updates all waited for the end and ran
/// there one after another (15% of a 3000×3000 LU's time on two cores idle).
pub fn prio_step(mt: usize, steps: usize, k: usize, j: usize, bonus: i64) -> i64 {
    // Σ_{s=x}^{steps-1} (mt - s), every term at least 1.
    let suffix =
        |x: usize| -> i64 { (x.min(steps)..steps).map(|s| mt.saturating_sub(s).max(1) as i64).sum() };
    (suffix(k) + suffix(j)) * 4 + bonus
}

/// The failure state a runtime keeps for one call: the smallest whole-matrix INFO reported and
/// the earliest step that reported one.
pub struct Failure {
    info: std::sync::atomic::AtomicI32,
    step: std::sync::atomic::AtomicUsize,
}

impl Default for Failure {
    fn default() -> Self {
        Failure { info: i32::MAX.into(), step: usize::MAX.into() }
    }
}

impl Failure {
    /// Records INFO `info` (> 0) reported by a task of step `step`.
    pub fn record(&self, step: usize, info: i32) {
        use std::sync::atomic::Ordering::SeqCst;
        self.info.fetch_min(info, SeqCst);
        self.step.fetch_min(step, SeqCst);
    }
    /// Whether a task of step `step` still computes.
    pub fn live(&self, step: usize) -> bool {
        step < self.step.load(std::sync::atomic::Ordering::SeqCst)
    }
    /// The earliest failed step and the smallest INFO recorded, if any.
    pub fn failed(&self) -> Option<(usize, i32)> {
        let s = self.step.load(std::sync::atomic::Ordering::SeqCst);
        (s != usize::MAX).then(|| (s, self.info.load(std::sync::atomic::Ordering::SeqCst)))
    }
    /// The smallest INFO recorded, if any.
    pub fn info(&self) -> Option<i32> {
        let i = self.info.load(std::sync::atomic::Ordering::SeqCst);
        (i != i32::MAX).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_priorities_look_ahead_and_keep_far_columns_moving() {
        let (mt, steps) = (12, 12);
        let p = |k, j| prio_step(mt, steps, k, j, 0);
        for k in 0..steps - 3 {
            // The next panel's column first, then the next panel, before the rest of the step.
            assert!(p(k, k + 1) > p(k + 1, k + 1));
            for j in k + 3..steps {
                assert!(p(k + 1, k + 1) > p(k, j), "panel {} after update ({k}, {j})", k + 1);
            }
            // The last column's update of step k before the look-ahead of every step from
            // halfway to the end on (with column-only priorities it waited for all of them).
            for k2 in k + (steps - k) / 2..steps - 1 {
                assert!(p(k, steps - 1) > p(k2, k2 + 1), "({k}, last) behind ({k2}, {})", k2 + 1);
            }
        }
        // Columns right of the last panel (N > M) count as beyond it; the kernel bonus breaks ties.
        assert_eq!(prio_step(4, 2, 1, 7, 0), prio_step(4, 2, 1, 2, 0));
        assert_eq!(p(3, 5) + 2, prio_step(mt, steps, 3, 5, 2));
    }

    #[test]
    fn uniform_tiling_edges() {
        let t = Tiling::uniform(10, 4, 7, 3);
        assert_eq!((t.mt(), t.nt(), t.m(), t.n()), (3, 3, 10, 7));
        assert_eq!((t.rows(2), t.cols(2), t.row_offset(1), t.col_offset(2)), (2, 1, 4, 6));
        assert_eq!(t.id(1, 2), 7);
        assert!(!t.square_tiles());
        assert!(Tiling::uniform(9, 4, 9, 4).square_tiles());
    }

    #[test]
    fn failure_stops_its_step_and_later_ones() {
        let f = Failure::default();
        assert!(f.live(5) && f.info().is_none());
        f.record(3, 40);
        f.record(4, 50);
        assert_eq!(f.info(), Some(40));
        assert!(f.live(2) && !f.live(3) && !f.live(4));
    }
}
