//! Distributed Householder QR for PDGEQRF: the blocked right-looking QR of LAPACK's DGEQRF
//! (panel Householder QR, trailing update by the compact WY block reflector of Schreiber and Van
//! Loan), generated on every rank and run owner-computes through [`DistSeq`] (seeds 000 §6) on
//! the 2-D block-cyclic `nb`×`nb` tiles of [`super::tiles2d`].
//!
//! For k = 0 .. ⌈min(M,N)/nb⌉-1, with k0 = k·nb, w the width of tile column k and
//! kb = min(w, M-k0) the step's reflectors, the trailing update of tile column j > k is
//! C ← Hₖᵀ·C = C − V·(Tᵀ·(Vᵀ·C)) on rows k0..M, split by tile rows i ≥ k so that every product
//! runs where its tile is:
//!
//! 1. PANEL(k), on the owner of tile (k, k): the tiles (i, k), i ≥ k, are copied into the step's
//!    panel buffer P ((M-k0 + 2·kb)×w, one per step, sized to the step so that its message is
//!    no longer than the panel) and factored there ([`kernels::geqrf_panel`], DGEQRT3): R above
//!    the diagonal and the vectors below it with implied unit diagonal, exactly as DGEQRF stores
//!    them, T (kb×kb) and tau in the rows below. When M < N the last panel's tile column is wider
//!    than its reflectors; its remaining columns get Hᵀ inside the panel, as DGEQRF's would.
//! 2. SCATTER(i, k): tile (i, k) ← its rows of P (R and V in sub(A)).
//! 3. For every tile column j > k (the next panel's column first: look-ahead through the
//!    priorities of [`prio`]):
//!    - VTC(pr, j), on the process (pr, column of j), for each process row pr holding tiles
//!      (i, j), i ≥ k: S_pr = Σ V_iᵀ·C_ij over its tiles ([`kernels::vt_c`]; V_k is P's unit
//!      lower trapezoidal top block);
//!    - TW(j), on the owner of tile (k, j): W = Tᵀ·Σ_pr S_pr ([`kernels::tt_w`]), in place of
//!      that process row's own S;
//!    - VW(i, j), on the owner of each tile (i, j), i ≥ k: C_ij −= V_i·W
//!      ([`kernels::c_minus_vw`]).
//!
//!    On a 1×Q grid the tiles (i, j), i ≥ k, are all on one rank, one below the other in its
//!    local matrix: there the three are one task per column, DLARFB on the whole block
//!    ([`DistSeq::submit_runs`], [`kernels::larfb`]).
//!
//! The buffers S (one per process row and tile column, `nb`×w_j) are reused from step to step:
//! the version counting of [`DistSeq`] orders a step's write after the previous step's reads.
//! P travels once to each rank that applies it, each S once to the owner of (k, j), each W once
//! to each other process row of column j; on a 1×Q grid only the panels cross the network (one
//! message per step and per other process column that holds trailing columns).
//!
//! Householder QR with DLARFG's sign convention is blocking-independent, so the reflectors and
//! tau equal the reference's to rounding. The panel tasks record tau on their rank; after the
//! sequence it is gathered on every rank (`MPI_Allreduce`) and written in ScaLAPACK's layout:
//! TAU(local column of global column JA-1+s) on every process of the process column holding that
//! column, for s < min(M, N).

use super::tasks::{DistSeq, TileGrid};
use super::tiles2d::{self, Cyclic, Finished};
use super::Stats;
use crate::algo::prio;
use crate::api::scalapack::{Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels;
use crate::tile::Raw;
use std::sync::{Arc, Mutex};

/// PDGEQRF on 2-D tiles for a process inside the grid; the arguments have passed the checks
/// and M, N > 0.
#[allow(clippy::too_many_arguments)]
pub fn pdgeqrf(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    tau: Raw<f64>,
    g: &GridInfo,
    nb: usize,
    shape: super::redistribute::Shape,
) -> (Result<(), Error>, Stats) {
    let (mu, nu) = (m as usize, n as usize);
    let kmin = mu.min(nu);
    // tau of the panels this rank factors (zero elsewhere), written by the panel tasks.
    let taus = Arc::new(Mutex::new(vec![0f64; kmin]));
    let panel_taus = taus.clone();
    let (run, (), stats) = tiles2d::run(
        cfg,
        (mu, nu),
        a,
        (ia, ja),
        desca,
        g,
        nb,
        shape,
        |tg, cyc, me| buffers(tg, cyc, me, mu),
        |ds, cyc, bufs| generate(ds, cyc, bufs, mu, panel_taus),
        |fin: &Finished| {
            let mine = taus.lock().unwrap_or_else(|e| e.into_inner()).clone();
            // Each entry comes from one rank, the others add exact zeros.
            let mut all = vec![0f64; kmin];
            fin.grid.comm.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
            for (s, &t) in all.iter().enumerate() {
                if fin.cols.owner[s] == fin.grid.mycol {
                    tau.set(fin.cols.local[s], t);
                }
            }
        },
    );
    (run, stats)
}

/// The extra tiles of the factorization, by id.
struct Buffers {
    /// The panel buffer P of each step.
    panel: Vec<usize>,
    /// The partial-sum buffer S of process row pr for tile column j, at `pr + j·P`
    /// (`usize::MAX` where no tile of that process row lies in the column).
    sum: Vec<usize>,
}

/// Every step's panel buffer on the owner of its diagonal tile, and the reusable S buffers.
fn buffers(tg: &mut TileGrid, cyc: &Cyclic, me: usize, m: usize) -> Buffers {
    let (nb, n, mt, nt, p) = (tg.nb, tg.n, tg.mt, tg.nt, cyc.p);
    let kt = m.min(n).div_ceil(nb);
    let mut panel = Vec::with_capacity(kt);
    for k in 0..kt {
        let (mk, w) = (m - k * nb, tg.cols(k));
        let r = w.min(mk);
        panel.push(tg.add(mk + 2 * r, w, cyc.owner(k, k), me));
    }
    let mut sum = vec![usize::MAX; p * nt];
    for j in 1..nt {
        let w = tg.cols(j);
        for i in 0..mt.min(p) {
            let pr = cyc.row_of(i);
            sum[pr + j * p] = tg.add(nb.min(m), w, cyc.rank(pr, cyc.col_of(j)), me);
        }
    }
    Buffers { panel, sum }
}

/// The blocked right-looking QR over 2-D tiles (module doc, steps 1-3).
fn generate(ds: &mut DistSeq, cyc: &Cyclic, bufs: &Buffers, m: usize, taus: Arc<Mutex<Vec<f64>>>) {
    let g = ds.grid;
    let (nb, n, mt, nt, p) = (g.nb, g.n, g.mt, g.nt, cyc.p);
    let kt = m.min(n).div_ceil(nb);
    for k in 0..kt {
        let (k0, w) = (k * nb, g.cols(k));
        let mk = m - k0;
        let r = w.min(mk);
        let pk = bufs.panel[k];

        // 1. PANEL(k).
        let column: Vec<usize> = (k..mt).map(|i| g.id(i, k)).collect();
        let taus = taus.clone();
        ds.submit_ids("geqrf", prio(nt, k, 3), [mk, w, 0], &column, pk, move |x, buf| {
            let (mut top, extra) = buf.split_rows(mk);
            for (t, tile) in x.iter().enumerate() {
                kernels::copy(*tile, top.sub_mut(t * nb, 0, tile.m, w));
            }
            let (mut t, mut tau) = extra.split_rows(r);
            kernels::geqrf_panel(top, r, tau.sub_mut(0, 0, r, 1), t.sub_mut(0, 0, r, r));
            let mut all = taus.lock().unwrap_or_else(|e| e.into_inner());
            for s in 0..r {
                all[k0 + s] = tau.get(s, 0);
            }
            Ok(())
        });

        // 2. SCATTER(i, k).
        for i in k..mt {
            let off = (i - k) * nb;
            ds.submit_ids(
                "qr-scatter",
                prio(nt, k, 1),
                [g.rows(i), w, 0],
                &[pk],
                g.id(i, k),
                move |x, tile| {
                    kernels::copy(x[0].sub(off, 0, tile.m, w), tile);
                    Ok(())
                },
            );
        }

        // 3. The trailing update, column by column.
        for j in k + 1..nt {
            let jb = g.cols(j);
            let pri = if j == k + 1 { prio(nt, k, 2) } else { prio(nt, j, 0) };
            if p == 1 {
                // One process row: the tiles (k.., j) are one below the other in one rank's
                // local matrix, so one task applies the block reflector to them with DLARFB.
                let col: Vec<usize> = (k..mt).map(|i| g.id(i, j)).collect();
                ds.submit_runs("larfb", pri, [mk, jb, r], &[&[pk]], &col, move |x, c| {
                    kernels::larfb(x[0].sub(0, 0, mk, r), r, x[0].sub(mk, 0, r, r), c);
                    Ok(())
                });
                continue;
            }
            // Tile rows i ≥ k of column j by process row, the diagonal's process row first.
            let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
            for i in k..mt {
                let pr = cyc.row_of(i);
                match groups.iter_mut().find(|gr| gr.0 == pr) {
                    Some(gr) => gr.1.push(i),
                    None => groups.push((pr, vec![i])),
                }
            }
            // a. S_pr = Σ V_iᵀ·C_ij.
            for (pr, rows) in &groups {
                let mut reads = vec![pk];
                reads.extend(rows.iter().map(|&i| g.id(i, j)));
                let blocks: Vec<(usize, bool)> = rows.iter().map(|&i| ((i - k) * nb, i == k)).collect();
                let height: usize = rows.iter().map(|&i| g.rows(i)).sum();
                ds.submit_ids(
                    "qr-vtc",
                    pri,
                    [r, jb, height],
                    &reads,
                    bufs.sum[pr + j * p],
                    move |x, mut s| {
                        let mut beta = 0.0;
                        for (c, &(off, unit)) in x[1..].iter().zip(&blocks) {
                            kernels::vt_c(
                                x[0].sub(off, 0, c.m, r),
                                r,
                                unit,
                                *c,
                                beta,
                                s.sub_mut(0, 0, r, jb),
                            );
                            beta = 1.0;
                        }
                        Ok(())
                    },
                );
            }
            // b. W = Tᵀ·Σ S_pr, in the diagonal process row's S.
            let wid = bufs.sum[groups[0].0 + j * p];
            let mut reads = vec![pk];
            reads.extend(groups[1..].iter().map(|(pr, _)| bufs.sum[pr + j * p]));
            ds.submit_ids("qr-tw", pri, [r, jb, r], &reads, wid, move |x, mut s| {
                let mut own = s.sub_mut(0, 0, r, jb);
                for other in &x[1..] {
                    for c in 0..jb {
                        for i in 0..r {
                            own.set(i, c, own.get(i, c) + other.get(i, c));
                        }
                    }
                }
                kernels::tt_w(x[0].sub(mk, 0, r, r), own);
                Ok(())
            });
            // c. C_ij −= V_i·W.
            for i in k..mt {
                let off = (i - k) * nb;
                ds.submit_ids("qr-vw", pri, [g.rows(i), jb, r], &[pk, wid], g.id(i, j), move |x, c| {
                    kernels::c_minus_vw(x[0].sub(off, 0, c.m, r), r, i == k, x[1].sub(0, 0, r, jb), c);
                    Ok(())
                });
            }
        }
    }
}
