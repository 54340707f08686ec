//! Double-double arithmetic (about 106 bits) for the measures. A residual such as A·x − L·(U·x)
//! computed in f64 carries rounding errors of the same size as the backward error it is meant to
//! show, so two results' measures would differ mostly by the measurement's own rounding; in
//! double-double the measurement is exact to far below both. The products are matrix–vector
//! products along a few random probe vectors (the same probes for the reference and for hetla),
//! which costs O(n²) per measure, so the benchmark can measure n = 3000.

use std::ops::{Add, Mul, Range, Sub};

/// hi + lo with |lo| ≤ ulp(hi)/2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dd {
    pub hi: f64,
    pub lo: f64,
}

/// a + b = s + e exactly.
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// a + b = s + e exactly, for |a| ≥ |b|.
#[inline(always)]
fn fast_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    Dd { hi: s, lo: b - (s - a) }
}

impl Dd {
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };

    pub fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }
    pub fn value(self) -> f64 {
        self.hi + self.lo
    }
}

impl Add for Dd {
    type Output = Dd;
    #[inline(always)]
    fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        fast_two_sum(s, e + self.lo + o.lo)
    }
}

impl Sub for Dd {
    type Output = Dd;
    #[inline(always)]
    fn sub(self, o: Dd) -> Dd {
        self + Dd { hi: -o.hi, lo: -o.lo }
    }
}

impl Mul<f64> for Dd {
    type Output = Dd;
    /// self·a.
    #[inline(always)]
    fn mul(self, a: f64) -> Dd {
        let p = self.hi * a;
        fast_two_sum(p, self.hi.mul_add(a, -p) + self.lo * a)
    }
}

/// Whether the CPU has FMA, with which `Dd * f64`'s exact product is one instruction (a library
/// call otherwise: the crate is built for the baseline x86-64). The loops below are compiled
/// twice, with and without it.
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// y = op(M)·x in double-double for the m×n matrix M whose column j is nonzero only in rows
/// `rows(j)`, with entries `get(i, j)` there; op(M) = Mᵀ when `trans`.
pub fn apply(
    dims: (usize, usize),
    trans: bool,
    x: &[Dd],
    rows: impl Fn(usize) -> Range<usize>,
    get: impl Fn(usize, usize) -> f64,
) -> Vec<Dd> {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        /// # Safety
        /// The CPU must have FMA.
        #[target_feature(enable = "fma")]
        unsafe fn fma(
            dims: (usize, usize),
            trans: bool,
            x: &[Dd],
            rows: impl Fn(usize) -> Range<usize>,
            get: impl Fn(usize, usize) -> f64,
        ) -> Vec<Dd> {
            apply_body(dims, trans, x, rows, get)
        }
        // SAFETY: the CPU has FMA (`has_fma`), the only feature `fma` is compiled with.
        return unsafe { fma(dims, trans, x, rows, get) };
    }
    apply_body(dims, trans, x, rows, get)
}

#[inline(always)]
fn apply_body(
    (m, n): (usize, usize),
    trans: bool,
    x: &[Dd],
    rows: impl Fn(usize) -> Range<usize>,
    get: impl Fn(usize, usize) -> f64,
) -> Vec<Dd> {
    if trans {
        let mut y = Vec::with_capacity(n);
        for j in 0..n {
            let mut s = Dd::ZERO;
            for i in rows(j) {
                s = s.add(x[i].mul(get(i, j)));
            }
            y.push(s);
        }
        y
    } else {
        let mut y = vec![Dd::ZERO; m];
        for (j, xj) in x.iter().enumerate().take(n) {
            if *xj != Dd::ZERO {
                for i in rows(j) {
                    y[i] = y[i].add(xj.mul(get(i, j)));
                }
            }
        }
        y
    }
}

/// Which entries of a column-major array a matrix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Full,
    /// The upper trapezoid; ones on the diagonal when `unit` (the stored diagonal not read).
    Upper {
        unit: bool,
    },
    /// The lower trapezoid; ones on the diagonal when `unit`.
    Lower {
        unit: bool,
    },
    /// Symmetric, stored in the lower (or upper) triangle.
    Sym {
        lower: bool,
    },
}

/// An m×n matrix in a column-major array with leading dimension `ld`, read through a shape.
///
/// A complex matrix ([`Mat::complex`]: entry (i, j) is re, im at 2·(i + j·ld) and the next
/// index) is read as its real form of order 2m×2n, each entry x + iy the 2×2 block
/// [x −y; y x], and vectors as their real and imaginary parts interleaved: then its product with
/// a vector is the complex product, its transpose's the conjugate transpose's, and its shapes are
/// those of the complex matrix (a unit diagonal is the identity block).
#[derive(Clone, Copy)]
pub struct Mat<'a> {
    pub a: &'a [f64],
    pub m: usize,
    pub n: usize,
    pub ld: usize,
    pub shape: Shape,
    complex: bool,
}

impl<'a> Mat<'a> {
    pub fn new(a: &'a [f64], m: usize, n: usize, ld: usize, shape: Shape) -> Self {
        Mat { a, m, n, ld, shape, complex: false }
    }
    /// The complex m×n matrix whose parts `a` interleaves (`Shape::Sym`: Hermitian, the other
    /// triangle the conjugate of the stored one).
    pub fn complex(a: &'a [f64], m: usize, n: usize, ld: usize, shape: Shape) -> Self {
        Mat { a, m, n, ld, shape, complex: true }
    }
    /// `new` or `complex`, by `complex`.
    pub fn of(complex: bool, a: &'a [f64], m: usize, n: usize, ld: usize, shape: Shape) -> Self {
        if complex {
            Mat::complex(a, m, n, ld, shape)
        } else {
            Mat::new(a, m, n, ld, shape)
        }
    }
    /// Entry (i, j) of the matrix (of its real form, for a complex one).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        if self.complex {
            let (ci, cj) = (i / 2, j / 2);
            let at = |i: usize, j: usize| (self.a[2 * (i + j * self.ld)], self.a[2 * (i + j * self.ld) + 1]);
            let (re, im) = match self.shape {
                Shape::Upper { unit: true } | Shape::Lower { unit: true } if ci == cj => (1.0, 0.0),
                Shape::Sym { lower } if lower == (ci < cj) => {
                    let (re, im) = at(cj, ci);
                    (re, -im)
                }
                _ => at(ci, cj),
            };
            return match (i % 2, j % 2) {
                (0, 1) => -im,
                (1, 0) => im,
                _ => re,
            };
        }
        match self.shape {
            Shape::Upper { unit: true } | Shape::Lower { unit: true } if i == j => 1.0,
            Shape::Sym { lower } if lower == (i < j) => self.a[j + i * self.ld],
            _ => self.a[i + j * self.ld],
        }
    }
    /// The rows of column `j` (of the real form) inside the shape.
    pub fn rows(&self, j: usize) -> Range<usize> {
        let w = if self.complex { 2 } else { 1 };
        let (j, m) = (j / w, self.m);
        let r = match self.shape {
            Shape::Upper { .. } => 0..(j + 1).min(m),
            Shape::Lower { .. } => j.min(m)..m,
            _ => 0..m,
        };
        w * r.start..w * r.end
    }
    /// op(M)·x in double-double (op: the transpose, the conjugate transpose of a complex M).
    pub fn apply(&self, trans: bool, x: &[Dd]) -> Vec<Dd> {
        let w = if self.complex { 2 } else { 1 };
        apply((w * self.m, w * self.n), trans, x, |j| self.rows(j), |i, j| self.get(i, j))
    }
    /// ‖M‖_F (of the complex matrix, for a complex one).
    pub fn fnorm(&self) -> f64 {
        let w = if self.complex { 2 } else { 1 };
        // The even columns of the real form hold x and y of every complex entry once.
        norm((0..w * self.n).step_by(w).flat_map(|j| self.rows(j).map(move |i| self.get(i, j))))
    }
}

/// ‖v‖₂ without overflow or underflow (scaled by the largest magnitude); NaN if any is NaN.
pub fn norm(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let big = v.clone().fold(0.0f64, |m, x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x.abs()) });
    if big == 0.0 || !big.is_finite() {
        return big;
    }
    big * v.map(|x| (x / big) * (x / big)).sum::<f64>().sqrt()
}

/// ‖·‖_F of a set of double-double vectors, rounded to f64.
pub fn dd_norm(vs: &[Vec<Dd>]) -> f64 {
    norm(vs.iter().flatten().map(|d| d.value()))
}

/// LAPACK's row interchanges `ipiv` (1-based) applied to x: in order (Pᵀ·x, as DLASWP applies
/// them to A) or in reverse (P·x).
pub fn swap_rows(x: &mut [Dd], ipiv: &[i32], forward: bool) {
    let swap = |x: &mut [Dd], i: usize| x.swap(i, ipiv[i] as usize - 1);
    if forward {
        (0..ipiv.len()).for_each(|i| swap(x, i));
    } else {
        (0..ipiv.len()).rev().for_each(|i| swap(x, i));
    }
}

/// x ← Q·x (or Qᵀ·x) for Q = H₁·…·H_k, the reflectors as DGEQRF stores them: v_i below the
/// diagonal of column i of the m-row array `v` (leading dimension `ld`), a unit at row i, scalar
/// τ_i.
pub fn apply_q(v: &[f64], m: usize, ld: usize, tau: &[f64], trans: bool, x: &mut [Dd]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        /// # Safety
        /// The CPU must have FMA.
        #[target_feature(enable = "fma")]
        unsafe fn fma(v: &[f64], m: usize, ld: usize, tau: &[f64], trans: bool, x: &mut [Dd]) {
            apply_q_body(v, m, ld, tau, trans, x)
        }
        // SAFETY: the CPU has FMA (`has_fma`), the only feature `fma` is compiled with.
        return unsafe { fma(v, m, ld, tau, trans, x) };
    }
    apply_q_body(v, m, ld, tau, trans, x)
}

/// [`apply_q`] of a complex Q (`complex`: `v` and `tau` are interleaved parts, `ld` counted in
/// complex entries, `x` interleaved parts of length 2m): Q = H₁·…·H_k with H_i = I − τ_i·v_i·v_iᴴ,
/// applied as Q·x or (`trans`) Qᴴ·x, whose H_iᴴ takes conj(τ_i). A real Q is [`apply_q`]'s.
pub fn apply_q_of(complex: bool, v: &[f64], m: usize, ld: usize, tau: &[f64], trans: bool, x: &mut [Dd]) {
    if !complex {
        return apply_q(v, m, ld, tau, trans, x);
    }
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        /// # Safety
        /// The CPU must have FMA.
        #[target_feature(enable = "fma")]
        unsafe fn fma(v: &[f64], m: usize, ld: usize, tau: &[f64], trans: bool, x: &mut [Dd]) {
            apply_complex_q_body(v, m, ld, tau, trans, x)
        }
        // SAFETY: the CPU has FMA (`has_fma`), the only feature `fma` is compiled with.
        return unsafe { fma(v, m, ld, tau, trans, x) };
    }
    apply_complex_q_body(v, m, ld, tau, trans, x)
}

/// [`apply_q_of`]'s complex loop (compiled with and without FMA, as [`apply_q`]'s: without it
/// every `Dd * f64` was a library call, 20% of the complex QR accuracy tests' time).
#[inline(always)]
fn apply_complex_q_body(v: &[f64], m: usize, ld: usize, tau: &[f64], trans: bool, x: &mut [Dd]) {
    let k = tau.len() / 2;
    for s in 0..k {
        let i = if trans { s } else { k - 1 - s };
        let at = |r: usize| (v[2 * (r + i * ld)], v[2 * (r + i * ld) + 1]);
        // w = v_iᴴ·x, v_i's entry i being 1.
        let (mut wr, mut wi) = (x[2 * i], x[2 * i + 1]);
        for r in i + 1..m {
            let (vr, vi) = at(r);
            let (xr, xi) = (x[2 * r], x[2 * r + 1]);
            wr = wr + xr * vr + xi * vi;
            wi = wi + xi * vr - xr * vi;
        }
        let (tr, ti) = (tau[2 * i], if trans { -tau[2 * i + 1] } else { tau[2 * i + 1] });
        // t = τ·w (conj(τ)·w for Hᴴ), then x −= t·v_i.
        let (t_r, t_i) = (wr * tr - wi * ti, wr * ti + wi * tr);
        x[2 * i] = x[2 * i] - t_r;
        x[2 * i + 1] = x[2 * i + 1] - t_i;
        for r in i + 1..m {
            let (vr, vi) = at(r);
            x[2 * r] = x[2 * r] - (t_r * vr - t_i * vi);
            x[2 * r + 1] = x[2 * r + 1] - (t_r * vi + t_i * vr);
        }
    }
}

#[inline(always)]
fn apply_q_body(v: &[f64], m: usize, ld: usize, tau: &[f64], trans: bool, x: &mut [Dd]) {
    for t in 0..tau.len() {
        let i = if trans { t } else { tau.len() - 1 - t };
        let col = &v[i * ld..i * ld + m];
        let mut w = x[i];
        for r in i + 1..m {
            w = w.add(x[r].mul(col[r]));
        }
        let t = w.mul(tau[i]);
        x[i] = x[i].sub(t);
        for r in i + 1..m {
            x[r] = x[r].sub(t.mul(col[r]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_double_keeps_what_f64_loses() {
        // (1 + 2⁻⁶⁰) − 1 is 0 in f64 and exact here.
        let x = Dd::new(1.0).add(Dd::new(2f64.powi(-60))).sub(Dd::new(1.0));
        assert_eq!(x.value(), 2f64.powi(-60));
        // A product's rounding error is kept: (1 + 2⁻³⁰)² − 1 − 2⁻²⁹ = 2⁻⁶⁰.
        let a = 1.0 + 2f64.powi(-30);
        let y = Dd::new(a).mul(a).sub(Dd::new(1.0)).sub(Dd::new(2f64.powi(-29)));
        assert_eq!(y.value(), 2f64.powi(-60));
    }

    #[test]
    fn shapes_and_interchanges() {
        // 2×2 [1 2; 3 4]: the unit lower triangle is [1 0; 3 1], the symmetric one of the lower
        // triangle [1 3; 3 4].
        let a = [1.0, 3.0, 2.0, 4.0];
        let x = [Dd::new(1.0), Dd::new(1.0)];
        let v = |s| Mat::new(&a, 2, 2, 2, s).apply(false, &x).iter().map(|d| d.value()).collect::<Vec<_>>();
        assert_eq!(v(Shape::Full), [3.0, 7.0]);
        assert_eq!(v(Shape::Lower { unit: true }), [1.0, 4.0]);
        assert_eq!(v(Shape::Upper { unit: false }), [3.0, 4.0]);
        assert_eq!(v(Shape::Sym { lower: true }), [4.0, 7.0]);
        let mut p = [Dd::new(1.0), Dd::new(2.0), Dd::new(3.0)];
        swap_rows(&mut p, &[3, 3], true);
        assert_eq!(p.map(|d| d.value()), [3.0, 1.0, 2.0]);
        swap_rows(&mut p, &[3, 3], false);
        assert_eq!(p.map(|d| d.value()), [1.0, 2.0, 3.0]);
        assert_eq!(norm([3e300, 4e300].into_iter()), 5e300);
        let t = 2f64.powi(-1070);
        assert_eq!(norm([3.0 * t, 4.0 * t].into_iter()), 5.0 * t);
    }
}
