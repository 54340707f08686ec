//! Distributed LU with partial pivoting for PDGETRF: the right-looking blocked LU of LAPACK's
//! DGETRF (panel GEPP, row interchanges, TRSM for the U block row, GEMM for the trailing matrix),
//! generated on every rank and run owner-computes through [`DistSeq`] (seeds 000 §6) on the
//! column tiles of [`super::columns`] (whole M-row column blocks, so partial pivoting and every
//! row interchange are local to one task).
//!
//! Each column tile carries one extra row (row M): panel k stores its pivots there (exact small
//! integers as f64), so the pivots travel with the factored panel to every rank that applies
//! them. Steps, for k = 0 .. ⌈min(M,N)/nb⌉-1:
//!
//! 1. PANEL(k) on tile k: GEPP of rows k·nb..M (the backend's DGETRF; a zero pivot records INFO =
//!    k·nb + the kernel's INFO, smallest wins, and the factorization continues as LAPACK's does);
//! 2. UPDATE(k, j) for every other tile j: the interchanges of panel k on rows k·nb..M; for j > k
//!    also U(k, j) = L(k,k)⁻¹·A(k, j) (unit lower TRSM) and A(k+1.., j) -= L(k+1.., k)·U(k, j).
//!    For j < k this is LAPACK's application of later interchanges to the columns of L on the left.
//!
//! The pivots are then gathered on every rank (`MPI_Allreduce`) and written in ScaLAPACK's layout:
//! IPIV(local row of global row IA-1+s) = IA + (the sub(A) row swapped with row s), on every
//! process of the process row holding that row, for s < min(M, N).

use super::columns::{self, Finished};
use super::potrf::Stats;
use super::tasks::DistSeq;
use crate::algo::prio;
use crate::api::scalapack::{Desc, GridInfo};
use crate::config::Config;
use crate::error::Error;
use crate::kernels::{self, Diag, Dir, Side, Trans, Uplo};
use crate::tile::Raw;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// PDGETRF on column tiles for a process inside the grid; the arguments have passed the checks
/// and M, N > 0.
#[allow(clippy::too_many_arguments)]
pub fn pdgetrf(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
    g: &GridInfo,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let (mu, nu) = (m as usize, n as usize);
    let fail = Arc::new(AtomicI32::new(i32::MAX));
    let f = fail.clone();
    let (run, info, stats) = columns::run(
        cfg,
        mu,
        nu,
        a,
        ia,
        ja,
        desca,
        g,
        nb,
        1,
        |ds| generate(ds, mu, f),
        |fin: &Finished| {
            // The same INFO and pivots everywhere.
            let local_info = fail.load(Ordering::SeqCst);
            let mut info = i32::MAX;
            fin.grid.comm.all_reduce_into(&local_info, &mut info, SystemOperation::min());
            let kmin = mu.min(nu);
            let mut mine = vec![0i32; kmin];
            for (j, w) in fin.tiles.iter().enumerate() {
                if let Some(w) = w {
                    let k0 = j * nb;
                    for c in 0..nb.min(nu - k0).min(kmin.saturating_sub(k0)) {
                        // Pivot row (1-based inside rows k0..M of the panel) -> 0-based row of sub(A).
                        mine[k0 + c] = k0 as i32 + w.as_slice()[mu + c * fin.ld] as i32 - 1;
                    }
                }
            }
            let mut piv = vec![0i32; kmin];
            fin.grid.comm.all_reduce_into(&mine[..], &mut piv[..], SystemOperation::sum());
            for (s, &pv) in piv.iter().enumerate() {
                if fin.rows.owner[s] == fin.grid.myrow {
                    // The row that sub(A) row s was swapped with, as a 1-based row of the global A.
                    ipiv.set(fin.rows.local[s], ia + pv);
                }
            }
            info
        },
    );
    let result = match run {
        Err(e) => Err(e),
        Ok(()) if info != i32::MAX => Err(Error::Numerical(info)),
        Ok(()) => Ok(()),
    };
    (result, stats)
}

/// The blocked right-looking LU over column tiles (rows 0..m of each tile; row m holds pivots).
fn generate(ds: &mut DistSeq, m: usize, fail: Arc<AtomicI32>) {
    let (nt, nb, n) = (ds.grid.nt, ds.grid.nb, ds.grid.n);
    let kt = m.min(n).div_ceil(nb);
    for k in 0..kt {
        let k0 = k * nb;
        let kb = ds.grid.cols(k);
        // Pivots of this panel: min(rows below k0, kb).
        let r = kb.min(m - k0);
        let f = fail.clone();
        ds.submit("getrf", prio(nt, k, 3), [m - k0, kb, 0], &[], (0, k), move |_, mut w| {
            let mut piv = vec![0i32; r];
            let info = kernels::getrf_slice(w.sub_mut(k0, 0, m - k0, kb), &mut piv);
            if info > 0 {
                f.fetch_min(k0 as i32 + info, Ordering::SeqCst);
            }
            for (c, &pv) in piv.iter().enumerate() {
                w.set(m, c, pv as f64);
            }
            Ok(())
        });
        for j in (0..nt).filter(|&j| j != k) {
            let jb = ds.grid.cols(j);
            let pr = if j == k + 1 { prio(nt, k, 2) } else { prio(nt, j, 0) };
            ds.submit("update", pr, [m - k0, jb, r], &[(0, k)], (0, j), move |x, mut w| {
                let pan = x[0];
                let piv: Vec<i32> = (0..r).map(|c| pan.get(m, c) as i32).collect();
                let rows = w.sub_mut(k0, 0, m - k0, jb);
                let mut rows = rows;
                kernels::laswp(rows.sub_mut(0, 0, m - k0, jb), &piv, Dir::Forward);
                if j > k {
                    let (mut u, below) = rows.split_rows(r);
                    kernels::trsm(
                        Side::Left,
                        Uplo::Lower,
                        Trans::No,
                        Diag::Unit,
                        1.0,
                        pan.sub(k0, 0, r, r),
                        u.sub_mut(0, 0, r, jb),
                    );
                    if below.m > 0 {
                        kernels::gemm(
                            Trans::No,
                            Trans::No,
                            -1.0,
                            pan.sub(k0 + r, 0, m - k0 - r, r),
                            u.as_view(),
                            1.0,
                            below,
                        );
                    }
                }
                Ok(())
            });
        }
    }
}
