//! The task runtime: a sequence of tile tasks per call, dependencies by per-tile task lists,
//! ready queues by priority, a persistent pool of sleeping workers.
//!
//! This follows the runtime of Song and Dongarra (seeds 000 §4–5, 001 §4): the calling thread is
//! the *master* that generates tasks in program order into a bounded *task window*; each task is
//! appended to the list of every tile it touches ([`deps`]); a task whose inputs are all granted
//! enters the ready queue; workers take the most urgent ready task, run it, and FIRE its
//! successors. When the window is full the master executes ready tasks itself instead of
//! waiting, and it does the same once generation is over until the sequence has drained.
//!
//! Tasks name their data by tile ([`Task::read`], [`Task::write`], ...) and get views of exactly
//! that data through [`Ctx`] when they run, so an algorithm never touches raw memory and never
//! knows which thread or device runs its tasks.
//!
//! The first failure of any task (a numerical error it returns, or a panic, which is caught) is
//! recorded; later tasks of the sequence are skipped but still release their successors, and the
//! failure becomes the result of [`Seq::wait`].

pub mod deps;
mod pool;
pub mod trace;

pub use deps::Mode;

use crate::config::Config;
use crate::error::Error;
use crate::tile::{Elem, TiledMatrix, View, ViewMut};
use std::ops::Range;

pub(crate) use pool::in_task;

/// Signature of a task body.
pub type Job = Box<dyn FnOnce(&Ctx) -> Result<(), Error> + Send + 'static>;

/// Description of one task before submission: what it is called (for the trace), how urgent it
/// is, and what it reads and writes.
pub struct Task {
    pub(crate) name: &'static str,
    pub(crate) prio: i64,
    pub(crate) dims: [usize; 3],
    pub(crate) accesses: Vec<(u64, Mode)>,
}

impl Task {
    /// A task running kernel `name`. Priorities are relative: larger runs first.
    pub fn new(name: &'static str) -> Self {
        Task { name, prio: 0, dims: [0; 3], accesses: Vec::new() }
    }
    pub fn prio(mut self, p: i64) -> Self {
        self.prio = p;
        self
    }
    /// Sizes (m, n, k) shown in the trace.
    pub fn dims(mut self, m: usize, n: usize, k: usize) -> Self {
        self.dims = [m, n, k];
        self
    }
    fn add(mut self, key: u64, mode: Mode) -> Self {
        if let Some(a) = self.accesses.iter_mut().find(|a| a.0 == key) {
            a.1 = a.1.merge(mode);
        } else {
            self.accesses.push((key, mode));
        }
        self
    }
    /// The task reads tile (i, j) of `a`.
    pub fn read<T: Elem>(self, a: &TiledMatrix<T>, i: usize, j: usize) -> Self {
        self.add(a.key(i, j), Mode::Read)
    }
    /// The task overwrites tile (i, j) of `a` without reading it.
    pub fn write<T: Elem>(self, a: &TiledMatrix<T>, i: usize, j: usize) -> Self {
        self.add(a.key(i, j), Mode::Write)
    }
    /// The task reads and writes tile (i, j) of `a`.
    pub fn rw<T: Elem>(self, a: &TiledMatrix<T>, i: usize, j: usize) -> Self {
        self.add(a.key(i, j), Mode::ReadWrite)
    }
    /// The task reads every tile in `rows` × `cols` of `a`.
    pub fn read_range<T: Elem>(mut self, a: &TiledMatrix<T>, rows: Range<usize>, cols: Range<usize>) -> Self {
        for j in cols {
            for i in rows.clone() {
                self = self.read(a, i, j);
            }
        }
        self
    }
    /// The task reads and writes every tile in `rows` × `cols` of `a`.
    pub fn rw_range<T: Elem>(mut self, a: &TiledMatrix<T>, rows: Range<usize>, cols: Range<usize>) -> Self {
        for j in cols {
            for i in rows.clone() {
                self = self.rw(a, i, j);
            }
        }
        self
    }
}

/// What a running task may touch: views of the tiles it declared, nothing else.
pub struct Ctx<'a> {
    accesses: &'a [(u64, Mode)],
}

impl<'a> Ctx<'a> {
    fn mode_of(&self, key: u64) -> Option<Mode> {
        self.accesses.iter().find(|a| a.0 == key).map(|a| a.1)
    }

    fn check<T: Elem>(&self, a: &TiledMatrix<T>, rows: &Range<usize>, cols: &Range<usize>, write: bool) {
        for j in cols.clone() {
            for i in rows.clone() {
                match self.mode_of(a.key(i, j)) {
                    Some(m) if !write || m.writes() => {}
                    Some(_) => panic!("task writes tile ({i},{j}) it declared read-only"),
                    None => panic!("task touches tile ({i},{j}) it did not declare"),
                }
            }
        }
    }

    /// Read-only view of tile (i, j).
    pub fn tile<T: Elem>(&self, a: &TiledMatrix<T>, i: usize, j: usize) -> View<'a, T> {
        self.region(a, i..i + 1, j..j + 1)
    }
    /// Writable view of tile (i, j).
    pub fn tile_mut<T: Elem>(&self, a: &TiledMatrix<T>, i: usize, j: usize) -> ViewMut<'a, T> {
        self.region_mut(a, i..i + 1, j..j + 1)
    }
    /// Read-only view of the block covering tile rows `rows` and tile columns `cols`.
    pub fn region<T: Elem>(&self, a: &TiledMatrix<T>, rows: Range<usize>, cols: Range<usize>) -> View<'a, T> {
        self.check(a, &rows, &cols, false);
        // SAFETY: the task declared every tile of the block, so the dependency lists guarantee no
        // task writes them while this one runs; the matrix's creator guaranteed the memory is
        // valid while tasks run (TiledMatrix::from_raw).
        unsafe { a.raw_block(rows, cols).view() }
    }
    /// Writable view of the block covering tile rows `rows` and tile columns `cols`.
    ///
    /// A task must not take two writable views of the same tile at once.
    pub fn region_mut<T: Elem>(
        &self,
        a: &TiledMatrix<T>,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> ViewMut<'a, T> {
        self.check(a, &rows, &cols, true);
        // SAFETY: the task declared write access to every tile of the block, so the dependency
        // lists guarantee no other task reads or writes them while this one runs.
        unsafe { a.raw_block(rows, cols).view_mut() }
    }
}

/// One call's stream of tasks. Dropping it waits for every submitted task to finish.
pub struct Seq {
    inner: pool::SeqHandle,
}

impl Seq {
    /// A new sequence on the process-wide worker pool (created on first use with
    /// `cfg.threads - 1` workers; the calling thread is the last worker).
    pub fn new(cfg: &Config) -> Self {
        Seq { inner: pool::SeqHandle::new(cfg) }
    }

    /// Appends a task; it runs once everything it depends on has finished. Blocks (working on
    /// this sequence's ready tasks) while the task window is full.
    pub fn submit(&self, task: Task, job: impl FnOnce(&Ctx) -> Result<(), Error> + Send + 'static) {
        self.inner.submit(task, Box::new(job));
    }

    /// True once a task has failed; algorithms may stop generating.
    pub fn failed(&self) -> bool {
        self.inner.failed()
    }

    /// Works on this sequence until all its tasks have finished; returns the first failure.
    pub fn wait(self) -> Result<(), Error> {
        self.inner.wait()
    }
}
