//! The block tridiagonal solver over the processes of a BLACS context (PDBTTRF, PDBTTRS,
//! PDBTSV; seed 003): `algo::bt`'s partitioned order ([`bt::partitioned`]) run owner-computes on
//! every rank through [`super::tasks::DistSeq`], in place in the caller's local arrays.
//!
//! Layout (issue 12's, the caller's): the grid's P processes are taken in the order of their rank
//! in the context's communicator (the BLACS number the processes of a grid row-major: prow·Q +
//! pcol); process r holds block rows [r·K, min(N, (r+1)·K)), K = ⌈N/P⌉, which are the parts of
//! the partitioned order (ranks from ⌈N/K⌉ on hold none and only take part in the collectives).
//! Its local arrays hold, for its n_r rows x = s, …, s + n_r − 1 in order, `D` block A(x, x),
//! `DL` block A(x, x−1), `DU` block A(x, x+1), and n_r·M rows of B; AF holds two M×M blocks per
//! local row (`algo::bt`'s `af[2x]`, `af[2x+1]`) and the pivots of D_x are M numbers per local
//! row. So `algo::bt`'s `dl[x]` = A(x+1, x) is the owner of row x + 1's DL block x + 1 − s, and
//! every block is on the rank of its row, where the tasks that write it run.
//!
//! Each rank's local levels use only its own blocks: no message. The reduced system's
//! eliminations (block cyclic reduction of the ≤ 2P − 2 kept rows) exchange the blocks they read
//! across ranks: a kept row's D, coupling and saved coupling, F_i or G_i, and in a solve the
//! M×NRHS blocks of B of those rows. Failure: an exactly zero pivot stops computing on its rank
//! from its level on (every task still runs, every message is sent); INFO is the smallest global
//! row x·M + j over the ranks (`MPI_Allreduce(min)`), the same everywhere.

use super::grid::Grid;
use super::tasks::{run_sequence, LocalTile, TileGrid};
use super::Stats;
use crate::algo::bt::{self, Ids, Schedule};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::Trans;
use crate::tile::{Part, Raw, TiledMatrix};
use std::ops::Range;

/// N block rows of M×M blocks over P processes, K = ⌈N/P⌉ rows each.
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    pub n: usize,
    pub m: usize,
    pub p: usize,
}

impl Rows {
    /// Rows per process, K = ⌈N/P⌉.
    pub fn k(&self) -> usize {
        self.n.div_ceil(self.p).max(1)
    }
    /// The rows of process `r` (in the layout's order).
    pub fn range(&self, r: usize) -> Range<usize> {
        let k = self.k();
        (r * k).min(self.n)..((r + 1) * k).min(self.n)
    }
    /// The process holding row `x`.
    pub fn of(&self, x: usize) -> usize {
        x / self.k()
    }
    /// The processes' rows, for those holding any.
    pub fn parts(&self) -> Vec<Range<usize>> {
        (0..self.p).map(|r| self.range(r)).filter(|r| !r.is_empty()).collect()
    }
    /// The elimination order.
    pub fn schedule(&self) -> Schedule {
        bt::partitioned(&self.parts())
    }
}

/// The caller's local DL, D, DU (n_r blocks each) and AF (2·n_r blocks) on this process.
#[derive(Clone, Copy)]
pub struct Local {
    pub dl: Raw<f64>,
    pub d: Raw<f64>,
    pub du: Raw<f64>,
    pub af: Raw<f64>,
}

/// The caller's B on this process: n_r·M rows, `nrhs` columns, leading dimension `ld`.
#[derive(Clone, Copy)]
pub struct LocalB {
    pub b: Raw<f64>,
    pub nrhs: usize,
    pub ld: usize,
}

/// The process of layout rank `r` in the grid's communicator.
fn comm_rank(grid: &Grid, r: usize) -> usize {
    grid.rank_of(r / grid.npcol, r % grid.npcol)
}

/// This process's place in the layout.
pub fn layout_rank(grid: &Grid) -> usize {
    grid.myrow * grid.npcol + grid.mycol
}

/// Every block the generators name, as tiles of one tile grid: D_x is tile x; the others are
/// extra tiles in the caller's arrays (the pivots in buffers of their row's process, filled from
/// `piv` when given: block-local pivots, M per local row).
fn tile_grid(
    grid: &Grid,
    rows: &Rows,
    loc: &Local,
    piv: Option<&[f64]>,
    b: Option<LocalB>,
) -> (TileGrid, Ids) {
    let (n, m) = (rows.n, rows.m);
    let me = layout_rank(grid);
    let mine = rows.range(me);
    let (s, nr) = (mine.start, mine.len());
    let comm_me = grid.me();
    let owner = |x: usize| comm_rank(grid, rows.of(x));
    // This process's arrays as one-tile-row matrices of M×M tiles (local block t is tile (0, t)).
    let blocks = |r: Raw<f64>, k: usize| (nr > 0).then(|| r.matrix(m, k * m, m).tiled(m, m));
    let (dm, dlm, dum, afm) =
        (blocks(loc.d, nr), blocks(loc.dl, nr), blocks(loc.du, nr), blocks(loc.af, 2 * nr));
    let at = |mat: Option<TiledMatrix<f64>>, x: usize, j: usize| {
        mine.contains(&x).then(|| LocalTile { m: mat.expect("the rank holds rows"), i: 0, j })
    };
    let local_d: Vec<Option<LocalTile>> = (0..n).map(|x| at(dm, x, x.wrapping_sub(s))).collect();
    let mut tg = TileGrid::new((m, m), (n * m, m), (0..n).map(owner).collect(), local_d);
    let dl: Vec<usize> = (0..n - 1)
        .map(|x| tg.add_local(m, m, owner(x + 1), at(dlm, x + 1, (x + 1).wrapping_sub(s))))
        .collect();
    let du: Vec<usize> =
        (0..n - 1).map(|x| tg.add_local(m, m, owner(x), at(dum, x, x.wrapping_sub(s)))).collect();
    let af: Vec<usize> =
        (0..2 * n).map(|t| tg.add_local(m, m, owner(t / 2), at(afm, t / 2, t.wrapping_sub(2 * s)))).collect();
    let pv: Vec<usize> = (0..n)
        .map(|x| {
            let id = tg.add(m, 1, owner(x), comm_me);
            if let (Some(w), Some(p)) = (tg.extra_mut(id), piv) {
                w.as_mut_slice().copy_from_slice(&p[(x - s) * m..(x - s + 1) * m]);
            }
            id
        })
        .collect();
    let bs: Vec<usize> = match b {
        None => Vec::new(),
        Some(lb) => {
            let bm = (nr > 0).then(|| {
                lb.b.matrix(nr * m, lb.nrhs, lb.ld).tiled_parts(Part::uniform(m), Part::uniform(lb.nrhs))
            });
            (0..n)
                .map(|x| {
                    let local = mine.contains(&x).then(|| LocalTile { m: bm.expect("rows"), i: x - s, j: 0 });
                    tg.add_local(m, lb.nrhs, owner(x), local)
                })
                .collect()
        }
    };
    let ids = Ids { d: (0..n).collect(), dl, du, af, piv: pv, b: bs };
    (tg, ids)
}

/// The smallest INFO over the grid (`i32::MAX`: none).
fn agree_info(grid: &Grid, local: Option<i32>) -> Option<i32> {
    let mine = local.unwrap_or(i32::MAX);
    let mut info = i32::MAX;
    grid.comm.all_reduce_into(&mine, &mut info, SystemOperation::min());
    (info != i32::MAX).then_some(info)
}

/// PDBTTRF's factorization on this process's blocks (overwritten: DL, D, DU, the first 2·n_r·M²
/// of AF). Returns the block-local pivots of its rows (M per row, 0 where a block was not
/// factored) and the result, the same on every process.
pub fn factor(cfg: &Config, grid: &Grid, rows: &Rows, loc: &Local) -> (Vec<f64>, Result<(), Error>, Stats) {
    let (tg, ids) = tile_grid(grid, rows, loc, None, None);
    let sch = rows.schedule();
    let mut run = run_sequence(cfg, grid, &tg, |ds| bt::generate_factor(ds, &sch, rows.m, &ids));
    let mine = rows.range(layout_rank(grid));
    let mut piv = Vec::with_capacity(mine.len() * rows.m);
    for x in mine {
        piv.extend_from_slice(tg.extra(ids.piv[x]).expect("this rank's pivot buffer").as_slice());
    }
    let info = agree_info(grid, run.info);
    let st = Stats::of(0.0, &mut run, None);
    let r = match (run.result, info) {
        (Err(e), _) => Err(e),
        (Ok(()), Some(i)) => Err(Error::Numerical(i)),
        (Ok(()), None) => Ok(()),
    };
    (piv, r, st)
}

/// PDBTTRS's solve of op(A)·X = B with the factors of [`factor`] (`piv`: its block-local pivots
/// of this process's rows), X over this process's rows of B.
pub fn solve(
    cfg: &Config,
    grid: &Grid,
    rows: &Rows,
    loc: &Local,
    piv: &[f64],
    trans: Trans,
    b: LocalB,
) -> (Result<(), Error>, Stats) {
    let (tg, ids) = tile_grid(grid, rows, loc, Some(piv), Some(b));
    let sch = rows.schedule();
    let mut run =
        run_sequence(cfg, grid, &tg, |ds| bt::generate_solve(ds, &sch, trans, rows.m, b.nrhs, &ids));
    let st = Stats::of(0.0, &mut run, None);
    (run.result, st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_the_layout() {
        // N = 5 over 4: K = 2, rows [0,2), [2,4), [4,5) and none.
        let r = Rows { n: 5, m: 3, p: 4 };
        assert_eq!(r.k(), 2);
        assert_eq!((r.range(0), r.range(2), r.range(3)), (0..2, 4..5, 5..5));
        assert_eq!(r.parts(), vec![0..2, 2..4, 4..5]);
        assert_eq!((r.of(0), r.of(3), r.of(4)), (0, 1, 2));
        // N = 2 over 3: K = 1, the last process holds nothing.
        let r = Rows { n: 2, m: 1, p: 3 };
        assert_eq!(r.parts(), vec![0..1, 1..2]);
        assert!(r.range(2).is_empty());
    }
}
