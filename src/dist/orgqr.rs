//! Q of a distributed QR for PDORGQR and PDORMQR: the generators `dorgqr` and `dormqr` run
//! ([`crate::algo::ormqr`]) on every rank, owner-computes through [`super::tasks::DistSeq`].
//!
//! Both generators update whole tile columns (C's for SIDE = L, and Q's own in PDORGQR) or whole
//! tile rows (C's for SIDE = R) with one block-reflector task each, so the tiles go where each
//! such block is on one rank: A (the reflectors) and a left C in whole tile columns dealt over
//! all P·Q ranks (`Shape::OneRow`), a right C in whole tile rows (`Shape::OneCol`). Each panel's
//! V and T then reach every other rank once per panel. A is only read by PDORMQR and never
//! converted back. TAU is read where the reference reads it: on the process holding the
//! reflector's diagonal element.

use super::grid::Grid;
use super::layout::Axis;
use super::local::{origin, LocalTiles};
use super::redistribute::{CallerArray, Part, Shape};
use super::tasks::{run_sequence, LocalTile, TileGrid};
use super::tiles2d::{self, Cyclic};
use super::{DistElem, Stats};
use crate::algo::ormqr::{generate_orgqr, generate_ormqr};
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::{Side, Trans};
use crate::tile::{ColMajor, Elem, Raw};

/// TAU(s) for s < `k`, the scalars of the reflectors in columns JA−1+s of sub(A): each from the
/// process holding sub(A)(s, s) (TAU is tied to A's columns), summed over the grid.
fn gather_tau<T: DistElem>(grid: &Grid, k: usize, ia: i32, ja: i32, d: &Desc, tau: Raw<T>) -> Vec<T> {
    let rows = Axis::block_cyclic(k, ia as usize - 1, d.mb() as usize, d.rsrc() as usize, grid.nprow);
    let cols = Axis::block_cyclic(k, ja as usize - 1, d.nb() as usize, d.csrc() as usize, grid.npcol);
    let len = (0..k).filter(|&s| cols.owner[s] == grid.mycol).map(|s| cols.local[s] + 1).max().unwrap_or(0);
    let t = tau.matrix(len, 1, len.max(1));
    let mine: Vec<T> = (0..k)
        .map(|s| {
            let here = rows.owner[s] == grid.myrow && cols.owner[s] == grid.mycol;
            if here {
                t.get(cols.local[s], 0)
            } else {
                T::zero()
            }
        })
        .collect();
    let mut all = vec![T::zero(); k];
    grid.comm.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
    all
}

/// The caller's local array of `d` on this process, with the maps of the `m`×`n` sub-matrix at
/// (i0, j0) (1-based).
fn caller_axes<T: Elem>(
    grid: &Grid,
    g: &GridInfo,
    a: Raw<T>,
    d: &Desc,
    (m, n): (usize, usize),
    (i0, j0): (i32, i32),
) -> (ColMajor<T>, Axis, Axis) {
    let rows = Axis::block_cyclic(m, i0 as usize - 1, d.mb() as usize, d.rsrc() as usize, grid.nprow);
    let cols = Axis::block_cyclic(n, j0 as usize - 1, d.nb() as usize, d.csrc() as usize, grid.npcol);
    let mloc = numroc(d.m(), d.mb(), g.myrow, d.rsrc(), g.nprow) as usize;
    let nloc = numroc(d.n(), d.nb(), g.mycol, d.csrc(), g.npcol) as usize;
    (a.matrix(mloc, nloc, d.lld().max(1) as usize), rows, cols)
}

/// P?ORGQR / P?UNGQR on tiles for a process inside the grid (PDORGQR is the f64 instance); the
/// arguments have passed the checks and N > 0.
#[allow(clippy::too_many_arguments)]
pub fn orgqr<T: DistElem>(
    cfg: &Config,
    (m, n, k): (i32, i32, i32),
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    tau: Raw<T>,
    g: &GridInfo,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let t = gather_tau(&Grid::from_context(desca.ctxt(), g), k as usize, ia, ja, desca, tau);
    let (run, (), stats) = tiles2d::run(
        cfg,
        (m as usize, n as usize),
        a,
        (ia, ja),
        desca,
        g,
        nb,
        (Shape::OneRow, false),
        Part::Full,
        |_, _, _| (),
        |ds, _, _| generate_orgqr(ds, &t),
        |_| (),
    );
    (run, stats)
}

/// The operands of P?ORMQR / P?UNMQR: the reflectors (sub(A), nq×K) and sub(C) (M×N);
/// `Trans::Yes` applies Qᴴ (Qᵀ for real types).
pub struct Ormqr<'a, T: Elem = f64> {
    pub side: Side,
    pub trans: Trans,
    pub m: i32,
    pub n: i32,
    pub k: i32,
    pub a: Raw<T>,
    pub ia: i32,
    pub ja: i32,
    pub desca: &'a Desc,
    pub tau: Raw<T>,
    pub c: Raw<T>,
    pub ic: i32,
    pub jc: i32,
    pub descc: &'a Desc,
}

/// P?ORMQR / P?UNMQR on tiles for a process inside the grid (PDORMQR is the f64 instance); the
/// arguments have passed the checks and M, N, K > 0.
pub fn ormqr<T: DistElem>(cfg: &Config, o: &Ormqr<T>, g: &GridInfo, nb: usize) -> (Result<(), Error>, Stats) {
    let grid = Grid::from_context(o.desca.ctxt(), g);
    let me = grid.me();
    let (m, n, k) = (o.m as usize, o.n as usize, o.k as usize);
    let left = o.side == Side::Left;
    let nq = if left { m } else { n };
    let tau = gather_tau(&grid, k, o.ia, o.ja, o.desca, o.tau);

    // A's tiles: whole tile columns over all ranks, only read (never converted back).
    let (aloc, arow, acol) = caller_axes(&grid, g, o.a, o.desca, (nq, k), (o.ia, o.ja));
    let acaller = CallerArray { a: aloc, rows: &arow, cols: &acol };
    let (r0, c0) = origin(&grid, &acaller, Shape::OneRow);
    let acyc = Cyclic::new(&grid, Shape::OneRow, r0, c0);
    let atiles = LocalTiles::with_shape(&grid, acaller, nb, Part::Full, false, Shape::OneRow, false);
    let (amt, ant) = (nq.div_ceil(nb), k.div_ceil(nb));
    let aown: Vec<usize> = (0..amt * ant).map(|t| acyc.owner(t % amt, t / amt)).collect();
    let handles: Vec<Option<LocalTile<T>>> =
        (0..amt * ant).map(|t| (aown[t] == me).then(|| atiles.tile(t % amt, t / amt))).collect();
    let mut tg = TileGrid::new((nq, nb), (k, nb), aown, handles);
    if atiles.shared() {
        tg.read_in_place(me, |i, j| atiles.remote(i, j));
    }

    // C's tiles: whole tile columns (SIDE = L) or tile rows (R) on one rank, extra tiles of the
    // same grid kept in C's local tile matrix.
    let cshape = if left { Shape::OneRow } else { Shape::OneCol };
    let (cloc, crow, ccol) = caller_axes(&grid, g, o.c, o.descc, (m, n), (o.ic, o.jc));
    let ccaller = CallerArray { a: cloc, rows: &crow, cols: &ccol };
    let (r0, c0) = origin(&grid, &ccaller, cshape);
    let ccyc = Cyclic::new(&grid, cshape, r0, c0);
    let ctiles = LocalTiles::with_shape(&grid, ccaller, nb, Part::Full, false, cshape, false);
    let (cmt, cnt) = (m.div_ceil(nb), n.div_ceil(nb));
    let crows: Vec<usize> = (0..cmt).map(|i| nb.min(m - i * nb)).collect();
    let ccols: Vec<usize> = (0..cnt).map(|j| nb.min(n - j * nb)).collect();
    let mut ids = Vec::with_capacity(cmt * cnt);
    for (j, &cols) in ccols.iter().enumerate() {
        for (i, &rows) in crows.iter().enumerate() {
            let owner = ccyc.owner(i, j);
            ids.push(tg.add_local(rows, cols, owner, (owner == me).then(|| ctiles.tile(i, j))));
        }
    }
    let (side, trans) = (o.side, o.trans);
    let mut run =
        run_sequence(cfg, &grid, &tg, |ds| generate_ormqr(ds, side, trans, &tau, &ids, cmt, &crows, &ccols));
    // A's tiles are dropped only now: the tasks read them.
    let (back_s, how) = ctiles.finish();
    let stats = Stats::of(atiles.discard() + back_s, &mut run, how);
    (run.result, stats)
}

#[cfg(test)]
mod tests {
    use super::super::tasks::local_ranks;
    use crate::algo::ormqr::generate_orgqr;
    use crate::algo::testutil::*;

    /// DORGQR's generator on in-process ranks with whole tile columns per rank (as PDORGQR deals
    /// them): Q equal to the backend's DORGQR to rounding, every message sent received.
    #[test]
    fn orgqr_on_local_ranks_matches_the_backend() {
        for q in [1, 2, 3] {
            for &(m, n, k, nb) in
                &[(37, 23, 11, 5), (40, 40, 40, 8), (9, 7, 7, 3), (30, 20, 0, 4), (13, 13, 5, 1)]
            {
                let mut a = Rng::new((m * 5 + n + k + q) as u64).matrix(m, n, m);
                let mut tau = vec![0.0; k];
                if k > 0 {
                    let mut f = a[..m * k].to_vec();
                    reference_geqrf(m, k, &mut f, m, &mut tau);
                    a[..m * k].copy_from_slice(&f);
                }
                let mut want = a.clone();
                let mut work = vec![0.0; 64 * n];
                let mut info = 0;
                // SAFETY: `want` is m×n (leading dimension m), tau k scalars, work 64·n.
                unsafe {
                    crate::backend::lapack::dorgqr(
                        &(m as i32),
                        &(n as i32),
                        &(k as i32),
                        want.as_mut_ptr(),
                        &(m as i32),
                        tau.as_ptr(),
                        work.as_mut_ptr(),
                        &(work.len() as i32),
                        &mut info,
                    )
                };
                assert_eq!(info, 0);
                let runs = local_ranks::run_mn(&mut a, (m, n), nb, (1, q), &|_, _| true, &[], &|ds| {
                    generate_orgqr(ds, &tau)
                });
                let what = format!("1x{q} m {m} n {n} k {k} nb {nb}");
                assert!(runs.iter().all(|r| r.result.is_ok()), "{what}");
                let sent: usize = runs.iter().map(|r| r.sent).sum();
                let received: usize = runs.iter().map(|r| r.received).sum();
                assert_eq!(sent, received, "{what}: every message sent is received");
                let d = a.iter().zip(&want).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                assert!(d < 1e-12, "{what}: Q differs from the backend's by {d}");
            }
        }
    }

    /// The Q generators on in-process ranks in single, single complex and double complex, whole
    /// tile columns per rank (as P?ORGQR / P?UNGQR deal them): Q formed from a QR's reflectors
    /// (LAPACK's complex ones) is the shared-memory runtime's to a few ε of the type, and is
    /// unitary; every message sent is received.
    #[test]
    fn orgqr_in_other_types_on_local_ranks_matches_shared_memory() {
        use crate::graph::op::OpElem;
        use crate::runtime::shared::{Buffers, SharedGraph};
        use crate::runtime::Seq;
        use crate::scalar::{c32, c64, Scalar};
        use crate::tile::TiledMatrix;
        fn each<T: OpElem + super::super::DistElem>() {
            let ty = std::any::type_name::<T>();
            for q in [2, 3] {
                let (m, n, k, nb) = (29, 17, 13, 4);
                let what = format!("{ty} 1x{q}");
                let mut a: Vec<T> = Rng::new(q as u64 + 3).values(m, n, m);
                let mut tau = vec![T::zero(); k];
                {
                    // SAFETY: the first k columns of `a` (m×k) and `tau` until the wait.
                    let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), m, k, m, nb, nb) };
                    let tt = unsafe { TiledMatrix::from_raw(tau.as_mut_ptr(), k, 1, k, nb, 1) };
                    let store = Buffers::default();
                    let seq = Seq::new(&cfg(2));
                    crate::algo::geqrf::geqrf(&seq, &ta, Some(&tt), &store);
                    seq.wait().unwrap();
                }
                let mut want = a.clone();
                {
                    // SAFETY: `want` holds the m×n matrix until the wait.
                    let t = unsafe { TiledMatrix::from_raw(want.as_mut_ptr(), m, n, m, nb, nb) };
                    let store = Buffers::default();
                    let seq = Seq::new(&cfg(2));
                    generate_orgqr(&mut SharedGraph::with_buffers(&seq, &t, &store), &tau);
                    seq.wait().unwrap();
                }
                let runs = local_ranks::run_mn(&mut a, (m, n), nb, (1, q), &|_, _| true, &[], &|ds| {
                    generate_orgqr(ds, &tau)
                });
                assert!(runs.iter().all(|r| r.result.is_ok()), "{what}");
                let sent: usize = runs.iter().map(|r| r.sent).sum();
                assert_eq!(sent, runs.iter().map(|r| r.received).sum::<usize>(), "{what}");
                let d = rel(&a, &want);
                assert!(d < 20.0 * m as f64 * T::eps(), "{what}: Q differs from shared memory by {d}");
                // QᴴQ = I.
                for i in 0..n {
                    for j in 0..n {
                        let (mut re, mut im) = (0.0f64, 0.0f64);
                        for r in 0..m {
                            let (x, y) = (parts(a[r + i * m]), parts(a[r + j * m]));
                            re += x.0 * y.0 + x.1 * y.1;
                            im += x.0 * y.1 - x.1 * y.0;
                        }
                        let e = ((re - f64::from(i == j)).powi(2) + im * im).sqrt();
                        assert!(
                            e < 50.0 * m as f64 * <T as Scalar>::eps(),
                            "{what}: (QᴴQ)({i}, {j}) off by {e}"
                        );
                    }
                }
            }
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }
}
