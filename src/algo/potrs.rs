//! Solve with a Cholesky factor: A·X = B with A = L·Lᵀ (two tile triangular solves, L then Lᵀ)
//! or A = Uᵀ·U (Uᵀ then U), as LAPACK's DPOTRS does.

use super::trsm::{solve, Pass};
use crate::graph::op::OpElem;
use crate::kernels::{Diag, Trans, Uplo};
use crate::runtime::Seq;
use crate::tile::TiledMatrix;

/// The two passes of a Cholesky solve (the same for `pdpotrs`).
pub fn passes(uplo: Uplo) -> [Pass; 2] {
    let (first, second) = match uplo {
        Uplo::Lower => (Trans::No, Trans::Yes),
        Uplo::Upper => (Trans::Yes, Trans::No),
    };
    [first, second].map(|trans| Pass { uplo, trans, diag: Diag::NonUnit })
}

/// A·X = B with the factor from [`crate::algo::potrf::potrf`], in any element type (complex:
/// A = L·Lᴴ or Uᴴ·U).
pub fn potrs<T: OpElem>(seq: &Seq, uplo: Uplo, a: &TiledMatrix<T>, b: &TiledMatrix<T>) {
    solve(seq, &passes(uplo), a, b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::potrf::potrf;
    use crate::algo::testutil::*;
    use crate::tile::Part;

    #[test]
    fn factor_then_solve_has_small_residual() {
        for &(n, nrhs, nb) in &[(1, 1, 1), (23, 3, 4), (61, 17, 8)] {
            factor_then_solve(n, nrhs, Part::uniform(nb));
        }
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            factor_then_solve(23, 3, part);
            factor_then_solve(61, 17, part);
        });
    }

    fn factor_then_solve(n: usize, nrhs: usize, part: Part) {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            {
                let (lda, ldb) = (n + 2, n + 5);
                let mut rng = Rng::new(n as u64);
                let a0 = rng.spd(n, lda);
                let b0 = rng.matrix(n, nrhs, ldb);
                let (mut a, mut b) = (a0.clone(), b0.clone());
                let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, lda, part, part) };
                let tb = unsafe { TiledMatrix::from_raw_parts(b.as_mut_ptr(), n, nrhs, ldb, part, part) };
                let seq = Seq::new(&cfg(3));
                potrf(&seq, uplo, &ta);
                potrs(&seq, uplo, &ta, &tb);
                seq.wait().unwrap();
                // ‖A·X − B‖ / (‖A‖·‖X‖·n·eps), A symmetric from the full a0.
                let mut r: f64 = 0.0;
                for j in 0..nrhs {
                    for i in 0..n {
                        let ax: f64 = (0..n).map(|k| a0[i + k * lda] * b[k + j * ldb]).sum();
                        r = r.max((ax - b0[i + j * ldb]).abs());
                    }
                }
                let xn = fnorm(&b, n, nrhs, ldb);
                let scaled = r / (fnorm(&a0, n, n, lda) * xn * n as f64 * eps());
                assert!(scaled < 10.0, "{uplo:?} n {n}: residual {scaled}");
                assert_untouched_outside(&b0, &b, n, nrhs, ldb, None);
            }
        }
    }

    /// Factor and solve in `T` on 3 threads: ‖A·X − B‖_F / (‖A‖_F·‖X‖_F·n·ε) below 10 (the
    /// product by the backend's `?gemm_` on the whole Hermitian A), B's padding untouched.
    fn factor_then_solve_in<T: OpElem>(n: usize, nrhs: usize, nb: usize) {
        use crate::config::Config;
        use crate::tile::{View, ViewMut};
        let name = std::any::type_name::<T>();
        let guard = T::from_parts(-321.25, 4.5);
        let fro = |v: &[T], m: usize, cols: usize, ld: usize| -> f64 {
            let mut s = 0.0;
            for j in 0..cols {
                for x in &v[j * ld..j * ld + m] {
                    let (re, im): (f64, f64) = (x.re().into(), x.im().into());
                    s += re * re + im * im;
                }
            }
            s.sqrt()
        };
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let (lda, ldb) = (n + 2, n + 5);
            let mut rng = Rng::new(n as u64 + 3);
            let mut a0 = vec![guard; lda * n];
            for j in 0..n {
                a0[j + j * lda] = T::from_f64(n as f64 + rng.next());
                for i in j + 1..n {
                    let re = rng.next();
                    let x = T::from_parts(re, rng.next());
                    a0[i + j * lda] = x;
                    a0[j + i * lda] = x.conj();
                }
            }
            let mut b0 = vec![guard; ldb * nrhs];
            for j in 0..nrhs {
                for i in 0..n {
                    let re = rng.next();
                    b0[i + j * ldb] = T::from_parts(re, rng.next());
                }
            }
            let (mut a, mut b) = (a0.clone(), b0.clone());
            let p = Part::uniform(nb);
            // SAFETY: `a` and `b` hold the lda×n and ldb×nrhs arrays, unshared until the wait.
            let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, lda, p, p) };
            // SAFETY: as above.
            let tb = unsafe { TiledMatrix::from_raw_parts(b.as_mut_ptr(), n, nrhs, ldb, p, p) };
            let seq = Seq::new(&crate::algo::testutil::with_test_devices(Config::with_threads(3)));
            potrf(&seq, uplo, &ta);
            potrs(&seq, uplo, &ta, &tb);
            seq.wait().unwrap();
            let mut r = b0.clone();
            crate::kernels::gemm(
                Trans::No,
                Trans::No,
                T::one(),
                View::from_slice(&a0, n, n, lda),
                View::from_slice(&b, n, nrhs, ldb),
                T::from_f64(-1.0),
                ViewMut::from_slice(&mut r, n, nrhs, ldb),
            );
            let scaled =
                fro(&r, n, nrhs, ldb) / (fro(&a0, n, n, lda) * fro(&b, n, nrhs, ldb) * n as f64 * T::eps());
            assert!(scaled < 10.0, "{name} {uplo:?} n {n}: residual {scaled}");
            for j in 0..nrhs {
                assert!(b[n + j * ldb..(j + 1) * ldb].iter().all(|&x| x == guard), "{name}: padding written");
            }
        }
    }

    #[test]
    fn factor_then_solve_in_every_type() {
        use crate::scalar::{c32, c64};
        for (n, nrhs, nb) in [(53, 3, 8), (79, 10, 12)] {
            factor_then_solve_in::<f32>(n, nrhs, nb);
            factor_then_solve_in::<f64>(n, nrhs, nb);
            factor_then_solve_in::<c32>(n, nrhs, nb);
            factor_then_solve_in::<c64>(n, nrhs, nb);
        }
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(factor_then_solve_has_small_residual);
    }

    #[test]
    fn every_type_on_one_two_three_emulated_devices() {
        use crate::scalar::{c32, c64};
        for_device_setups(|| {
            factor_then_solve_in::<f32>(37, 5, 8);
            factor_then_solve_in::<c32>(37, 5, 8);
            factor_then_solve_in::<c64>(37, 5, 8);
        });
    }
}
