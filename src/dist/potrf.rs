//! Distributed tile Cholesky for PDPOTRF (seeds 000 §3.1 and §6; the tile loop of
//! `algo::potrf::generate`, the generator `dpotrf` runs too, run owner-computes on every rank
//! through [`super::tasks::DistSeq`]).
//!
//! 1. sub(A)'s `uplo` triangle moves from the caller's block-cyclic layout into `nb`×`nb` tiles
//!    dealt cyclically from the process holding sub(A)(1,1), 2-D over the same grid or, as the
//!    caller's `shape` says (`api::scalapack::potrf_shape`), whole tile columns over all ranks
//!    ([`super::redistribute`]; with `nb` equal to the caller's block size on its grid nothing
//!    crosses the network).
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
use super::redistribute::{CallerArray, Part, Shape};
use super::tasks::{run_sequence, LocalTile, TileGrid};
use super::tiles2d::Cyclic;
use super::{DistElem, Stats};
use crate::algo::potrf::{self, Granularity};
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::Uplo;
use crate::tile::Raw;

/// P?POTRF on tiles for a process inside the grid (PDPOTRF is the f64 instance; a complex
/// factor is Hermitian's, A = L·Lᴴ or Uᴴ·U); the arguments have passed the checks.
#[allow(clippy::too_many_arguments)]
pub fn potrf<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    shape: Shape,
) -> (Result<(), Error>, Stats) {
    let ul = if uplo.eq_ignore_ascii_case(&b'U') { Uplo::Upper } else { Uplo::Lower };
    let part = if ul == Uplo::Lower { Part::Lower } else { Part::Upper };
    let grid = Grid::from_context(desca.ctxt(), g);
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let nu = n as usize;
    let (mb, nba) = (desca.mb() as usize, desca.nb() as usize);
    let crow = Axis::block_cyclic(nu, ia as usize - 1, mb, desca.rsrc() as usize, p);
    let ccol = Axis::block_cyclic(nu, ja as usize - 1, nba, desca.csrc() as usize, q);
    let nt = nu.div_ceil(nb);
    let mloc = numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow) as usize;
    let nloc = numroc(desca.n(), desca.nb(), g.mycol, desca.csrc(), g.npcol) as usize;
    let caller = CallerArray { a: a.matrix(mloc, nloc, desca.lld() as usize), rows: &crow, cols: &ccol };

    // Tile owners (dealt cyclically over `shape` from the process holding sub(A)(1,1)); this
    // rank's tiles are kept in one local matrix ([`LocalTiles`]).
    let (r0, c0) = super::local::origin(&grid, &caller, shape);
    let cyc = Cyclic::new(&grid, shape, r0, c0);
    let in_part = |i: usize, j: usize| if ul == Uplo::Lower { i >= j } else { i <= j };
    let owner: Vec<usize> = (0..nt * nt).map(|t| cyc.owner(t % nt, t / nt)).collect();

    // 1. Caller layout -> tiles (PDPOTRF's checks make sub(A) start on a block boundary with
    // square blocks, so tiles of the caller's block size on its grid work in place).
    let local = LocalTiles::with_shape(&grid, caller, nb, part, nb == mb, shape, false);
    let handles: Vec<Option<LocalTile<T>>> = (0..nt * nt)
        .map(|t| {
            let (i, j) = (t % nt, t / nt);
            (owner[t] == me && in_part(i, j)).then(|| local.tile(i, j))
        })
        .collect();

    // 2. The distributed factorization: the Cholesky generator every runtime runs. On one process
    // row (the caller's 1×Q grid, or any grid's ranks as one row, [`Shape::OneRow`]) a lower
    // factor's tile columns are each on one rank, one below the other in its local
    // matrix: there (without devices, whose kernels are per tile) the trailing update of a column
    // is one task per kernel rather than one per tile.
    let mut tg = TileGrid::square(nu, nb, owner, handles);
    if local.shared() {
        tg.read_in_place(me, |i, j| local.remote(i, j));
    }
    // Every rank must generate the same tasks: the granularity cannot depend on this rank's
    // devices alone.
    let mine = i32::from(!crate::device::open(cfg).is_empty());
    let mut any_devices = 0;
    grid.comm.all_reduce_into(&mine, &mut any_devices, SystemOperation::max());
    let gran = if cyc.p == 1 && ul == Uplo::Lower && any_devices == 0 {
        Granularity::Columns
    } else {
        Granularity::Tiles
    };
    let mut run = run_sequence(cfg, &grid, &tg, |ds| potrf::generate(ds, ul, gran));

    // 3. The same INFO everywhere.
    let local_info = run.info.unwrap_or(i32::MAX);
    let mut info = i32::MAX;
    grid.comm.all_reduce_into(&local_info, &mut info, SystemOperation::min());

    // 4. Tiles -> caller layout.
    let (redistribution_s, how) = local.finish();
    let stats = Stats::of(redistribution_s, &mut run, how);
    let result = match run.result {
        Err(e) => Err(e),
        Ok(()) if info != i32::MAX => Err(Error::Numerical(info)),
        Ok(()) => Ok(()),
    };
    (result, stats)
}

#[cfg(test)]
mod tests {
    use super::super::tasks::local_ranks;
    use crate::algo::potrf::{generate, Granularity};
    use crate::algo::testutil::*;
    use crate::kernels::Uplo;

    fn keep(uplo: Uplo) -> impl Fn(usize, usize) -> bool + Sync {
        move |i, j| if uplo == Uplo::Lower { i >= j } else { i <= j }
    }

    /// The Cholesky generator on in-process ranks: the factor's residual, the other triangle
    /// untouched, and the same factor as the shared-memory runtime computes from the same tiles.
    #[test]
    fn cholesky_on_local_ranks_matches_shared_memory() {
        for &(p, q) in &[(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 2)] {
            for &(n, nb) in &[(37, 5), (64, 8), (9, 4)] {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    let grans: &[Granularity] = if uplo == Uplo::Lower && p == 1 {
                        &[Granularity::Tiles, Granularity::Columns]
                    } else {
                        &[Granularity::Tiles]
                    };
                    for &gran in grans {
                        let a0 = Rng::new((n * 7 + nb + p * 3 + q) as u64).spd(n, n);
                        let mut a = a0.clone();
                        let runs = local_ranks::run(&mut a, n, nb, (p, q), &keep(uplo), &|ds| {
                            generate(ds, uplo, gran)
                        });
                        let what = format!("grid {p}x{q} n {n} nb {nb} {uplo:?} {gran:?}");
                        assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                        let msgs: usize = runs.iter().map(|r| r.sent).sum();
                        let recv: usize = runs.iter().map(|r| r.received).sum();
                        assert_eq!(msgs, recv, "{what}: every message sent is received");
                        assert_eq!(
                            msgs == 0,
                            p * q == 1,
                            "{what}: messages exactly when there are several ranks"
                        );
                        let r = chol_residual(uplo, n, &a0, &a, n);
                        assert!(r < 10.0, "{what}: scaled residual {r}");
                        assert_untouched_outside(&a0, &a, n, n, n, Some(uplo));
                        let mut s = a0.clone();
                        let t =
                            unsafe { crate::tile::TiledMatrix::from_raw(s.as_mut_ptr(), n, n, n, nb, nb) };
                        let seq = crate::runtime::Seq::new(&cfg(2));
                        crate::algo::potrf::potrf(&seq, uplo, &t);
                        seq.wait().unwrap();
                        let diff = a.iter().zip(&s).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                        assert!(diff < 1e-12, "{what}: differs from the shared-memory factor by {diff}");
                    }
                }
            }
        }
    }

    /// A matrix that is not positive definite: the smallest INFO over the ranks is LAPACK's, and
    /// every rank finishes (no message is left waiting).
    #[test]
    fn not_positive_definite_on_local_ranks_gives_lapack_info() {
        let n = 45;
        for &(p, q) in &[(1, 2), (2, 2), (2, 1)] {
            for bad in [0usize, 6, 17, 44] {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    let mut a = Rng::new(7 + bad as u64).spd(n, n);
                    a[bad + bad * n] = -1.0e3;
                    let want = reference_potrf_info(uplo, n, &mut a.clone());
                    let gran =
                        if p == 1 && uplo == Uplo::Lower { Granularity::Columns } else { Granularity::Tiles };
                    let runs =
                        local_ranks::run(&mut a, n, 8, (p, q), &keep(uplo), &|ds| generate(ds, uplo, gran));
                    let info = runs.iter().filter_map(|r| r.info).min();
                    assert_eq!(info, Some(want), "grid {p}x{q} bad {bad} {uplo:?}");
                }
            }
        }
    }

    /// The Cholesky generator on in-process ranks in single, single complex and double complex
    /// (Hermitian): the factor is the shared-memory runtime's to a few ε of the type (the same
    /// tasks; the order of a tile's updates may differ), the other triangle is untouched, every
    /// message sent is received, and a matrix that is not positive definite gives the backend's
    /// INFO.
    #[test]
    fn cholesky_in_other_types_on_local_ranks_matches_shared_memory() {
        use crate::graph::op::OpElem;
        use crate::scalar::{c32, c64, Scalar};
        use crate::tile::{TiledMatrix, ViewMut};
        /// A Hermitian positive definite n×n matrix (both triangles), diagonal n + [-1, 1).
        fn hpd<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
            let mut rng = Rng::new(seed);
            let mut a = vec![T::zero(); n * n];
            for j in 0..n {
                for i in j..n {
                    let re = rng.next();
                    let v = if i == j { T::from_f64(n as f64 + re) } else { T::from_parts(re, rng.next()) };
                    a[i + j * n] = v;
                    a[j + i * n] = v.conj();
                }
            }
            a
        }
        fn each<T: OpElem + super::super::DistElem>() {
            let ty = std::any::type_name::<T>();
            for &(p, q) in &[(1, 2), (2, 1), (2, 2), (3, 2)] {
                for &(n, nb) in &[(37, 5), (9, 4)] {
                    for uplo in [Uplo::Lower, Uplo::Upper] {
                        let gran = if p == 1 && uplo == Uplo::Lower {
                            Granularity::Columns
                        } else {
                            Granularity::Tiles
                        };
                        let what = format!("{ty} grid {p}x{q} n {n} nb {nb} {uplo:?}");
                        let a0 = hpd::<T>(n, (n * 5 + p + 7 * q) as u64);
                        let mut a = a0.clone();
                        let runs = local_ranks::run(&mut a, n, nb, (p, q), &keep(uplo), &|ds| {
                            generate(ds, uplo, gran)
                        });
                        assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
                        let sent: usize = runs.iter().map(|r| r.sent).sum();
                        assert_eq!(sent, runs.iter().map(|r| r.received).sum::<usize>(), "{what}");
                        assert!(sent > 0, "{what}: tiles travel between the ranks");
                        assert!(same_outside(&a0, &a, n, n, n, Some(uplo)), "{what}: other triangle written");
                        let mut s = a0.clone();
                        // SAFETY: `s` holds the n×n matrix until the sequence is waited for.
                        let t = unsafe { TiledMatrix::from_raw(s.as_mut_ptr(), n, n, n, nb, nb) };
                        let seq = crate::runtime::Seq::new(&cfg(2));
                        crate::algo::potrf::potrf(&seq, uplo, &t);
                        seq.wait().unwrap();
                        let d = rel(&a, &s);
                        assert!(d < 50.0 * T::eps(), "{what}: differs from shared memory by {d}");
                        // Not positive definite at column 17 (or the last): the backend's INFO.
                        let bad = 17.min(n - 1);
                        let mut b = a0.clone();
                        b[bad + bad * n] = T::from_f64(-1.0e3);
                        let mut f = b.clone();
                        let want = crate::kernels::potrf(uplo, ViewMut::from_slice(&mut f, n, n, n));
                        let runs = local_ranks::run(&mut b, n, nb, (p, q), &keep(uplo), &|ds| {
                            generate(ds, uplo, gran)
                        });
                        let info = runs.iter().filter_map(|r| r.info).min();
                        assert_eq!(info, Some(want), "{what}: INFO");
                    }
                }
            }
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }
}
