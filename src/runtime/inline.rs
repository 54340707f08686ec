//! A generator's tasks run at once, one after the other, on the calling thread ([`InlineGraph`]):
//! no sequence, no workers, no devices. For generators whose tasks form a chain anyway (block Thomas, `algo::bt`), where the
//! runtime's cost per task would be pure overhead.
//!
//! Failure: the first op reporting INFO > 0 gives `Error::Numerical(info_base + info)`; every task
//! submitted after it is skipped (all earlier ones have run), and [`Graph::stopped`] turns true.

use super::shared::{blocks, Pos};
use crate::error::Error;
use crate::graph::op::Operands;
use crate::graph::{Graph, Spec, TileId, Tiles, Tiling};
use crate::tile::{TiledMatrix, View, ViewMut};

/// The tiles of one matrix and of matrices attached to it, worked on in program order.
pub struct InlineGraph {
    a: TiledMatrix<f64>,
    tiling: Tiling,
    extra: Vec<Pos>,
    failed: Option<Error>,
}

impl InlineGraph {
    pub fn new(a: &TiledMatrix<f64>) -> Self {
        InlineGraph { a: *a, tiling: Tiling::of(a), extra: Vec::new(), failed: None }
    }
    /// Names the tiles of another matrix `b`: tile (i, j) is id `ids[i + j·b.mt()]`.
    pub fn attach(&mut self, b: &TiledMatrix<f64>) -> Vec<TileId> {
        let first = self.tiling.mt() * self.tiling.nt() + self.extra.len();
        self.extra.extend((0..b.nt()).flat_map(|j| (0..b.mt()).map(move |i| (*b, i, j))));
        (first..first + b.mt() * b.nt()).collect()
    }
    /// The outcome: the first failure, if any.
    pub fn finish(self) -> Result<(), Error> {
        self.failed.map_or(Ok(()), Err)
    }
    fn at(&self, id: TileId) -> Pos {
        let mt = self.tiling.mt();
        match id.checked_sub(mt * self.tiling.nt()) {
            None => (self.a, id % mt, id / mt),
            Some(x) => self.extra[x],
        }
    }
}

struct InlineOperands<'p> {
    pos: &'p [Pos],
}

impl<'a> Operands<'a> for InlineOperands<'_> {
    fn input(&mut self, t: Tiles) -> Vec<View<'a, f64>> {
        blocks(self.pos, t)
            .into_iter()
            // SAFETY: only this task runs (tasks run one at a time on this thread), a task names
            // each tile once (checked in `submit`), so no writable view of these tiles exists; the
            // matrices' creator guaranteed their memory (TiledMatrix::from_raw).
            .map(|(m, i, j, n)| unsafe { m.raw_block(i..i + n, j..j + 1).view() })
            .collect()
    }
    fn output(&mut self, t: Tiles) -> ViewMut<'a, f64> {
        out_block(self.pos, t)
    }
}

/// Operand `t` as one writable block (tile rows of one tile column of one matrix).
fn out_block<'a>(pos: &[Pos], t: Tiles) -> ViewMut<'a, f64> {
    let b = blocks(pos, t);
    assert_eq!(b.len(), 1, "operand {t:?} is written but is not one block");
    let (m, i, j, n) = b[0];
    // SAFETY: as in `input`: the task's written operands are tiles no other operand names.
    unsafe { m.raw_block(i..i + n, j..j + 1).view_mut() }
}

impl Graph for InlineGraph {
    fn tiling(&self) -> &Tiling {
        &self.tiling
    }

    fn submit(&mut self, t: Spec) {
        if self.failed.is_some() {
            return;
        }
        let pos: Vec<Pos> = t.writes.iter().chain(t.reads).map(|&id| self.at(id)).collect();
        assert!(
            (1..pos.len())
                .all(|p| !pos[..p].iter().any(|q| q.0.key(q.1, q.2) == pos[p].0.key(pos[p].1, pos[p].2))),
            "a task names a tile twice"
        );
        let out = out_block(&pos, t.op.output());
        // The op's arithmetic is the caller's numerical work (`fenv::numeric`).
        let info = crate::fenv::numeric(|| t.op.compute(&mut InlineOperands { pos: &pos }, out));
        match info {
            0 => {}
            i => self.failed = Some(Error::Numerical(t.op.info_base() + i)),
        }
    }

    fn buffer(&mut self, _rows: usize, _cols: usize, _with: TileId) -> TileId {
        unimplemented!("InlineGraph runs generators that ask for no buffers")
    }

    fn stopped(&self) -> bool {
        self.failed.is_some()
    }
}
