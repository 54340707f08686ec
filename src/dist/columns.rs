//! Column tiles: the layout of the distributed LU and QR ([`super::getrf`], [`super::geqrf`]).
//!
//! Tile j is the whole M-row column block j·nb..j·nb+nb of the M×N sub(A), plus `extra` rows
//! below row M where a panel keeps what its updates need besides the factored columns (LU's
//! pivots, QR's T and tau): they travel with the panel in the same tile message. Column tiles are
//! dealt cyclically over all ranks of the grid, starting at the process that holds sub(A)'s first
//! element and counting along process rows; on a 1×Q grid tile j is on process column
//! (c0 + j) mod Q, so when nb equals the caller's NB nothing crosses the network.
//!
//! Why whole columns: the panel of LU with partial pivoting (and of Householder QR) reads and
//! writes a whole column block from the diagonal down, and a row interchange touches every
//! column; with whole columns in one tile both are local to one task, and the algorithms need only
//! the tile messages of [`DistSeq`]. The cost is a panel that runs on one rank while the others
//! update; the runtime's priorities put the next panel first (look-ahead) so the others' trailing
//! updates overlap it.

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

/// What the caller-specific finishing step sees: the grid, the caller's row and column maps of
/// sub(A), and this rank's column tiles (`None` where another rank holds the tile).
pub struct Finished<'a> {
    pub grid: &'a Grid,
    pub rows: &'a Axis,
    pub cols: &'a Axis,
    pub tiles: &'a [Option<Workspace<f64>>],
    /// Leading dimension of every column tile (M + extra).
    pub ld: usize,
}

/// Runs a column-tile algorithm on the M×N sub(A) for a process inside the grid: caller layout
/// to column tiles (`nb` wide, `extra` rows below row M), `generate` on every rank through a
/// [`DistSeq`] (tile grid of 1×nt tiles, each M+extra rows), `finish` on every rank after the
/// factorization (collective work such as gathering pivots), then the M×N part back into the
/// caller's arrays. Returns the sequence's result, `finish`'s value and the statistics.
#[allow(clippy::too_many_arguments)]
pub fn run<R>(
    cfg: &Config,
    m: usize,
    n: usize,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    extra: usize,
    generate: impl FnOnce(&mut DistSeq),
    finish: impl FnOnce(&Finished) -> R,
) -> (Result<(), Error>, R, Stats) {
    let grid = Grid::from_context(desca.ctxt(), g);
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let (mba, nba) = (desca.mb() as usize, desca.nb() as usize);
    let crow = Axis::block_cyclic(m, ia as usize - 1, mba, desca.rsrc() as usize, p);
    let ccol = Axis::block_cyclic(n, ja as usize - 1, nba, desca.csrc() as usize, q);
    let (r0, c0) = (crow.owner[0], ccol.owner[0]);
    let nt = n.div_ceil(nb);
    let owner: Vec<usize> = (0..nt)
        .map(|j| {
            let l = (c0 + j) % (p * q);
            grid.rank_of((r0 + l / q) % p, l % q)
        })
        .collect();
    let tcol = Axis { owner: (0..n).map(|c| owner[c / nb]).collect(), local: Vec::new() };
    let trow = Axis { owner: vec![0; m], local: Vec::new() };
    let ld = m + extra;
    let width = |j: usize| nb.min(n - j * nb);
    let mut store: Vec<Option<Workspace<f64>>> =
        (0..nt).map(|j| (owner[j] == me).then(|| Workspace::new(ld, width(j), ld, width(j)))).collect();

    // Caller layout -> column tiles.
    let t0 = Instant::now();
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let local = a.matrix(mloc, nloc, desca.lld() as usize);
    // Column tile and offset of every column of sub(A): no integer division per element below.
    let at: Vec<(usize, usize)> = (0..n).map(|j| (j / nb, (j % nb) * ld)).collect();
    let caller = Layout { rows: &crow, cols: &ccol, flat: false };
    let tiles = Layout { rows: &trow, cols: &tcol, flat: true };
    exchange(
        &grid,
        Part::Full,
        &caller,
        &tiles,
        |i, j| local.get(crow.local[i], ccol.local[j]),
        |i, j, v| {
            let (t, off) = at[j];
            store[t].as_mut().expect("a tile of this rank").as_mut_slice()[i + off] = v;
        },
    );
    let mut redist = t0.elapsed().as_secs_f64();

    // The distributed factorization.
    let tg = TileGrid::new(
        (ld, ld),
        (n, nb),
        owner,
        store.iter().map(|w| w.as_ref().map(|w| w.tiles())).collect(),
    );
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
                generate(&mut ds);
            }
            seq.wait()
        })
    };
    engine.borrow_mut().flush(&grid.comm);
    let value = finish(&Finished { grid: &grid, rows: &crow, cols: &ccol, tiles: &store, ld });

    // Column tiles -> caller layout (the M×N part only).
    let t1 = Instant::now();
    exchange(
        &grid,
        Part::Full,
        &tiles,
        &caller,
        |i, j| {
            let (t, off) = at[j];
            store[t].as_ref().expect("a tile of this rank").as_slice()[i + off]
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
