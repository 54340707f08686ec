//! Distributed Householder QR for PDGEQRF: the blocked right-looking QR of LAPACK's DGEQRF
//! (panel DGEQRF, T by DLARFT, trailing update by DLARFB: the compact WY form of Schreiber and
//! Van Loan), generated on every rank and run owner-computes through [`DistSeq`] (seeds 000 §6) on
//! the column tiles of [`super::columns`] (whole M-row column blocks, so a panel is one task).
//!
//! Each column tile carries 2·nb extra rows below row M: panel k stores there its kb×kb
//! triangular factor T (rows M..M+nb) and its scalars tau (column 0 of rows M+nb..M+2nb), so both
//! travel with the reflectors to every rank that applies them. Steps, for
//! k = 0 .. ⌈min(M,N)/nb⌉-1 (kb = the panel's reflectors, min(nb, N-k·nb, M-k·nb)):
//!
//! 1. PANEL(k) on tile k: Householder QR of rows k·nb..M ([`kernels::geqrf_panel`]: R above the
//!    diagonal, the vectors below with implied unit diagonal, exactly as DGEQRF stores them; the
//!    columns of the tile past the last reflector, when M < N, get Hᵀ there);
//! 2. UPDATE(k, j) for every tile j > k: rows k·nb..M of tile j ← Hₖᵀ·(those rows) (DLARFB).
//!
//! Householder QR with DLARFG's sign convention is blocking-independent, so the reflectors and tau
//! equal the reference's to rounding. tau is then gathered on every rank (`MPI_Allreduce`) and
//! written in ScaLAPACK's layout: TAU(local column of global column JA-1+s) on every process of
//! the process column holding that column, for s < min(M, N).

use super::columns::{self, Finished};
use super::potrf::Stats;
use super::tasks::DistSeq;
use crate::algo::prio;
use crate::api::scalapack::{Desc, GridInfo};
use crate::config::Config;
use crate::error::Error;
use crate::kernels;
use crate::tile::Raw;
use mpi::collective::SystemOperation;
use mpi::traits::*;

/// PDGEQRF on column tiles for a process inside the grid; the arguments have passed the checks
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
) -> (Result<(), Error>, Stats) {
    let (mu, nu) = (m as usize, n as usize);
    let (run, (), stats) = columns::run(
        cfg,
        mu,
        nu,
        a,
        ia,
        ja,
        desca,
        g,
        nb,
        2 * nb,
        |ds| generate(ds, mu),
        |fin: &Finished| {
            let kmin = mu.min(nu);
            let mut mine = vec![0f64; kmin];
            for (j, w) in fin.tiles.iter().enumerate() {
                if let Some(w) = w {
                    let k0 = j * nb;
                    for c in 0..nb.min(nu - k0).min(kmin.saturating_sub(k0)) {
                        mine[k0 + c] = w.as_slice()[mu + nb + c];
                    }
                }
            }
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

/// The blocked right-looking QR over column tiles (rows 0..m of each tile; T and tau below).
fn generate(ds: &mut DistSeq, m: usize) {
    let (nt, nb, n) = (ds.grid.nt, ds.grid.nb, ds.grid.n);
    let kt = m.min(n).div_ceil(nb);
    for k in 0..kt {
        let k0 = k * nb;
        let kb = ds.grid.cols(k);
        let r = kb.min(m - k0);
        ds.submit("geqrf", prio(nt, k, 3), [m - k0, kb, 0], &[], (0, k), move |_, w| {
            let (top, extra) = w.split_rows(m);
            let (mut t, mut taus) = extra.split_rows(nb);
            let mut top = top;
            kernels::geqrf_panel(
                top.sub_mut(k0, 0, m - k0, kb),
                r,
                taus.sub_mut(0, 0, r, 1),
                t.sub_mut(0, 0, r, r),
            );
            Ok(())
        });
        for j in k + 1..nt {
            let jb = ds.grid.cols(j);
            let pr = if j == k + 1 { prio(nt, k, 2) } else { prio(nt, j, 0) };
            ds.submit("larfb", pr, [m - k0, jb, r], &[(0, k)], (0, j), move |x, mut w| {
                let pan = x[0];
                kernels::larfb(
                    pan.sub(k0, 0, m - k0, r),
                    r,
                    pan.sub(m, 0, r, r),
                    w.sub_mut(k0, 0, m - k0, jb),
                );
                Ok(())
            });
        }
    }
}
