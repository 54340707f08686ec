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

use super::grid::Grid;
use super::layout::Axis;
use super::local::LocalTiles;
use super::redistribute::{CallerArray, Part};
use super::tasks::{run_sequence, DistSeq, LocalTile, TileGrid};
use super::Stats;
use crate::algo::prio;
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::config::Config;
use crate::device::{DeviceOp, Tiles};
use crate::error::Error;
use crate::kernels::{self, Diag, Side, Trans, Uplo};
use crate::tile::Raw;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

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
    let nt = nu.div_ceil(nb);

    // Tile owners (dealt cyclically from (r0, c0)); this rank's tiles are kept in one local
    // matrix ([`LocalTiles`]).
    let in_part = |i: usize, j: usize| if ul == Uplo::Lower { i >= j } else { i <= j };
    let mut owner = vec![0usize; nt * nt];
    for j in 0..nt {
        for i in 0..nt {
            owner[i + j * nt] = grid.rank_of((r0 + i) % p, (c0 + j) % q);
        }
    }
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let caller = CallerArray { a: a.matrix(mloc, nloc, desca.lld() as usize), rows: &crow, cols: &ccol };

    // 1. Caller layout -> tiles (PDPOTRF's checks make sub(A) start on a block boundary with
    // square blocks, so tiles of the caller's block size work in place).
    let local = LocalTiles::new(&grid, caller, nb, part, nb == mb);
    let handles: Vec<Option<LocalTile>> = (0..nt * nt)
        .map(|t| {
            let (i, j) = (t % nt, t / nt);
            (owner[t] == me && in_part(i, j)).then(|| local.tile(i, j))
        })
        .collect();

    // 2. The distributed factorization.
    let tg = TileGrid::square(nu, nb, owner, handles);
    let fail = Arc::new(AtomicI32::new(i32::MAX));
    // On one process row a lower factor's tile columns are each on one rank, one below the other
    // in its local matrix: there (without devices, whose kernels are per tile) the trailing
    // update of a column is one task rather than one per tile.
    let columns = p == 1 && ul == Uplo::Lower && crate::device::open(cfg).is_empty();
    let run = run_sequence(cfg, &grid, &tg, |ds| {
        if columns {
            generate_columns(ds, fail.clone())
        } else {
            generate(ds, ul, fail.clone())
        }
    });

    // 3. The same INFO everywhere.
    let local_info = fail.load(Ordering::SeqCst);
    let mut info = i32::MAX;
    grid.comm.all_reduce_into(&local_info, &mut info, SystemOperation::min());

    // 4. Tiles -> caller layout.
    let redistribution_s = local.finish();
    let stats = Stats { redistribution_s, sent: run.sent, received: run.received, devices: run.devices };
    let result = match run.result {
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

/// The lower tile Cholesky on a 1×Q grid by tile columns: POTRF(k); one task for the TRSM of
/// the tiles below it (all on its rank, adjacent in the local matrix: one DTRSM); then for each
/// column j > k one task on its tiles (j.., j): SYRK of the diagonal tile and a GEMM per tile
/// below (one GEMM when the L tiles (j.., k) are on the same rank, one per tile when each was
/// received as its own message).
/// The same arithmetic as [`generate`] in about nt instead of nt²/2 tasks per step, which with
/// small tiles (the caller's NB = 64 worked in place) is most of the runtime's overhead.
fn generate_columns(ds: &mut DistSeq, fail: Arc<AtomicI32>) {
    let g = ds.grid;
    let (n, nt, nb) = (g.n, g.nt, g.nb);
    for k in 0..nt {
        let kb = g.rows(k);
        let k0 = k * nb;
        let off = k0 as i32;
        let f = fail.clone();
        ds.submit("potrf", prio(nt, k, 3), [kb, kb, 0], &[], (k, k), move |_, w| {
            if live(&f, k, nb) {
                match kernels::potrf(Uplo::Lower, w) {
                    0 => {}
                    i => {
                        f.fetch_min(off + i, Ordering::SeqCst);
                    }
                }
            }
            Ok(())
        });
        if k + 1 == nt {
            break;
        }
        let below: Vec<usize> = (k + 1..nt).map(|i| g.id(i, k)).collect();
        let f = fail.clone();
        let diag = [g.id(k, k)];
        ds.submit_runs("trsm", prio(nt, k, 2), [n - k0 - kb, kb, 0], &[&diag], &below, move |x, w| {
            if live(&f, k, nb) {
                kernels::trsm(Side::Right, Uplo::Lower, Trans::Yes, Diag::NonUnit, 1.0, x[0], w);
            }
            Ok(())
        });
        for j in k + 1..nt {
            let j0 = j * nb;
            let jb = g.rows(j);
            let col: Vec<usize> = (j..nt).map(|i| g.id(i, j)).collect();
            // L(j.., k): on the same rank, one view of the adjacent tiles (one GEMM); from
            // another rank, one view per received tile (a GEMM each).
            let same = g.owner[g.id(j, j)] == g.owner[g.id(j, k)];
            let lcol: Vec<usize> = (j..nt).map(|i| g.id(i, k)).collect();
            let ls: Vec<&[usize]> =
                if same { vec![&lcol[..]] } else { lcol.iter().map(std::slice::from_ref).collect() };
            let f = fail.clone();
            ds.submit_runs("update", prio(nt, j, 1), [n - j0, jb, kb], &ls, &col, move |x, mut w| {
                if live(&f, k, nb) {
                    let lj = x[0].sub(0, 0, jb, kb);
                    kernels::syrk(Uplo::Lower, Trans::No, -1.0, lj, 1.0, w.sub_mut(0, 0, jb, jb));
                    if same {
                        let rest = w.m - jb;
                        if rest > 0 {
                            let li = x[0].sub(jb, 0, rest, kb);
                            kernels::gemm(
                                Trans::No,
                                Trans::Yes,
                                -1.0,
                                li,
                                lj,
                                1.0,
                                w.sub_mut(jb, 0, rest, jb),
                            );
                        }
                    } else {
                        let mut at = jb;
                        for li in &x[1..] {
                            kernels::gemm(
                                Trans::No,
                                Trans::Yes,
                                -1.0,
                                *li,
                                lj,
                                1.0,
                                w.sub_mut(at, 0, li.m, jb),
                            );
                            at += li.m;
                        }
                    }
                }
                Ok(())
            });
        }
    }
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
            let side = if ul == Uplo::Lower { Side::Right } else { Side::Left };
            let op = DeviceOp::Trsm {
                side,
                uplo: ul,
                trans: Trans::Yes,
                diag: Diag::NonUnit,
                alpha: 1.0,
                a: Tiles::one(1),
                b: Tiles::one(0),
            };
            let (dk, dw) = (ds.grid.id(k, k), ds.grid.id(w.0, w.1));
            ds.submit_op("trsm", prio(nt, k, 2), dims, &[dk], dw, Some(op), move |x, w| {
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
            let t = if ul == Uplo::Lower { Trans::No } else { Trans::Yes };
            let op = DeviceOp::Syrk {
                uplo: ul,
                trans: t,
                alpha: -1.0,
                a: Tiles::one(1),
                beta: 1.0,
                c: Tiles::one(0),
            };
            let (ds_, dn) = (ds.grid.id(src.0, src.1), ds.grid.id(n, n));
            ds.submit_op("syrk", prio(nt, n, 1), [nn, nn, kb], &[ds_], dn, Some(op), move |x, w| {
                if live(&f, k, nb) {
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
                let (ta, tb) =
                    if ul == Uplo::Lower { (Trans::No, Trans::Yes) } else { (Trans::Yes, Trans::No) };
                let op = DeviceOp::Gemm {
                    ta,
                    tb,
                    alpha: -1.0,
                    a: Tiles::one(1),
                    b: Tiles::one(2),
                    beta: 1.0,
                    c: Tiles::one(0),
                    k: kb,
                };
                let ids = [ds.grid.id(reads[0].0, reads[0].1), ds.grid.id(reads[1].0, reads[1].1)];
                let dw = ds.grid.id(m, n);
                ds.submit_op("gemm", prio(nt, n, 0), [mm, nn, kb], &ids, dw, Some(op), move |x, w| {
                    if live(&f, k, nb) {
                        kernels::gemm(ta, tb, -1.0, x[0], x[1], 1.0, w);
                    }
                    Ok(())
                });
            }
        }
    }
}
