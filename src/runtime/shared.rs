//! The shared-memory runtime of a task generator ([`crate::graph::Graph`]): every task of the
//! generator becomes a [`Task`] of one [`Seq`], its tiles declared in the order the op numbers
//! them (writes, then reads), its op attached as the device kernel and run by the host body
//! through [`crate::graph::op`].
//!
//! Failure: an op's INFO > 0 becomes `Error::Numerical(info_base + info)` for the sequence; the
//! tasks of that step and later ones are skipped, earlier steps finish (`Task::step`).

use super::{Ctx, Seq, Task};
use crate::error::Error;
use crate::graph::op::Operands;
use crate::graph::{Graph, Op, Spec, TileId, Tiles, Tiling};
use crate::tile::{TiledMatrix, View};

/// A generator's view of one tiled matrix in this process.
pub struct SharedGraph<'s> {
    seq: &'s Seq,
    a: TiledMatrix<f64>,
    tiling: Tiling,
}

impl<'s> SharedGraph<'s> {
    pub fn new(seq: &'s Seq, a: &TiledMatrix<f64>) -> Self {
        SharedGraph { seq, a: *a, tiling: Tiling::of(a) }
    }
}

/// Tile (i, j) of the matrix for an id.
fn at(mt: usize, id: TileId) -> (usize, usize) {
    (id % mt, id / mt)
}

/// The blocks operand `t` covers: runs of consecutive tile rows of one tile column, in order.
fn blocks(pos: &[(usize, usize)], t: Tiles) -> Vec<(usize, usize, usize)> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for &(i, j) in &pos[t.first..t.first + t.count] {
        match out.last_mut() {
            Some((i0, j0, n)) if *j0 == j && *i0 + *n == i => *n += 1,
            _ => out.push((i, j, 1)),
        }
    }
    out
}

struct SharedOperands<'c, 'a> {
    c: &'c Ctx<'a>,
    a: TiledMatrix<f64>,
    pos: &'c [(usize, usize)],
}

impl<'a> Operands<'a> for SharedOperands<'_, 'a> {
    fn input(&mut self, t: Tiles) -> Vec<View<'a, f64>> {
        blocks(self.pos, t).into_iter().map(|(i, j, n)| self.c.region(&self.a, i..i + n, j..j + 1)).collect()
    }
    fn pivots(&mut self, _: Tiles, _: usize) -> Vec<i32> {
        unreachable!("no generator run on a shared graph has an integer operand")
    }
}

impl Graph for SharedGraph<'_> {
    fn tiling(&self) -> &Tiling {
        &self.tiling
    }

    fn submit(&mut self, t: Spec) {
        let (a, mt) = (self.a, self.tiling.mt());
        let pos: Vec<(usize, usize)> = t.writes.iter().chain(t.reads).map(|&id| at(mt, id)).collect();
        debug_assert!(
            (1..pos.len()).all(|p| !pos[..p].contains(&pos[p])),
            "a task names a tile twice: the op's positions would shift"
        );
        let [m, n, k] = t.dims;
        let mut task = Task::new(t.op.name()).prio(t.prio).dims(m, n, k).step(t.step);
        for &(i, j) in &pos[..t.writes.len()] {
            task = task.rw(&a, i, j);
        }
        for &(i, j) in &pos[t.writes.len()..] {
            task = task.read(&a, i, j);
        }
        let op = t.op;
        let task = task.device_op(op.clone());
        self.seq.submit(task, move |c| {
            let out = match blocks(&pos, op.output())[..] {
                [(i, j, n)] => c.region_mut(&a, i..i + n, j..j + 1),
                _ => panic!("{op:?}: the output is not one block"),
            };
            match op.compute(&mut SharedOperands { c, a, pos: &pos }, out) {
                0 => Ok(()),
                i => Err(Error::Numerical(op.info_base() + i)),
            }
        });
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
            Op::Potrf { info_base, .. } => info_base,
            _ => 0,
        }
    }
}
