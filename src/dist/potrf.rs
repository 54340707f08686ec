//! Distributed tile Cholesky for PDPOTRF (seeds 000 §3.1 and §6; the tile loop of
//! `algo::potrf`, generated on every rank and run owner-computes through [`DistSeq`]).
//!
//! 1. sub(A)'s `uplo` triangle moves from the caller's block-cyclic layout into `nb`×`nb` tiles
//!    dealt 2-D cyclically over the same grid from the process holding sub(A)(1,1)
//!    ([`super::redistribute`]; with `nb` equal to the caller's block size nothing crosses the
//!    network).
//! 2. Every rank generates POTRF(k), TRSM(m,k), SYRK(n,k), GEMM(m,n,k) in program order; each
//!    runs on the owner of the tile it writes, remote inputs arrive as tile messages.
//! 3. A diagonal tile that is not positive definite records the whole-matrix INFO (tile offset
//!    plus the kernel's INFO, smallest wins) and the rank stops computing the steps from there
//!    on (earlier steps, which may still be pending, finish), but every task still runs and
//!    every message is still sent, so no rank waits for a tile that never comes. The
//!    INFO is then the minimum over the grid (`MPI_Allreduce`), the same on every rank.
//! 4. The triangle moves back; nothing else of the caller's arrays is written.

use super::comm::Engine;
use super::grid::Grid;
use super::layout::Axis;
use super::redistribute::{exchange, Layout, Part};
use super::tasks::{DistSeq, TileGrid};
use crate::algo::prio;
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::backend::BlasThreadsGuard;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::{self, Diag, Side, Trans, Uplo};
use crate::runtime::Seq;
use crate::tile::{Raw, Workspace};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a distributed call measured, for the verbose line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Seconds spent converting to tiles and back (both directions).
    pub redistribution_s: f64,
    /// Tile messages this rank sent and received.
    pub sent: usize,
    pub received: usize,
}

impl std::fmt::Display for Stats {
    /// The verbose-line fields every distributed routine reports.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "redist={:.6}s tiles_sent={} tiles_received={}",
            self.redistribution_s, self.sent, self.received
        )
    }
}

/// PDPOTRF on tiles for a process inside the grid; the arguments have passed the checks.
#[allow(clippy::too_many_arguments)]
pub fn pdpotrf(
    cfg: &Config,
    uplo: u8,
    n: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let ul = if uplo.eq_ignore_ascii_case(&b'U') { Uplo::Upper } else { Uplo::Lower };
    let part = if ul == Uplo::Lower { Part::Lower } else { Part::Upper };
    let grid = Grid::from_context(desca.ctxt(), g);
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let nu = n as usize;
    let (mb, nba) = (desca.mb() as usize, desca.nb() as usize);
    let crow = Axis::block_cyclic(nu, ia as usize - 1, mb, desca.rsrc() as usize, p);
    let ccol = Axis::block_cyclic(nu, ja as usize - 1, nba, desca.csrc() as usize, q);
    let (r0, c0) = (crow.owner[0], ccol.owner[0]);
    let trow = Axis::tiles(nu, nb, r0, p);
    let tcol = Axis::tiles(nu, nb, c0, q);
    let nt = nu.div_ceil(nb);

    // Tile owners, and storage for this rank's tiles of the triangle.
    let in_part = |i: usize, j: usize| if ul == Uplo::Lower { i >= j } else { i <= j };
    let edge = |t: usize| nb.min(nu - t * nb);
    let mut owner = vec![0usize; nt * nt];
    let mut store: Vec<Option<Workspace<f64>>> = Vec::with_capacity(nt * nt);
    for j in 0..nt {
        for i in 0..nt {
            owner[i + j * nt] = grid.rank_of((r0 + i) % p, (c0 + j) % q);
            let mine = owner[i + j * nt] == me && in_part(i, j);
            store.push(mine.then(|| Workspace::new(edge(i), edge(j), edge(i), edge(j))));
        }
    }

    // 1. Caller layout -> tiles.
    let t0 = Instant::now();
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let local = a.matrix(mloc, nloc, desca.lld() as usize);
    // Tile index and offset of every row/column of sub(A), so that the per-element conversion
    // closures below do no integer division (that dominated the conversion time).
    let at: Vec<(usize, usize)> = (0..nu).map(|i| (i / nb, i % nb)).collect();
    let caller = Layout { rows: &crow, cols: &ccol, flat: false };
    let tiles = Layout { rows: &trow, cols: &tcol, flat: false };
    exchange(
        &grid,
        part,
        &caller,
        &tiles,
        |i, j| local.get(crow.local[i], ccol.local[j]),
        |i, j, v| {
            let ((ti, oi), (tj, oj)) = (at[i], at[j]);
            let w = store[ti + tj * nt].as_mut().expect("a tile of this rank");
            w.as_mut_slice()[oi + oj * edge(ti)] = v;
        },
    );
    let mut redist = t0.elapsed().as_secs_f64();

    // 2. The distributed factorization.
    let tg = TileGrid::square(nu, nb, owner, store.iter().map(|w| w.as_ref().map(|w| w.tiles())).collect());
    let fail = Arc::new(AtomicI32::new(i32::MAX));
    let mut rcfg = cfg.clone();
    rcfg.threads = grid.threads(cfg.threads);
    let engine = RefCell::new(Engine::new());
    let run = {
        let _blas = BlasThreadsGuard::new();
        let seq = Seq::new(&rcfg);
        let rel = seq.releaser();
        let mut hook = || engine.borrow_mut().progress(&grid.comm, &rel);
        seq.with_progress(&mut hook, |seq| {
            {
                let mut ds = DistSeq::new(&seq, &tg, me, &engine);
                generate(&mut ds, ul, fail.clone());
            }
            seq.wait()
        })
    };
    engine.borrow_mut().flush(&grid.comm);

    // 3. The same INFO everywhere.
    let local_info = fail.load(Ordering::SeqCst);
    let mut info = i32::MAX;
    grid.comm.all_reduce_into(&local_info, &mut info, SystemOperation::min());

    // 4. Tiles -> caller layout.
    let t1 = Instant::now();
    exchange(
        &grid,
        part,
        &tiles,
        &caller,
        |i, j| {
            let ((ti, oi), (tj, oj)) = (at[i], at[j]);
            let w = store[ti + tj * nt].as_ref().expect("a tile of this rank");
            w.as_slice()[oi + oj * edge(ti)]
        },
        |i, j, v| local.set(crow.local[i], ccol.local[j], v),
    );
    redist += t1.elapsed().as_secs_f64();
    let e = engine.borrow();
    let stats = Stats { redistribution_s: redist, sent: e.sent, received: e.received };
    let result = match run {
        Err(e) => Err(e),
        Ok(()) if info != i32::MAX => Err(Error::Numerical(info)),
        Ok(()) => Ok(()),
    };
    (result, stats)
}

/// Whether a task of step `k` must still compute: always, unless this rank has seen a failure in
/// a step at or before `k` (tasks of earlier steps finish the columns before the failure, and
/// may run after the failing POTRF because they do not depend on it).
fn live(fail: &AtomicI32, k: usize, nb: usize) -> bool {
    let f = fail.load(Ordering::Relaxed);
    f == i32::MAX || k < (f as usize - 1) / nb
}

/// The tile Cholesky loop (right-looking, as `algo::potrf`), owner-computes.
fn generate(ds: &mut DistSeq, ul: Uplo, fail: Arc<AtomicI32>) {
    let (nt, nb) = (ds.grid.nt, ds.grid.nb);
    for k in 0..nt {
        let kb = ds.grid.rows(k);
        let off = (k * nb) as i32;
        let f = fail.clone();
        ds.submit("potrf", prio(nt, k, 3), [kb, kb, 0], &[], (k, k), move |_, w| {
            if live(&f, k, nb) {
                match kernels::potrf(ul, w) {
                    0 => {}
                    i => {
                        f.fetch_min(off + i, Ordering::SeqCst);
                    }
                }
            }
            Ok(())
        });
        for m in k + 1..nt {
            let mb = ds.grid.rows(m);
            let f = fail.clone();
            let (w, dims) = if ul == Uplo::Lower { ((m, k), [mb, kb, 0]) } else { ((k, m), [kb, mb, 0]) };
            ds.submit("trsm", prio(nt, k, 2), dims, &[(k, k)], w, move |x, w| {
                if live(&f, k, nb) {
                    match ul {
                        Uplo::Lower => {
                            kernels::trsm(Side::Right, Uplo::Lower, Trans::Yes, Diag::NonUnit, 1.0, x[0], w)
                        }
                        Uplo::Upper => {
                            kernels::trsm(Side::Left, Uplo::Upper, Trans::Yes, Diag::NonUnit, 1.0, x[0], w)
                        }
                    }
                }
                Ok(())
            });
        }
        for n in k + 1..nt {
            let nn = ds.grid.rows(n);
            let f = fail.clone();
            let src = if ul == Uplo::Lower { (n, k) } else { (k, n) };
            ds.submit("syrk", prio(nt, n, 1), [nn, nn, kb], &[src], (n, n), move |x, w| {
                if live(&f, k, nb) {
                    let t = if ul == Uplo::Lower { Trans::No } else { Trans::Yes };
                    kernels::syrk(ul, t, -1.0, x[0], 1.0, w);
                }
                Ok(())
            });
            let others: Vec<usize> =
                if ul == Uplo::Lower { (n + 1..nt).collect() } else { (k + 1..n).collect() };
            for m in others {
                let mm = ds.grid.rows(m);
                let f = fail.clone();
                let reads = if ul == Uplo::Lower { [(m, k), (n, k)] } else { [(k, m), (k, n)] };
                ds.submit("gemm", prio(nt, n, 0), [mm, nn, kb], &reads, (m, n), move |x, w| {
                    if live(&f, k, nb) {
                        match ul {
                            Uplo::Lower => kernels::gemm(Trans::No, Trans::Yes, -1.0, x[0], x[1], 1.0, w),
                            Uplo::Upper => kernels::gemm(Trans::Yes, Trans::No, -1.0, x[0], x[1], 1.0, w),
                        }
                    }
                    Ok(())
                });
            }
        }
    }
}
