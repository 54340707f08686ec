//! The routine families: each builds a case's inputs once, calls the reference or hetla on a
//! fresh copy of them ([`Problem::run`]), lists the output entries LAPACK defines for the INFO
//! returned ([`Problem::defined`], where NaN must match) and measures an output
//! ([`Problem::measure`], the measures of [`Routine::measures`] in that order).
//!
//! Inputs whose routine takes a factorization (DPOTRS, DGETRS, the inverses, DORGQR, DORMQR)
//! get the reference's factorization of the class's matrix, so both sides solve, invert or form
//! Q from the same factors; for the corruption classes the factorization is the well-conditioned
//! matrix's, corrupted. The solves' residuals and the inverses' ‖AX − I‖, ‖XA − I‖ are taken
//! against the product of those factors (applied in double-double), which isolates the routine
//! from the factorization's own error.

use super::dd::{self, swap_rows, Dd, Mat, Shape};
use super::gen::{self, Blocks, Region, Rng};
use super::{Case, Class, Routine, Ty};
use crate::algo::bt::Method;
use crate::api;
use crate::backend::{forward, lapack as bk, BlasThreadsGuard};
use crate::config::{Config, Pivoting};
use crate::error::{info_of, Error};
use crate::graph::op::OpElem;
use crate::scalar::{c32, c64, Scalar};
use crate::tile::{Elem, Raw};
use std::ops::{Add, Mul, Sub};

/// Right-hand sides of the solves.
const NRHS: usize = 3;
/// Probe vectors per measure.
const PROBES: usize = 4;
/// The unit roundoff (LAPACK's DLAMCH('E')).
pub(crate) const EPS: f64 = f64::EPSILON / 2.0;

/// One side's outputs: INFO and the arrays the call wrote (those it did not write are empty).
pub(crate) struct Out {
    pub info: i32,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub aux: Vec<f64>,
    pub ipiv: Vec<i32>,
}

impl Out {
    fn new(info: i32) -> Out {
        Out { info, a: vec![], b: vec![], aux: vec![], ipiv: vec![] }
    }
}

/// `out` with every entry of its arrays multiplied by 1 + t·ε·`scale`, t uniform in [−1, 1),
/// seeded (the pivots as they are).
pub(crate) fn perturbed(out: &Out, seed: u64, scale: f64) -> Out {
    let mut rng = Rng::new(seed ^ 0xF100);
    let mut round = |v: &[f64]| -> Vec<f64> {
        v.iter().map(|&x| x * (1.0 + (2.0 * rng.uniform() - 1.0) * EPS * scale)).collect()
    };
    Out { info: out.info, a: round(&out.a), b: round(&out.b), aux: round(&out.aux), ipiv: out.ipiv.clone() }
}

pub(crate) trait Problem {
    /// The call on a fresh copy of the inputs: the reference's (`None`) or hetla's.
    fn run(&self, hetla: Option<&Config>) -> Out;
    /// The output entries LAPACK defines for `out.info`.
    fn defined(&self, out: &Out) -> Vec<f64>;
    /// The measures of `out`, or `None` where its INFO leaves nothing to measure.
    fn measure(&self, out: &Out) -> Option<Vec<f64>>;
    /// The unit roundoff of the routine's element type (the measures are in its units).
    fn eps(&self) -> f64 {
        EPS
    }
}

fn raw<T: Elem>(v: &mut [T]) -> Raw<T> {
    // SAFETY: every vector handed to a routine here is built at least as large as the routine
    // documents for the arguments passed with it, and nothing else uses it during the call.
    unsafe { Raw::new(v.as_mut_ptr()) }
}

/// The reference's INFO, with one BLAS thread (as the unit tests run the reference: OpenBLAS
/// 0.3.21's threaded DGETRF was seen writing out of bounds; see `testutil::reference_getrf`).
fn reference(call: impl FnOnce() -> i32) -> i32 {
    let _one = BlasThreadsGuard::new();
    call()
}

/// INFO of a hetla call.
fn info(r: Result<(), Error>) -> i32 {
    info_of(&r)
}

/// The optimal LWORK a workspace query of `call` answers (WORK(1)'s real part).
fn lwork<T: Scalar>(call: impl FnOnce(Raw<T>, i32) -> i32) -> usize {
    let mut w = [T::zero()];
    call(raw(&mut w), -1);
    (w[0].re().into() as usize).max(1)
}

/// `PROBES` normal vectors of length `len`, the same for both sides of a case.
fn probes(len: usize, seed: u64) -> Vec<Vec<Dd>> {
    let mut rng = Rng::new(seed ^ 0x9E0B);
    (0..PROBES).map(|_| rng.normals(len).into_iter().map(Dd::new).collect()).collect()
}

/// ‖lhs(p) − rhs(p)‖_F over the probes p, / ‖P‖_F / each of `scales` / ε.
fn probe_gap(
    ps: &[Vec<Dd>],
    lhs: impl Fn(&[Dd]) -> Vec<Dd>,
    rhs: impl Fn(&[Dd]) -> Vec<Dd>,
    scales: &[f64],
) -> f64 {
    let gaps: Vec<Vec<Dd>> =
        ps.iter().map(|p| lhs(p).iter().zip(rhs(p)).map(|(x, y)| x.sub(y)).collect()).collect();
    scales.iter().fold(dd::dd_norm(&gaps) / dd::dd_norm(ps), |g, s| g / s) / EPS
}

/// Columns `0..cols` of an array with `rows` rows used and leading dimension `ld`.
fn columns(v: &[f64], rows: usize, cols: usize, ld: usize) -> Vec<Vec<Dd>> {
    (0..cols).map(|c| v[c * ld..c * ld + rows].iter().map(|&x| Dd::new(x)).collect()).collect()
}

/// The residual ‖B − op(A)·X‖_F / (‖A‖_F·‖X‖_F + ‖B‖_F) / ε of a solve, op(A) applied by `a`.
fn residual(a: impl Fn(&[Dd]) -> Vec<Dd>, anorm: f64, b: &[Vec<Dd>], x: &[Vec<Dd>]) -> f64 {
    let r: Vec<Vec<Dd>> =
        b.iter().zip(x).map(|(b, x)| b.iter().zip(a(x)).map(|(u, v)| u.sub(v)).collect()).collect();
    let (xn, bn) = (dd::dd_norm(x), dd::dd_norm(b));
    // ‖R‖/‖A‖/(‖X‖ + ‖B‖/‖A‖): no product of norms, which overflows for graded inputs.
    dd::dd_norm(&r) / anorm / (xn + bn / anorm) / EPS
}

/// The entries of the leading k×k `lower` (or upper) triangle of an n×n array.
fn triangle(a: &[f64], n: usize, k: usize, lower: bool) -> Vec<f64> {
    triangle_parts(a, n, k, lower, 1)
}

/// [`triangle`] of an array of `w` reals per entry (2: a complex one's [`parts`]).
fn triangle_parts(a: &[f64], n: usize, k: usize, lower: bool, w: usize) -> Vec<f64> {
    (0..k)
        .flat_map(|j| {
            if lower { j..k } else { 0..j + 1 }
                .flat_map(move |i| a[w * (i + j * n)..w * (i + j * n + 1)].to_vec())
        })
        .collect()
}

/// The entries of `v` as reals: a real type's values, a complex type's real and imaginary parts
/// interleaved (how [`Mat::complex`] reads a matrix and its vectors).
fn parts<T: Scalar>(v: &[T]) -> Vec<f64> {
    if T::COMPLEX {
        v.iter().flat_map(|x| [x.re().into(), x.im().into()]).collect()
    } else {
        v.iter().map(|x| x.re().into()).collect()
    }
}

/// The conjugate of a vector of interleaved parts (the vector itself for a real type).
fn conj(complex: bool, x: &[Dd]) -> Vec<Dd> {
    x.iter().enumerate().map(|(i, &d)| if complex && i % 2 == 1 { Dd::ZERO.sub(d) } else { d }).collect()
}

/// LAPACK's pivots as the row interchanges of interleaved parts: row i of a complex vector is
/// its entries 2i and 2i + 1.
fn pivots_of_parts(ipiv: &[i32], complex: bool) -> Vec<i32> {
    if complex {
        ipiv.iter().flat_map(|&p| [2 * p - 1, 2 * p]).collect()
    } else {
        ipiv.to_vec()
    }
}

/// The Cholesky factor of `uplo` in `f` (n×n) applied as the matrix it factors: L·Lᵀ or Uᵀ·U
/// (L·Lᴴ, Uᴴ·U of a complex factor, `f` its [`parts`]).
fn chol_product_of(complex: bool, f: &[f64], n: usize, lower: bool) -> impl Fn(&[Dd]) -> Vec<Dd> + '_ {
    move |x| {
        if lower {
            let l = Mat::of(complex, f, n, n, n, Shape::Lower { unit: false });
            l.apply(false, &l.apply(true, x))
        } else {
            let u = Mat::of(complex, f, n, n, n, Shape::Upper { unit: false });
            u.apply(true, &u.apply(false, x))
        }
    }
}

/// xGETRF's factors (n×n, pivots `ipiv`; `f` their [`parts`]) applied as the matrix they
/// factor, op(A) = op(P·L·U) for TRANS = `op`: 'T' is the transpose of a complex matrix, 'C' its
/// conjugate transpose.
fn lu_product_of(
    complex: bool,
    f: &[f64],
    ipiv: Vec<i32>,
    n: usize,
    op: u8,
) -> impl Fn(&[Dd]) -> Vec<Dd> + '_ {
    let ipiv = pivots_of_parts(&ipiv, complex);
    move |x| {
        let l = Mat::of(complex, f, n, n, n, Shape::Lower { unit: true });
        let u = Mat::of(complex, f, n, n, n, Shape::Upper { unit: false });
        match op {
            b'N' => {
                let mut y = l.apply(false, &u.apply(false, x));
                swap_rows(&mut y, &ipiv, false);
                y
            }
            _ => {
                // Aᵀ·x = conj(Aᴴ·conj(x)) for a complex A.
                let plain = op == b'T' && complex;
                let mut y = if plain { conj(true, x) } else { x.to_vec() };
                swap_rows(&mut y, &ipiv, true);
                let y = u.apply(true, &l.apply(true, &y));
                if plain {
                    conj(true, &y)
                } else {
                    y
                }
            }
        }
    }
}

/// The reference's factorization of the class's matrix (of the well-conditioned one, corrupted,
/// for a corruption class): `factor` returns INFO; a failure means the case cannot be run.
fn factored<T: Scalar>(
    class: Class,
    make: impl Fn(Class) -> Vec<T>,
    factor: impl FnOnce(&mut Vec<T>) -> i32,
    (n, region): (usize, Region),
) -> Result<Vec<T>, String> {
    let mut f = make(if class.is_corruption() { Class::Well } else { class });
    let info = factor(&mut f);
    if info != 0 {
        return Err(format!("the reference's factorization of the input failed (INFO {info})"));
    }
    let m = f.len() / n;
    gen::corrupt(class, &mut f, m, n, m, region);
    Ok(f)
}

pub(crate) fn build(case: &Case) -> Result<Box<dyn Problem>, String> {
    use Routine::*;
    if !case.routine.types().contains(&case.ty) {
        return Err(format!("{} is compared in {:?} only", case.routine.name(), case.routine.types()));
    }
    // The family's problem in the case's element type.
    macro_rules! typed {
        ($f:ident($($a:expr),*)) => {
            match case.ty {
                Ty::S => $f::<f32>($($a),*)?,
                Ty::D => $f::<f64>($($a),*)?,
                Ty::C => $f::<c32>($($a),*)?,
                Ty::Z => $f::<c64>($($a),*)?,
            }
        };
    }
    let n = case.n;
    let tall = n + n / 3;
    let wide = n - n / 4;
    Ok(match case.routine {
        PotrfL => typed!(chol(case, Chol::Potrf, true)),
        PotrfU => typed!(chol(case, Chol::Potrf, false)),
        PotrsL => typed!(chol(case, Chol::Potrs, true)),
        PosvU => typed!(chol(case, Chol::Posv, false)),
        Getrf => typed!(lu(case, LuOp::Getrf, false)),
        GetrfCalu => lu::<f64>(case, LuOp::Getrf, true)?,
        GetrsN => typed!(lu(case, LuOp::Getrs(b'N'), false)),
        GetrsT => typed!(lu(case, LuOp::Getrs(b'T'), false)),
        GetrsC => typed!(lu(case, LuOp::Getrs(b'C'), false)),
        Gesv => typed!(lu(case, LuOp::Gesv, false)),
        GesvCalu => lu::<f64>(case, LuOp::Gesv, true)?,
        Geqrf => typed!(qr(case, tall, n)),
        GeqrfWide => typed!(qr(case, wide, n)),
        GelsNTall => typed!(gels(case, b'N', tall, n)),
        GelsTTall => typed!(gels(case, b'T', tall, n)),
        GelsNWide => typed!(gels(case, b'N', wide, n)),
        GelsTWide => typed!(gels(case, b'T', wide, n)),
        TrtriU => typed!(inv(case, Inv::Trtri { lower: false, unit: false })),
        TrtriLUnit => typed!(inv(case, Inv::Trtri { lower: true, unit: true })),
        PotriL => typed!(inv(case, Inv::Potri)),
        Getri => typed!(inv(case, Inv::Getri)),
        Orgqr => typed!(q_problem(case, tall, n, None)),
        OrmqrLN => typed!(q_problem(case, tall, n, Some((b'L', b'N')))),
        OrmqrLT => typed!(q_problem(case, tall, n, Some((b'L', b'T')))),
        OrmqrRN => typed!(q_problem(case, tall, n, Some((b'R', b'N')))),
        OrmqrRT => typed!(q_problem(case, tall, n, Some((b'R', b'T')))),
        BtsvThomas => Box::new(Bt::new(case, Method::Thomas, false)),
        BtsvTwisted => Box::new(Bt::new(case, Method::Twisted, false)),
        BtsvCyclic => Box::new(Bt::new(case, Method::Cyclic, false)),
        BttrsTThomas => Box::new(Bt::new(case, Method::Thomas, true)),
        BttrsTTwisted => Box::new(Bt::new(case, Method::Twisted, true)),
        BttrsTCyclic => Box::new(Bt::new(case, Method::Cyclic, true)),
        GemmNN => typed!(gemm_problem(case, b'N', b'N')),
        GemmTN => typed!(gemm_problem(case, b'T', b'N')),
        GemmNT => typed!(gemm_problem(case, b'N', b'T')),
        GemmTT => typed!(gemm_problem(case, b'T', b'T')),
        GemmCT => typed!(gemm_problem(case, b'C', b'T')),
        GemmNC => typed!(gemm_problem(case, b'N', b'C')),
    })
}

// ---------------------------------------------------------------------------------------------
// DPOTRF, DPOTRS, DPOSV (and their S, C, Z siblings)

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chol {
    Potrf,
    Potrs,
    Posv,
}

struct Cholesky<T> {
    op: Chol,
    lower: bool,
    n: usize,
    /// The class's matrix (both triangles).
    a: Vec<T>,
    /// xPOTRS's factor.
    f: Vec<T>,
    b: Vec<T>,
    anorm: f64,
    seed: u64,
}

fn chol<T: OpElem>(case: &Case, op: Chol, lower: bool) -> Result<Box<dyn Problem>, String> {
    let (n, seed) = (case.n, case.seed);
    let uplo = if lower { b'L' } else { b'U' };
    let a = gen::spd_of::<T>(case.class, n, seed);
    let f = if op == Chol::Potrs {
        let region = if lower { Region::Lower } else { Region::Upper };
        let make = |c| gen::spd_of::<T>(c, n, seed);
        factored(
            case.class,
            make,
            |f| reference(|| forward::potrf(uplo, n as i32, raw(f), n as i32)),
            (n, region),
        )?
    } else {
        vec![]
    };
    let base = if case.class.is_corruption() { gen::spd_of::<T>(Class::Well, n, seed) } else { a.clone() };
    let anorm = Mat::of(T::COMPLEX, &parts(&base), n, n, n, Shape::Full).fnorm();
    let b = rhs::<T>(n, seed);
    Ok(Box::new(Cholesky { op, lower, n, a, f, b, anorm, seed }))
}

/// The n×NRHS right-hand sides of a case: normal entries (real and imaginary parts).
fn rhs<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let w = if T::COMPLEX { 2 } else { 1 };
    Rng::new(seed + 5).normals(w * n * NRHS).chunks(w).map(|p| T::from_parts(p[0], p[w - 1])).collect()
}

impl<T: OpElem> Problem for Cholesky<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (n, r) = (self.n as i32, NRHS as i32);
        let uplo = if self.lower { b'L' } else { b'U' };
        let (mut a, mut b) =
            (if self.op == Chol::Potrs { self.f.clone() } else { self.a.clone() }, self.b.clone());
        let (pa, pb) = (raw(&mut a), raw(&mut b));
        let info = match (self.op, hetla) {
            (Chol::Potrf, None) => reference(|| forward::potrf(uplo, n, pa, n)),
            (Chol::Potrf, Some(c)) => info(api::potrf::potrf(c, uplo, n, pa, n)),
            (Chol::Potrs, None) => reference(|| forward::potrs(uplo, n, r, pa, n, pb, n)),
            (Chol::Potrs, Some(c)) => info(api::potrf::potrs(c, uplo, n, r, pa, n, pb, n)),
            (Chol::Posv, None) => reference(|| forward::posv(uplo, n, r, pa, n, pb, n)),
            (Chol::Posv, Some(c)) => info(api::potrf::posv(c, uplo, n, r, pa, n, pb, n)),
        };
        Out { a: parts(&a), b: parts(&b), ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        let k = if out.info > 0 { out.info as usize - 1 } else { self.n };
        let w = if T::COMPLEX { 2 } else { 1 };
        let mut v =
            if self.op == Chol::Potrs { vec![] } else { triangle_parts(&out.a, self.n, k, self.lower, w) };
        if out.info == 0 && self.op != Chol::Potrf {
            v.extend(&out.b);
        }
        v
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        if out.info != 0 {
            return None;
        }
        let (n, cx) = (self.n, T::COMPLEX);
        let w = if cx { 2 } else { 1 };
        let a0 = parts(&self.a);
        let a = Mat::of(cx, &a0, n, n, n, Shape::Full);
        let (b0, f0) = (parts(&self.b), parts(&self.f));
        let (b, x) = (columns(&b0, w * n, NRHS, w * n), columns(&out.b, w * n, NRHS, w * n));
        let m = match self.op {
            Chol::Potrf => {
                let ps = probes(w * n, self.seed);
                probe_gap(
                    &ps,
                    |p| a.apply(false, p),
                    chol_product_of(cx, &out.a, n, self.lower),
                    &[self.anorm],
                )
            }
            Chol::Potrs => residual(chol_product_of(cx, &f0, n, self.lower), self.anorm, &b, &x),
            Chol::Posv => residual(|p| a.apply(false, p), self.anorm, &b, &x),
        };
        Some(vec![m * EPS / T::eps()])
    }

    fn eps(&self) -> f64 {
        T::eps()
    }
}

// ---------------------------------------------------------------------------------------------
// DGETRF, DGETRS, DGESV (GEPP and CALU; GEPP also in S, C, Z)

#[derive(Clone, Copy, PartialEq, Eq)]
enum LuOp {
    Getrf,
    Getrs(u8),
    Gesv,
}

struct Lu<T> {
    op: LuOp,
    calu: bool,
    n: usize,
    a: Vec<T>,
    /// xGETRS's factors and pivots.
    f: Vec<T>,
    ipiv: Vec<i32>,
    b: Vec<T>,
    anorm: f64,
    seed: u64,
}

fn lu<T: OpElem>(case: &Case, op: LuOp, calu: bool) -> Result<Box<dyn Problem>, String> {
    let (n, seed) = (case.n, case.seed);
    let a = gen::general_of::<T>(case.class, n, n, seed);
    let base =
        gen::general_of::<T>(if case.class.is_corruption() { Class::Well } else { case.class }, n, n, seed);
    let mut ipiv = vec![0i32; n];
    let f = if matches!(op, LuOp::Getrs(_)) {
        let getrf = |f: &mut Vec<T>| {
            reference(|| forward::getrf(n as i32, n as i32, raw(f), n as i32, raw(&mut ipiv)))
        };
        factored(case.class, |c| gen::general_of::<T>(c, n, n, seed), getrf, (n, Region::Full))?
    } else {
        vec![]
    };
    let anorm = Mat::of(T::COMPLEX, &parts(&base), n, n, n, Shape::Full).fnorm();
    let b = rhs::<T>(n, seed);
    Ok(Box::new(Lu { op, calu, n, a, f, ipiv, b, anorm, seed }))
}

/// max|U| / max|A|: the growth factor of LU factors `f` of `a` (both n×n).
fn growth(a: &[f64], f: &[f64], n: usize) -> f64 {
    let amax = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    triangle(f, n, n, false).iter().fold(0.0f64, |m, x| m.max(x.abs())) / amax
}

impl<T: OpElem> Problem for Lu<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (n, r) = (self.n as i32, NRHS as i32);
        let (mut a, mut b) =
            (if self.f.is_empty() { self.a.clone() } else { self.f.clone() }, self.b.clone());
        let mut ipiv = if self.f.is_empty() { vec![0; self.n] } else { self.ipiv.clone() };
        let calu;
        let hetla = match hetla {
            Some(c) if self.calu => {
                calu = Config { lu: Pivoting::Calu, ..c.clone() };
                Some(&calu)
            }
            h => h,
        };
        let (pa, pp, pb) = (raw(&mut a), raw(&mut ipiv), raw(&mut b));
        let info = match (self.op, hetla) {
            (LuOp::Getrf, None) => reference(|| forward::getrf(n, n, pa, n, pp)),
            (LuOp::Getrf, Some(c)) => info(api::getrf::getrf(c, n, n, pa, n, pp)),
            (LuOp::Getrs(t), None) => reference(|| forward::getrs(t, n, r, pa, n, pp, pb, n)),
            (LuOp::Getrs(t), Some(c)) => info(api::getrf::getrs(c, t, n, r, pa, n, pp, pb, n)),
            (LuOp::Gesv, None) => reference(|| forward::gesv(n, r, pa, n, pp, pb, n)),
            (LuOp::Gesv, Some(c)) => info(api::getrf::gesv(c, n, r, pa, n, pp, pb, n)),
        };
        Out { a: parts(&a), b: parts(&b), ipiv, ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        // xGETRF completes the factorization whatever INFO says; xGESV leaves B when INFO > 0.
        let n = self.n;
        let w = if T::COMPLEX { 2 } else { 1 };
        let mut v = match self.op {
            LuOp::Getrs(_) => vec![],
            // CALU's rows are in its own pivot order: per column, whether it holds a NaN.
            _ if self.calu => (0..n)
                .map(|j| if out.a[j * n..(j + 1) * n].iter().any(|x| x.is_nan()) { f64::NAN } else { 0.0 })
                .collect(),
            _ => out.a.clone(),
        };
        if out.info == 0 && self.op != LuOp::Getrf {
            v.extend(&out.b);
        }
        debug_assert!(v.len() % w == 0);
        v
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        let (n, cx) = (self.n, T::COMPLEX);
        let w = if cx { 2 } else { 1 };
        let a0 = parts(&self.a);
        let a = Mat::of(cx, &a0, n, n, n, Shape::Full);
        let (b0, f0) = (parts(&self.b), parts(&self.f));
        let (b, x) = (columns(&b0, w * n, NRHS, w * n), columns(&out.b, w * n, NRHS, w * n));
        let mut v = match self.op {
            LuOp::Getrf => {
                let ps = probes(w * n, self.seed);
                let piv = pivots_of_parts(&out.ipiv, cx);
                let pa = |p: &[Dd]| {
                    let mut y = a.apply(false, p);
                    swap_rows(&mut y, &piv, true);
                    y
                };
                let lu = |p: &[Dd]| {
                    let l = Mat::of(cx, &out.a, n, n, n, Shape::Lower { unit: true });
                    l.apply(
                        false,
                        &Mat::of(cx, &out.a, n, n, n, Shape::Upper { unit: false }).apply(false, p),
                    )
                };
                vec![probe_gap(&ps, pa, lu, &[self.anorm])]
            }
            _ if out.info != 0 => return None,
            LuOp::Getrs(t) => {
                let op = t.to_ascii_uppercase();
                vec![residual(lu_product_of(cx, &f0, self.ipiv.clone(), n, op), self.anorm, &b, &x)]
            }
            LuOp::Gesv => vec![residual(|p| a.apply(false, p), self.anorm, &b, &x)],
        };
        v.iter_mut().for_each(|m| *m *= EPS / T::eps());
        if self.calu {
            v.push(growth(&a0, &out.a, n));
        }
        Some(v)
    }

    fn eps(&self) -> f64 {
        T::eps()
    }
}

// ---------------------------------------------------------------------------------------------
// DGEQRF

struct Qr<T> {
    m: usize,
    n: usize,
    a: Vec<T>,
    anorm: f64,
    seed: u64,
}

fn qr<T: OpElem>(case: &Case, m: usize, n: usize) -> Result<Box<dyn Problem>, String> {
    let a = gen::general_of::<T>(case.class, m, n, case.seed);
    let anorm = Mat::of(T::COMPLEX, &parts(&a), m, n, m, Shape::Full).fnorm();
    Ok(Box::new(Qr { m, n, a, anorm, seed: case.seed }))
}

impl<T: OpElem> Problem for Qr<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (m, n) = (self.m as i32, self.n as i32);
        let mut a = self.a.clone();
        let mut tau = vec![T::zero(); self.m.min(self.n)];
        let (pa, pt) = (raw(&mut a), raw(&mut tau));
        let mut work = vec![T::zero(); lwork(|w, l| forward::geqrf(m, n, pa, m, pt, w, l))];
        let (pw, lw) = (raw(&mut work), work.len() as i32);
        let info = match hetla {
            None => reference(|| forward::geqrf(m, n, pa, m, pt, pw, lw)),
            Some(c) => info(api::geqrf::geqrf(c, m, n, pa, m, pt, pw, lw)),
        };
        Out { a: parts(&a), aux: parts(&tau), ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        [&out.a[..], &out.aux[..]].concat()
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        let (m, n, cx) = (self.m, self.n, T::COMPLEX);
        let (k, w) = (m.min(n), if cx { 2 } else { 1 });
        let a0 = parts(&self.a);
        let a = Mat::of(cx, &a0, m, n, m, Shape::Full);
        let r = Mat::of(cx, &out.a, k, n, m, Shape::Upper { unit: false });
        let q = |trans: bool, mut y: Vec<Dd>| {
            dd::apply_q_of(cx, &out.a, m, m, &out.aux, trans, &mut y);
            y
        };
        let qr = |p: &[Dd]| {
            let mut y = r.apply(false, p);
            y.resize(w * m, Dd::ZERO);
            q(false, y)
        };
        let backward = probe_gap(&probes(w * n, self.seed), |p| a.apply(false, p), qr, &[self.anorm]);
        let ps = probes(w * m, self.seed + 1);
        let ortho = probe_gap(&ps, |p| q(true, q(false, p.to_vec())), |p| p.to_vec(), &[]);
        Some(vec![backward * EPS / T::eps(), ortho * EPS / T::eps()])
    }

    fn eps(&self) -> f64 {
        T::eps()
    }
}

// ---------------------------------------------------------------------------------------------
// DGELS (and SGELS, CGELS, ZGELS: TRANS = 'C' in the complex types where the real ones take 'T')

struct Gels<T> {
    /// b'N', or b'T' for op(A) = Aᵀ (Aᴴ in a complex type).
    trans: u8,
    m: usize,
    n: usize,
    a: Vec<T>,
    /// B: rows of op(A) filled, max(m, n) rows.
    b: Vec<T>,
    anorm: f64,
    /// For a minimum-norm problem: the QR of op(A)ᴴ with its rows reversed, in double (parts
    /// interleaved for a complex type: reflectors, tau), whose Q's first columns span (reversed)
    /// the row space a minimum-norm X lies in.
    range: Option<(Vec<f64>, Vec<f64>)>,
}

fn gels<T: OpElem>(case: &Case, trans: u8, m: usize, n: usize) -> Result<Box<dyn Problem>, String> {
    let (class, seed, cx) = (case.class, case.seed, T::COMPLEX);
    let a = gen::general_of::<T>(class, m, n, seed);
    let (p, q) = if trans == b'N' { (m, n) } else { (n, m) };
    let ldb = m.max(n);
    let mut rng = Rng::new(seed + 5);
    let mut b = vec![T::zero(); ldb * NRHS];
    for c in 0..NRHS {
        for i in 0..p {
            let re = rng.normal();
            b[i + c * ldb] = T::from_parts(re, if cx { rng.normal() } else { 0.0 });
        }
    }
    let range = (p < q).then(|| {
        // op(A)ᴴ (q×p) with its rows in reverse order: its QR's rounding is not that of the QR
        // the reference's xGELS computes of op(A)ᴴ itself, which would measure the reference's X
        // against its own basis.
        let at = |i: usize, j: usize| if trans == b'N' { a[i + j * m].conj() } else { a[j + i * m] };
        let t: Vec<T> =
            (0..p).flat_map(|j| (0..q).map(move |i| (q - 1 - i, j))).map(|(i, j)| at(j, i)).collect();
        basis_qr(cx, q, p, parts(&t))
    });
    let anorm = Mat::of(cx, &parts(&a), m, n, m, Shape::Full).fnorm();
    Ok(Box::new(Gels { trans, m, n, a, b, anorm, range }))
}

/// The backend's QR in double (DGEQRF, or ZGEQRF of a complex matrix's interleaved parts) of the
/// q×p matrix `t`: (reflectors, tau) as parts; left as they are if `t` is not finite.
fn basis_qr(complex: bool, q: usize, p: usize, mut t: Vec<f64>) -> (Vec<f64>, Vec<f64>) {
    if !t.iter().all(|x| x.is_finite()) {
        return (t, vec![0.0; if complex { 2 * p } else { p }]);
    }
    if !complex {
        let mut tau = vec![0.0; p];
        gen::geqrf(q, p, &mut t, &mut tau);
        return (t, tau);
    }
    let mut z: Vec<c64> = t.chunks(2).map(|x| c64::from_parts(x[0], x[1])).collect();
    let mut tau = vec![c64::zero(); p];
    gen::geqrf(q, p, &mut z, &mut tau);
    (parts(&z), parts(&tau))
}

impl<T> Gels<T> {
    /// (rows, columns) of op(A).
    fn op_dims(&self) -> (usize, usize) {
        if self.trans == b'N' {
            (self.m, self.n)
        } else {
            (self.n, self.m)
        }
    }
}

impl<T: OpElem> Problem for Gels<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (m, n, r) = (self.m as i32, self.n as i32, NRHS as i32);
        let t = if self.trans == b'T' { T::ADJOINT } else { self.trans };
        let ldb = self.m.max(self.n) as i32;
        let (mut a, mut b) = (self.a.clone(), self.b.clone());
        let (pa, pb) = (raw(&mut a), raw(&mut b));
        let mut work = vec![T::zero(); lwork(|w, l| forward::gels(t, m, n, r, pa, m, pb, ldb, w, l))];
        let (pw, lw) = (raw(&mut work), work.len() as i32);
        let info = match hetla {
            None => reference(|| forward::gels(t, m, n, r, pa, m, pb, ldb, pw, lw)),
            Some(c) => info(api::gels::gels(c, t, m, n, r, pa, m, pb, ldb, pw, lw)),
        };
        Out { b: parts(&b), ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        if out.info != 0 {
            return vec![];
        }
        let w = if T::COMPLEX { 2 } else { 1 };
        let (ldb, q) = (self.m.max(self.n), self.op_dims().1);
        columns(&out.b, w * q, NRHS, w * ldb).iter().flatten().map(|d| d.hi).collect()
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        if out.info != 0 {
            return None;
        }
        let cx = T::COMPLEX;
        let w = if cx { 2 } else { 1 };
        let ((p, q), ldb) = (self.op_dims(), self.m.max(self.n));
        let a0 = parts(&self.a);
        let a = Mat::of(cx, &a0, self.m, self.n, self.m, Shape::Full);
        let tr = self.trans == b'T';
        let (b, x) = (columns(&parts(&self.b), w * p, NRHS, w * ldb), columns(&out.b, w * q, NRHS, w * ldb));
        // Each measure in units of the type's ε.
        let units = EPS / T::eps();
        let Some((v, tau)) = &self.range else {
            // Least squares: the normal equations' residual ‖op(A)ᴴ·(B − op(A)·X)‖ /
            // (‖A‖·(‖A‖·‖X‖ + ‖B‖)) / ε.
            // The residual is scaled, exactly, by powers of two near ‖A‖ and ‖X‖ + ‖B‖/‖A‖
            // before it is multiplied by op(A)ᴴ: on graded inputs ‖A‖·‖X‖ passes the largest
            // double, and with entries near 1e300 so do the products of op(A)ᴴ's entries with
            // the residual's, which made the measure NaN or infinite for a finite solution.
            let (xn, bn) = (dd::dd_norm(&x), dd::dd_norm(&b));
            let scale = xn + bn / self.anorm;
            let (p1, p2) = (pow2_near(self.anorm), pow2_near(scale));
            let r: Vec<Vec<Dd>> = b
                .iter()
                .zip(&x)
                .map(|(b, x)| {
                    let res: Vec<Dd> = b
                        .iter()
                        .zip(a.apply(tr, x))
                        .map(|(u, v)| u.sub(v) * (1.0 / p1) * (1.0 / p2))
                        .collect();
                    a.apply(!tr, &res)
                })
                .collect();
            let ne = dd::dd_norm(&r) / self.anorm / (self.anorm / p1) / (scale / p2) / EPS;
            return Some(vec![ne * units]);
        };
        let res = residual(|x| a.apply(tr, x), self.anorm, &b, &x);
        // Minimum norm: X in the row space of op(A), as a backward error: X = op(A)ᴴ·Y₀ + S with
        // Y₀ the least-squares coefficients and S the part outside; S is in the row space of
        // op(A + E) for ‖E‖ = ‖S‖/‖Y₀‖, so the measure is ‖S‖_F / (‖A‖_F·‖Y₀‖_F) / ε. (Relative to
        // ‖X‖ it would be κ(A)·ε for any X, since a computed basis of the row space is only that
        // accurate.) The basis: the QR of op(A)ᴴ with its rows reversed (`gels`).
        let reversed = |x: &[Dd]| -> Vec<Dd> { x.chunks(w).rev().flatten().copied().collect() };
        // X scaled, exactly, by a power of two near ‖X‖ (the measure is homogeneous in X): with
        // entries near 1e±300 the coefficients ‖Y₀‖ ≈ ‖X‖/‖A‖ would under- or overflow.
        let px = pow2_near(dd::dd_norm(&x));
        let (mut off, mut coef) = (Vec::new(), Vec::new());
        for xc in &x {
            let xr: Vec<Dd> = reversed(xc).into_iter().map(|d| d * (1.0 / px)).collect();
            let mut y = xr.clone();
            dd::apply_q_of(cx, v, q, q, tau, true, &mut y);
            let c: Vec<f64> = y[..w * p].iter().map(|d| d.value()).collect();
            y[w * p..].iter_mut().for_each(|d| *d = Dd::ZERO);
            dd::apply_q_of(cx, v, q, q, tau, false, &mut y);
            off.push(xr.iter().zip(y).map(|(u, v)| u.sub(v)).collect());
            coef.extend(back_substitute(cx, v, q, p, c));
        }
        Some(vec![res * units, dd::dd_norm(&off) / self.anorm / dd::norm(coef.into_iter()) / EPS * units])
    }

    fn eps(&self) -> f64 {
        T::eps()
    }
}

/// The power of two nearest `x` in the logarithm (1 for zero or a non-finite `x`): dividing by
/// it is exact and brings `x` near 1.
fn pow2_near(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() {
        x.log2().round().exp2()
    } else {
        1.0
    }
}

/// R⁻¹·c in double, R the leading p×p upper triangle of the q-row array `v` (parts interleaved
/// for a complex one, as `c`): the minimum-norm problem's coefficients.
fn back_substitute(complex: bool, v: &[f64], q: usize, p: usize, mut y: Vec<f64>) -> Vec<f64> {
    if !complex {
        for i in (0..p).rev() {
            let s: f64 = (i + 1..p).map(|j| v[i + j * q] * y[j]).sum();
            y[i] = (y[i] - s) / v[i + i * q];
        }
        return y;
    }
    let r = |i: usize, j: usize| (v[2 * (i + j * q)], v[2 * (i + j * q) + 1]);
    for i in (0..p).rev() {
        let (mut sr, mut si) = (y[2 * i], y[2 * i + 1]);
        for j in i + 1..p {
            let ((ar, ai), (zr, zi)) = (r(i, j), (y[2 * j], y[2 * j + 1]));
            sr -= ar * zr - ai * zi;
            si -= ar * zi + ai * zr;
        }
        let (dr, di) = r(i, i);
        let z = div(c64::from_parts(sr, si), c64::from_parts(dr, di));
        (y[2 * i], y[2 * i + 1]) = (z.re, z.im);
    }
    y
}

// ---------------------------------------------------------------------------------------------
// DTRTRI, DPOTRI, DGETRI (and their S, C, Z siblings)

#[derive(Clone, Copy, PartialEq, Eq)]
enum Inv {
    Trtri { lower: bool, unit: bool },
    Potri,
    Getri,
}

struct Inverse<T> {
    op: Inv,
    n: usize,
    /// The input: a triangle (R of the class's matrix), a Cholesky factor (lower), or LU factors.
    t: Vec<T>,
    ipiv: Vec<i32>,
    anorm: f64,
    seed: u64,
}

fn inv<T: OpElem>(case: &Case, op: Inv) -> Result<Box<dyn Problem>, String> {
    let (n, seed, class) = (case.n, case.seed, case.class);
    let mut ipiv = vec![0i32; n];
    let base = if class.is_corruption() { Class::Well } else { class };
    let (t, anorm) = match op {
        Inv::Trtri { lower, unit } => {
            // R of the QR of the class's matrix: a triangle with its condition number (the
            // reflectors left in the other triangle, which xTRTRI must not read).
            let mut t = gen::triangle_of::<T>(base, n, seed);
            if unit {
                for j in 0..n {
                    let d = t[j + j * n];
                    for i in 0..j {
                        t[i + j * n] = div(t[i + j * n], d);
                    }
                }
            }
            if lower {
                // The conjugate transpose: a lower triangle with the upper one's conditioning.
                t = (0..n)
                    .flat_map(|j| (0..n).map(move |i| (i, j)))
                    .map(|(i, j)| t[j + i * n].conj())
                    .collect();
            }
            gen::corrupt(class, &mut t, n, n, n, if lower { Region::Lower } else { Region::Upper });
            let anorm = Mat::of(T::COMPLEX, &parts(&t), n, n, n, tri_shape(lower, unit)).fnorm();
            (t, anorm)
        }
        Inv::Potri => {
            let potrf = |f: &mut Vec<T>| reference(|| forward::potrf(b'L', n as i32, raw(f), n as i32));
            let f = factored(class, |c| gen::spd_of::<T>(c, n, seed), potrf, (n, Region::Lower))?;
            (f, Mat::of(T::COMPLEX, &parts(&gen::spd_of::<T>(base, n, seed)), n, n, n, Shape::Full).fnorm())
        }
        Inv::Getri => {
            let getrf = |f: &mut Vec<T>| {
                reference(|| forward::getrf(n as i32, n as i32, raw(f), n as i32, raw(&mut ipiv)))
            };
            let f = factored(class, |c| gen::general_of::<T>(c, n, n, seed), getrf, (n, Region::Full))?;
            (
                f,
                Mat::of(T::COMPLEX, &parts(&gen::general_of::<T>(base, n, n, seed)), n, n, n, Shape::Full)
                    .fnorm(),
            )
        }
    };
    Ok(Box::new(Inverse { op, n, t, ipiv, anorm, seed }))
}

/// x / d in double (complex) arithmetic, rounded to `T`: the unit triangle's columns.
fn div<T: Scalar>(x: T, d: T) -> T {
    let (xr, xi, dr, di): (f64, f64, f64, f64) = (x.re().into(), x.im().into(), d.re().into(), d.im().into());
    if !T::COMPLEX {
        return T::from_f64(xr / dr);
    }
    let s = dr.abs().max(di.abs());
    let (dr, di, xr, xi) = (dr / s, di / s, xr / s, xi / s);
    let den = dr * dr + di * di;
    T::from_parts((xr * dr + xi * di) / den, (xi * dr - xr * di) / den)
}

/// A matrix applied to a vector in double-double.
type Apply<'a> = Box<dyn Fn(&[Dd]) -> Vec<Dd> + 'a>;

fn tri_shape(lower: bool, unit: bool) -> Shape {
    if lower {
        Shape::Lower { unit }
    } else {
        Shape::Upper { unit }
    }
}

impl<T: OpElem> Problem for Inverse<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let n = self.n as i32;
        let (mut a, mut ipiv) = (self.t.clone(), self.ipiv.clone());
        let (pa, pp) = (raw(&mut a), raw(&mut ipiv));
        let info = match (self.op, hetla) {
            (Inv::Trtri { lower, unit }, h) => {
                let (u, d) = (if lower { b'L' } else { b'U' }, if unit { b'U' } else { b'N' });
                match h {
                    None => reference(|| forward::trtri(u, d, n, pa, n)),
                    Some(c) => info(api::inverse::trtri(c, u, d, n, pa, n)),
                }
            }
            (Inv::Potri, None) => reference(|| forward::potri(b'L', n, pa, n)),
            (Inv::Potri, Some(c)) => info(api::inverse::potri(c, b'L', n, pa, n)),
            (Inv::Getri, h) => {
                let mut work = vec![T::zero(); lwork::<T>(|w, l| forward::getri(n, pa, n, pp, w, l))];
                let (pw, lw) = (raw(&mut work), work.len() as i32);
                match h {
                    None => reference(|| forward::getri(n, pa, n, pp, pw, lw)),
                    Some(c) => info(api::inverse::getri(c, n, pa, n, pp, pw, lw)),
                }
            }
        };
        Out { a: parts(&a), ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        let w = if T::COMPLEX { 2 } else { 1 };
        match self.op {
            _ if out.info != 0 => vec![],
            Inv::Trtri { lower, .. } => triangle_parts(&out.a, self.n, self.n, lower, w),
            Inv::Potri => triangle_parts(&out.a, self.n, self.n, true, w),
            Inv::Getri => out.a.clone(),
        }
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        if out.info != 0 {
            return None;
        }
        let (n, cx) = (self.n, T::COMPLEX);
        let w = if cx { 2 } else { 1 };
        let xshape = match self.op {
            Inv::Trtri { lower, unit } => tri_shape(lower, unit),
            Inv::Potri => Shape::Sym { lower: true },
            Inv::Getri => Shape::Full,
        };
        let t0 = parts(&self.t);
        let x = Mat::of(cx, &out.a, n, n, n, xshape);
        let a: Apply = match self.op {
            Inv::Trtri { lower, unit } => {
                let t = Mat::of(cx, &t0, n, n, n, tri_shape(lower, unit));
                Box::new(move |p| t.apply(false, p))
            }
            Inv::Potri => Box::new(chol_product_of(cx, &t0, n, true)),
            Inv::Getri => Box::new(lu_product_of(cx, &t0, self.ipiv.clone(), n, b'N')),
        };
        let ps = probes(w * n, self.seed);
        let scales = [self.anorm, x.fnorm()];
        let ax = probe_gap(&ps, |p| a(&x.apply(false, p)), |p| p.to_vec(), &scales);
        let xa = probe_gap(&ps, |p| x.apply(false, &a(p)), |p| p.to_vec(), &scales);
        Some(vec![ax * EPS / T::eps(), xa * EPS / T::eps()])
    }

    fn eps(&self) -> f64 {
        T::eps()
    }
}

// ---------------------------------------------------------------------------------------------
// DORGQR, DORMQR

struct Q<T> {
    /// `None`: xORGQR / xUNGQR; else xORMQR's / xUNMQR's SIDE and TRANS ('T' stands for 'C' in
    /// the complex types).
    op: Option<(u8, u8)>,
    m: usize,
    n: usize,
    /// The class's matrix and the backend's xGEQRF of it: reflectors (corrupted for a
    /// corruption class) and tau.
    a: Vec<T>,
    v: Vec<T>,
    tau: Vec<T>,
    /// xORMQR's C: m×nc (side L) or nc×m (side R).
    c: Vec<T>,
    nc: usize,
    anorm: f64,
    seed: u64,
}

fn q_problem<T: OpElem>(
    case: &Case,
    m: usize,
    n: usize,
    op: Option<(u8, u8)>,
) -> Result<Box<dyn Problem>, String> {
    let (class, seed) = (case.class, case.seed);
    let a = gen::general_of::<T>(if class.is_corruption() { Class::Well } else { class }, m, n, seed);
    let (mut v, mut tau) = (a.clone(), vec![T::zero(); n]);
    if T::LETTER == b'd' {
        // The double problems keep their inputs: the reflectors of the harness's own DGEQRF.
        let (mut vd, mut td) = (parts(&v), vec![0.0; n]);
        gen::geqrf(m, n, &mut vd, &mut td);
        v = vd.into_iter().map(T::from_f64).collect();
        tau = td.into_iter().map(T::from_f64).collect();
    } else {
        let (pv, pt) = (raw(&mut v), raw(&mut tau));
        let mut work =
            vec![T::zero(); lwork(|w, l| forward::geqrf(m as i32, n as i32, pv, m as i32, pt, w, l))];
        let (pw, lw) = (raw(&mut work), work.len() as i32);
        let info = reference(|| forward::geqrf(m as i32, n as i32, pv, m as i32, pt, pw, lw));
        if info != 0 {
            return Err(format!("the backend's QR of the input failed (INFO {info})"));
        }
    }
    gen::corrupt(class, &mut v, m, n, m, Region::Full);
    let nc = n / 2 + 3;
    let w = if T::COMPLEX { 2 } else { 1 };
    let c = Rng::new(seed + 9).normals(w * m * nc).chunks(w).map(|p| T::from_parts(p[0], p[w - 1])).collect();
    let anorm = Mat::of(T::COMPLEX, &parts(&a), m, n, m, Shape::Full).fnorm();
    Ok(Box::new(Q { op, m, n, a, v, tau, c, nc, anorm, seed }))
}

impl<T> Q<T> {
    /// (rows, columns) of C.
    fn c_dims(&self, side: u8) -> (usize, usize) {
        if side == b'L' {
            (self.m, self.nc)
        } else {
            (self.nc, self.m)
        }
    }
}

impl<T: OpElem> Problem for Q<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (m, n) = (self.m as i32, self.n as i32);
        let (mut v, mut tau, mut c) = (self.v.clone(), self.tau.clone(), self.c.clone());
        let (pv, pt, pc) = (raw(&mut v), raw(&mut tau), raw(&mut c));
        let info = match self.op {
            None => {
                let mut work = vec![T::zero(); lwork(|w, l| forward::orgqr(m, n, n, pv, m, pt, w, l))];
                let (pw, lw) = (raw(&mut work), work.len() as i32);
                match hetla {
                    None => reference(|| forward::orgqr(m, n, n, pv, m, pt, pw, lw)),
                    Some(cf) => info(api::orgqr::orgqr(cf, m, n, n, pv, m, pt, pw, lw)),
                }
            }
            Some((side, trans)) => {
                let trans = if trans == b'T' { T::ADJOINT } else { trans };
                let (cm, cn) = self.c_dims(side);
                let (cm, cn) = (cm as i32, cn as i32);
                let call = |w, l| forward::ormqr(side, trans, cm, cn, n, pv, m, pt, pc, cm, w, l);
                let mut work = vec![T::zero(); lwork(call)];
                let (pw, lw) = (raw(&mut work), work.len() as i32);
                match hetla {
                    None => reference(|| forward::ormqr(side, trans, cm, cn, n, pv, m, pt, pc, cm, pw, lw)),
                    Some(cf) => {
                        info(api::orgqr::ormqr(cf, side, trans, cm, cn, n, pv, m, pt, pc, cm, pw, lw))
                    }
                }
            }
        };
        Out { a: parts(&v), b: parts(&c), ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        if self.op.is_none() {
            out.a.clone()
        } else {
            out.b.clone()
        }
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        let (m, n, cx) = (self.m, self.n, T::COMPLEX);
        let w = if cx { 2 } else { 1 };
        let (v0, tau0) = (parts(&self.v), parts(&self.tau));
        let q = |trans: bool, mut y: Vec<Dd>| {
            dd::apply_q_of(cx, &v0, m, m, &tau0, trans, &mut y);
            y
        };
        let scaled = |v: Vec<f64>| Some(v.into_iter().map(|x| x * EPS / T::eps()).collect());
        let Some((side, trans)) = self.op else {
            // xORGQR: Q's orthogonality and A − Q·R with the backend's R.
            let qm = Mat::of(cx, &out.a, m, n, m, Shape::Full);
            let ortho = probe_gap(
                &probes(w * n, self.seed),
                |p| qm.apply(true, &qm.apply(false, p)),
                |p| p.to_vec(),
                &[],
            );
            let r = Mat::of(cx, &v0, n, n, m, Shape::Upper { unit: false });
            let a0 = parts(&self.a);
            let a = Mat::of(cx, &a0, m, n, m, Shape::Full);
            let ps = probes(w * n, self.seed + 1);
            let backward =
                probe_gap(&ps, |p| a.apply(false, p), |p| qm.apply(false, &r.apply(false, p)), &[self.anorm]);
            return scaled(vec![ortho, backward]);
        };
        // xORMQR: C′ against op(Q)·C or C·op(Q) with Q applied from the reflectors.
        let (cm, cn) = self.c_dims(side);
        let c0 = parts(&self.c);
        let (c, c1) =
            (Mat::of(cx, &c0, cm, cn, cm, Shape::Full), Mat::of(cx, &out.b, cm, cn, cm, Shape::Full));
        let t = trans == b'T';
        let want =
            |p: &[Dd]| if side == b'L' { q(t, c.apply(false, p)) } else { c.apply(false, &q(t, p.to_vec())) };
        scaled(vec![probe_gap(&probes(w * cn, self.seed), |p| c1.apply(false, p), want, &[c.fnorm()])])
    }

    fn eps(&self) -> f64 {
        T::eps()
    }
}

// ---------------------------------------------------------------------------------------------
// DBTSV, DBTTRF + DBTTRS (against DGBSV, i.e. DGBTRF and DGBTRS, on the same band matrix)

struct Bt {
    method: Method,
    trans: bool,
    a: Blocks,
    b: Vec<f64>,
    anorm: f64,
}

impl Bt {
    /// N block rows of M×M blocks with N·M close to n, M = ⌊√n⌋ + seed mod 3 (blocks are the
    /// tiles here; the case's tile size is not used).
    fn new(case: &Case, method: Method, trans: bool) -> Bt {
        let m = ((case.n as f64).sqrt() as usize + case.seed as usize % 3).max(2);
        let nb = (case.n / m).max(2);
        let a = Blocks::random(case.class, nb, m, case.seed);
        let b = Rng::new(case.seed + 5).normals(a.order() * NRHS);
        let anorm =
            dd::norm((0..a.order()).flat_map(|j| a.rows(j).map(move |i| (i, j))).map(|(i, j)| a.get(i, j)));
        Bt { method, trans, a, b, anorm }
    }
}

impl Problem for Bt {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (nb, m, r) = (self.a.nb as i32, self.a.m as i32, NRHS as i32);
        let n = self.a.order() as i32;
        let mut x = self.b.clone();
        let info = match hetla {
            None => {
                // DGBSV's factorization of A (DGBTRF), then DGBTRS with A or Aᵀ.
                let (mut ab, k, ldab) = self.a.band();
                let mut ipiv = vec![0i32; n as usize];
                let (k, ldab, t) = (k as i32, ldab as i32, if self.trans { b'T' } else { b'N' });
                let (mut info, mut solved) = (0, 0);
                let _one = BlasThreadsGuard::new();
                // SAFETY: ab is ldab×n band storage with kl = ku = k (and k more rows for the
                // fill-in), ipiv n entries, x n×nrhs with leading dimension n.
                unsafe {
                    bk::dgbtrf(&n, &n, &k, &k, ab.as_mut_ptr(), &ldab, ipiv.as_mut_ptr(), &mut info);
                    if info == 0 {
                        let (pa, pp, px) = (ab.as_ptr(), ipiv.as_ptr(), x.as_mut_ptr());
                        bk::dgbtrs(bk::ch(t), &n, &k, &k, &r, pa, &ldab, pp, px, &n, &mut solved, 1);
                    }
                }
                info
            }
            Some(c) => {
                let c = Config { bt: Some(self.method), ..c.clone() };
                let (mut dl, mut d, mut du) = (self.a.dl.clone(), self.a.d.clone(), self.a.du.clone());
                let (pl, pd, pu, px) = (raw(&mut dl), raw(&mut d), raw(&mut du), raw(&mut x));
                if self.trans {
                    let laf = api::bt::laf_needed(nb, m);
                    let mut af = vec![0.0; laf as usize];
                    let mut ipiv = vec![0i32; n as usize];
                    let (pf, pp) = (raw(&mut af), raw(&mut ipiv));
                    let f = api::bt::dbttrf(&c, nb, m, pl, pd, pu, pf, laf as i32, pp);
                    info(f.and_then(|_| {
                        api::bt::dbttrs(&c, b'T', nb, m, r, pl, pd, pu, pf, laf as i32, pp, px, n)
                    }))
                } else {
                    info(api::bt::dbtsv(&c, nb, m, r, pl, pd, pu, px, n))
                }
            }
        };
        Out { b: x, ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        if out.info == 0 {
            out.b.clone()
        } else {
            vec![]
        }
    }

    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        if out.info != 0 {
            return None;
        }
        let n = self.a.order();
        let (b, x) = (columns(&self.b, n, NRHS, n), columns(&out.b, n, NRHS, n));
        let a = |p: &[Dd]| dd::apply((n, n), self.trans, p, |j| self.a.rows(j), |i, j| self.a.get(i, j));
        Some(vec![residual(a, self.anorm, &b, &x)])
    }
}

// ---------------------------------------------------------------------------------------------
// ?GEMM (against the product in double-double)

struct Gemm<T> {
    ta: u8,
    tb: u8,
    /// C is m×n, the inner dimension k.
    dims: (usize, usize, usize),
    alpha: T,
    beta: T,
    a: Vec<T>,
    b: Vec<T>,
    c: Vec<T>,
    /// The columns measured, and on them α·op(A)·op(B) + β·C in double-double (real and
    /// imaginary parts interleaved for a complex type) and |α|·|op(A)|·|op(B)| + |β|·|C|, column
    /// after column.
    cols: Vec<usize>,
    exact: Vec<Dd>,
    scale: Vec<f64>,
}

/// C (n × n − n/5) ← α·op(A)·op(B) + β·C with inner dimension n + n/7, α = 1.5 and β = −0.75
/// (1.5 + 0.5i and −0.75 + 0.25i in the complex types); A is the class's input (its corruption
/// included), B and C normal. The error is measured on 16 columns spread over C (all when fewer).
/// TRANS 'T' is the transpose and 'C' the conjugate transpose.
fn gemm_problem<T: OpElem>(case: &Case, ta: u8, tb: u8) -> Result<Box<dyn Problem>, String> {
    let (m, n, k) = (case.n, case.n - case.n / 5, case.n + case.n / 7);
    let (ar, ac) = if ta == b'N' { (m, k) } else { (k, m) };
    let a = gen::general_of::<T>(case.class, ar, ac, case.seed);
    let w = if T::COMPLEX { 2 } else { 1 };
    let mut rng = Rng::new(case.seed + 3);
    let mut values = |len: usize| -> Vec<T> {
        rng.normals(w * len).chunks(w).map(|p| T::from_parts(p[0], p[w - 1])).collect()
    };
    let (b, c) = (values(k * n), values(m * n));
    let (alpha, beta) = (T::from_parts(1.5, 0.5), T::from_parts(-0.75, 0.25));
    let ldb = if tb == b'N' { k } else { n };
    let cols: Vec<usize> = (0..n).step_by(n.div_ceil(16).max(1)).collect();
    let pa = parts(&a);
    let am = Mat::of(T::COMPLEX, &pa, ar, ac, ar, Shape::Full);
    let abs: Vec<f64> = a.iter().map(|x| x.abs().into()).collect();
    let a_abs = Mat::new(&abs, ar, ac, ar, Shape::Full);
    // Negates the imaginary parts of interleaved complex parts.
    let conj = |v: &mut [Dd]| v.iter_mut().skip(1).step_by(2).for_each(|x| *x = Dd::new(0.0).sub(*x));
    let (mut exact, mut scale) = (Vec::new(), Vec::new());
    let part = |x: T| -> (f64, f64) { (x.re().into(), x.im().into()) };
    let (al, be) = (part(alpha), part(beta));
    let (amod, bmod): (f64, f64) = (alpha.abs().into(), beta.abs().into());
    for &j in &cols {
        // Column j of op(B), its parts as double-doubles, and their moduli.
        let col: Vec<T> = (0..k)
            .map(|l| match tb {
                b'N' => b[l + j * ldb],
                b'T' => b[j + l * ldb],
                _ => b[j + l * ldb].conj(),
            })
            .collect();
        let mut x: Vec<Dd> = parts(&col).into_iter().map(Dd::new).collect();
        // op(A)·x: the real form's product is A's, its transpose's is Aᴴ's; Aᵀ·x = conj(Aᴴ·conj(x)).
        let plain_t = T::COMPLEX && ta == b'T';
        if plain_t {
            conj(&mut x);
        }
        let mut prod = am.apply(ta != b'N', &x);
        if plain_t {
            conj(&mut prod);
        }
        let mods: Vec<Dd> = col.iter().map(|&v| Dd::new(v.abs().into())).collect();
        let bound = a_abs.apply(ta != b'N', &mods);
        for i in 0..m {
            let (pr, pi) = (prod[w * i], if T::COMPLEX { prod[w * i + 1] } else { Dd::new(0.0) });
            let (cr, ci) = part(c[i + j * m]);
            let re = pr.mul(al.0).sub(pi.mul(al.1)).add(Dd::new(cr).mul(be.0)).sub(Dd::new(ci).mul(be.1));
            exact.push(re);
            if T::COMPLEX {
                let im = pr.mul(al.1).add(pi.mul(al.0)).add(Dd::new(cr).mul(be.1)).add(Dd::new(ci).mul(be.0));
                exact.push(im);
            }
            let cmod: f64 = c[i + j * m].abs().into();
            scale.push(bound[i].value() * amod + cmod * bmod);
        }
    }
    Ok(Box::new(Gemm { ta, tb, dims: (m, n, k), alpha, beta, a, b, c, cols, exact, scale }))
}

impl<T: OpElem> Gemm<T> {
    /// (rows of A, rows of B): the leading dimensions.
    fn lds(&self) -> (usize, usize) {
        let (m, n, k) = self.dims;
        (if self.ta == b'N' { m } else { k }, if self.tb == b'N' { k } else { n })
    }
}

impl<T: OpElem> Problem for Gemm<T> {
    fn run(&self, hetla: Option<&Config>) -> Out {
        let (m, n, k) = (self.dims.0 as i32, self.dims.1 as i32, self.dims.2 as i32);
        let (lda, ldb) = (self.lds().0 as i32, self.lds().1 as i32);
        let (mut a, mut b, mut c) = (self.a.clone(), self.b.clone(), self.c.clone());
        let (pa, pb, pc) = (raw(&mut a), raw(&mut b), raw(&mut c));
        let (ta, tb, alpha, beta) = (self.ta, self.tb, self.alpha, self.beta);
        let info = match hetla {
            None => reference(|| {
                forward::gemm(ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, m);
                0
            }),
            Some(cf) => info(api::gemm::gemm(cf, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, m)),
        };
        Out { b: parts(&c), ..Out::new(info) }
    }

    fn defined(&self, out: &Out) -> Vec<f64> {
        out.b.clone()
    }

    /// ‖C′ − (α·op(A)·op(B) + β·C)‖_F / ‖|α|·|op(A)|·|op(B)| + |β|·|C|‖_F / ε on the columns
    /// measured.
    fn measure(&self, out: &Out) -> Option<Vec<f64>> {
        let wm = if T::COMPLEX { 2 } else { 1 } * self.dims.0;
        let got = self.cols.iter().flat_map(|&j| out.b[j * wm..(j + 1) * wm].iter());
        let err: Vec<Dd> = got.zip(&self.exact).map(|(&g, e)| Dd::new(g).sub(*e)).collect();
        Some(vec![dd::dd_norm(&[err]) / dd::norm(self.scale.iter().copied()) / EPS])
    }
}
