//! Owner-computes task generation over a tile grid dealt across ranks (seeds 000 §6).
//!
//! Every rank calls [`DistSeq::submit`] for every task of the algorithm, in the same order. A
//! task writes one tile and runs on the rank that owns it; for each tile it reads that another
//! rank owns, the generator knows which version the task needs (it counts the writes to every
//! tile, on every rank, in program order) and:
//!
//! * on the reader's rank, creates a local copy of that tile version and a *held* task that
//!   writes it, released when the message arrives ([`super::comm`]); readers of the copy queue
//!   behind it through the ordinary dependency lists;
//! * on the owner's rank, creates a *send* task that reads the tile (so it runs right after the
//!   write that produced that version, and before any later write: the dependency lists order
//!   it) and queues the message.
//!
//! Each (tile, version, destination) is sent once and each (tile, version) received once per rank,
//! whatever the number of tasks that read it there. The remaining tasks are ordinary local tasks.

use super::comm::{Engine, Outbox, Outgoing};
use crate::error::Error;
use crate::runtime::{Releaser, Seq, Task};
use crate::tile::{TiledMatrix, View, ViewMut, Workspace};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// A grid of `mt`×`nt` tiles of an `m`×`n` matrix (tile edges `mb`×`nb`), each tile on one rank,
/// plus any number of *extra* tiles of any shape (an algorithm's buffers: a gathered panel, a
/// block of pivot rows, a partial sum), also each on one rank. Every tile has an id: tile (i, j)
/// of the matrix is `i + j * mt` ([`TileGrid::id`]), extra tiles follow ([`TileGrid::add`]); the
/// id is also the MPI tag of its messages.
pub struct TileGrid {
    pub m: usize,
    pub mb: usize,
    pub mt: usize,
    pub n: usize,
    pub nb: usize,
    pub nt: usize,
    /// Rank owning each tile, by id.
    pub owner: Vec<usize>,
    /// This rank's tiles (one single-tile matrix each), by id.
    pub local: Vec<Option<TiledMatrix<f64>>>,
    /// Shapes of the extra tiles (id − mt·nt).
    extra: Vec<(usize, usize)>,
    /// Storage of this rank's extra tiles (by id − mt·nt; `None` where another rank holds it).
    store: Vec<Option<Workspace<f64>>>,
}

impl TileGrid {
    /// A grid of the `m`×`n` matrix in `mb`×`nb` tiles with the given owners and this rank's
    /// tiles (both at `i + j * mt`).
    pub fn new(
        (m, mb): (usize, usize),
        (n, nb): (usize, usize),
        owner: Vec<usize>,
        local: Vec<Option<TiledMatrix<f64>>>,
    ) -> Self {
        let (mt, nt) = (m.div_ceil(mb), n.div_ceil(nb));
        assert_eq!(owner.len(), mt * nt);
        assert_eq!(local.len(), mt * nt);
        TileGrid { m, mb, mt, n, nb, nt, owner, local, extra: Vec::new(), store: Vec::new() }
    }
    /// A square grid (`n`×`n` in `nb`×`nb` tiles).
    pub fn square(n: usize, nb: usize, owner: Vec<usize>, local: Vec<Option<TiledMatrix<f64>>>) -> Self {
        Self::new((n, nb), (n, nb), owner, local)
    }
    /// Rows of tile row `i`.
    pub fn rows(&self, i: usize) -> usize {
        self.mb.min(self.m - i * self.mb)
    }
    /// Columns of tile column `j`.
    pub fn cols(&self, j: usize) -> usize {
        self.nb.min(self.n - j * self.nb)
    }
    /// The id of tile (i, j) of the matrix.
    pub fn id(&self, i: usize, j: usize) -> usize {
        debug_assert!(i < self.mt && j < self.nt);
        i + j * self.mt
    }
    /// Rows and columns of tile `id`.
    pub fn dims(&self, id: usize) -> (usize, usize) {
        let main = self.mt * self.nt;
        if id < main {
            (self.rows(id % self.mt), self.cols(id / self.mt))
        } else {
            self.extra[id - main]
        }
    }
    /// Number of tiles, extra tiles included.
    pub fn len(&self) -> usize {
        self.owner.len()
    }
    /// Whether the grid has no tile at all.
    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }
    /// A new extra tile of `rows`×`cols` on rank `owner` (zero-filled storage on that rank, `me`);
    /// returns its id. Add every extra tile before generating tasks.
    pub fn add(&mut self, rows: usize, cols: usize, owner: usize, me: usize) -> usize {
        let id = self.owner.len();
        self.owner.push(owner);
        self.extra.push((rows, cols));
        let w = (owner == me).then(|| Workspace::new(rows, cols, rows.max(1), cols.max(1)));
        self.local.push(w.as_ref().map(|w| w.tiles()));
        self.store.push(w);
        id
    }
    /// The storage of extra tile `id` when this rank holds it, column-major with leading
    /// dimension max(1, rows), to fill before the tasks are generated or read after they ran.
    pub fn extra(&self, id: usize) -> Option<&Workspace<f64>> {
        self.store.get(id.checked_sub(self.mt * self.nt)?)?.as_ref()
    }
    /// Writable storage of extra tile `id`; see [`TileGrid::extra`].
    pub fn extra_mut(&mut self, id: usize) -> Option<&mut Workspace<f64>> {
        self.store.get_mut(id.checked_sub(self.mt * self.nt)?)?.as_mut()
    }
}

/// The generator's state on one rank.
pub struct DistSeq<'a> {
    pub seq: &'a Seq,
    rel: Releaser,
    pub grid: &'a TileGrid,
    pub me: usize,
    engine: &'a RefCell<Engine>,
    outbox: Outbox,
    version: Vec<u32>,
    sent: HashSet<(usize, u32, usize)>,
    copies: HashMap<(usize, u32), TiledMatrix<f64>>,
}

impl<'a> DistSeq<'a> {
    pub fn new(seq: &'a Seq, grid: &'a TileGrid, me: usize, engine: &'a RefCell<Engine>) -> Self {
        let outbox = engine.borrow().outbox();
        DistSeq {
            seq,
            rel: seq.releaser(),
            grid,
            me,
            engine,
            outbox,
            version: vec![0; grid.len()],
            sent: HashSet::new(),
            copies: HashMap::new(),
        }
    }

    /// The handle through which the owner of the task writing tile `w` reads tile `r`.
    fn input(&mut self, ri: usize, owner: usize, prio: i64) -> Option<TiledMatrix<f64>> {
        let g = self.grid;
        let (rows, cols) = g.dims(ri);
        let (ro, v) = (g.owner[ri], self.version[ri]);
        if ro == owner {
            return g.local[ri];
        }
        let tag = ri as i32;
        if ro == self.me && self.sent.insert((ri, v, owner)) {
            let h = g.local[ri].expect("the owner holds its tile");
            let outbox = self.outbox.clone();
            let t = Task::new("send").prio(prio).dims(rows, cols, 0).read(&h, 0, 0);
            self.seq.submit(t, move |c| {
                let tile = c.tile(&h, 0, 0);
                let mut data = Vec::with_capacity(1 + tile.m * tile.n);
                data.push(v as f64);
                for j in 0..tile.n {
                    for i in 0..tile.m {
                        data.push(tile.get(i, j));
                    }
                }
                outbox.lock().unwrap_or_else(|e| e.into_inner()).push(Outgoing { dest: owner, tag, data });
                Ok(())
            });
        }
        if owner != self.me {
            return None;
        }
        if let Some(h) = self.copies.get(&(ri, v)) {
            return Some(*h);
        }
        // Never hold the engine borrowed across a call into the sequence: the master's progress
        // callback borrows it whenever the sequence makes the master wait.
        let h = self.engine.borrow_mut().add_copy((ri, v), rows, cols);
        let held = self.seq.submit_held(Task::new("recv").prio(prio).write(&h, 0, 0), |_| Ok(()));
        self.engine.borrow_mut().expect(&self.rel, ro, tag, (ri, v), held);
        self.copies.insert((ri, v), h);
        Some(h)
    }

    /// A task that reads tiles `reads` and updates tile `w` of the matrix, run by `w`'s owner
    /// with views of the inputs (in the order given) and of `w`.
    pub fn submit<F>(
        &mut self,
        name: &'static str,
        prio: i64,
        dims: [usize; 3],
        reads: &[(usize, usize)],
        w: (usize, usize),
        body: F,
    ) where
        F: FnOnce(&[View<f64>], ViewMut<f64>) -> Result<(), Error> + Send + 'static,
    {
        let g = self.grid;
        let ids: Vec<usize> = reads.iter().map(|&(i, j)| g.id(i, j)).collect();
        self.submit_ids(name, prio, dims, &ids, g.id(w.0, w.1), body)
    }

    /// [`DistSeq::submit`] with tiles named by id (matrix tiles and extra tiles alike).
    pub fn submit_ids<F>(
        &mut self,
        name: &'static str,
        prio: i64,
        dims: [usize; 3],
        reads: &[usize],
        wi: usize,
        body: F,
    ) where
        F: FnOnce(&[View<f64>], ViewMut<f64>) -> Result<(), Error> + Send + 'static,
    {
        let owner = self.grid.owner[wi];
        let inputs: Vec<Option<TiledMatrix<f64>>> =
            reads.iter().map(|&r| self.input(r, owner, prio + 1)).collect();
        if owner == self.me {
            let out = self.grid.local[wi].expect("the owner holds its tile");
            let ins: Vec<TiledMatrix<f64>> =
                inputs.into_iter().map(|h| h.expect("inputs resolved on the owner")).collect();
            let mut t = Task::new(name).prio(prio).dims(dims[0], dims[1], dims[2]).rw(&out, 0, 0);
            for h in &ins {
                t = t.read(h, 0, 0);
            }
            self.seq.submit(t, move |c| {
                let views: Vec<View<f64>> = ins.iter().map(|h| c.tile(h, 0, 0)).collect();
                body(&views, c.tile_mut(&out, 0, 0))
            });
        }
        self.version[wi] += 1;
    }
}
