//! 2-D tiles of a general M×N sub(A): the layout of the distributed LU and QR ([`super::getrf`],
//! [`super::geqrf`]) and the driver that moves sub(A) into it, runs a task generator on every
//! rank and moves it back.
//!
//! Tile (i, j) is the `nb`×`nb` block of rows i·nb.. and columns j·nb.. of sub(A) (edge tiles
//! smaller), dealt 2-D block-cyclically over the caller's P×Q grid from the process that holds
//! sub(A)'s first element, exactly as [`super::potrf`] deals its triangle: tile (i, j) is on grid
//! position ((r0 + i) mod P, (c0 + j) mod Q) ([`Cyclic`]). With `nb` equal to the caller's block
//! size and sub(A) starting on a block boundary, every tile already is where its owner is and the
//! conversion moves nothing across the network. An algorithm adds its buffers (extra tiles of any
//! shape on any rank, [`TileGrid::add`]) before generating its tasks.
//!
//! A rank keeps its tiles in one local matrix (global tile (i, j) is its local tile
//! (i / P, j / Q); only the last tile row and column can be partial, and they are then the last
//! local ones too), so that the conversions index it through precomputed offsets and, with
//! devices, the runtime can deal its tile columns between the host and the devices. When the
//! tiles are the caller's own square blocks and sub(A) starts on a block boundary, that local
//! matrix *is* the rank's part of sub(A) in the caller's local array: no conversion at all.

use super::comm::Engine;
use super::grid::Grid;
use super::layout::Axis;
use super::potrf::Stats;
use super::redistribute::{exchange, CallerArray, Layout, LocalMatrix, Part};
use super::tasks::{DistSeq, LocalTile, TileGrid};
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::backend::BlasThreadsGuard;
use crate::config::Config;
use crate::error::Error;
use crate::runtime::Seq;
use crate::tile::{Raw, Workspace};
use std::cell::RefCell;
use std::time::Instant;

/// Who owns which tile: the grid's shape, the grid position of tile (0, 0) and the rank of every
/// grid position.
#[derive(Clone, Debug)]
pub struct Cyclic {
    pub p: usize,
    pub q: usize,
    pub r0: usize,
    pub c0: usize,
    /// Rank of grid position (prow, pcol) at `prow * q + pcol`.
    ranks: Vec<usize>,
}

impl Cyclic {
    fn new(grid: &Grid, r0: usize, c0: usize) -> Self {
        let (p, q) = (grid.nprow, grid.npcol);
        let ranks = (0..p * q).map(|x| grid.rank_of(x / q, x % q)).collect();
        Cyclic { p, q, r0, c0, ranks }
    }
    /// Process row of tile row `i`.
    pub fn row_of(&self, i: usize) -> usize {
        (self.r0 + i) % self.p
    }
    /// Process column of tile column `j`.
    pub fn col_of(&self, j: usize) -> usize {
        (self.c0 + j) % self.q
    }
    /// Rank of grid position (prow, pcol).
    pub fn rank(&self, prow: usize, pcol: usize) -> usize {
        self.ranks[prow * self.q + pcol]
    }
    /// Rank owning tile (i, j).
    pub fn owner(&self, i: usize, j: usize) -> usize {
        self.rank(self.row_of(i), self.col_of(j))
    }
}

/// What the finishing step sees: the grid and the caller's row and column maps of sub(A).
pub struct Finished<'a> {
    pub grid: &'a Grid,
    pub rows: &'a Axis,
    pub cols: &'a Axis,
}

/// Runs a 2-D tile algorithm on the M×N sub(A) for a process inside the grid: caller layout to
/// `nb`×`nb` tiles, `buffers` (adds the algorithm's extra tiles and returns what the generator
/// needs to name them; it gets this process's rank), `generate` on every rank through a
/// [`DistSeq`], `finish` on every rank after the sequence (collective work such as a common INFO
/// or gathering TAU), then sub(A) back into the caller's arrays (nothing else of them is
/// written). Returns the sequence's result, `finish`'s value and the statistics.
#[allow(clippy::too_many_arguments)]
pub fn run<B, R>(
    cfg: &Config,
    (m, n): (usize, usize),
    a: Raw<f64>,
    (ia, ja): (i32, i32),
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    buffers: impl FnOnce(&mut TileGrid, &Cyclic, usize) -> B,
    generate: impl FnOnce(&mut DistSeq, &Cyclic, &B),
    finish: impl FnOnce(&Finished) -> R,
) -> (Result<(), Error>, R, Stats) {
    let grid = Grid::from_context(desca.ctxt(), g);
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let (mba, nba) = (desca.mb() as usize, desca.nb() as usize);
    let crow = Axis::block_cyclic(m, ia as usize - 1, mba, desca.rsrc() as usize, p);
    let ccol = Axis::block_cyclic(n, ja as usize - 1, nba, desca.csrc() as usize, q);
    let cyc = Cyclic::new(&grid, crow.owner[0], ccol.owner[0]);
    let trow = Axis::tiles(m, nb, cyc.r0, p);
    let tcol = Axis::tiles(n, nb, cyc.c0, q);
    let (mt, nt) = (m.div_ceil(nb), n.div_ceil(nb));
    let owner: Vec<usize> = (0..mt * nt).map(|t| cyc.owner(t % mt, t / mt)).collect();
    let (lm, ln) = (trow.held_by(grid.myrow).len(), tcol.held_by(grid.mycol).len());
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let local = a.matrix(mloc, nloc, desca.lld() as usize);
    // With tiles of the caller's square blocks and sub(A) starting on a block boundary, this
    // rank's tiles are exactly its part of sub(A) in its local array: the tasks work there and
    // nothing is converted (as the LAPACK routines' tiles are views of the caller's matrix).
    let in_place = nb == mba
        && nb == nba
        && (ia as usize - 1).is_multiple_of(mba)
        && (ja as usize - 1).is_multiple_of(nba);
    let mut store = Workspace::new(if in_place { 0 } else { lm }, if in_place { 0 } else { ln }, nb, nb);
    let mine = if in_place {
        let first = |ax: &Axis, me: usize| ax.owner.iter().position(|&o| o == me).map_or(0, |s| ax.local[s]);
        local.block(first(&crow, grid.myrow), first(&ccol, grid.mycol), lm, ln).tiled(nb, nb)
    } else {
        store.tiles()
    };
    let handles: Vec<Option<LocalTile>> = (0..mt * nt)
        .map(|t| (owner[t] == me).then_some(LocalTile { m: mine, i: (t % mt) / p, j: (t / mt) / q }))
        .collect();
    // Offset of every row and column of sub(A) in the local matrix (meaningful for the ones this
    // rank holds), so that the per-element conversion closures do no division.
    let rowoff: Vec<usize> = (0..m).map(|i| (i / nb / p) * nb + i % nb).collect();
    let coloff: Vec<usize> = (0..n).map(|j| ((j / nb / q) * nb + j % nb) * lm.max(1)).collect();

    // Caller layout -> tiles.
    let t0 = Instant::now();
    let caller = Layout { rows: &crow, cols: &ccol, flat: false };
    let tiles = Layout { rows: &trow, cols: &tcol, flat: false };
    if !in_place {
        let dst = store.as_mut_slice();
        exchange(
            &grid,
            Part::Full,
            &caller,
            &tiles,
            CallerArray { a: local, rows: &crow, cols: &ccol },
            LocalMatrix { data: dst, rowoff: &rowoff, coloff: &coloff },
        );
    }
    let mut redist = t0.elapsed().as_secs_f64();

    // The distributed algorithm.
    let mut tg = TileGrid::new((m, nb), (n, nb), owner, handles);
    let bufs = buffers(&mut tg, &cyc, me);
    let mut rcfg = cfg.clone();
    rcfg.threads = grid.threads(cfg.threads);
    let engine = RefCell::new(Engine::new());
    let (result, devices) = {
        let _blas = BlasThreadsGuard::new();
        let seq = Seq::new(&rcfg);
        let rel = seq.releaser();
        let mut hook = || engine.borrow_mut().progress(&grid.comm, &rel);
        seq.with_progress(&mut hook, |seq| {
            {
                let mut ds = DistSeq::new(&seq, &tg, me, &engine);
                generate(&mut ds, &cyc, &bufs);
            }
            seq.wait_stats()
        })
    };
    engine.borrow_mut().flush(&grid.comm);
    let value = finish(&Finished { grid: &grid, rows: &crow, cols: &ccol });

    // Tiles -> caller layout.
    let t1 = Instant::now();
    if !in_place {
        let src = store.as_slice();
        exchange(
            &grid,
            Part::Full,
            &tiles,
            &caller,
            LocalMatrix { data: src, rowoff: &rowoff, coloff: &coloff },
            CallerArray { a: local, rows: &crow, cols: &ccol },
        );
    }
    redist += t1.elapsed().as_secs_f64();
    let e = engine.borrow();
    (result, value, Stats { redistribution_s: redist, sent: e.sent, received: e.received, devices })
}
