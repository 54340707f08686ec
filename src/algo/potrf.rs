//! Tile Cholesky, right-looking (seeds 000 §3.1; PLASMA's pzpotrf): one task generator for
//! every runtime (`dpotrf` in shared memory, `pdpotrf` on every rank).
//!
//! Lower: for each k, `A[k][k] = L·Lᵀ` (POTRF), `A[m][k] ← A[m][k]·L⁻ᵀ` for m > k (TRSM),
//! `A[n][n] -= A[n][k]·A[n][k]ᵀ` (SYRK), `A[m][n] -= A[m][k]·A[n][k]ᵀ` for m > n > k (GEMM).
//! Upper is the transpose: `A[k][n] ← U⁻ᵀ·A[k][n]`, `A[m][n] -= A[k][m]ᵀ·A[k][n]` for m < n.
//!
//! [`Granularity::Columns`] (lower only) states the same arithmetic with one TRSM for the whole
//! panel below the diagonal tile and, per trailing tile column j, one SYRK of its diagonal tile
//! and one GEMM of the tiles below it: about 2·nt instead of nt²/2 tasks per step, for runtimes
//! where a tile column's tiles are adjacent in one process's memory and small tiles would make
//! the per-task cost dominate (a 1×Q process grid). [`Granularity::Stacks`] is the same with the
//! rows below the diagonal cut into stacks of a few tiles, for shared memory: a taller GEMM runs
//! faster on one thread than a tile's, and a few stacks per column still keep every thread busy.
//!
//! Tiles may be uniform or hybrid (thin host tiles and wide device tiles, `tile::Part`), rows
//! cut like columns so diagonal tiles are square; nothing below assumes a tile size.
//!
//! Every task of step k belongs to step k: a failed POTRF of diagonal tile k (whole-matrix INFO
//! `col_offset(k)` + the tile's INFO) stops what the runtime's failure rule says.

use crate::graph::op::OpElem;
use crate::graph::{prio, Graph, Op, Spec, Tiles};
use crate::kernels::{Diag, Side, Trans, Uplo};
use crate::runtime::shared::SharedGraph;
use crate::runtime::Seq;
use crate::scalar::Coef;
use crate::tile::TiledMatrix;

/// How finely the trailing update is cut into tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    /// One task per tile.
    Tiles,
    /// One task per tile column and kernel (lower only).
    Columns,
    /// One TRSM or GEMM task per stack of this many tile rows of a column (lower only).
    Stacks(usize),
}

impl Granularity {
    /// Rows a stacked update aims for: one thread's GEMM of 1536 rows against a tile of 384
    /// runs 15–25% faster than one of 384 rows (OpenBLAS 0.3.21, AVX-512: 69–73 against 56–63
    /// GFLOP/s), since the packed tile of B is reused down the whole stack. A whole 6000×6000
    /// Cholesky in tiles of 384 on 2 threads: 114 GFLOP/s one task per tile, 130 in stacks of
    /// 4, 132 in whole columns (medians of 7 interleaved calls).
    pub const STACK_ROWS: usize = 1536;

    /// The granularity of a host-only lower Cholesky of order `n` in tiles of `nb` on
    /// `threads` threads: stacks about [`Self::STACK_ROWS`] high, but at least one stack per
    /// thread in the first step's widest column, so every thread has work (one tile per task
    /// when that leaves one tile a stack).
    pub fn on_host(n: usize, nb: usize, threads: usize) -> Granularity {
        let nt = n.div_ceil(nb.max(1));
        let by_rows = Self::STACK_ROWS.div_ceil(nb.max(1));
        let by_threads = nt.div_ceil(threads.max(1));
        match by_rows.min(by_threads) {
            0 | 1 => Granularity::Tiles,
            s => Granularity::Stacks(s),
        }
    }
}

/// The shared-memory Cholesky of `a`: the lower factor on the host alone in stacks of tile rows
/// ([`Granularity::on_host`]), otherwise one task per tile (a device's tiles are placed one by
/// one). Any element type: for complex `T` the factor is Hermitian's, A = L·Lᴴ or Uᴴ·U (the
/// generator's transposes are adjoints, its SYRK a HERK: `graph::op`).
pub fn potrf<T: OpElem>(seq: &Seq, uplo: Uplo, a: &TiledMatrix<T>) {
    let gran = match uplo {
        Uplo::Lower if !seq.has_devices() => Granularity::on_host(a.n, a.rows.big(), seq.workers()),
        _ => Granularity::Tiles,
    };
    generate(&mut SharedGraph::new(seq, a), uplo, gran);
}

/// The tile Cholesky's tasks, submitted to `g` in program order.
pub fn generate(g: &mut impl Graph, uplo: Uplo, gran: Granularity) {
    let t = g.tiling().clone();
    assert!(t.square_tiles(), "Cholesky needs rows and columns cut alike (square diagonal tiles)");
    assert!(gran == Granularity::Tiles || uplo == Uplo::Lower, "column tasks are for the lower factor");
    let nt = t.nt();
    let n = t.n();
    for k in 0..nt {
        if g.stopped() {
            return;
        }
        let kb = t.cols(k);
        let kk = t.id(k, k);
        let op = Op::Potrf { uplo, a: Tiles::one(0), info_base: t.col_offset(k) as i32 };
        g.submit(Spec { op, prio: prio(nt, k, 3), step: k, dims: [kb, kb, 0], writes: &[kk], reads: &[] });
        let stack = match gran {
            Granularity::Tiles => 0,
            Granularity::Columns => nt,
            Granularity::Stacks(s) => s.max(1),
        };
        if stack > 0 {
            // Rows below a diagonal tile in stacks of `stack` tile rows, counted from the
            // tile row under it, so a column's stacks line up with the panel's of the step
            // that factors it.
            let chunks = |from: usize| (from..nt).step_by(stack).map(move |r| r..(r + stack).min(nt));
            // Matrix rows of a stack of tile rows.
            let height =
                |rows: &std::ops::Range<usize>| t.row_offset(rows.end).min(n) - t.row_offset(rows.start);
            for rows in chunks(k + 1) {
                let below: Vec<usize> = rows.clone().map(|i| t.id(i, k)).collect();
                let c = below.len();
                let op = trsm_op(Side::Right, Uplo::Lower, Tiles::stack(0, c), Tiles::one(c));
                let dims = [height(&rows), kb, 0];
                g.submit(Spec { op, prio: prio(nt, k, 2), step: k, dims, writes: &below, reads: &[kk] });
            }
            for j in k + 1..nt {
                let jb = t.cols(j);
                let (jj, jk) = (t.id(j, j), t.id(j, k));
                let op = syrk_op(Uplo::Lower, Trans::No);
                g.submit(Spec {
                    op,
                    prio: prio(nt, j, 1),
                    step: k,
                    dims: [jb, jb, kb],
                    writes: &[jj],
                    reads: &[jk],
                });
                for rows in chunks(j + 1) {
                    let col: Vec<usize> = rows.clone().map(|i| t.id(i, j)).collect();
                    let c = col.len();
                    let reads: Vec<usize> =
                        rows.clone().map(|i| t.id(i, k)).chain(std::iter::once(jk)).collect();
                    let op = Op::Gemm {
                        ta: Trans::No,
                        tb: Trans::Yes,
                        alpha: Coef::from(-1.0),
                        a: Tiles::stack(c, c),
                        b: Tiles::one(2 * c),
                        beta: Coef::from(1.0),
                        c: Tiles::stack(0, c),
                        k: kb,
                    };
                    let dims = [height(&rows), jb, kb];
                    g.submit(Spec { op, prio: prio(nt, j, 0), step: k, dims, writes: &col, reads: &reads });
                }
            }
            continue;
        }
        for m in k + 1..nt {
            let mb = t.rows(m);
            let (w, dims, side) = match uplo {
                Uplo::Lower => (t.id(m, k), [mb, kb, 0], Side::Right),
                Uplo::Upper => (t.id(k, m), [kb, mb, 0], Side::Left),
            };
            let op = trsm_op(side, uplo, Tiles::one(0), Tiles::one(1));
            g.submit(Spec { op, prio: prio(nt, k, 2), step: k, dims, writes: &[w], reads: &[kk] });
        }
        for j in k + 1..nt {
            let jb = t.cols(j);
            let (src, tr) = match uplo {
                Uplo::Lower => (t.id(j, k), Trans::No),
                Uplo::Upper => (t.id(k, j), Trans::Yes),
            };
            let op = syrk_op(uplo, tr);
            g.submit(Spec {
                op,
                prio: prio(nt, j, 1),
                step: k,
                dims: [jb, jb, kb],
                writes: &[t.id(j, j)],
                reads: &[src],
            });
            let others = match uplo {
                Uplo::Lower => j + 1..nt,
                Uplo::Upper => k + 1..j,
            };
            for m in others {
                let mb = t.rows(m);
                let (reads, ta, tb) = match uplo {
                    Uplo::Lower => ([t.id(m, k), t.id(j, k)], Trans::No, Trans::Yes),
                    Uplo::Upper => ([t.id(k, m), t.id(k, j)], Trans::Yes, Trans::No),
                };
                let op = Op::Gemm {
                    ta,
                    tb,
                    alpha: Coef::from(-1.0),
                    a: Tiles::one(1),
                    b: Tiles::one(2),
                    beta: Coef::from(1.0),
                    c: Tiles::one(0),
                    k: kb,
                };
                let dims = [mb, jb, kb];
                g.submit(Spec {
                    op,
                    prio: prio(nt, j, 0),
                    step: k,
                    dims,
                    writes: &[t.id(m, j)],
                    reads: &reads,
                });
            }
        }
    }
}

/// B ← B·op(A)⁻¹ (right) or op(A)⁻¹·B (left) with A the factored diagonal tile, transposed.
fn trsm_op(side: Side, uplo: Uplo, b: Tiles, a: Tiles) -> Op {
    Op::Trsm { side, uplo, trans: Trans::Yes, diag: Diag::NonUnit, alpha: 1.0, a, b }
}

/// The SYRK update of a diagonal tile (written at 0) by a panel tile (read at 1).
fn syrk_op(uplo: Uplo, trans: Trans) -> Op {
    Op::Syrk { uplo, trans, alpha: -1.0, a: Tiles::one(1), beta: 1.0, c: Tiles::one(0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::error::Error;
    use crate::tile::Part;

    fn check(uplo: Uplo, n: usize, ld: usize, nb: usize, threads: usize) {
        check_part(uplo, n, ld, Part::uniform(nb), threads)
    }

    fn check_part(uplo: Uplo, n: usize, ld: usize, part: Part, threads: usize) {
        let nb = part.big();
        let mut rng = Rng::new(n as u64 * 31 + nb as u64);
        let a0 = rng.spd(n, ld);
        let mut a = a0.clone();
        let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, ld, part, part) };
        let seq = Seq::new(&cfg(threads));
        potrf(&seq, uplo, &t);
        seq.wait().unwrap();
        let r = chol_residual(uplo, n, &a0, &a, ld);
        assert!(r < 10.0, "uplo {uplo:?} n {n} nb {nb}: scaled residual {r}");
        // Padding rows between n and ld and the other triangle are untouched.
        assert_untouched_outside(&a0, &a, n, n, ld, Some(uplo));
    }

    #[test]
    fn lower_and_upper_odd_sizes_tiny_tiles() {
        for &(n, nb) in &[(1, 1), (7, 3), (37, 5), (100, 16), (129, 32)] {
            for uplo in [Uplo::Lower, Uplo::Upper] {
                check(uplo, n, n + 3, nb, 3);
            }
        }
    }

    #[test]
    fn every_granularity_of_the_lower_factor() {
        for &(n, nb) in &[(1, 1), (7, 3), (37, 5), (100, 16), (129, 32)] {
            for gran in
                [Granularity::Tiles, Granularity::Stacks(2), Granularity::Stacks(3), Granularity::Columns]
            {
                let ld = n + 2;
                let a0 = Rng::new(n as u64 + 5).spd(n, ld);
                let mut a = a0.clone();
                let p = Part::uniform(nb);
                let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, ld, p, p) };
                let seq = Seq::new(&cfg(3));
                generate(&mut SharedGraph::new(&seq, &t), Uplo::Lower, gran);
                seq.wait().unwrap();
                let r = chol_residual(Uplo::Lower, n, &a0, &a, ld);
                assert!(r < 10.0, "{gran:?} n {n} nb {nb}: scaled residual {r}");
                assert_untouched_outside(&a0, &a, n, n, ld, Some(Uplo::Lower));
            }
        }
    }

    #[test]
    fn host_granularity_stacks_tall_updates_but_feeds_every_thread() {
        // 6000 in tiles of 384 on 2 threads: stacks of 4 tiles (1536 rows).
        assert_eq!(Granularity::on_host(6000, 384, 2), Granularity::Stacks(4));
        // Few tiles: a stack per thread at least.
        assert_eq!(Granularity::on_host(1500, 256, 2), Granularity::Stacks(3));
        // Many threads for the tiles: one tile per task.
        assert_eq!(Granularity::on_host(3000, 256, 16), Granularity::Tiles);
        assert_eq!(Granularity::on_host(100, 2000, 2), Granularity::Tiles);
    }

    #[test]
    fn not_positive_definite_reports_lapack_info() {
        not_positive_definite(Part::uniform(8));
    }

    fn not_positive_definite(part: Part) {
        let n = 150;
        for bad in [0usize, 6, 17, 44, 140] {
            for uplo in [Uplo::Lower, Uplo::Upper] {
                let mut rng = Rng::new(7 + bad as u64);
                let a0 = rng.spd(n, n);
                let mut a = a0.clone();
                a[bad + bad * n] = -1.0e3;
                let mut r = a.clone();
                let want = reference_potrf_info(uplo, n, &mut r);
                let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, n, part, part) };
                let seq = Seq::new(&cfg(2));
                potrf(&seq, uplo, &t);
                assert_eq!(seq.wait(), Err(Error::Numerical(want)), "bad {bad}");
                // LAPACK's partial factor: the columns of the tiles before the failing one are
                // complete, all their rows (those of the factor of the matrix before it was
                // spoiled: column j < bad of L does not depend on A(bad, bad)).
                let done = part.offset(part.index_of(want as usize - 1));
                let mut full = a0.clone();
                assert_eq!(reference_potrf_info(uplo, n, &mut full), 0);
                for j in 0..done {
                    for i in j..n {
                        let (x, y) = match uplo {
                            Uplo::Lower => (a[i + j * n], full[i + j * n]),
                            Uplo::Upper => (a[j + i * n], full[j + i * n]),
                        };
                        assert!(
                            (x - y).abs() <= 1e-10 * y.abs().max(1.0),
                            "bad {bad} {uplo:?}: L({i},{j}) {x} vs {y}"
                        );
                    }
                }
            }
        }
    }

    /// The four element types: factors against the backend's own `?potrf_` (kernels::potrf on
    /// the whole matrix), INFO, the other triangle, and bitwise repeatability.
    mod types {
        use super::*;
        use crate::config::Config;
        use crate::graph::op::OpElem;
        use crate::runtime::shared::SharedGraph;
        use crate::scalar::{c32, c64, Scalar};
        use crate::tile::{Part, ViewMut};

        /// What the other triangle and the padding rows hold (never NaN, so `==` compares it).
        fn sentinel<T: Scalar>() -> T {
            T::from_parts(-4321.5, 98.25)
        }

        fn in_triangle(uplo: Uplo, i: usize, j: usize) -> bool {
            match uplo {
                Uplo::Lower => i >= j,
                Uplo::Upper => i <= j,
            }
        }

        /// The `uplo` triangle of a Hermitian positive definite n×n matrix (random entries with
        /// parts in [-1, 1), real diagonal n + [-1, 1)), the sentinel everywhere else of the ld×n
        /// array.
        fn hpd<T: Scalar>(uplo: Uplo, n: usize, ld: usize, seed: u64) -> Vec<T> {
            let mut rng = Rng::new(seed);
            let mut a = vec![sentinel::<T>(); ld * n];
            for j in 0..n {
                for i in 0..n {
                    if i == j {
                        a[i + j * ld] = T::from_f64(n as f64 + rng.next());
                    } else if in_triangle(uplo, i, j) {
                        let re = rng.next();
                        a[i + j * ld] = T::from_parts(re, rng.next());
                    }
                }
            }
            a
        }

        /// The backend's factor of `a` and its INFO.
        fn backend<T: Scalar>(uplo: Uplo, n: usize, ld: usize, a: &[T]) -> (Vec<T>, i32) {
            let mut f = a.to_vec();
            let info = crate::kernels::potrf(uplo, ViewMut::from_slice(&mut f, n, n, ld));
            (f, info)
        }

        /// hetla's tile Cholesky of `a` on 3 threads in tiles of `nb`, with `gran` (None: what
        /// `potrf` picks).
        fn tiled<T: OpElem>(
            uplo: Uplo,
            n: usize,
            ld: usize,
            nb: usize,
            gran: Option<Granularity>,
            a: &[T],
        ) -> (Vec<T>, Result<(), Error>) {
            let mut f = a.to_vec();
            let p = Part::uniform(nb);
            // SAFETY: `f` holds the ld×n array, alive and unshared until the sequence is waited for.
            let t = unsafe { TiledMatrix::from_raw_parts(f.as_mut_ptr(), n, n, ld, p, p) };
            let seq = Seq::new(&crate::algo::testutil::with_test_devices(Config::with_threads(3)));
            match gran {
                None => potrf(&seq, uplo, &t),
                Some(g) => generate(&mut SharedGraph::new(&seq, &t), uplo, g),
            }
            let r = seq.wait();
            (f, r)
        }

        fn sq<T: Scalar>(x: T) -> f64 {
            let (re, im): (f64, f64) = (x.re().into(), x.im().into());
            re * re + im * im
        }

        /// ‖X − Y‖_F / ‖Y‖_F over the first `k` columns of L (lower) or rows of U (upper).
        fn rel_diff<T: Scalar>(uplo: Uplo, n: usize, ld: usize, k: usize, x: &[T], y: &[T]) -> f64 {
            let (mut d, mut s) = (0.0, 0.0);
            for j in 0..n {
                for i in (0..n)
                    .filter(|&i| in_triangle(uplo, i, j) && (if uplo == Uplo::Lower { j } else { i }) < k)
                {
                    let (p, q) = (x[i + j * ld], y[i + j * ld]);
                    let (pr, pi): (f64, f64) = (p.re().into(), p.im().into());
                    let (qr, qi): (f64, f64) = (q.re().into(), q.im().into());
                    d += (pr - qr).powi(2) + (pi - qi).powi(2);
                    s += sq(q);
                }
            }
            (d / s).sqrt()
        }

        fn untouched<T: Scalar>(uplo: Uplo, n: usize, ld: usize, before: &[T], after: &[T], what: &str) {
            for j in 0..n {
                for i in 0..ld {
                    if i >= n || !in_triangle(uplo, i, j) {
                        assert_eq!(after[i + j * ld], before[i + j * ld], "{what}: ({i}, {j}) written");
                    }
                }
            }
        }

        fn bits<T: Scalar>(v: &[T]) -> Vec<(u64, u64)> {
            v.iter()
                .map(|x| {
                    let (re, im): (f64, f64) = (x.re().into(), x.im().into());
                    (re.to_bits(), im.to_bits())
                })
                .collect()
        }

        /// Relative Frobenius distance allowed between hetla's factor and the backend's, in
        /// units of the type's ε: both are backward stable Choleskys of a well-conditioned
        /// matrix (diagonally dominant: κ₂ ≤ about 3), whose factors differ by rounding only.
        const TOL_EPS: f64 = 8.0;

        fn factor_matches_the_backend<T: OpElem>() {
            let name = std::any::type_name::<T>();
            for (n, nb) in [(53, 8), (79, 12), (53, 12), (79, 8)] {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    let ld = n + 3;
                    let a0 = hpd::<T>(uplo, n, ld, (n * nb) as u64);
                    let (want, info) = backend(uplo, n, ld, &a0);
                    assert_eq!(info, 0, "{name}: the test matrix is positive definite");
                    let grans: &[Option<Granularity>] = match uplo {
                        Uplo::Lower => &[None, Some(Granularity::Tiles), Some(Granularity::Columns)],
                        Uplo::Upper => &[None],
                    };
                    for &g in grans {
                        let what = format!("{name} {uplo:?} n {n} nb {nb} {g:?}");
                        let (got, r) = tiled(uplo, n, ld, nb, g, &a0);
                        r.unwrap();
                        let d = rel_diff(uplo, n, ld, n, &got, &want);
                        assert!(
                            d <= TOL_EPS * T::eps(),
                            "{what}: relative difference {d:e} = {} ε",
                            d / T::eps()
                        );
                        untouched(uplo, n, ld, &a0, &got, &what);
                        let (again, r) = tiled(uplo, n, ld, nb, g, &a0);
                        r.unwrap();
                        assert!(bits(&got) == bits(&again), "{what}: two identical calls differ");
                    }
                }
            }
        }

        /// A matrix that is not positive definite at `bad`: a negative real diagonal (complex:
        /// with an imaginary part, which LAPACK ignores on the diagonal), or row/column `bad` of
        /// the triangle zero before the diagonal and a zero diagonal, so its pivot is exactly 0.
        fn info_matches_the_backend<T: OpElem>() {
            let name = std::any::type_name::<T>();
            let (n, nb) = (53, 8);
            for (bad, zero) in
                [(0, true), (0, false), (7, false), (8, true), (17, true), (30, false), (52, false)]
            {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    let what = format!("{name} {uplo:?} bad {bad} zero {zero}");
                    let ld = n + 2;
                    let mut a0 = hpd::<T>(uplo, n, ld, 11 + bad as u64);
                    if zero {
                        for k in 0..bad {
                            let (i, j) = if uplo == Uplo::Lower { (bad, k) } else { (k, bad) };
                            a0[i + j * ld] = T::zero();
                        }
                        a0[bad + bad * ld] = T::from_parts(0.0, 0.5);
                    } else {
                        a0[bad + bad * ld] = T::from_parts(-3.0, 0.75);
                    }
                    let (_, info) = backend(uplo, n, ld, &a0);
                    assert_eq!(info, bad as i32 + 1, "{what}: the backend's INFO");
                    let (got, r) = tiled(uplo, n, ld, nb, None, &a0);
                    assert_eq!(r, Err(Error::Numerical(info)), "{what}");
                    untouched(uplo, n, ld, &a0, &got, &what);
                    // The columns of L (rows of U) of the tiles before the failing one are
                    // finished: those of the factor of the matrix with a good pivot at `bad`,
                    // which they do not depend on (LAPACK's own partial factor leaves some of
                    // them unfinished: DPOTRF2 stops before its TRSM of the block below).
                    let done = bad / nb * nb;
                    let mut good = a0.clone();
                    good[bad + bad * ld] = T::from_f64(n as f64);
                    let (want, info) = backend(uplo, n, ld, &good);
                    assert_eq!(info, 0, "{what}: the repaired matrix is positive definite");
                    if done > 0 {
                        let d = rel_diff(uplo, n, ld, done, &got, &want);
                        assert!(d <= TOL_EPS * T::eps(), "{what}: finished columns differ by {d:e}");
                    }
                }
            }
        }

        #[test]
        fn spotrf_tiles() {
            factor_matches_the_backend::<f32>();
            info_matches_the_backend::<f32>();
        }

        #[test]
        fn cpotrf_tiles() {
            factor_matches_the_backend::<c32>();
            info_matches_the_backend::<c32>();
        }

        #[test]
        fn zpotrf_tiles() {
            factor_matches_the_backend::<c64>();
            info_matches_the_backend::<c64>();
        }

        /// The same comparisons with 1, 2 and 3 emulated devices (all columns there, or half).
        #[test]
        fn every_type_on_emulated_devices() {
            crate::algo::testutil::for_device_setups(|| {
                factor_matches_the_backend::<f32>();
                factor_matches_the_backend::<c32>();
                factor_matches_the_backend::<c64>();
                info_matches_the_backend::<c64>();
            });
        }

        #[test]
        fn dpotrf_tiles_by_the_same_test() {
            factor_matches_the_backend::<f64>();
            info_matches_the_backend::<f64>();
        }
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            lower_and_upper_odd_sizes_tiny_tiles();
            not_positive_definite_reports_lapack_info();
        });
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            for n in [1, 5, 29, 64] {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    check_part(uplo, n, n + 2, part, 3);
                }
            }
            not_positive_definite(part);
        });
    }

    /// Runs a lower Cholesky of an SPD n×n matrix on `c`; checks the residual and returns what
    /// the devices moved.
    fn chol_with_stats(n: usize, nb: usize, c: &crate::config::Config) -> Vec<crate::device::DevStats> {
        chol_part_stats(n, Part::uniform(nb), c)
    }

    fn chol_part_stats(n: usize, part: Part, c: &crate::config::Config) -> Vec<crate::device::DevStats> {
        let nb = part.big();
        let mut rng = Rng::new(n as u64 + 1000);
        let a0 = rng.spd(n, n);
        let mut a = a0.clone();
        let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, n, part, part) };
        let seq = Seq::new(c);
        potrf(&seq, Uplo::Lower, &t);
        let (r, stats) = seq.wait_stats();
        r.unwrap();
        let res = chol_residual(Uplo::Lower, n, &a0, &a, n);
        assert!(res < 10.0, "n {n} nb {nb}: scaled residual {res}");
        assert_untouched_outside(&a0, &a, n, n, n, Some(Uplo::Lower));
        stats
    }

    #[test]
    fn ample_memory_moves_each_tile_in_once_and_back_once() {
        use crate::runtime::placement::column_share;
        // Uniform tiles with a share of the columns on the host, and hybrid tiles (B = 20, two
        // thin host tiles of 6, one wide device tile of 8) placed as `api` places them.
        ample_memory_model(Part::uniform(16), 0.4, 2);
        let hybrid = Part::hybrid(20, 2, 6);
        for devs in [1, 2, 3] {
            ample_memory_model(hybrid, column_share(&hybrid), devs);
        }
    }

    fn ample_memory_model(part: Part, share: f64, devs: usize) {
        use crate::runtime::placement::Placement;
        let n = 100;
        let mut c = cfg(3).with_emulated(devs, 16 << 20);
        c.host_share = Some(share);
        let stats = chol_part_stats(n, part, &c);

        // The model: replay the loop; a task on device d needs every tile it declares on d
        // (copied in once, never invalidated: Cholesky reads a tile only after its last write),
        // and every tile written on d goes back once (to a reader or at the end).
        let geom = crate::tile::Workspace::<f64>::with_parts(n, n, part, part).tiles();
        let nt = geom.nt();
        let own = Placement::new(share, devs);
        let bytes = |i: usize, j: usize| (geom.tile_rows(i) * geom.tile_cols(j) * 8) as u64;
        let mut needs = std::collections::HashSet::new();
        let mut tasks = vec![0u64; devs];
        let mut on = |owner_col: usize, tiles: &[(usize, usize)]| {
            if let Some(d) = own.owner(owner_col) {
                tasks[d] += 1;
                for &t in tiles {
                    needs.insert((d, t));
                }
            }
        };
        for k in 0..nt {
            on(k, &[(k, k)]);
            for m in k + 1..nt {
                on(k, &[(k, k), (m, k)]);
            }
            for nn in k + 1..nt {
                on(nn, &[(nn, k), (nn, nn)]);
                for m in nn + 1..nt {
                    on(nn, &[(m, k), (nn, k), (m, nn)]);
                }
            }
        }
        for d in 0..devs {
            let s = &stats[d];
            let want_in: u64 = needs.iter().filter(|x| x.0 == d).map(|&(_, (i, j))| bytes(i, j)).sum();
            let copies_in = needs.iter().filter(|x| x.0 == d).count() as u64;
            let owned: Vec<(usize, usize)> = (0..nt)
                .filter(|&j| own.owner(j) == Some(d))
                .flat_map(|j| (j..nt).map(move |i| (i, j)))
                .collect();
            let want_out: u64 = owned.iter().map(|&(i, j)| bytes(i, j)).sum();
            assert!(tasks[d] > 0 && !owned.is_empty(), "device {d} got no work in this setup");
            assert_eq!(s.tasks, tasks[d], "device {d}: tasks");
            assert_eq!(s.host_fallbacks, 0);
            assert_eq!(s.evictions, 0, "device {d}: ample memory must not evict");
            assert_eq!((s.copies_in, s.bytes_in), (copies_in, want_in), "device {d}: copies in");
            assert_eq!((s.copies_out, s.bytes_out), (owned.len() as u64, want_out), "device {d}: copies out");
        }
    }

    #[test]
    fn device_memory_smaller_than_the_matrix_evicts_and_stays_right() {
        // 129×129 in 16×16 tiles: 133 KB of matrix, 36 KB of device memory each (34 KB for
        // tiles: 16 full tiles), every column on a device.
        let mut c = cfg(3).with_emulated(2, 36 << 10);
        c.host_share = Some(0.0);
        let stats = chol_with_stats(129, 16, &c);
        for s in &stats {
            assert!(s.tasks > 0, "{s:?}");
            assert!(s.evictions > 0, "{s:?}: no eviction with a device smaller than the matrix");
            assert_eq!(s.host_fallbacks, 0, "{s:?}");
        }
        // Tiny memory (3840 bytes for tiles, one 16×16 tile is 2048): one-tile tasks (POTRF, the
        // small corner's SYRK) run on the device, tasks whose tiles cannot fit together fall
        // back to the host, and the result is still right.
        let mut c = cfg(2).with_emulated(1, 4 << 10);
        c.host_share = Some(0.0);
        let stats = chol_with_stats(40, 16, &c);
        assert!(stats[0].tasks > 0 && stats[0].host_fallbacks > 0, "{:?}", stats[0]);
    }

    #[test]
    fn without_devices_there_is_no_device_bookkeeping() {
        let c = crate::config::Config::with_threads(3);
        assert!(chol_with_stats(50, 8, &c).is_empty());
    }

    #[test]
    fn trace_shows_device_tasks_and_transfers() {
        let path = std::env::temp_dir().join(format!("hetla-device-trace-{}.json", std::process::id()));
        let mut c = cfg(2).with_emulated(2, 16 << 10);
        c.host_share = Some(0.0);
        c.trace = Some(path.to_string_lossy().into_owned());
        let stats = chol_with_stats(64, 8, &c);
        assert!(stats.iter().all(|s| s.evictions > 0));
        let t = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        for want in [
            r#""kernel":"gemm","device":"emu0","m":8,"n":8,"k":8"#,
            r#""kernel":"potrf","device":"emu1","m":8,"n":8,"k":0"#,
            r#""name":"copy_in","ph":"X""#,
            r#""kernel":"copy_out","device":"emu0","m":8,"n":8"#,
            r#""kernel":"evict","device":"emu1""#,
        ] {
            assert!(t.contains(want), "trace lacks {want}");
        }
    }
}
