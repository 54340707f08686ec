//! 2-D tiles of a general M×N sub(A): the layout of the distributed QR ([`super::geqrf`]) and the
//! driver that moves sub(A) into it, runs a task generator on every rank and moves it back.
//!
//! Tile (i, j) is the `nb`×`nb` block of rows i·nb.. and columns j·nb.. of sub(A) (edge tiles
//! smaller), dealt 2-D block-cyclically over the caller's P×Q grid from the process that holds
//! sub(A)'s first element, exactly as [`super::potrf`] deals its triangle: tile (i, j) is on grid
//! position ((r0 + i) mod P, (c0 + j) mod Q) ([`Cyclic`]). With `nb` equal to the caller's block
//! size and sub(A) starting on a block boundary, every tile already is where its owner is and the
//! conversion moves nothing across the network. An algorithm adds its buffers (extra tiles of any
//! shape on any rank, [`TileGrid::add`]) before generating its tasks.

use super::comm::Engine;
use super::grid::Grid;
use super::layout::Axis;
use super::potrf::Stats;
use super::redistribute::{exchange, Layout, Part};
use super::tasks::{DistSeq, TileGrid};
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

/// Runs a 2-D tile algorithm on the M×N sub(A) for a process inside the grid: caller layout to
/// `nb`×`nb` tiles, `buffers` (adds the algorithm's extra tiles and returns what the generator
/// needs to name them), `generate` on every rank through a [`DistSeq`], `finish` on every rank
/// after the sequence (collective work such as gathering TAU), then sub(A) back into the
/// caller's arrays (nothing else of them is written). Returns the sequence's result, `finish`'s
/// value and the statistics.
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
    finish: impl FnOnce(&Grid, &Axis) -> R,
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
    let height = |i: usize| nb.min(m - i * nb);
    let width = |j: usize| nb.min(n - j * nb);
    let mut owner = vec![0usize; mt * nt];
    let mut store: Vec<Option<Workspace<f64>>> = Vec::with_capacity(mt * nt);
    for j in 0..nt {
        for i in 0..mt {
            owner[i + j * mt] = cyc.owner(i, j);
            let mine = owner[i + j * mt] == me;
            store.push(mine.then(|| Workspace::new(height(i), width(j), height(i), width(j))));
        }
    }

    // Caller layout -> tiles.
    let t0 = Instant::now();
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let local = a.matrix(mloc, nloc, desca.lld() as usize);
    // Tile and offset of every row and column of sub(A), so that the per-element closures below
    // do no integer division.
    let ri: Vec<(usize, usize)> = (0..m).map(|i| (i / nb, i % nb)).collect();
    let cj: Vec<(usize, usize)> = (0..n).map(|j| (j / nb, j % nb)).collect();
    let caller = Layout { rows: &crow, cols: &ccol, flat: false };
    let tiles = Layout { rows: &trow, cols: &tcol, flat: false };
    exchange(
        &grid,
        Part::Full,
        &caller,
        &tiles,
        |i, j| local.get(crow.local[i], ccol.local[j]),
        |i, j, v| {
            let ((ti, oi), (tj, oj)) = (ri[i], cj[j]);
            let w = store[ti + tj * mt].as_mut().expect("a tile of this rank");
            w.as_mut_slice()[oi + oj * height(ti)] = v;
        },
    );
    let mut redist = t0.elapsed().as_secs_f64();

    // The distributed algorithm.
    let mut tg =
        TileGrid::new((m, nb), (n, nb), owner, store.iter().map(|w| w.as_ref().map(|w| w.tiles())).collect());
    let bufs = buffers(&mut tg, &cyc, me);
    let mut rcfg = cfg.clone();
    rcfg.threads = grid.threads(cfg.threads);
    let engine = RefCell::new(Engine::new());
    let result = {
        let _blas = BlasThreadsGuard::new();
        let seq = Seq::new(&rcfg);
        let rel = seq.releaser();
        let mut hook = || engine.borrow_mut().progress(&grid.comm, &rel);
        seq.with_progress(&mut hook, |seq| {
            {
                let mut ds = DistSeq::new(&seq, &tg, me, &engine);
                generate(&mut ds, &cyc, &bufs);
            }
            seq.wait()
        })
    };
    engine.borrow_mut().flush(&grid.comm);
    let value = finish(&grid, &ccol);

    // Tiles -> caller layout.
    let t1 = Instant::now();
    exchange(
        &grid,
        Part::Full,
        &tiles,
        &caller,
        |i, j| {
            let ((ti, oi), (tj, oj)) = (ri[i], cj[j]);
            let w = store[ti + tj * mt].as_ref().expect("a tile of this rank");
            w.as_slice()[oi + oj * height(ti)]
        },
        |i, j, v| local.set(crow.local[i], ccol.local[j], v),
    );
    redist += t1.elapsed().as_secs_f64();
    let e = engine.borrow();
    (
        result,
        value,
        Stats { redistribution_s: redist, sent: e.sent, received: e.received, devices: Vec::new() },
    )
}
