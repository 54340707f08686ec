//! Distributed LU with partial pivoting for PDGETRF: the LU generator of [`crate::algo::getrf`]
//! (the one `dgetrf` runs) on every rank, owner-computes through [`super::tasks::DistSeq`]
//! (seeds 000 §6), on the `nb`×`nb` tiles of [`super::tiles2d`] (2-D block-cyclic on the caller's
//! grid, or whole tile columns dealt over one process row, `Shape::OneRow`).
//!
//! Where a tile column is on one rank (one process row) its panel is factored in place
//! ([`Panel::InPlace`]): the rank keeps the column's tiles one below the other, and the other ranks
//! read the factored tiles (in place in its storage on one node, else one message per tile,
//! stacked into one block on arrival). On several process rows panels are gathered
//! ([`Panel::Gathered`]): the owner of tile (k, k) copies the panel's tiles into one buffer,
//! factors it and scatters it back, so the factored panel travels once to each rank that updates
//! a column with it, with its small pivot buffer. Where a tile column's
//! trailing tiles are on one rank (always on one process row) the step is LAPACK's blocked LU on
//! column blocks: one task per block of about [`CHUNK`] adjacent local columns (interchanges,
//! TRSM, one GEMM), so the backend packs L once per block. On a 2-D grid the rows that the
//! interchanges move between process rows go through small X and W buffers (the generator's
//! "several places" case); nothing else of the column crosses the network.
//!
//! After the sequence the pivots and each panel's INFO, kept in the pivot buffers on the ranks
//! that factored the panels, are summed over the grid (`MPI_Allreduce`) and written in
//! ScaLAPACK's layout: IPIV(local row of global row IA-1+s) = IA + (the sub(A) row swapped with
//! row s), on every process of the process row holding that row, for s < min(M, N). INFO is the
//! minimum over the grid, the same everywhere.

use super::redistribute::Shape;
use super::tiles2d::{self, Finished};
use super::{DistElem, Stats};
use crate::algo::getrf::{gather_pivots, generate, Fuse, Lu, Panel, Step};
use crate::api::scalapack::{Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::{Config, Pivoting};
use crate::error::Error;
use crate::tile::Raw;
use std::cell::RefCell;

/// Columns of one update task on a process row, about: the backend packs L once per block.
pub const CHUNK: usize = 256;

/// How the distributed runtime cuts the LU for tiles of `nb` columns on ranks of `threads`
/// workers; `split`: GEPP panels on several ranks are factored where their rows are;
/// `one_row`: every tile column is on one rank, its tiles one below the other.
pub fn lu_tasks(pivot: Pivoting, nb: usize, threads: usize, split: bool, one_row: bool) -> Lu {
    Lu {
        pivot,
        // A panel in place needs its tiles as one block (the gathered panel copies them into
        // one and back: two copies of the panel per step, and the copy sent to the other ranks).
        panel: if one_row { Panel::InPlace } else { Panel::Gathered },
        fused: true,
        cut: Fuse { width: (CHUNK / nb.max(1)).max(1), tasks: 1 },
        leaves: threads,
        leaf: 0,
        split,
    }
}

/// P?GETRF on tiles for a process inside the grid (PDGETRF is the f64 instance); the arguments
/// have passed the checks and M, N > 0.
#[allow(clippy::too_many_arguments)]
pub fn getrf<T: DistElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
    g: &GridInfo,
    nb: usize,
    shape: Shape,
    (pivot, split): (Pivoting, bool),
) -> (Result<(), Error>, Stats) {
    let (mu, nu) = (m as usize, n as usize);
    let kmin = mu.min(nu);
    let steps: RefCell<Vec<Step>> = RefCell::new(Vec::new());
    let (run, info, stats) = tiles2d::run(
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
            let one_row = tiles2d::one_row(shape, g);
            *steps.borrow_mut() = generate(ds, &lu_tasks(pivot, nb, cfg.threads, split, one_row))
        },
        |fin: &Finished<T>| {
            // Each panel's pivots and INFO from the one rank that factored it, zeros elsewhere.
            let (mine, local_info) = gather_pivots(&steps.borrow(), kmin, |id| {
                fin.buffers.get(&id).map(|b| b.as_slice().to_vec())
            });
            let local_info = local_info.unwrap_or(i32::MAX);
            let mut info = i32::MAX;
            fin.grid.comm.all_reduce_into(&local_info, &mut info, SystemOperation::min());
            let mut piv = vec![0i32; kmin];
            fin.grid.comm.all_reduce_into(&mine[..], &mut piv[..], SystemOperation::sum());
            for (s, &p) in piv.iter().enumerate() {
                if fin.rows.owner[s] == fin.grid.myrow {
                    // The row that sub(A) row s was swapped with, as a 1-based row of the global A.
                    ipiv.set(fin.rows.local[s], ia + p);
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

#[cfg(test)]
mod tests {
    use super::super::tasks::{local_ranks, SeqRun};
    use super::*;
    use crate::algo::testutil::*;
    use std::sync::Mutex;

    /// LAPACK's ipiv (1-based) and INFO (0 if none) from the ranks' pivot buffers; each panel's
    /// buffer is on exactly one rank.
    fn pivots_of<T: DistElem>(
        runs: &[SeqRun<T>],
        steps: &[Step],
        kmin: usize,
        what: &str,
    ) -> (Vec<i32>, i32) {
        let (rows, info) = gather_pivots(steps, kmin, |id| {
            let holders: Vec<_> = runs.iter().filter_map(|r| r.buffers.get(&id)).collect();
            assert_eq!(holders.len(), 1, "{what}: a panel's pivots are on one rank");
            Some(holders[0].as_slice().to_vec())
        });
        (rows.iter().map(|&r| r + 1).collect(), info.unwrap_or(0))
    }

    /// The LU generator on in-process ranks (2-D grids: X/W buffers for the rows that cross
    /// process rows; one process row: column blocks), gathered and split panels: the backend's
    /// pivots and INFO, factors equal to the reference's to rounding, every message sent is
    /// received. Also exactly singular matrices (a zero column, a zero row), whose INFO is
    /// LAPACK's, and exact ties, whose pivots are LAPACK's.
    #[test]
    fn lu_on_local_ranks_matches_the_reference() {
        for &(p, q) in &[(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 2)] {
            for &(m, n, nb, kind) in &[
                (37, 23, 5, 0),
                (23, 37, 5, 0),
                (40, 40, 8, 0),
                (13, 40, 3, 0),
                (9, 4, 4, 0),
                (1, 7, 2, 0),
                (50, 1, 3, 0),
                (30, 30, 4, 1),
                (30, 30, 4, 2),
                (32, 32, 4, 3),
                (64, 40, 6, 3),
                // Tiles wider than a split panel's column block (algo::getrf::SPLIT_BLOCK).
                (150, 120, 40, 0),
                (170, 170, 70, 0),
                (128, 100, 40, 3),
            ] {
                let what = format!("grid {p}x{q} m {m} n {n} nb {nb} kind {kind}");
                let mut a0 = Rng::new((m * 131 + n * 7 + nb + p * 3 + q + kind) as u64).matrix(m, n, m);
                match kind {
                    // Column 11 zero: the first zero pivot is U(12, 12).
                    1 => (0..m).for_each(|i| a0[i + 11 * m] = 0.0),
                    // Row 17 zero: it stays exactly zero, and the last pivot is zero.
                    2 => (0..n).for_each(|j| a0[17 + j * m] = 0.0),
                    // Sylvester's Hadamard matrix (±1: entry (i, j) is (−1)^popcount(i & j)) with
                    // its rows shuffled: exact ties in every column, which IDAMAX breaks by the
                    // first row, and exact arithmetic (the factors are multiples of 1/1024), so
                    // every GEPP picks the same rows, and they are not in order.
                    3 => {
                        let mut rng = Rng::new(5);
                        let mut perm: Vec<usize> = (0..m).collect();
                        for i in (1..m).rev() {
                            let u = (rng.next() + 1.0) / 2.0;
                            perm.swap(i, ((u * (i + 1) as f64) as usize).min(i));
                        }
                        for j in 0..n {
                            for i in 0..m {
                                a0[i + j * m] =
                                    if (perm[i] & j).count_ones().is_multiple_of(2) { 1.0 } else { -1.0 };
                            }
                        }
                    }
                    _ => {}
                }
                let (f, piv_ref, info_ref) = reference_getrf(m, n, &a0, m);
                for lu in [
                    lu_tasks(Pivoting::Gepp, nb, 2, false, p == 1),
                    Lu { cut: Fuse::ONE, ..lu_tasks(Pivoting::Gepp, nb, 2, false, p == 1) },
                    lu_tasks(Pivoting::Gepp, nb, 2, true, p == 1),
                    lu_tasks(Pivoting::Gepp, nb, 2, false, false),
                ] {
                    let what = format!("{what} chunk {} split {} {:?}", lu.cut.width, lu.split, lu.panel);
                    let mut a = a0.clone();
                    let steps = Mutex::new(Vec::new());
                    let runs = local_ranks::run_mn(&mut a, (m, n), nb, (p, q), &|_, _| true, &[], &|ds| {
                        *steps.lock().unwrap() = generate(ds, &lu)
                    });
                    assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                    let sent: usize = runs.iter().map(|r| r.sent).sum();
                    let received: usize = runs.iter().map(|r| r.received).sum();
                    assert_eq!(sent, received, "{what}: every message sent is received");
                    let (piv, info) = pivots_of(&runs, &steps.lock().unwrap(), m.min(n), &what);
                    assert_eq!(piv, piv_ref, "{what}: pivots");
                    assert_eq!(info, info_ref, "{what}: INFO");
                    if kind == 3 {
                        assert!(f.iter().all(|x| (x * 1024.0).fract() == 0.0), "{what}: inexact factors");
                        assert!(
                            piv.iter().enumerate().any(|(t, &x)| x as usize != t + 1),
                            "{what}: no swaps"
                        );
                    }
                    let d = a.iter().zip(&f).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                    assert!(d < 1e-11, "{what}: factors differ from the reference by {d}");
                }
            }
        }
    }

    /// The LU generator on in-process ranks in single, single complex and double complex, on one
    /// process row (panels in place) and on 2-D grids (gathered panels, the rows that cross
    /// process rows through the generic `LuExtract`/`LuNewTop`/`LuFill` ops; split panels,
    /// `LuColumn`, column by column where their rows are): the backend's
    /// pivots (|re| + |im| for complex) and INFO, factors equal to its to a few ε of the type,
    /// every message sent is received; also an exactly singular matrix (a zero column).
    #[test]
    fn lu_in_other_types_on_local_ranks_matches_the_reference() {
        use crate::scalar::{c32, c64};
        fn each<T: DistElem>() {
            let ty = std::any::type_name::<T>();
            for &(p, q) in &[(1, 2), (2, 1), (2, 2), (3, 2)] {
                for &(m, n, nb, zero) in &[(37, 23, 5, None), (23, 37, 5, None), (30, 30, 4, Some(11))] {
                    let what = format!("{ty} grid {p}x{q} m {m} n {n} nb {nb} zero column {zero:?}");
                    let mut a0: Vec<T> = Rng::new((m * 13 + n + nb + p * 3 + q) as u64).values(m, n, m);
                    if let Some(j) = zero {
                        (0..m).for_each(|i| a0[i + j * m] = T::zero());
                    }
                    let (f, piv_ref, info_ref) = reference_getrf(m, n, &a0, m);
                    for lu in [
                        lu_tasks(Pivoting::Gepp, nb, 2, false, p == 1),
                        lu_tasks(Pivoting::Gepp, nb, 2, false, false),
                        lu_tasks(Pivoting::Gepp, nb, 2, true, p == 1),
                    ] {
                        let what = format!("{what} {:?} split {}", lu.panel, lu.split);
                        let mut a = a0.clone();
                        let steps = Mutex::new(Vec::new());
                        let runs =
                            local_ranks::run_mn(&mut a, (m, n), nb, (p, q), &|_, _| true, &[], &|ds| {
                                *steps.lock().unwrap() = generate(ds, &lu)
                            });
                        assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                        let sent: usize = runs.iter().map(|r| r.sent).sum();
                        assert_eq!(sent, runs.iter().map(|r| r.received).sum::<usize>(), "{what}");
                        let (piv, info) = pivots_of(&runs, &steps.lock().unwrap(), m.min(n), &what);
                        assert_eq!(piv, piv_ref, "{what}: pivots");
                        assert_eq!(info, info_ref, "{what}: INFO");
                        let d = rel(&a, &f);
                        assert!(d < 100.0 * T::eps(), "{what}: factors differ from the reference by {d}");
                    }
                }
            }
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }

    /// CALU on in-process ranks: the tournament runs over the places of the panel column (one
    /// leaf per process row on 2-D grids, per tile on one process row), so the panel is never
    /// gathered on one rank; a valid ipiv, INFO as LAPACK's on exactly singular matrices (zero
    /// columns), the backward error within 4× of the reference GEPP's, every message received; in
    /// every type.
    #[test]
    fn calu_on_local_ranks() {
        use crate::scalar::{c32, c64};
        calu_ranks::<f64>();
        calu_ranks::<f32>();
        calu_ranks::<c32>();
        calu_ranks::<c64>();
    }

    fn calu_ranks<T: DistElem>() {
        let ty = std::any::type_name::<T>();
        for &(p, q) in &[(1, 1), (1, 2), (2, 1), (2, 2), (3, 2), (4, 1)] {
            for &(m, n, nb, zero) in &[
                (37, 23, 5, None),
                (23, 37, 5, None),
                (40, 40, 8, None),
                (60, 30, 4, Some(11)),
                (30, 30, 4, Some(0)),
            ] {
                let what = format!("{ty} grid {p}x{q} m {m} n {n} nb {nb} zero column {zero:?}");
                let mut a0: Vec<T> = Rng::new((m * 17 + n * 5 + nb + p * 7 + q) as u64).values(m, n, m);
                if let Some(j) = zero {
                    (0..m).for_each(|i| a0[i + j * m] = T::zero());
                }
                let (f, piv_ref, info_ref) = reference_getrf(m, n, &a0, m);
                let mut a = a0.clone();
                let steps = Mutex::new(Vec::new());
                let lu = lu_tasks(Pivoting::Calu, nb, 2, false, p == 1);
                let runs = local_ranks::run_mn(&mut a, (m, n), nb, (p, q), &|_, _| true, &[], &|ds| {
                    *steps.lock().unwrap() = generate(ds, &lu)
                });
                assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                let sent: usize = runs.iter().map(|r| r.sent).sum();
                let received: usize = runs.iter().map(|r| r.received).sum();
                assert_eq!(sent, received, "{what}: every message sent is received");
                let (piv, info) = pivots_of(&runs, &steps.lock().unwrap(), m.min(n), &what);
                assert_eq!(info, info_ref, "{what}: INFO");
                assert!(
                    piv.iter().enumerate().all(|(t, &x)| x as usize > t && x as usize <= m),
                    "{what}: ipiv {piv:?}"
                );
                assert!(
                    a.iter().all(|&x| parts(x).0.is_finite() && parts(x).1.is_finite()),
                    "{what}: NaN or Inf"
                );
                let (ec, eg) = (
                    lu_backward_error(m, n, &a0, &a, m, &piv),
                    lu_backward_error(m, n, &a0, &f, m, &piv_ref),
                );
                assert!(
                    ec <= 4.0 * eg.max(0.25) && ec < 10.0,
                    "{what}: backward error {ec} against GEPP's {eg}"
                );
            }
        }
    }
}
