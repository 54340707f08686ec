//! Distributed Householder QR for PDGEQRF: the QR generator of [`crate::algo::geqrf`] (the one
//! `dgeqrf` runs) on every rank, owner-computes through [`super::tasks::DistSeq`] (seeds 000 §6),
//! on the `nb`×`nb` tiles of [`super::tiles2d`] (2-D block-cyclic on the caller's grid, or whole
//! tile columns dealt over one process row, `Shape::OneRow`).
//!
//! Where a tile column is on one rank (one process row) its panel is factored in place
//! ([`Panel::InPlace`]; the other ranks read its tiles, in place on one node). On several process
//! rows panels are gathered ([`Panel::Gathered`]): the owner of tile (k, k) copies the panel's
//! tiles into one buffer, factors it and scatters it back, so the panel travels once to each rank
//! that applies it. Where a tile column's trailing tiles are on one rank (always on one process row)
//! its update is one DLARFB, shared with the rank's other such columns up to the block
//! [`crate::algo::Fuse::qr`] allows (they are adjacent in its local matrix); on a 2-D grid it is split by process row (partial sums Vᵀ·C where
//! the tiles are, W = Tᵀ·ΣS on the owner of tile (k, j), C −= V·W where the tiles are).
//!
//! Householder QR with DLARFG's sign convention is blocking-independent, so the reflectors and
//! tau equal the reference's to rounding. Each panel's tau stays in its TT buffer on the rank
//! that factored it; after the sequence it is gathered on every rank (`MPI_Allreduce`) and
//! written in ScaLAPACK's layout: TAU(local column of global column JA-1+s) on every process of
//! the process column holding that column, for s < min(M, N).

use super::tiles2d::{self, Finished};
use super::{DistElem, Stats};
use crate::algo::geqrf::{generate, Fuse, Panel};
use crate::api::scalapack::{Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::tile::Raw;
use std::cell::RefCell;

/// P?GEQRF on tiles for a process inside the grid (PDGEQRF is the f64 instance; a complex QR's
/// reflectors and tau are LAPACK's complex ones, as ZGEQRF's); the arguments have passed the
/// checks and M, N > 0.
#[allow(clippy::too_many_arguments)]
pub fn geqrf<T: DistElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    tau: Raw<T>,
    g: &GridInfo,
    nb: usize,
    shape: super::redistribute::Shape,
) -> (Result<(), Error>, Stats) {
    let (mu, nu) = (m as usize, n as usize);
    let kmin = mu.min(nu);
    let tts = RefCell::new(Vec::new());
    let (run, (), stats) = tiles2d::run(
        cfg,
        (mu, nu),
        a,
        (ia, ja),
        desca,
        g,
        nb,
        (shape, false),
        super::redistribute::Part::Full,
        |_, _, _| (),
        |ds, _, _| {
            let panel = if tiles2d::one_row(shape, g) { Panel::InPlace } else { Panel::Gathered };
            // A rank's tile columns are adjacent in its local matrix: blocks of them per DLARFB, as
            // in shared memory (on 1x2, N = 4000: 66% of the DGEMM rate with one per column, 76%).
            let fuse = Fuse::qr(nb, cfg.threads);
            *tts.borrow_mut() = generate(ds, panel, fuse)
        },
        |fin: &Finished<T>| {
            // Each entry comes from the one rank that factored its panel, the others add zeros.
            let mut mine = vec![T::zero(); kmin];
            for (k, id) in tts.borrow().iter().enumerate() {
                if let Some(tt) = fin.buffers.get(id) {
                    let off = k * nb;
                    let kb = nb.min(nu - off).min(mu - off);
                    mine[off..off + kb].copy_from_slice(&tt.as_slice()[kb..2 * kb]);
                }
            }
            let mut all = vec![T::zero(); kmin];
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

#[cfg(test)]
mod tests {
    use super::super::tasks::{local_ranks, SeqRun};
    use super::super::DistElem;
    use crate::algo::geqrf::{generate, geqrf, Fuse, Panel};
    use crate::algo::testutil::*;
    use crate::runtime::shared::Buffers;
    use crate::runtime::Seq;
    use crate::tile::TiledMatrix;
    use std::sync::Mutex;

    fn max_diff(x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
    }

    /// tau of an m×n QR on in-process ranks, read from each panel's T buffer (`ids`, one per
    /// panel: its second block of kb entries) on the one rank that factored it; `fill` where no
    /// panel wrote.
    fn panel_tau<T: DistElem>(
        runs: &[SeqRun<T>],
        ids: &[usize],
        (m, n, nb): (usize, usize, usize),
        fill: T,
        what: &str,
    ) -> Vec<T> {
        let mut tau = vec![fill; m.min(n)];
        for (s, id) in ids.iter().enumerate() {
            let off = s * nb;
            let kb = nb.min(n - off).min(m - off);
            let holders: Vec<_> = runs.iter().filter_map(|r| r.buffers.get(id)).collect();
            assert_eq!(holders.len(), 1, "{what}: panel {s}'s T is on one rank");
            tau[off..off + kb].copy_from_slice(&holders[0].as_slice()[kb..2 * kb]);
        }
        tau
    }

    /// The QR generator on in-process ranks (2-D grids: split updates; one process row: one
    /// DLARFB per column), gathered panels: V, R and tau equal the reference DGEQRF's and the
    /// shared-memory runtime's to rounding, A = QR and QᵀQ = I to a few n·eps, every message
    /// sent is received.
    #[test]
    fn qr_on_local_ranks_matches_shared_memory_and_the_reference() {
        for &(p, q) in &[(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 2)] {
            for &(m, n, nb) in
                &[(37, 23, 5), (23, 37, 5), (40, 40, 8), (13, 40, 3), (9, 4, 4), (1, 7, 2), (50, 1, 3)]
            {
                let panels =
                    if p == 1 { vec![Panel::Gathered, Panel::InPlace] } else { vec![Panel::Gathered] };
                // One DLARFB per tile column, or a rank's columns two at a time (one block each).
                let cuts = [Fuse::ONE, Fuse { width: 2, tasks: 1 }];
                for (panel, fuse) in panels.into_iter().flat_map(|p| cuts.map(|f| (p, f))) {
                    let what = format!("grid {p}x{q} m {m} n {n} nb {nb} {panel:?} {fuse:?}");
                    let k = m.min(n);
                    let a0 = Rng::new((m * 131 + n * 7 + nb + p * 3 + q) as u64).matrix(m, n, m);
                    let mut a = a0.clone();
                    let ids = Mutex::new(Vec::new());
                    let runs = local_ranks::run_mn(&mut a, (m, n), nb, (p, q), &|_, _| true, &[], &|ds| {
                        *ids.lock().unwrap() = generate(ds, panel, fuse)
                    });
                    assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                    let sent: usize = runs.iter().map(|r| r.sent).sum();
                    let received: usize = runs.iter().map(|r| r.received).sum();
                    assert_eq!(sent, received, "{what}: every message sent is received");
                    // Tiles move when a panel spans process rows or a later column is on another rank.
                    let crosses = (p > 1 && m > nb) || (q > 1 && n > nb);
                    assert_eq!(sent > 0, crosses, "{what}: messages exactly when tiles are on several ranks");
                    // tau from the TT buffer of each panel, on the rank that factored it.
                    let tau = panel_tau(&runs, &ids.lock().unwrap(), (m, n, nb), GUARD, &what);
                    let (mut r, mut rtau) = (a0.clone(), vec![0.0; k]);
                    reference_geqrf(m, n, &mut r, m, &mut rtau);
                    let tol = 10.0 * m.max(n) as f64 * eps();
                    assert!(
                        max_diff(&a, &r) < tol,
                        "{what}: V/R differ from the reference by {}",
                        max_diff(&a, &r)
                    );
                    assert!(max_diff(&tau, &rtau) < tol, "{what}: tau differs by {}", max_diff(&tau, &rtau));
                    let (res, orth) = qr_residuals(m, n, &a0, &a, m, &tau);
                    assert!(res < 10.0 && orth < 10.0, "{what}: scaled residuals {res} {orth}");
                    // The shared-memory runtime of the same generator (panels in place).
                    let mut s = a0.clone();
                    let mut stau = vec![0.0; k];
                    let ta = unsafe { TiledMatrix::from_raw(s.as_mut_ptr(), m, n, m, nb, nb) };
                    let tt = unsafe { TiledMatrix::from_raw(stau.as_mut_ptr(), k, 1, k, nb, 1) };
                    let store = Buffers::default();
                    let seq = Seq::new(&cfg(2));
                    geqrf(&seq, &ta, Some(&tt), &store);
                    seq.wait().unwrap();
                    assert!(
                        max_diff(&a, &s) < tol,
                        "{what}: differs from shared memory by {}",
                        max_diff(&a, &s)
                    );
                    assert!(max_diff(&tau, &stau) < tol, "{what}: tau differs from shared memory");
                }
            }
        }
    }

    /// The QR generator on in-process ranks in single, single complex and double complex (one
    /// process row: panels in place; 2-D grids: gathered panels, split updates): V, R and tau are
    /// the shared-memory runtime's to a few ε of the type (tau as LAPACK's complex reflectors
    /// leave it), every message sent is received.
    #[test]
    fn qr_in_other_types_on_local_ranks_matches_shared_memory() {
        use crate::graph::op::OpElem;
        use crate::scalar::{c32, c64};
        fn each<T: OpElem + DistElem>() {
            let ty = std::any::type_name::<T>();
            for &(p, q) in &[(1, 2), (2, 1), (2, 2), (3, 2)] {
                for &(m, n, nb) in &[(37, 23, 5), (23, 37, 5), (16, 16, 4)] {
                    let panel = if p == 1 { Panel::InPlace } else { Panel::Gathered };
                    let what = format!("{ty} grid {p}x{q} m {m} n {n} nb {nb} {panel:?}");
                    let k = m.min(n);
                    let a0: Vec<T> = Rng::new((m * 31 + n + nb + p * 3 + q) as u64).values(m, n, m);
                    let mut a = a0.clone();
                    let ids = Mutex::new(Vec::new());
                    let runs = local_ranks::run_mn(&mut a, (m, n), nb, (p, q), &|_, _| true, &[], &|ds| {
                        *ids.lock().unwrap() = generate(ds, panel, Fuse::ONE)
                    });
                    assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                    let sent: usize = runs.iter().map(|r| r.sent).sum();
                    assert_eq!(sent, runs.iter().map(|r| r.received).sum::<usize>(), "{what}");
                    assert!(sent > 0, "{what}: tiles travel between the ranks");
                    let tau = panel_tau(&runs, &ids.lock().unwrap(), (m, n, nb), T::zero(), &what);
                    let mut s = a0.clone();
                    let mut stau = vec![T::zero(); k];
                    // SAFETY: `s` and `stau` hold the m×n matrix and k scalars until the wait.
                    let ta = unsafe { TiledMatrix::from_raw(s.as_mut_ptr(), m, n, m, nb, nb) };
                    let tt = unsafe { TiledMatrix::from_raw(stau.as_mut_ptr(), k, 1, k, nb, 1) };
                    let store = Buffers::default();
                    let seq = Seq::new(&cfg(2));
                    geqrf(&seq, &ta, Some(&tt), &store);
                    seq.wait().unwrap();
                    let tol = 20.0 * m.max(n) as f64 * T::eps();
                    assert!(rel(&a, &s) < tol, "{what}: V/R differ from shared memory by {}", rel(&a, &s));
                    assert!(rel(&tau, &stau) < tol, "{what}: tau differs from shared memory");
                    assert!(
                        tau.iter().any(|t| t.im() != Default::default()) || !T::COMPLEX,
                        "{what}: complex tau"
                    );
                }
            }
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }
}
