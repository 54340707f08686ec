//! The shared-memory runtime of a task generator ([`crate::graph::Graph`]): every task of the
//! generator becomes a [`Task`] of one [`Seq`], its tiles declared in the order the op numbers
//! them (writes, then reads), its op attached as the device kernel and run by the host body
//! through [`crate::graph::op`].
//!
//! Failure: an op's INFO > 0 becomes `Error::Numerical(info_base + info)` for the sequence; the
//! tasks of that step and later ones are skipped, earlier steps finish (`Task::step`).

use super::{Ctx, Seq, Task};
use crate::error::Error;
use crate::graph::op::{OpElem, Operands};
use crate::graph::{Graph, Op, Spec, TileId, Tiles, Tiling};
use crate::tile::{Elem, TiledMatrix, View, ViewMut, Workspace};
use std::sync::Mutex;

/// Storage for the extra buffers of shared-memory generators ([`Graph::buffer`]); it must
/// outlive the sequences whose tasks use them.
pub struct Buffers<T: Elem = f64>(Mutex<Vec<Workspace<T>>>);

impl<T: Elem> Default for Buffers<T> {
    fn default() -> Self {
        Buffers(Mutex::new(Vec::new()))
    }
}

impl<T: Elem + Default> Buffers<T> {
    fn add(&self, rows: usize, cols: usize) -> TiledMatrix<T> {
        let w = Workspace::new(rows, cols, rows.max(1), cols.max(1));
        let t = w.tiles();
        // The workspace's storage is on the heap: the handle stays valid when the list grows.
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(w);
        t
    }

    /// The values of buffer `t` of this store (column-major), read once the sequences that use
    /// it have been waited for.
    pub fn values(&self, t: &TiledMatrix<T>) -> Vec<T> {
        let all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.iter().find(|w| w.tiles().id() == t.id()).expect("a buffer of this store").as_slice().to_vec()
    }
}

/// A generator's view of one tiled matrix in this process (and of its buffers, when it has a
/// [`Buffers`] to put them in), of element type `T`: the generator is the same for every type,
/// the ops' math runs in `T` ([`crate::graph::Op::compute`]).
pub struct SharedGraph<'s, T: OpElem = f64> {
    seq: &'s Seq,
    a: TiledMatrix<T>,
    tiling: Tiling,
    store: Option<&'s Buffers<T>>,
    /// The tiles named by ids from mt·nt on (buffers, each one tile of a matrix of its own, and
    /// tiles of other matrices the generator works on, [`SharedGraph::attach`]), by id − mt·nt.
    extra: Vec<Pos<T>>,
}

impl<'s, T: OpElem> SharedGraph<'s, T> {
    pub fn new(seq: &'s Seq, a: &TiledMatrix<T>) -> Self {
        SharedGraph { seq, a: *a, tiling: Tiling::of(a), store: None, extra: Vec::new() }
    }
    /// A graph whose generator may ask for buffers, kept in `store`.
    pub fn with_buffers(seq: &'s Seq, a: &TiledMatrix<T>, store: &'s Buffers<T>) -> Self {
        SharedGraph { store: Some(store), ..Self::new(seq, a) }
    }
    /// Buffer `id` as a one-tile matrix (for tasks outside the generator).
    pub fn buffer_matrix(&self, id: TileId) -> TiledMatrix<T> {
        self.extra[id - self.tiling.mt() * self.tiling.nt()].0
    }
    /// Names the tiles of another matrix `b` for the generator: tile (i, j) of `b` is id
    /// `ids[i + j·b.mt()]`.
    pub fn attach(&mut self, b: &TiledMatrix<T>) -> Vec<TileId> {
        let first = self.tiling.mt() * self.tiling.nt() + self.extra.len();
        self.extra.extend((0..b.nt()).flat_map(|j| (0..b.mt()).map(move |i| (*b, i, j))));
        (first..first + b.mt() * b.nt()).collect()
    }
    /// The matrix and tile that `id` names.
    fn at(&self, id: TileId) -> Pos<T> {
        let mt = self.tiling.mt();
        match id.checked_sub(mt * self.tiling.nt()) {
            None => (self.a, id % mt, id / mt),
            Some(x) => self.extra[x],
        }
    }
}

/// A task's tiles, by position: (matrix, i, j).
pub(crate) type Pos<T = f64> = (TiledMatrix<T>, usize, usize);

/// The blocks operand `t` covers: runs of consecutive tile rows of one tile column of one
/// matrix, in order.
pub(crate) fn blocks<T: Elem>(pos: &[Pos<T>], t: Tiles) -> Vec<(TiledMatrix<T>, usize, usize, usize)> {
    let mut out: Vec<(TiledMatrix<T>, usize, usize, usize)> = Vec::new();
    for &(m, i, j) in &pos[t.first..t.first + t.count] {
        match out.last_mut() {
            Some((m0, i0, j0, n)) if m0.id() == m.id() && *j0 == j && *i0 + *n == i => *n += 1,
            _ => out.push((m, i, j, 1)),
        }
    }
    out
}

struct SharedOperands<'c, 'a, T: Elem> {
    c: &'c Ctx<'a>,
    pos: &'c [Pos<T>],
}

impl<'a, T: OpElem> Operands<'a, T> for SharedOperands<'_, 'a, T> {
    fn input(&mut self, t: Tiles) -> Vec<View<'a, T>> {
        blocks(self.pos, t).into_iter().map(|(m, i, j, n)| self.c.region(&m, i..i + n, j..j + 1)).collect()
    }
    fn output(&mut self, t: Tiles) -> ViewMut<'a, T> {
        one_block(self.c, self.pos, t)
    }
}

/// Operand `t` as one writable block: the same tile rows of consecutive tile columns of one
/// matrix, column by column (one tile column, or several side by side).
fn one_block<'a, T: Elem>(c: &Ctx<'a>, pos: &[Pos<T>], t: Tiles) -> ViewMut<'a, T> {
    let b = blocks(pos, t);
    let (m, i, j, n) = b[0];
    let side_by_side = b
        .iter()
        .enumerate()
        .all(|(d, &(m2, i2, j2, n2))| m2.id() == m.id() && i2 == i && n2 == n && j2 == j + d);
    assert!(side_by_side, "operand {t:?} is written but is not one block");
    c.region_mut(&m, i..i + n, j..j + b.len())
}

impl<T: OpElem> Graph for SharedGraph<'_, T> {
    fn tiling(&self) -> &Tiling {
        &self.tiling
    }

    fn submit(&mut self, t: Spec) {
        let pos: Vec<Pos<T>> = t.writes.iter().chain(t.reads).map(|&id| self.at(id)).collect();
        debug_assert!(
            (1..pos.len())
                .all(|p| !pos[..p].iter().any(|q| q.0.key(q.1, q.2) == pos[p].0.key(pos[p].1, pos[p].2))),
            "a task names a tile twice: the op's positions would shift"
        );
        let [m, n, k] = t.dims;
        let mut task = Task::new(t.op.name()).prio(t.prio).dims(m, n, k).step(t.step);
        let out = t.op.output().positions();
        for (p, &(a, i, j)) in pos[..t.writes.len()].iter().enumerate() {
            task = if !t.op.reads_output() && out.contains(&p) {
                task.write(&a, i, j)
            } else {
                task.rw(&a, i, j)
            };
        }
        for &(a, i, j) in &pos[t.writes.len()..] {
            task = task.read(&a, i, j);
        }
        let op = t.op;
        // A device kernel's operands are stacks of one tile column each; a block of several
        // tile columns side by side (the LU's column blocks) is host work.
        let one_column = |t: Tiles| {
            pos[t.positions()].iter().all(|p| p.0.id() == pos[t.first].0.id() && p.2 == pos[t.first].2)
        };
        if op.on_device() && op.operands().into_iter().all(one_column) {
            task = task.device_op(op.clone());
        }
        self.seq.submit(task, move |c| {
            let out = one_block(c, &pos, op.output());
            match op.compute(&mut SharedOperands { c, pos: &pos }, out) {
                0 => Ok(()),
                i => Err(Error::Numerical(op.info_base() + i)),
            }
        });
    }

    fn buffer(&mut self, rows: usize, cols: usize, _with: TileId) -> TileId {
        let store = self.store.expect("a generator asking for buffers runs on SharedGraph::with_buffers");
        self.extra.push((store.add(rows, cols), 0, 0));
        self.tiling.mt() * self.tiling.nt() + self.extra.len() - 1
    }

    fn stopped(&self) -> bool {
        self.seq.failed()
    }
}

impl Op {
    /// What a local INFO of this op is offset by to give the whole matrix's (POTRF's column
    /// offset; 0 for ops that report none).
    pub fn info_base(&self) -> i32 {
        match *self {
            Op::Potrf { info_base, .. } | Op::BtLu { info_base, .. } => info_base,
            _ => 0,
        }
    }
}
