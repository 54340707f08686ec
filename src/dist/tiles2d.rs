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
//! A rank keeps its tiles in one local matrix ([`LocalTiles`]); when the tiles are the caller's
//! own square blocks and sub(A) starts on a block boundary, that matrix *is* the rank's part of
//! sub(A) in the caller's local array: no conversion at all.

use super::grid::Grid;
use super::layout::Axis;
use super::local::LocalTiles;
use super::redistribute::{CallerArray, Part, Shape};
use super::tasks::{run_sequence, DistSeq, LocalTile, TileGrid};
use super::{DistElem, Stats};
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::config::Config;
use crate::error::Error;
use crate::tile::{Raw, Workspace};
use std::collections::HashMap;

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
    /// Tiles dealt back and forth instead of cyclically ([`super::layout::deal`]).
    pub reflect: bool,
}

impl Cyclic {
    pub(crate) fn new(grid: &Grid, shape: Shape, r0: usize, c0: usize) -> Self {
        Self::dealt(grid, shape, r0, c0, false)
    }
    /// [`Cyclic::new`], or with `reflect` the tiles dealt back and forth along each dimension.
    pub(crate) fn dealt(grid: &Grid, shape: Shape, r0: usize, c0: usize, reflect: bool) -> Self {
        let (p, q) = shape.dims(grid);
        let ranks = (0..p * q).map(|x| shape.rank_of(grid, x / q, x % q)).collect();
        Cyclic { p, q, r0, c0, ranks, reflect }
    }
    /// Process row of tile row `i`.
    pub fn row_of(&self, i: usize) -> usize {
        super::layout::deal(i, self.r0, self.p, self.reflect)
    }
    /// Process column of tile column `j`.
    pub fn col_of(&self, j: usize) -> usize {
        super::layout::deal(j, self.c0, self.q, self.reflect)
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

/// Whether every tile column is on one rank, its tiles one below the other in the rank's local
/// matrix, for tiles dealt over `shape` of the grid `g` (one process row): a panel can then be
/// factored in place.
pub fn one_row(shape: Shape, g: &GridInfo) -> bool {
    shape == Shape::OneRow || (shape == Shape::Grid && g.nprow == 1)
}

/// What the finishing step sees: the grid, the caller's row and column maps of sub(A), and the
/// buffers the generator asked for that this rank holds (by id).
pub struct Finished<'a, T: DistElem = f64> {
    pub grid: &'a Grid,
    pub rows: &'a Axis,
    pub cols: &'a Axis,
    pub buffers: &'a HashMap<usize, Workspace<T>>,
}

/// Runs a 2-D tile algorithm on the M×N sub(A) for a process inside the grid: caller layout to
/// `nb`×`nb` tiles dealt over `shape` (cyclically, or back and forth with `reflect` when they are
/// converted anyway) (only the `part` of sub(A) the algorithm uses moves, both ways), `buffers` (adds the algorithm's extra tiles and returns what the generator
/// needs to name them; it gets this process's rank), `generate` on every rank through a
/// [`DistSeq`], `finish` on every rank after the sequence (collective work such as a common INFO
/// or gathering TAU), then sub(A) back into the caller's arrays (nothing else of them is
/// written). Returns the sequence's result, `finish`'s value and the statistics.
#[allow(clippy::too_many_arguments)]
pub fn run<T: DistElem, B, R>(
    cfg: &Config,
    (m, n): (usize, usize),
    a: Raw<T>,
    (ia, ja): (i32, i32),
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    (shape, reflect): (Shape, bool),
    part: Part,
    buffers: impl FnOnce(&mut TileGrid<T>, &Cyclic, usize) -> B,
    generate: impl FnOnce(&mut DistSeq<T>, &Cyclic, &B),
    finish: impl FnOnce(&Finished<T>) -> R,
) -> (Result<(), Error>, R, Stats) {
    let grid = Grid::from_context(desca.ctxt(), g);
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let (mba, nba) = (desca.mb() as usize, desca.nb() as usize);
    let crow = Axis::block_cyclic(m, ia as usize - 1, mba, desca.rsrc() as usize, p);
    let ccol = Axis::block_cyclic(n, ja as usize - 1, nba, desca.csrc() as usize, q);
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let caller = CallerArray { a: a.matrix(mloc, nloc, desca.lld() as usize), rows: &crow, cols: &ccol };
    let (r0, c0) = super::local::origin(&grid, &caller, shape);
    // Caller layout -> tiles; in place when the tiles are the caller's square blocks and sub(A)
    // starts on a block boundary (then dealt as the caller's blocks are, cyclically).
    let aligned = shape == Shape::Grid
        && nb == mba
        && nb == nba
        && (ia as usize - 1).is_multiple_of(mba)
        && (ja as usize - 1).is_multiple_of(nba);
    let reflect = reflect && !aligned;
    let cyc = Cyclic::dealt(&grid, shape, r0, c0, reflect);
    let (mt, nt) = (m.div_ceil(nb), n.div_ceil(nb));
    let owner: Vec<usize> = (0..mt * nt).map(|t| cyc.owner(t % mt, t / mt)).collect();
    let local = LocalTiles::with_shape(&grid, caller, nb, part, aligned, shape, reflect);
    let handles: Vec<Option<LocalTile<T>>> =
        (0..mt * nt).map(|t| (owner[t] == me).then(|| local.tile(t % mt, t / mt))).collect();

    // The distributed algorithm.
    let mut tg = TileGrid::new((m, nb), (n, nb), owner, handles);
    if local.shared() {
        tg.read_in_place(me, |i, j| local.remote(i, j));
    }
    let bufs = buffers(&mut tg, &cyc, me);
    let mut run = run_sequence(cfg, &grid, &tg, |ds| generate(ds, &cyc, &bufs));
    let value = finish(&Finished { grid: &grid, rows: &crow, cols: &ccol, buffers: &run.buffers });

    // Tiles -> caller layout.
    let (redistribution_s, how) = local.finish();
    let stats = Stats::of(redistribution_s, &mut run, how);
    (run.result, value, stats)
}
