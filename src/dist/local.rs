//! A rank's tiles of sub(A) as one local matrix, and the conversion between it and the caller's
//! block-cyclic local array (both directions, only the `part` of sub(A) that the routine uses).
//!
//! Tiles are `nb`×`nb` blocks of sub(A) dealt 2-D block-cyclically (or reflected,
//! [`super::layout::deal`]) over the P×Q grid from the process holding sub(A)(1,1); a rank keeps
//! its tiles in order: with the cyclic deal, global tile (i, j) is its local tile (i / P, j / Q)
//! (only the last tile row and column can be partial, and they are then the last local ones).
//! One matrix rather than a tile each, so that the conversion is runs of columns and, with
//! devices, the runtime deals its tile columns between the host and the devices. When the tiles
//! are the caller's own square blocks and sub(A) starts on a block boundary, that local matrix
//! *is* the rank's part of sub(A) in the caller's array: the tasks work in place, nothing is
//! converted (as the LAPACK routines' tiles are views of the caller's matrix).

use super::grid::Grid;
use super::layout::Axis;
use super::redistribute::{
    exchange, exchange_shared, CallerArray, Layout, LocalMatrix, Part, Placed, Shape, SharedSide,
};
use super::shm::Shared;
use super::tasks::LocalTile;
use super::DistElem;
use crate::tile::{Elem, Raw, TiledMatrix, Workspace};
use std::time::Instant;

/// The local tile matrix of one distributed call on this rank.
pub struct LocalTiles<'a, T: Elem = f64> {
    grid: &'a Grid,
    caller: CallerArray<'a, T>,
    trow: Axis,
    tcol: Axis,
    part: Part,
    shape: Shape,
    /// Local tile row (column) of every global tile row (column), on the process holding it.
    local_row: Vec<usize>,
    local_col: Vec<usize>,
    in_place: bool,
    store: Workspace<T>,
    /// The tiles' storage when it is shared between the ranks of one node (`store` is then
    /// empty); dropped after the tasks, with the LocalTiles.
    shared: Option<Shared<T>>,
    matrix: TiledMatrix<T>,
    /// With shared storage, every other rank's local tile matrix as mapped here, by rank (the
    /// tasks read the tiles those ranks own there, [`TileGrid::read_in_place`]).
    peer_tiles: Vec<Option<TiledMatrix<T>>>,
    /// The rank holding each tile row and column (its position in the shape).
    tile_prow: Vec<usize>,
    tile_pcol: Vec<usize>,
    rowoff: Vec<usize>,
    coloff: Vec<usize>,
    /// The local matrix's leading dimension.
    ld: usize,
    /// How the last conversion moved values between ranks ([`exchange`]'s answer).
    conversion: Option<&'static str>,
    /// Seconds spent converting so far (both directions).
    pub redistribution_s: f64,
}

impl<'a, T: DistElem> LocalTiles<'a, T> {
    /// This rank's tiles of the `part` of sub(A), whose caller layout is `caller` (its local array
    /// and the row and column maps of sub(A)); `aligned` says whether the caller's blocks are
    /// `nb`×`nb` and sub(A) starts on a block boundary (then the tasks work in place). Converts
    /// the caller's values in (collective over the grid).
    pub fn new(grid: &'a Grid, caller: CallerArray<'a, T>, nb: usize, part: Part, aligned: bool) -> Self {
        Self::with_shape(grid, caller, nb, part, aligned, Shape::Grid, false)
    }

    /// [`LocalTiles::new`] with the tiles dealt over `shape` (tile (0, 0) on the process holding
    /// sub(A)'s first element; with [`Shape::OneRow`] the tasks never work in place), cyclically
    /// or `reflect`ed ([`super::layout::deal`]; never in place).
    pub fn with_shape(
        grid: &'a Grid,
        caller: CallerArray<'a, T>,
        nb: usize,
        part: Part,
        aligned: bool,
        shape: Shape,
        reflect: bool,
    ) -> Self {
        let aligned = aligned && shape == Shape::Grid && !reflect;
        let (p, q) = shape.dims(grid);
        let (m, n) = (caller.rows.owner.len(), caller.cols.owner.len());
        let (r0, c0) = origin(grid, &caller, shape);
        let trow = Axis::tiles(m, nb, r0, p, reflect);
        let tcol = Axis::tiles(n, nb, c0, q, reflect);
        // Each tile's local tile row and column on its process.
        let tile_owner = |ax: &Axis, count: usize| (0..count).map(|t| ax.owner[t * nb]).collect::<Vec<_>>();
        let tile_prow = tile_owner(&trow, m.div_ceil(nb));
        let tile_pcol = tile_owner(&tcol, n.div_ceil(nb));
        let local_row = super::layout::local_tiles(&tile_prow);
        let local_col = super::layout::local_tiles(&tile_pcol);
        let (myrow, mycol) = shape.me(grid);
        let (lm, ln) = (trow.held_by(myrow).len(), tcol.held_by(mycol).len());
        // On one node the tiles live in shared memory that every rank maps (the conversions'
        // one-copy path, [`super::shm`]); `aligned` is the same on every rank, so every rank
        // takes part in the agreement or none does.
        let shared =
            if aligned { None } else { Shared::open(grid, lm.max(1) * ln, lm.max(1), shared_wanted()) };
        let store = if aligned || shared.is_some() {
            Workspace::new(0, 0, nb, nb)
        } else {
            // Conversion writes every element of the part; nothing outside it is read (the
            // triangle routines' tasks touch only the tiles of their triangle, and the kernels on
            // a diagonal tile reference only its triangle, as LAPACK's do), so the rest keeps
            // whatever a recycled buffer held: no zero fill (up to 65 MB per call at N = 4000).
            Workspace::scratch(lm, ln, nb, nb)
        };
        let matrix = if aligned {
            let first =
                |ax: &Axis, me: usize| ax.owner.iter().position(|&o| o == me).map_or(0, |s| ax.local[s]);
            caller.a.block(first(caller.rows, myrow), first(caller.cols, mycol), lm, ln).tiled(nb, nb)
        } else if let Some(sh) = &shared {
            // SAFETY: the shared storage holds lm·ln values (leading dimension lm) and this call
            // holds it until `shared` is dropped with the LocalTiles, after the tasks.
            unsafe { Raw::new(sh.base) }.matrix(lm, ln, lm.max(1)).tiled(nb, nb)
        } else {
            store.tiles()
        };
        let peer_tiles = match &shared {
            None => Vec::new(),
            Some(sh) => {
                let mut peer_tiles = vec![None; grid.comm.size() as usize];
                for prow in 0..p {
                    for pcol in 0..q {
                        let r = shape.rank_of(grid, prow, pcol);
                        if r == grid.me() {
                            continue;
                        }
                        let (rm, rn) = (trow.held_by(prow).len(), tcol.held_by(pcol).len());
                        let (base, ld) = sh.peers()[r];
                        assert_eq!(ld, rm.max(1), "hetla: rank {r}'s shared tile storage has another shape");
                        // SAFETY: rank r's storage (rm·rn values, leading dimension ld) is mapped
                        // here for as long as `shared` holds it (until the LocalTiles is dropped,
                        // after the tasks and the closing barrier of the sequence); the tasks only
                        // read it, each version after its owner's notice and before the owner's
                        // next write, which waits for this rank's acknowledgement.
                        peer_tiles[r] = Some(unsafe { Raw::new(base) }.matrix(rm, rn, ld).tiled(nb, nb));
                    }
                }
                peer_tiles
            }
        };
        // Offset of every row and column of sub(A) in the local matrix (meaningful for the ones
        // this rank holds).
        let rowoff = (0..m).map(|i| local_row[i / nb] * nb + i % nb).collect();
        let coloff = (0..n).map(|j| (local_col[j / nb] * nb + j % nb) * lm.max(1)).collect();
        let mut me = LocalTiles {
            grid,
            caller,
            trow,
            tcol,
            part,
            shape,
            local_row,
            local_col,
            in_place: aligned,
            store,
            shared,
            matrix,
            peer_tiles,
            tile_prow,
            tile_pcol,
            rowoff,
            coloff,
            ld: lm.max(1),
            conversion: None,
            redistribution_s: 0.0,
        };
        me.convert(true);
        me
    }

    /// Where this rank keeps global tile (i, j) (which it must own).
    pub fn tile(&self, i: usize, j: usize) -> LocalTile<T> {
        LocalTile { m: self.matrix, i: self.local_row[i], j: self.local_col[j] }
    }

    /// Whether the ranks' tiles are in storage that every rank of the grid maps (then
    /// [`LocalTiles::remote`] says where the other ranks' tiles are). The same on every rank.
    pub fn shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Where this rank reads global tile (i, j), which another rank holds, in place in that
    /// rank's shared storage (`None` for this rank's own tiles, or without shared storage).
    pub fn remote(&self, i: usize, j: usize) -> Option<LocalTile<T>> {
        let r = self.shape.rank_of(self.grid, self.tile_prow[i], self.tile_pcol[j]);
        let m = (*self.peer_tiles.get(r)?)?;
        Some(LocalTile { m, i: self.local_row[i], j: self.local_col[j] })
    }

    /// Converts the tiles back into the caller's array (collective over the grid); returns the
    /// seconds spent converting, both ways, and how values crossed between ranks (`None` when
    /// the tiles were the caller's blocks and nothing was converted).
    pub fn finish(mut self) -> (f64, Option<&'static str>) {
        self.convert(false);
        (self.redistribution_s, self.conversion)
    }

    /// For tiles that were only read: the seconds spent converting them in; nothing goes back.
    pub fn discard(self) -> f64 {
        self.redistribution_s
    }

    fn convert(&mut self, inward: bool) {
        if self.in_place {
            return;
        }
        let t0 = Instant::now();
        let c = &self.caller;
        let caller = Layout { rows: c.rows, cols: c.cols, shape: Shape::Grid };
        let tiles = Layout { rows: &self.trow, cols: &self.tcol, shape: self.shape };
        let back = CallerArray { a: c.a, rows: c.rows, cols: c.cols };
        let (rowoff, coloff, ld) = (&self.rowoff, &self.coloff, self.ld);
        let how = if let Some(sh) = &mut self.shared {
            let (data, peers) = sh.parts();
            if inward && crate::tile::recycle::poison() {
                poison(data);
            }
            let mine = LocalMatrix { data, rowoff, coloff, ld };
            let at: &dyn Placed = &LocalMatrix::<&[T]> { data: &[], rowoff, coloff, ld };
            let (grid, part) = (self.grid, self.part);
            if inward {
                exchange_shared(grid, part, &caller, &tiles, back, mine, SharedSide::Sink(peers, at));
            } else {
                exchange_shared(grid, part, &tiles, &caller, mine, back, SharedSide::Source(peers, at));
            }
            "shared"
        } else {
            if inward {
                let data = self.store.as_mut_slice();
                exchange(
                    self.grid,
                    self.part,
                    &caller,
                    &tiles,
                    back,
                    LocalMatrix { data, rowoff, coloff, ld },
                );
            } else {
                let data = self.store.as_slice();
                exchange(
                    self.grid,
                    self.part,
                    &tiles,
                    &caller,
                    LocalMatrix { data, rowoff, coloff, ld },
                    back,
                );
            }
            "alltoallv"
        };
        self.conversion = Some(how);
        self.redistribution_s += t0.elapsed().as_secs_f64();
    }
}

/// The position, in `shape`, of the process holding sub(A)'s first element: where tile (0, 0) goes.
pub fn origin<T: Elem>(grid: &Grid, caller: &CallerArray<T>, shape: Shape) -> (usize, usize) {
    let (r, c) = (caller.rows.owner[0], caller.cols.owner[0]);
    match shape {
        Shape::Grid => (r, c),
        Shape::OneRow => (0, r * grid.npcol + c),
        Shape::OneCol => (r * grid.npcol + c, 0),
    }
}

/// Whether this rank asks for shared tile storage: `HETLA_TEST_SHARED=never` (a test hook)
/// declines, and with it the grid's conversions use `MPI_Alltoallv`, as between nodes.
fn shared_wanted() -> bool {
    static WANT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WANT.get_or_init(|| !matches!(std::env::var("HETLA_TEST_SHARED").as_deref(), Ok("never")))
}

/// Fills shared tile storage with NaN before a conversion in (`HETLA_TEST_POISON_SCRATCH=1`): a
/// value the conversion leaves unwritten then shows in the result.
fn poison<T: DistElem>(data: &mut [T]) {
    data.fill(T::from_parts(f64::NAN, f64::NAN));
}
