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
use crate::tile::{TiledMatrix, View, ViewMut};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// A grid of `mt`×`nt` tiles of an `m`×`n` matrix (tile edges `mb`×`nb`), each tile on one rank.
pub struct TileGrid {
    pub m: usize,
    pub mb: usize,
    pub mt: usize,
    pub n: usize,
    pub nb: usize,
    pub nt: usize,
    /// Rank owning tile (i, j), at `i + j * mt`.
    pub owner: Vec<usize>,
    /// This rank's tiles (one single-tile matrix each), at `i + j * mt`.
    pub local: Vec<Option<TiledMatrix<f64>>>,
}

impl TileGrid {
    /// A square grid (`n`×`n` in `nb`×`nb` tiles).
    pub fn square(n: usize, nb: usize, owner: Vec<usize>, local: Vec<Option<TiledMatrix<f64>>>) -> Self {
        let nt = n.div_ceil(nb);
        TileGrid { m: n, mb: nb, mt: nt, n, nb, nt, owner, local }
    }
    /// Rows of tile row `i`.
    pub fn rows(&self, i: usize) -> usize {
        self.mb.min(self.m - i * self.mb)
    }
    /// Columns of tile column `j`.
    pub fn cols(&self, j: usize) -> usize {
        self.nb.min(self.n - j * self.nb)
    }
    fn index(&self, t: (usize, usize)) -> usize {
        t.0 + t.1 * self.mt
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
            version: vec![0; grid.mt * grid.nt],
            sent: HashSet::new(),
            copies: HashMap::new(),
        }
    }

    /// The handle through which the owner of the task writing tile `w` reads tile `r`.
    fn input(&mut self, r: (usize, usize), owner: usize, prio: i64) -> Option<TiledMatrix<f64>> {
        let g = self.grid;
        let ri = g.index(r);
        let (ro, v) = (g.owner[ri], self.version[ri]);
        if ro == owner {
            return g.local[ri];
        }
        let tag = ri as i32;
        if ro == self.me && self.sent.insert((ri, v, owner)) {
            let h = g.local[ri].expect("the owner holds its tile");
            let outbox = self.outbox.clone();
            let t = Task::new("send").prio(prio).dims(g.rows(r.0), g.cols(r.1), 0).read(&h, 0, 0);
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
        let h = self.engine.borrow_mut().add_copy((ri, v), g.rows(r.0), g.cols(r.1));
        let held = self.seq.submit_held(Task::new("recv").prio(prio).write(&h, 0, 0), |_| Ok(()));
        self.engine.borrow_mut().expect(&self.rel, ro, tag, (ri, v), held);
        self.copies.insert((ri, v), h);
        Some(h)
    }

    /// A task that reads tiles `reads` and updates tile `w`, run by `w`'s owner with views of
    /// the inputs (in the order given) and of `w`.
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
        let wi = self.grid.index(w);
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
