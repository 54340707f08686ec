//! The 2-D tile layout of a general M×N sub(A) and the frame of an algorithm run on it: `nb`×`nb`
//! tiles (partial at the bottom and right edges) dealt 2-D block-cyclically over the caller's
//! P×Q grid from the process holding sub(A)(1,1), as [`super::potrf`] deals its triangle
//! (seeds 000 §6). [`run`] converts the caller's layout to tiles, lets the algorithm add its
//! buffers ([`TileGrid::add`]) and generate its tasks on every rank through a [`DistSeq`], runs
//! a collective finishing step, and converts the M×N part back, so nothing else of the caller's
//! arrays is written. With `nb` equal to the caller's block size nothing crosses the network in
//! either conversion.

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

/// Where the tiles are: tile (i, j) on grid position ((r0 + i) mod P, (c0 + j) mod Q).
pub struct Placement<'a> {
    pub grid: &'a Grid,
    pub r0: usize,
    pub c0: usize,
}

impl Placement<'_> {
    /// Process row of tile row `i`.
    pub fn prow(&self, i: usize) -> usize {
        (self.r0 + i) % self.grid.nprow
    }
    /// Process column of tile column `j`.
    pub fn pcol(&self, j: usize) -> usize {
        (self.c0 + j) % self.grid.npcol
    }
    /// Rank holding tile (i, j).
    pub fn owner(&self, i: usize, j: usize) -> usize {
        self.grid.rank_of(self.prow(i), self.pcol(j))
    }
    /// Rank at grid position (prow, pcol).
    pub fn rank(&self, prow: usize, pcol: usize) -> usize {
        self.grid.rank_of(prow, pcol)
    }
}

/// What the finishing step sees: the grid and the caller's row and column maps of sub(A).
pub struct Finished<'a> {
    pub grid: &'a Grid,
    pub rows: &'a Axis,
    pub cols: &'a Axis,
}

/// Runs a tile algorithm on the M×N sub(A) for a process inside the grid: caller layout to
/// `nb`×`nb` tiles, `buffers` (extra tiles of the algorithm, added to the tile grid before any
/// task), `generate` on every rank, `finish` on every rank once the sequence has drained
/// (collective work such as a common INFO), then the tiles back into the caller's arrays.
/// Returns the sequence's result, `finish`'s value and the statistics.
#[allow(clippy::too_many_arguments)]
pub fn run<B, R>(
    cfg: &Config,
    m: usize,
    n: usize,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    buffers: impl FnOnce(&Placement, &mut TileGrid) -> B,
    generate: impl FnOnce(&mut DistSeq, &Placement, &B),
    finish: impl FnOnce(&Finished) -> R,
) -> (Result<(), Error>, R, Stats) {
    let grid = Grid::from_context(desca.ctxt(), g);
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let (mba, nba) = (desca.mb() as usize, desca.nb() as usize);
    let crow = Axis::block_cyclic(m, ia as usize - 1, mba, desca.rsrc() as usize, p);
    let ccol = Axis::block_cyclic(n, ja as usize - 1, nba, desca.csrc() as usize, q);
    let pl = Placement { grid: &grid, r0: crow.owner[0], c0: ccol.owner[0] };
    let trow = Axis::tiles(m, nb, pl.r0, p);
    let tcol = Axis::tiles(n, nb, pl.c0, q);
    let (mt, nt) = (m.div_ceil(nb), n.div_ceil(nb));
    let rows = |i: usize| nb.min(m - i * nb);
    let cols = |j: usize| nb.min(n - j * nb);
    let mut owner = vec![0usize; mt * nt];
    let mut store: Vec<Option<Workspace<f64>>> = Vec::with_capacity(mt * nt);
    for j in 0..nt {
        for i in 0..mt {
            owner[i + j * mt] = pl.owner(i, j);
            store.push((owner[i + j * mt] == me).then(|| Workspace::new(rows(i), cols(j), rows(i), cols(j))));
        }
    }

    // Caller layout -> tiles.
    let t0 = Instant::now();
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let local = a.matrix(mloc, nloc, desca.lld() as usize);
    // Tile and offset of every row and column of sub(A): no integer division per element below.
    let ati: Vec<(usize, usize)> = (0..m).map(|i| (i / nb, i % nb)).collect();
    let atj: Vec<(usize, usize)> = (0..n).map(|j| (j / nb, j % nb)).collect();
    let caller = Layout { rows: &crow, cols: &ccol, flat: false };
    let tiles = Layout { rows: &trow, cols: &tcol, flat: false };
    exchange(
        &grid,
        Part::Full,
        &caller,
        &tiles,
        |i, j| local.get(crow.local[i], ccol.local[j]),
        |i, j, v| {
            let ((ti, oi), (tj, oj)) = (ati[i], atj[j]);
            let w = store[ti + tj * mt].as_mut().expect("a tile of this rank");
            w.as_mut_slice()[oi + oj * rows(ti)] = v;
        },
    );
    let mut redist = t0.elapsed().as_secs_f64();

    // The distributed algorithm.
    let mut tg =
        TileGrid::new((m, nb), (n, nb), owner, store.iter().map(|w| w.as_ref().map(|w| w.tiles())).collect());
    let bufs = buffers(&pl, &mut tg);
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
                generate(&mut ds, &pl, &bufs);
            }
            seq.wait()
        })
    };
    engine.borrow_mut().flush(&grid.comm);
    let value = finish(&Finished { grid: &grid, rows: &crow, cols: &ccol });

    // Tiles -> caller layout (the M×N part only).
    let t1 = Instant::now();
    exchange(
        &grid,
        Part::Full,
        &tiles,
        &caller,
        |i, j| {
            let ((ti, oi), (tj, oj)) = (ati[i], atj[j]);
            let w = store[ti + tj * mt].as_ref().expect("a tile of this rank");
            w.as_slice()[oi + oj * rows(ti)]
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
