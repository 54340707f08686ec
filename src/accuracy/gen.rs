//! Seeded inputs per class: general, symmetric positive definite, triangular and block
//! tridiagonal matrices with a chosen condition number, grading or scale, and the corruptions
//! (a zero column, a zero row, a NaN, an Inf) applied to whatever array a routine receives.

use super::Class;
use crate::backend::lapack as bk;
use crate::backend::BlasThreadsGuard;
use crate::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A small deterministic generator (splitmix64), with normal deviates by Box–Muller.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    /// A standard normal deviate.
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
    /// `len` standard normal deviates.
    pub fn normals(&mut self, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.normal()).collect()
    }
}

/// Where in a routine's input array a corruption goes: the whole m×n array, both triangles of a
/// symmetric matrix, or only the triangle the routine reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    Full,
    Symmetric,
    Upper,
    Lower,
}

/// The column a `ZeroCol` input zeroes: inside the matrix and, for the tile sizes the tests use,
/// not on a tile edge.
pub fn zero_col(n: usize) -> usize {
    (n / 3 + 1).min(n - 1)
}

/// The row a `ZeroRow` input zeroes.
pub fn zero_row(m: usize) -> usize {
    (2 * m / 3).min(m - 1)
}

/// The position of the NaN or Inf of a `Nan` or `Inf` input (row, column), off the diagonal.
fn bad_entry(m: usize, n: usize) -> (usize, usize) {
    ((m / 2).min(m - 1), (n / 3).min(n - 1))
}

/// Applies `class`'s corruption (if it is one) to the m×n array `a` (leading dimension `ld`),
/// inside `region`: a zero column [`zero_col`], a zero row [`zero_row`] (row and column of a
/// symmetric matrix; inside the triangle of a triangular one, so its diagonal entry is zero), or
/// one NaN or Inf off the diagonal (mirrored in a symmetric matrix).
pub fn corrupt<T: Scalar>(class: Class, a: &mut [T], m: usize, n: usize, ld: usize, region: Region) {
    let in_region = |i: usize, j: usize| match region {
        Region::Full | Region::Symmetric => true,
        Region::Upper => i <= j,
        Region::Lower => i >= j,
    };
    let zero_line = |a: &mut [T], col: Option<usize>, row: Option<usize>| {
        for j in 0..n {
            for i in 0..m {
                if (Some(j) == col || Some(i) == row) && in_region(i, j) {
                    a[i + j * ld] = T::zero();
                }
            }
        }
    };
    match class {
        Class::ZeroCol => {
            let j = zero_col(n);
            let row = (region == Region::Symmetric).then_some(j);
            zero_line(a, Some(j), row);
        }
        Class::ZeroRow => {
            let i = zero_row(m);
            let col = (region == Region::Symmetric).then_some(i);
            zero_line(a, col, Some(i));
        }
        Class::Nan | Class::Inf => {
            let v = T::from_f64(if class == Class::Nan { f64::NAN } else { f64::INFINITY });
            let (p, q) = bad_entry(m, n);
            let (i, j) = match region {
                Region::Upper => (p.min(q), p.max(q)),
                _ => (p.max(q), p.min(q)),
            };
            a[i + j * ld] = v;
            if region == Region::Symmetric {
                a[j + i * ld] = v;
            }
        }
        _ => {}
    }
}

type Cache = Mutex<HashMap<(usize, u64), Arc<Vec<f64>>>>;

/// The orthogonal matrices [`orthogonal`] made, by size and seed.
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// A random n×n orthogonal matrix (Q of the QR of a normal matrix), kept until
/// [`forget_orthogonal`]: the conditioned inputs of every routine and class at this size and seed
/// share it.
pub fn orthogonal(n: usize, seed: u64) -> Arc<Vec<f64>> {
    if let Some(q) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&(n, seed)) {
        return q.clone();
    }
    let mut q = Rng::new(seed.wrapping_mul(1_000_003) ^ n as u64).normals(n * n);
    let mut tau = vec![0.0; n];
    geqrf(n, n, &mut q, &mut tau);
    orgqr(n, n, n, &mut q, &tau);
    let q = Arc::new(q);
    cache().lock().unwrap_or_else(|e| e.into_inner()).insert((n, seed), q.clone());
    q
}

/// Drops the matrices [`orthogonal`] and `unitary` keep (the benchmark, between sizes).
pub fn forget_orthogonal() {
    cache().lock().unwrap_or_else(|e| e.into_inner()).clear();
    unitaries().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

type UnitaryCache = Mutex<HashMap<(usize, usize, u64), Arc<Vec<(f64, f64)>>>>;

/// The unitary columns [`unitary`] made, by order, count and seed.
fn unitaries() -> &'static UnitaryCache {
    static CACHE: OnceLock<UnitaryCache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The backend's xGEQRF of `a`'s type on the m×n matrix `a` (leading dimension m), one BLAS
/// thread.
pub fn geqrf<T: Scalar>(m: usize, n: usize, a: &mut [T], tau: &mut [T]) {
    let (mi, ni) = (m as i32, n as i32);
    let ld = m.max(1) as i32;
    let (mut info, mut q) = (0, T::zero());
    let _one = BlasThreadsGuard::new();
    // SAFETY: a workspace query writes one element of `q`.
    unsafe { bk::geqrf::<T>(&mi, &ni, a.as_mut_ptr(), &ld, tau.as_mut_ptr(), &mut q, &-1, &mut info) };
    let mut work = vec![T::zero(); (q.re().into() as usize).max(1)];
    // SAFETY: `a` holds m×n, `tau` min(m, n), `work` the size the query asked for.
    unsafe {
        bk::geqrf::<T>(
            &mi,
            &ni,
            a.as_mut_ptr(),
            &ld,
            tau.as_mut_ptr(),
            work.as_mut_ptr(),
            &(work.len() as i32),
            &mut info,
        )
    };
    assert_eq!(info, 0, "reference geqrf");
}

/// The backend's DORGQR: the first n columns of Q from k reflectors in `a` (m×n, leading
/// dimension m), one BLAS thread.
pub fn orgqr(m: usize, n: usize, k: usize, a: &mut [f64], tau: &[f64]) {
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    let ld = m.max(1) as i32;
    let (mut info, mut q) = (0, 0.0);
    let _one = BlasThreadsGuard::new();
    // SAFETY: a workspace query writes one element of `q`.
    unsafe { bk::dorgqr(&mi, &ni, &ki, a.as_mut_ptr(), &ld, tau.as_ptr(), &mut q, &-1, &mut info) };
    let mut work = vec![0.0; (q as usize).max(1)];
    // SAFETY: `a` holds m×n, `tau` k scalars, `work` the size the query asked for.
    unsafe {
        bk::dorgqr(
            &mi,
            &ni,
            &ki,
            a.as_mut_ptr(),
            &ld,
            tau.as_ptr(),
            work.as_mut_ptr(),
            &(work.len() as i32),
            &mut info,
        )
    };
    assert_eq!(info, 0, "reference dorgqr");
}

/// C ← A·op(B) for A m×k and op(B) k×n (`bt`: B is n×k), all with leading dimension their rows,
/// by the backend, one BLAS thread.
fn product(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], bt: bool) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    let ldb = if bt { n } else { k }.max(1) as i32;
    let _one = BlasThreadsGuard::new();
    // SAFETY: a is m×k (ld m), b is k×n or n×k (ld ldb), c is m×n (ld m).
    unsafe {
        bk::dgemm(
            bk::ch(b'N'),
            bk::ch(if bt { b'T' } else { b'N' }),
            &mi,
            &ni,
            &ki,
            &1.0,
            a.as_ptr(),
            &(m.max(1) as i32),
            b.as_ptr(),
            &ldb,
            &0.0,
            c.as_mut_ptr(),
            &(m.max(1) as i32),
            1,
            1,
        )
    };
    c
}

/// Singular values from 1 down to 1/κ, geometrically.
fn graded_values(k: usize, kappa: f64) -> Vec<f64> {
    (0..k).map(|i| if k == 1 { 1.0 } else { kappa.powf(-(i as f64) / (k - 1) as f64) }).collect()
}

/// 10^(−100 + 200·i/(len−1)): the row or column scales of a graded input.
pub fn grading(i: usize, len: usize) -> f64 {
    grading_in(i, len, false)
}

/// [`grading`], or for a single precision input 10^(−15 + 30·i/(len−1)), whose products of a
/// row's and a column's scale stay inside single's range (1e±38).
fn grading_in(i: usize, len: usize, single: bool) -> f64 {
    let e = if single { 15.0 } else { 100.0 };
    let t = if len > 1 { i as f64 / (len - 1) as f64 } else { 0.5 };
    10f64.powf(-e + 2.0 * e * t)
}

/// The scale of a `Big` or `Tiny` input, else 1.
fn magnitude(class: Class) -> f64 {
    magnitude_in(class, false)
}

/// [`magnitude`], single's near overflow and underflow for a single precision input.
fn magnitude_in(class: Class, single: bool) -> f64 {
    match (class, single) {
        (Class::Big, false) => 1e300,
        (Class::Tiny, false) => 1e-300,
        (Class::Big, true) => 1e36,
        (Class::Tiny, true) => 1e-36,
        _ => 1.0,
    }
}

/// The condition number of a condition class, single's own for a single precision input
/// (1e3, 1e5, 1e7: as far below and up to its 1/ε as double's 1e6, 1e10, 1e14 are below 1/ε).
fn kappa_in(class: Class, single: bool) -> Option<f64> {
    let k = class.kappa()?;
    Some(match (single, class) {
        (false, _) => k,
        (true, Class::Cond6) => 1e3,
        (true, Class::Cond10) => 1e5,
        (true, _) => 1e7,
    })
}

/// What [`recent`] keeps a matrix under: (general or symmetric, class, m, n, seed).
type Key = (bool, Class, usize, usize, u64);

/// `make()`, or the copy kept from the last time it was asked for with `key`: the last few
/// inputs are kept, since the routines of one class and seed (cases run class after class) start
/// from the same matrix, whose making (a product of order n) costs as much as a routine.
fn recent(key: Key, make: impl FnOnce() -> Vec<f64>) -> Vec<f64> {
    static KEPT: Mutex<Vec<(Key, Arc<Vec<f64>>)>> = Mutex::new(Vec::new());
    let found =
        KEPT.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|k| k.0 == key).map(|k| k.1.clone());
    if let Some(a) = found {
        return a.to_vec();
    }
    let a = Arc::new(make());
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() == 6 {
        kept.remove(0);
    }
    kept.push((key, a.clone()));
    a.to_vec()
}

/// The m×n general input of `class` (leading dimension m), seeded: a normal matrix (`Well`, and
/// the base of the corruptions, `Big` and `Tiny`); U·diag(σ)·Vᵀ with random orthogonal U, V and
/// σ from 1 to 1/κ (the condition classes); D₁·A·D₂ with rows and columns graded from 1e-100 to
/// 1e100 (`Graded`).
pub fn general(class: Class, m: usize, n: usize, seed: u64) -> Vec<f64> {
    recent((false, class, m, n, seed), || make_general(class, m, n, seed, false))
}

fn make_general(class: Class, m: usize, n: usize, seed: u64, single: bool) -> Vec<f64> {
    let mut a = match kappa_in(class, single) {
        Some(kappa) => {
            let k = m.min(n);
            let (u, v) = (orthogonal(m, seed), orthogonal(n, seed + 7777));
            let s = graded_values(k, kappa);
            let sj = |j: usize| s[j];
            let us: Vec<f64> =
                (0..k).flat_map(|j| u[j * m..(j + 1) * m].iter().map(move |x| x * sj(j))).collect();
            product(m, n, k, &us, &v[..n * k], true)
        }
        None => Rng::new(seed).normals(m * n),
    };
    if class == Class::Graded {
        for j in 0..n {
            for i in 0..m {
                a[i + j * m] *= grading_in(i, m, single) * grading_in(j, n, single);
            }
        }
    }
    let s = magnitude_in(class, single);
    a.iter_mut().for_each(|x| *x *= s);
    corrupt(class, &mut a, m, n, m, Region::Full);
    a
}

/// The n×n symmetric positive definite input of `class` (both triangles, leading dimension n):
/// Q·diag(σ)·Qᵀ with σ from 1 to 1/κ (κ = 10 for `Well`), D·A·D graded over 1e±100, scaled by
/// 1e±300, or corrupted in both triangles.
pub fn spd(class: Class, n: usize, seed: u64) -> Vec<f64> {
    recent((true, class, n, n, seed), || make_spd(class, n, seed, false))
}

fn make_spd(class: Class, n: usize, seed: u64, single: bool) -> Vec<f64> {
    let q = orthogonal(n, seed + 31);
    let s: Vec<f64> =
        graded_values(n, kappa_in(class, single).unwrap_or(10.0)).iter().map(|x| x.sqrt()).collect();
    let sj = |j: usize| s[j];
    let qs: Vec<f64> = (0..n).flat_map(|j| q[j * n..(j + 1) * n].iter().map(move |x| x * sj(j))).collect();
    let mut a = product(n, n, n, &qs, &qs, true);
    for j in 0..n {
        for i in j + 1..n {
            a[j + i * n] = a[i + j * n];
        }
    }
    let mag = magnitude_in(class, single);
    for j in 0..n {
        for i in 0..n {
            let d = if class == Class::Graded {
                grading_in(i, n, single) * grading_in(j, n, single)
            } else {
                1.0
            };
            a[i + j * n] *= d * mag;
        }
    }
    corrupt(class, &mut a, n, n, n, Region::Symmetric);
    a
}

/// [`general`] in the element type `T`: single precision's with its own scales (`kappa_in`,
/// `grading_in`, `magnitude_in`) rounded to single; a complex one with complex entries: normal
/// real and imaginary parts, U·diag(σ)·Vᴴ with random unitary U and V for the condition
/// classes, graded and scaled and corrupted as a real one.
pub fn general_of<T: Scalar>(class: Class, m: usize, n: usize, seed: u64) -> Vec<T> {
    let single = T::eps() > 1e-10;
    if T::COMPLEX {
        let mut t: Vec<T> = complex_general(class, m, n, seed, single)
            .into_iter()
            .map(|(re, im)| T::from_parts(re, im))
            .collect();
        corrupt(class, &mut t, m, n, m, Region::Full);
        t
    } else {
        let a = if single { make_general(class, m, n, seed, true) } else { general(class, m, n, seed) };
        a.into_iter().map(T::from_f64).collect()
    }
}

/// The complex general input of `class` at single's scales or double's, as (re, im) pairs in
/// double, not corrupted.
fn complex_general(class: Class, m: usize, n: usize, seed: u64, single: bool) -> Vec<(f64, f64)> {
    {
        let mut a = match kappa_in(class, single) {
            Some(kappa) => {
                let k = m.min(n);
                let (u, v) = (unitary(m, k, seed), unitary(n, k, seed + 7777));
                let s = graded_values(k, kappa);
                let mut a = vec![(0.0, 0.0); m * n];
                for j in 0..n {
                    for l in 0..k {
                        // σ_l·conj(V[j, l])
                        let (vr, vi) = v[j + l * n];
                        let (wr, wi) = (s[l] * vr, -s[l] * vi);
                        for i in 0..m {
                            let (ur, ui) = u[i + l * m];
                            let e = &mut a[i + j * m];
                            e.0 += ur * wr - ui * wi;
                            e.1 += ur * wi + ui * wr;
                        }
                    }
                }
                a
            }
            None => {
                let mut rng = Rng::new(seed);
                (0..m * n).map(|_| (rng.normal(), rng.normal())).collect()
            }
        };
        let mag = magnitude_in(class, single);
        for j in 0..n {
            for i in 0..m {
                let d = if class == Class::Graded {
                    grading_in(i, m, single) * grading_in(j, n, single)
                } else {
                    1.0
                };
                let e = &mut a[i + j * m];
                *e = (e.0 * d * mag, e.1 * d * mag);
            }
        }
        a
    }
}

/// [`spd`] in the element type `T` (Hermitian positive definite for a complex one:
/// Q·diag(σ)·Qᴴ with a random unitary Q, its diagonal real).
pub fn spd_of<T: Scalar>(class: Class, n: usize, seed: u64) -> Vec<T> {
    let single = T::eps() > 1e-10;
    if T::COMPLEX {
        let q = unitary(n, n, seed + 31);
        let s = graded_values(n, kappa_in(class, single).unwrap_or(10.0));
        let mag = magnitude_in(class, single);
        let mut a = vec![T::zero(); n * n];
        for j in 0..n {
            for i in j..n {
                // Σ_l Q[i, l]·σ_l·conj(Q[j, l])
                let (mut re, mut im) = (0.0, 0.0);
                for l in 0..n {
                    let ((ar, ai), (br, bi)) = (q[i + l * n], q[j + l * n]);
                    re += s[l] * (ar * br + ai * bi);
                    im += s[l] * (ai * br - ar * bi);
                }
                let d = if class == Class::Graded {
                    grading_in(i, n, single) * grading_in(j, n, single)
                } else {
                    1.0
                };
                let (re, im) = (re * d * mag, if i == j { 0.0 } else { im * d * mag });
                a[i + j * n] = T::from_parts(re, im);
                a[j + i * n] = T::from_parts(re, -im);
            }
        }
        corrupt(class, &mut a, n, n, n, Region::Symmetric);
        a
    } else {
        let a = if single { make_spd(class, n, seed, true) } else { spd(class, n, seed) };
        a.into_iter().map(T::from_f64).collect()
    }
}

/// R of the QR of the class's n×n general input in the element type `T` (the class's
/// condition number in a triangle), with the reflectors (or, for a complex one, the Gram–Schmidt
/// coefficients' zeros) below it: the backend's DGEQRF for a real type, classical Gram–Schmidt
/// twice in double complex for a complex one. Not corrupted.
pub fn triangle_of<T: Scalar>(class: Class, n: usize, seed: u64) -> Vec<T> {
    let single = T::eps() > 1e-10;
    if !T::COMPLEX {
        let mut t = if single { make_general(class, n, n, seed, true) } else { general(class, n, n, seed) };
        geqrf(n, n, &mut t, &mut vec![0.0; n]);
        return t.into_iter().map(T::from_f64).collect();
    }
    let mut q = complex_general(class, n, n, seed, single);
    let a: Vec<T> = q.iter().map(|z| T::from_parts(z.0, z.1)).collect();
    // Gram–Schmidt on the columns scaled to a largest part of 1 (no overflow in the sums of
    // squares of a graded or big matrix); R is then scaled back: A = Q·R̂·C, R = R̂·C.
    let scale: Vec<f64> = (0..n)
        .map(|j| {
            let c = q[j * n..(j + 1) * n].iter().fold(0.0f64, |m, z| m.max(z.0.abs()).max(z.1.abs()));
            if c > 0.0 && c.is_finite() {
                c
            } else {
                1.0
            }
        })
        .collect();
    for j in 0..n {
        q[j * n..(j + 1) * n].iter_mut().for_each(|z| *z = (z.0 / scale[j], z.1 / scale[j]));
    }
    let mut r = vec![T::zero(); n * n];
    for j in 0..n {
        let rj = orthonormalize(&mut q, n, j);
        for (l, &(re, im)) in rj.iter().enumerate() {
            r[l + j * n] = T::from_parts(re * scale[j], im * scale[j]);
        }
    }
    // Below the diagonal: A's entries, which the routine must not read.
    for j in 0..n {
        for i in j + 1..n {
            r[i + j * n] = a[i + j * n];
        }
    }
    r
}

/// k orthonormal columns of order n (k ≤ n) in complex arithmetic: classical Gram–Schmidt,
/// twice, on normal complex columns, as (re, im) pairs, column-major. Kept until
/// [`forget_orthogonal`], as [`orthogonal`] keeps its matrices: every routine of a class and
/// seed builds its input from the same columns, and making them was 30% of the complex
/// accuracy tests' time (`perf` of `lu_single_and_complex`, 2026-11-29).
fn unitary(n: usize, k: usize, seed: u64) -> Arc<Vec<(f64, f64)>> {
    if let Some(q) = unitaries().lock().unwrap_or_else(|e| e.into_inner()).get(&(n, k, seed)) {
        return q.clone();
    }
    let mut rng = Rng::new(seed.wrapping_mul(1_000_033) ^ n as u64 ^ 0xC0);
    let mut q: Vec<(f64, f64)> = (0..n * k).map(|_| (rng.normal(), rng.normal())).collect();
    for j in 0..k {
        orthonormalize(&mut q, n, j);
    }
    let q = Arc::new(q);
    unitaries().lock().unwrap_or_else(|e| e.into_inner()).insert((n, k, seed), q.clone());
    q
}

/// Column j of the complex n-row columns `q` made orthonormal to columns 0..j (classical
/// Gram–Schmidt, twice) and of norm 1; returns R's column: the coefficients q_lᴴ·q_j, summed
/// over both passes, and the norm.
fn orthonormalize(q: &mut [(f64, f64)], n: usize, j: usize) -> Vec<(f64, f64)> {
    let mut rj = vec![(0.0, 0.0); j + 1];
    for _ in 0..2 {
        for l in 0..j {
            // c = q_lᴴ·q_j; q_j −= c·q_l
            let (mut cr, mut ci) = (0.0, 0.0);
            for i in 0..n {
                let ((ar, ai), (br, bi)) = (q[i + l * n], q[i + j * n]);
                cr += ar * br + ai * bi;
                ci += ar * bi - ai * br;
            }
            for i in 0..n {
                let (ar, ai) = q[i + l * n];
                let e = &mut q[i + j * n];
                e.0 -= cr * ar - ci * ai;
                e.1 -= cr * ai + ci * ar;
            }
            rj[l].0 += cr;
            rj[l].1 += ci;
        }
    }
    let nrm = (0..n).map(|i| q[i + j * n].0.powi(2) + q[i + j * n].1.powi(2)).sum::<f64>().sqrt();
    for i in 0..n {
        let e = &mut q[i + j * n];
        *e = (e.0 / nrm, e.1 / nrm);
    }
    rj[j] = (nrm, 0.0);
    rj
}

/// A block tridiagonal matrix: `nb` block rows of m×m blocks, stored as `dbtsv` takes them.
#[derive(Clone)]
pub struct Blocks {
    pub nb: usize,
    pub m: usize,
    pub dl: Vec<f64>,
    pub d: Vec<f64>,
    pub du: Vec<f64>,
}

impl Blocks {
    pub fn order(&self) -> usize {
        self.nb * self.m
    }
    /// The array and index holding entry (i, j) of the whole matrix, if it is in a block.
    fn at(&self, i: usize, j: usize) -> Option<(usize, usize)> {
        let (m, mm) = (self.m, self.m * self.m);
        let (x, y, r, c) = (i / m, j / m, i % m, j % m);
        let k = r + c * m;
        if x == y {
            Some((1, x * mm + k))
        } else if x == y + 1 {
            Some((0, y * mm + k))
        } else if y == x + 1 {
            Some((2, x * mm + k))
        } else {
            None
        }
    }
    /// Entry (i, j) of the whole matrix.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match self.at(i, j) {
            Some((0, k)) => self.dl[k],
            Some((1, k)) => self.d[k],
            Some((_, k)) => self.du[k],
            None => 0.0,
        }
    }
    fn set(&mut self, i: usize, j: usize, v: f64) {
        match self.at(i, j) {
            Some((0, k)) => self.dl[k] = v,
            Some((1, k)) => self.d[k] = v,
            Some((_, k)) => self.du[k] = v,
            None => {}
        }
    }
    /// The rows of column j inside the band of blocks.
    pub fn rows(&self, j: usize) -> std::ops::Range<usize> {
        let y = j / self.m;
        y.saturating_sub(1) * self.m..((y + 2) * self.m).min(self.order())
    }

    /// The input of `class` with `nb` block rows of m×m blocks: random blocks whose diagonal
    /// blocks are made block diagonally dominant and then need row interchanges (rows reversed,
    /// diagonal shrunk; the blocks the solver's tests use), since the block eliminations pivot
    /// only inside diagonal blocks. Condition classes: columns scaled from 1 down to 1/κ (the
    /// block structure kept); `Graded`: rows and columns over 1e±100; `ZeroRow` zeroes the last
    /// row (a zero row elsewhere makes the block LU of that row's diagonal block singular at its
    /// last local row, an INFO that depends on the elimination order, where DGBSV's is the last
    /// column).
    pub fn random(class: Class, nb: usize, m: usize, seed: u64) -> Blocks {
        let mut rng = Rng::new(seed ^ 0xB7);
        let mm = m * m;
        let off = nb.saturating_sub(1) * mm;
        let (dl, du) = (rng.normals(off), rng.normals(off));
        let mut d = rng.normals(nb * mm);
        for blk in d.chunks_mut(mm) {
            for j in 0..m {
                blk[j + j * m] += 3.0 * m as f64;
            }
            for j in 0..m {
                for i in 0..m / 2 {
                    blk.swap(i + j * m, m - 1 - i + j * m);
                }
                if 2 * j + 1 != m {
                    blk[j + j * m] *= 1e-3;
                }
            }
        }
        let mut a = Blocks { nb, m, dl, d, du };
        let n = a.order();
        let mag = magnitude(class);
        for j in 0..n {
            let cs = match class.kappa() {
                Some(kappa) => kappa.powf(-(j as f64) / (n - 1).max(1) as f64),
                None if class == Class::Graded => grading(j, n),
                None => 1.0,
            };
            for i in a.rows(j) {
                let rs = if class == Class::Graded { grading(i, n) } else { 1.0 };
                a.set(i, j, a.get(i, j) * cs * rs * mag);
            }
        }
        match class {
            Class::ZeroCol => (0..n).for_each(|i| a.set(i, zero_col(n), 0.0)),
            Class::ZeroRow => (0..n).for_each(|j| a.set(n - 1, j, 0.0)),
            Class::Nan | Class::Inf => {
                let x = nb / 2;
                let v = if class == Class::Nan { f64::NAN } else { f64::INFINITY };
                a.set(x * m + (m - 1), x * m, v);
            }
            _ => {}
        }
        a
    }

    /// The whole matrix in LAPACK's band storage for DGBTRF, kl = ku = 2m − 1: (AB, kl, LDAB).
    pub fn band(&self) -> (Vec<f64>, usize, usize) {
        let n = self.order();
        let k = (2 * self.m).saturating_sub(1);
        let ldab = 3 * k + 1;
        let mut ab = vec![0.0; ldab * n];
        for j in 0..n {
            for i in j.saturating_sub(k)..(j + k + 1).min(n) {
                ab[2 * k + i - j + j * ldab] = self.get(i, j);
            }
        }
        (ab, k, ldab)
    }
}
