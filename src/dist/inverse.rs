//! Distributed inverses for PDTRTRI, PDPOTRI and PDGETRI: the generators `dtrtri`, `dpotri` and
//! `dgetri` run ([`crate::algo::trtri`], [`crate::algo::getri`]) on every rank, owner-computes
//! through [`super::tasks::DistSeq`], on the 2-D `nb`×`nb` tiles of [`super::tiles2d`] over the
//! caller's grid (in place when they are the caller's blocks).
//!
//! Only the triangle a triangular inverse reads and writes moves between the layouts. DGETRI's
//! buffers (L's column taken out) live with the tiles they come from; its column interchanges
//! exchange, per tile row, one buffer between each pair of ranks holding tiles of that row
//! (`ColExtract`/`ColFill`). The callers rule out a zero on the diagonal (INFO > 0, A untouched)
//! and pivots outside sub(A) before the tiles are made.

use super::redistribute::{Part, Shape};
use super::tiles2d;
use super::{DistElem, Stats};
use crate::api::scalapack::{Desc, GridInfo};
use crate::config::Config;
use crate::error::Error;
use crate::graph::Graph;
use crate::kernels::{Diag, Uplo};
use crate::tile::Raw;

/// Which inverse.
#[derive(Clone, Debug)]
pub enum Inverse {
    /// The inverse of the `uplo` triangle (PDTRTRI).
    Trtri(Uplo, Diag),
    /// inv(U)·inv(U)ᵀ or inv(L)ᵀ·inv(L) from the Cholesky factor (PDPOTRI).
    Potri(Uplo),
    /// inv(A) from PDGETRF's factors and its interchanges (1-based rows of sub(A)) (PDGETRI).
    Getri(Vec<i32>),
}

impl Inverse {
    /// The part of sub(A) it reads and writes.
    fn part(&self) -> Part {
        match self {
            Inverse::Trtri(Uplo::Upper, _) | Inverse::Potri(Uplo::Upper) => Part::Upper,
            Inverse::Trtri(Uplo::Lower, _) | Inverse::Potri(Uplo::Lower) => Part::Lower,
            Inverse::Getri(_) => Part::Full,
        }
    }
}

/// The tasks of `inv`, submitted to `g` (the generators every runtime runs).
pub fn generate(g: &mut impl Graph, inv: &Inverse) {
    match inv {
        Inverse::Trtri(uplo, diag) => crate::algo::trtri::generate_trtri(g, *uplo, *diag, 0),
        Inverse::Potri(uplo) => crate::algo::trtri::generate_potri(g, *uplo),
        Inverse::Getri(ipiv) => crate::algo::getri::generate(g, ipiv),
    }
}

/// The inverse `inv` of the N×N sub(A) on tiles for a process inside the grid, in any element
/// type (a complex P?POTRI's inverse is Hermitian: inv(U)·inv(U)ᴴ); the arguments
/// have passed the checks, N > 0 and no diagonal element the inverse divides by is zero.
#[allow(clippy::too_many_arguments)]
pub fn run<T: DistElem>(
    cfg: &Config,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    inv: &Inverse,
) -> (Result<(), Error>, Stats) {
    let nu = n as usize;
    let (run, (), stats) = tiles2d::run(
        cfg,
        (nu, nu),
        a,
        (ia, ja),
        desca,
        g,
        nb,
        // A triangle's work shrinks away from the diagonal's start: deal it back and forth.
        (Shape::Grid, inv.part() != Part::Full),
        inv.part(),
        |_, _, _| (),
        |ds, _, _| generate(ds, inv),
        |_| (),
    );
    (run, stats)
}

#[cfg(test)]
mod tests {
    use super::super::tasks::local_ranks;
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::forward;
    use crate::tile::Raw;

    fn max_diff(x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
    }

    fn maxabs(x: &[f64]) -> f64 {
        x.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
    }

    /// The inverses' generators on in-process ranks (P×Q grids, tiles dealt 2-D cyclically, odd
    /// sizes, tiles of 1 to 8): the backend's DTRTRI, DPOTRI and DGETRI to rounding, the other
    /// triangle untouched, every message sent received.
    #[test]
    fn inverses_on_local_ranks_match_the_backend() {
        for &(p, q) in &[(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 2)] {
            for &(n, nb) in &[(37, 5), (23, 8), (9, 4), (1, 1), (13, 1)] {
                let what = |s: &str| format!("{s} grid {p}x{q} n {n} nb {nb}");
                let all = |_: usize, _: usize| true;
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    let keep = move |i: usize, j: usize| if uplo == Uplo::Lower { i >= j } else { i <= j };
                    for diag in [Diag::NonUnit, Diag::Unit] {
                        let a0 = crate::algo::trtri::tests::triangular(n, n, (n * 3 + nb + p + q) as u64);
                        let mut want = a0.clone();
                        let dc = if diag == Diag::Unit { b'U' } else { b'N' };
                        // SAFETY: `want` holds an n×n matrix with leading dimension n.
                        let r = forward::dtrtri(
                            uplo.ch(),
                            dc,
                            n as i32,
                            unsafe { Raw::new(want.as_mut_ptr()) },
                            n as i32,
                        );
                        assert_eq!(r, 0);
                        let mut a = a0.clone();
                        let inv = Inverse::Trtri(uplo, diag);
                        let runs = local_ranks::run(&mut a, n, nb, (p, q), &keep, &|ds| generate(ds, &inv));
                        let w = what(&format!("trtri {uplo:?} {diag:?}"));
                        check_runs(&runs, &w);
                        let e = crate::algo::trtri::tests::rel_diff(uplo, n, &a, &want, n);
                        assert!(e < 1e-12, "{w}: relative difference {e}");
                        assert_untouched_outside(&a0, &a, n, n, n, Some(uplo));
                    }
                    let mut f = Rng::new(5 + n as u64 + p as u64).spd(n, n);
                    // SAFETY: `f` holds an n×n matrix with leading dimension n.
                    assert_eq!(
                        forward::dpotrf(uplo.ch(), n as i32, unsafe { Raw::new(f.as_mut_ptr()) }, n as i32),
                        0
                    );
                    let mut want = f.clone();
                    // SAFETY: as above.
                    assert_eq!(
                        forward::dpotri(
                            uplo.ch(),
                            n as i32,
                            unsafe { Raw::new(want.as_mut_ptr()) },
                            n as i32
                        ),
                        0
                    );
                    let mut a = f.clone();
                    let inv = Inverse::Potri(uplo);
                    let runs = local_ranks::run(&mut a, n, nb, (p, q), &keep, &|ds| generate(ds, &inv));
                    let w = what(&format!("potri {uplo:?}"));
                    check_runs(&runs, &w);
                    let e = crate::algo::trtri::tests::rel_diff(uplo, n, &a, &want, n);
                    assert!(e < 1e-12, "{w}: relative difference {e}");
                    assert_untouched_outside(&f, &a, n, n, n, Some(uplo));
                }
                let a0 = Rng::new((n * 11 + nb + 7 * p + q) as u64).matrix(n, n, n);
                let (f, ipiv, info) = reference_getrf(n, n, &a0, n);
                assert_eq!(info, 0);
                let mut want = f.clone();
                let mut piv = ipiv.clone();
                let mut work = vec![0.0; 64 * n];
                // SAFETY: `want` holds the n×n factors, `piv` n pivots, `work` 64·n doubles.
                let r = unsafe {
                    forward::dgetri(
                        n as i32,
                        Raw::new(want.as_mut_ptr()),
                        n as i32,
                        Raw::new(piv.as_mut_ptr()),
                        Raw::new(work.as_mut_ptr()),
                        work.len() as i32,
                    )
                };
                assert_eq!(r, 0);
                let mut a = f.clone();
                let inv = Inverse::Getri(ipiv.clone());
                let runs = local_ranks::run(&mut a, n, nb, (p, q), &all, &|ds| generate(ds, &inv));
                let w = what("getri");
                check_runs(&runs, &w);
                let d = max_diff(&a, &want);
                assert!(d <= 1e-10 * maxabs(&want), "{w}: max difference {d}");
            }
        }
    }

    /// The inverses' generators on in-process ranks in single, single complex and double complex
    /// (P?POTRI Hermitian): the shared-memory runtime's result of the same generator to a few ε
    /// of the type, the other triangle untouched, every message sent received.
    #[test]
    fn inverses_in_other_types_on_local_ranks_match_shared_memory() {
        use crate::graph::op::OpElem;
        use crate::runtime::shared::SharedGraph;
        use crate::runtime::Seq;
        use crate::scalar::{c32, c64};
        use crate::tile::{TiledMatrix, ViewMut};
        /// `inv` of the n×n `a` on the shared-memory runtime, in tiles of `nb`.
        fn shared<T: OpElem>(a: &[T], n: usize, nb: usize, inv: &Inverse) -> Vec<T> {
            let mut s = a.to_vec();
            // SAFETY: `s` holds the n×n matrix until the sequence is waited for.
            let t = unsafe { TiledMatrix::from_raw(s.as_mut_ptr(), n, n, n, nb, nb) };
            let seq = Seq::new(&cfg(2));
            let store = crate::runtime::shared::Buffers::default();
            generate(&mut SharedGraph::with_buffers(&seq, &t, &store), inv);
            seq.wait().unwrap();
            s
        }
        fn each<T: OpElem + super::super::DistElem>() {
            let ty = std::any::type_name::<T>();
            for &(p, q) in &[(1, 2), (2, 1), (2, 2), (3, 2)] {
                let (n, nb) = (23, 4);
                let what = |s: &str| format!("{ty} {s} grid {p}x{q}");
                let mut rng = Rng::new((p * 7 + q) as u64);
                // A well-conditioned matrix: random entries, n added to the diagonal.
                let mut a0: Vec<T> = rng.values(n, n, n);
                for i in 0..n {
                    a0[i + i * n] = a0[i + i * n].add(T::from_f64(n as f64));
                }
                // `inv` of `input` on the ranks, the tiles `keep` says: the shared-memory result,
                // and with `uplo` the other triangle untouched.
                let on_ranks = |input: &[T], inv: &Inverse, label: &str, uplo: Option<Uplo>| {
                    let w = what(label);
                    let keep = move |i: usize, j: usize| match uplo {
                        Some(Uplo::Lower) => i >= j,
                        Some(Uplo::Upper) => i <= j,
                        None => true,
                    };
                    let mut a = input.to_vec();
                    let runs = local_ranks::run(&mut a, n, nb, (p, q), &keep, &|ds| generate(ds, inv));
                    check_runs(&runs, &w);
                    let d = rel(&a, &shared(input, n, nb, inv));
                    assert!(d < 20.0 * n as f64 * T::eps(), "{w}: differs from shared memory by {d}");
                    if uplo.is_some() {
                        assert!(same_outside(input, &a, n, n, n, uplo), "{w}: other triangle written");
                    }
                };
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    for inv in [Inverse::Trtri(uplo, Diag::NonUnit), Inverse::Trtri(uplo, Diag::Unit)] {
                        on_ranks(&a0, &inv, &format!("{inv:?}"), Some(uplo));
                    }
                    // A Cholesky factor of the Hermitian A·Aᴴ-like matrix: the backend's POTRF of
                    // a0 made Hermitian.
                    let mut h = a0.clone();
                    for j in 0..n {
                        for i in 0..j {
                            h[j + i * n] = h[i + j * n].conj();
                        }
                        h[j + j * n] = T::from_f64(h[j + j * n].re().into());
                    }
                    let info = crate::kernels::potrf(uplo, ViewMut::from_slice(&mut h, n, n, n));
                    assert_eq!(info, 0);
                    let inv = Inverse::Potri(uplo);
                    on_ranks(&h, &inv, &format!("{inv:?}"), Some(uplo));
                }
                let (f, ipiv, info) = reference_getrf(n, n, &a0, n);
                assert_eq!(info, 0);
                on_ranks(&f, &Inverse::Getri(ipiv), "getri", None);
            }
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }

    fn check_runs<T: super::super::DistElem>(runs: &[super::super::tasks::SeqRun<T>], what: &str) {
        assert!(runs.iter().all(|r| r.result.is_ok() && r.info.is_none()), "{what}");
        let sent: usize = runs.iter().map(|r| r.sent).sum();
        let received: usize = runs.iter().map(|r| r.received).sum();
        assert_eq!(sent, received, "{what}: every message sent is received");
    }
}
