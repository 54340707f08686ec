//! Helpers for the algorithm tests: seeded random matrices, residuals, guard checks.

use crate::config::Config;
use crate::kernels::Uplo;

pub fn cfg(threads: usize) -> Config {
    Config::with_threads(threads)
}

/// A small deterministic generator (xorshift64*), so every test input is reproducible.
pub struct Rng(u64);

/// Value stored outside the matrix proper (rows m..ld) to prove nothing writes there.
pub const GUARD: f64 = 777.25;

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [-1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    /// m×n random matrix in an ld×n array, guard values in rows m..ld.
    pub fn matrix(&mut self, m: usize, n: usize, ld: usize) -> Vec<f64> {
        let mut a = vec![GUARD; ld.max(1) * n.max(1)];
        for j in 0..n {
            for i in 0..m {
                a[i + j * ld] = self.next();
            }
        }
        a
    }
    /// Symmetric positive definite n×n matrix (random symmetric plus n on the diagonal).
    pub fn spd(&mut self, n: usize, ld: usize) -> Vec<f64> {
        let mut a = vec![GUARD; ld.max(1) * n.max(1)];
        for j in 0..n {
            for i in j..n {
                let v = self.next();
                a[i + j * ld] = v;
                a[j + i * ld] = v;
            }
            a[j + j * ld] += n as f64;
        }
        a
    }
}

pub fn eps() -> f64 {
    f64::EPSILON / 2.0
}

/// ‖A‖_F of the m×n matrix in an ld array.
pub fn fnorm(a: &[f64], m: usize, n: usize, ld: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..n {
        for i in 0..m {
            s += a[i + j * ld] * a[i + j * ld];
        }
    }
    s.sqrt()
}

/// ‖A − L·Lᵀ‖_F / (n·‖A‖_F·eps) (or Uᵀ·U), reading only the factor's triangle of `f`.
pub fn chol_residual(uplo: Uplo, n: usize, a: &[f64], f: &[f64], ld: usize) -> f64 {
    let l = |i: usize, j: usize| -> f64 {
        // Lower factor element (i, j), i >= j.
        match uplo {
            Uplo::Lower => f[i + j * ld],
            Uplo::Upper => f[j + i * ld],
        }
    };
    let mut r = vec![0.0; n * n];
    for j in 0..n {
        for i in j..n {
            let mut s = 0.0;
            for k in 0..=j {
                s += l(i, k) * l(j, k);
            }
            let d = a[i + j * ld] - s;
            r[i + j * n] = d;
            r[j + i * n] = d;
        }
    }
    fnorm(&r, n, n, n) / (n.max(1) as f64 * fnorm(a, n, n, ld).max(f64::MIN_POSITIVE) * eps())
}

/// Asserts that rows m..ld are unchanged and, when `tri` is given, that the triangle opposite it
/// (strictly) is unchanged.
pub fn assert_untouched_outside(
    before: &[f64],
    after: &[f64],
    m: usize,
    n: usize,
    ld: usize,
    tri: Option<Uplo>,
) {
    for j in 0..n {
        for i in 0..ld {
            let outside = i >= m
                || match tri {
                    Some(Uplo::Lower) => i < j,
                    Some(Uplo::Upper) => i > j,
                    None => false,
                };
            if outside {
                assert_eq!(
                    before[i + j * ld].to_bits(),
                    after[i + j * ld].to_bits(),
                    "element ({i},{j}) outside the matrix was written"
                );
            }
        }
    }
}

/// INFO of the backend's dpotrf on a copy.
pub fn reference_potrf_info(uplo: Uplo, n: usize, a: &mut [f64]) -> i32 {
    let mut info = 0;
    // SAFETY: `a` holds an n×n matrix with leading dimension n.
    unsafe {
        crate::backend::lapack::dpotrf(
            crate::backend::lapack::ch(uplo.ch()),
            &(n as i32),
            a.as_mut_ptr(),
            &(n as i32),
            &mut info,
            1,
        )
    };
    info
}
