//! The four LAPACK element types (single and double, real and complex) and what the generic tile
//! kernels need of each: arithmetic on one value, the type's letter, and its backend routines.
//!
//! [`c32`] and [`c64`] are Fortran's COMPLEX and COMPLEX*16 (and C's `float _Complex` /
//! `double _Complex`): the real part then the imaginary part, `#[repr(C)]`. The backend routine
//! of a kernel is named by the type's letter and the routine's stem (`sgemm_`, `dgemm_`,
//! `cgemm_`, `zgemm_`), looked up once per type ([`crate::backend::lapack::Routines`]); a kernel
//! written once over [`Scalar`] is monomorphized per type, so the f64 instance is the same call
//! it always was, with no dispatch at run time.
//!
//! A transposed operand means the adjoint: `Trans::Yes` is passed as [`Scalar::ADJOINT`], `'T'`
//! for the real types and `'C'` (conjugate transpose) for the complex ones, which is what the
//! Cholesky family needs (A = L·Lᴴ). The symmetric rank-k update is the Hermitian one for complex
//! types (`?herk`, real α and β).

use crate::backend::lapack::Routines;
use crate::tile::Elem;
use std::fmt::Debug;

/// Single complex: Fortran COMPLEX, C `float _Complex`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct c32 {
    pub re: f32,
    pub im: f32,
}

/// Double complex: Fortran COMPLEX*16, C `double _Complex`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct c64 {
    pub re: f64,
    pub im: f64,
}

/// A scalar factor of an op (GEMM's α and β) for any of the four types, held exactly: a real
/// number, or a complex number's two parts, in f64 (single-precision values are exact in f64).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coef {
    pub re: f64,
    pub im: f64,
}

impl Coef {
    /// `x` as a factor.
    pub fn of<T: Scalar>(x: T) -> Coef {
        Coef { re: x.re().into(), im: x.im().into() }
    }
    /// The factor in type `T` (exact when it came from a `T`; a real type takes the real part).
    pub fn to<T: Scalar>(self) -> T {
        T::from_parts(self.re, self.im)
    }
    /// Whether the factor is 0 (either sign).
    pub fn is_zero(self) -> bool {
        self.re == 0.0 && self.im == 0.0
    }
}

impl From<f64> for Coef {
    fn from(re: f64) -> Coef {
        Coef { re, im: 0.0 }
    }
}

/// An element type of LAPACK's four: `f32`, `f64`, [`c32`], [`c64`].
pub trait Scalar: Elem + Default + PartialEq + Debug {
    /// The type of the real and imaginary parts (and of HERK's α and β).
    type Real: Scalar<Real = Self::Real> + PartialOrd + Into<f64>;
    /// LAPACK's letter for the type: `b's'`, `b'd'`, `b'c'`, `b'z'`.
    const LETTER: u8;
    /// Whether the type is complex.
    const COMPLEX: bool;
    /// The TRANS character of an adjoint operand: `b'T'` for real types, `b'C'` for complex.
    const ADJOINT: u8;
    /// Real flops per flop of the real count of an op, LAPACK Working Note 41's convention: a
    /// complex multiply-add is four real ones' work (6 flops for the multiply, 2 for the add).
    const FLOPS: f64;

    fn zero() -> Self {
        Self::default()
    }
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// The real number `x` in this type (rounded to nearest in single precision).
    fn from_f64(x: f64) -> Self {
        Self::from_parts(x, 0.0)
    }
    /// re + i·im in this type; a real type takes `re` and ignores `im`.
    fn from_parts(re: f64, im: f64) -> Self;
    fn from_real(x: Self::Real) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part (0 for real types).
    fn im(self) -> Self::Real;
    /// The complex conjugate (the value itself for real types).
    fn conj(self) -> Self;
    /// |x|, the modulus for complex types.
    fn abs(self) -> Self::Real;
    /// The unit roundoff's double, ε = 2^-p (LAPACK's `?LAMCH('E')`) of the real type.
    fn eps() -> f64;
    /// The type's backend routines.
    fn routines() -> &'static Routines;
    /// The LAPACK integer `i` held exactly in one element, for the LU's pivot buffers (tiles of
    /// the matrix's own type): its value in the double types, its bits in the single ones (whose
    /// 24-bit significand would round rows past 2^24). Such an element is only ever copied and
    /// read back by [`Scalar::index`], never computed with (a single one may be a subnormal or
    /// NaN pattern).
    fn from_index(i: i32) -> Self;
    /// The integer [`Scalar::from_index`] stored.
    fn index(self) -> i32;
    /// x + y, rounded once in this type (the parts' sum in f64 is exact for the single types).
    #[inline(always)]
    fn add(self, y: Self) -> Self {
        Self::from_parts(self.re().into() + y.re().into(), self.im().into() + y.im().into())
    }
    /// x − y, rounded once in this type.
    #[inline(always)]
    fn sub(self, y: Self) -> Self {
        Self::from_parts(self.re().into() - y.re().into(), self.im().into() - y.im().into())
    }
    /// x·y: the real types' product; for complex ones the textbook formula on the parts in f64
    /// (the single type's parts are then rounded once).
    #[inline(always)]
    fn mul(self, y: Self) -> Self {
        let (a, b, c, d) = (self.re().into(), self.im().into(), y.re().into(), y.im().into());
        Self::from_parts(a * c - b * d, a * d + b * c)
    }
    /// x / y: the real types' quotient; for complex ones Smith's algorithm on the parts in f64
    /// (no overflow from squaring y's parts).
    #[inline(always)]
    fn div(self, y: Self) -> Self {
        let (a, b, c, d): (f64, f64, f64, f64) =
            (self.re().into(), self.im().into(), y.re().into(), y.im().into());
        if d == 0.0 {
            return Self::from_parts(a / c, b / c);
        }
        if c.abs() >= d.abs() {
            let (r, den) = (d / c, c + d * (d / c));
            Self::from_parts((a + b * r) / den, (b - a * r) / den)
        } else {
            let (r, den) = (c / d, d + c * (c / d));
            Self::from_parts((a * r + b) / den, (b * r - a) / den)
        }
    }
    /// |re| + |im|: the magnitude LAPACK's I?AMAX compares (CABS1 for complex types), so a pivot
    /// search picks the row LAPACK's would.
    #[inline(always)]
    fn abs1(self) -> f64 {
        // Summed in the real type, as ?CABS1 sums (so ties and near-ties fall as LAPACK's do).
        self.re().abs().add(self.im().abs()).into()
    }
    /// The safe minimum of the real type (LAPACK's `?LAMCH('S')`): the least normal number,
    /// whose reciprocal does not overflow.
    fn safe_min() -> f64 {
        if Self::eps() < f32::EPSILON as f64 / 4.0 {
            f64::MIN_POSITIVE
        } else {
            f32::MIN_POSITIVE as f64
        }
    }
}

impl Scalar for f64 {
    type Real = f64;
    const LETTER: u8 = b'd';
    const COMPLEX: bool = false;
    const ADJOINT: u8 = b'T';
    const FLOPS: f64 = 1.0;
    #[inline(always)]
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn from_parts(re: f64, _im: f64) -> f64 {
        re
    }
    fn from_real(x: f64) -> f64 {
        x
    }
    fn re(self) -> f64 {
        self
    }
    fn im(self) -> f64 {
        0.0
    }
    fn conj(self) -> f64 {
        self
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn eps() -> f64 {
        f64::EPSILON / 2.0
    }
    fn routines() -> &'static Routines {
        static R: Routines = Routines::new(b'd');
        &R
    }
    #[inline(always)]
    fn from_index(i: i32) -> f64 {
        i as f64
    }
    #[inline(always)]
    fn index(self) -> i32 {
        self as i32
    }
    #[inline(always)]
    fn mul(self, y: f64) -> f64 {
        self * y
    }
    #[inline(always)]
    fn div(self, y: f64) -> f64 {
        self / y
    }
    #[inline(always)]
    fn abs1(self) -> f64 {
        self.abs()
    }
}

impl Scalar for f32 {
    type Real = f32;
    const LETTER: u8 = b's';
    const COMPLEX: bool = false;
    const ADJOINT: u8 = b'T';
    const FLOPS: f64 = 1.0;
    fn from_parts(re: f64, _im: f64) -> f32 {
        re as f32
    }
    fn from_real(x: f32) -> f32 {
        x
    }
    fn re(self) -> f32 {
        self
    }
    fn im(self) -> f32 {
        0.0
    }
    fn conj(self) -> f32 {
        self
    }
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn eps() -> f64 {
        f32::EPSILON as f64 / 2.0
    }
    fn routines() -> &'static Routines {
        static R: Routines = Routines::new(b's');
        &R
    }
    fn from_index(i: i32) -> f32 {
        f32::from_bits(i as u32)
    }
    fn index(self) -> i32 {
        self.to_bits() as i32
    }
    #[inline(always)]
    fn mul(self, y: f32) -> f32 {
        self * y
    }
    #[inline(always)]
    fn div(self, y: f32) -> f32 {
        self / y
    }
}

impl Scalar for c32 {
    type Real = f32;
    const LETTER: u8 = b'c';
    const COMPLEX: bool = true;
    const ADJOINT: u8 = b'C';
    const FLOPS: f64 = 4.0;
    fn from_parts(re: f64, im: f64) -> c32 {
        c32 { re: re as f32, im: im as f32 }
    }
    fn from_real(x: f32) -> c32 {
        c32 { re: x, im: 0.0 }
    }
    fn re(self) -> f32 {
        self.re
    }
    fn im(self) -> f32 {
        self.im
    }
    fn conj(self) -> c32 {
        c32 { re: self.re, im: -self.im }
    }
    fn abs(self) -> f32 {
        self.re.hypot(self.im)
    }
    fn eps() -> f64 {
        f32::EPSILON as f64 / 2.0
    }
    fn routines() -> &'static Routines {
        static R: Routines = Routines::new(b'c');
        &R
    }
    fn from_index(i: i32) -> c32 {
        c32 { re: f32::from_index(i), im: 0.0 }
    }
    fn index(self) -> i32 {
        self.re.index()
    }
}

impl Scalar for c64 {
    type Real = f64;
    const LETTER: u8 = b'z';
    const COMPLEX: bool = true;
    const ADJOINT: u8 = b'C';
    const FLOPS: f64 = 4.0;
    fn from_parts(re: f64, im: f64) -> c64 {
        c64 { re, im }
    }
    fn from_real(x: f64) -> c64 {
        c64 { re: x, im: 0.0 }
    }
    fn re(self) -> f64 {
        self.re
    }
    fn im(self) -> f64 {
        self.im
    }
    fn conj(self) -> c64 {
        c64 { re: self.re, im: -self.im }
    }
    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn eps() -> f64 {
        f64::EPSILON / 2.0
    }
    fn routines() -> &'static Routines {
        static R: Routines = Routines::new(b'z');
        &R
    }
    fn from_index(i: i32) -> c64 {
        c64 { re: i as f64, im: 0.0 }
    }
    fn index(self) -> i32 {
        self.re as i32
    }
}

impl Elem for f32 {
    const KIND: crate::tile::Kind = crate::tile::Kind::F32;
    fn zeroed(len: usize) -> Vec<f32> {
        vec![0.0; len]
    }
}
impl Elem for c32 {
    const KIND: crate::tile::Kind = crate::tile::Kind::C32;
    fn zeroed(len: usize) -> Vec<c32> {
        vec![c32::default(); len]
    }
}
impl Elem for c64 {
    const KIND: crate::tile::Kind = crate::tile::Kind::C64;
    fn zeroed(len: usize) -> Vec<c64> {
        vec![c64::default(); len]
    }
}

/// The LAPACK name of routine `stem` (`"potrf"`) for element type `T` (`"zpotrf"`), lower case
/// as `HETLA_DISABLE` and the learner name routines.
pub fn name<T: Scalar>(stem: &'static str) -> &'static str {
    // A fixed table: the names are keys of the learner and of `HETLA_DISABLE`, so they must be
    // `'static` without allocating per call.
    const NAMES: &[(&str, [&str; 4])] = &[
        ("gemm", ["sgemm", "dgemm", "cgemm", "zgemm"]),
        ("potrf", ["spotrf", "dpotrf", "cpotrf", "zpotrf"]),
        ("potrs", ["spotrs", "dpotrs", "cpotrs", "zpotrs"]),
        ("posv", ["sposv", "dposv", "cposv", "zposv"]),
        ("getrf", ["sgetrf", "dgetrf", "cgetrf", "zgetrf"]),
        ("getrs", ["sgetrs", "dgetrs", "cgetrs", "zgetrs"]),
        ("gesv", ["sgesv", "dgesv", "cgesv", "zgesv"]),
        ("trtri", ["strtri", "dtrtri", "ctrtri", "ztrtri"]),
        ("potri", ["spotri", "dpotri", "cpotri", "zpotri"]),
        ("getri", ["sgetri", "dgetri", "cgetri", "zgetri"]),
        ("geqrf", ["sgeqrf", "dgeqrf", "cgeqrf", "zgeqrf"]),
        ("gels", ["sgels", "dgels", "cgels", "zgels"]),
        ("orgqr", ["sorgqr", "dorgqr", "cungqr", "zungqr"]),
        ("ormqr", ["sormqr", "dormqr", "cunmqr", "zunmqr"]),
    ];
    NAMES
        .iter()
        .find(|(s, _)| *s == stem)
        .map(|(_, n)| n[type_index::<T>()])
        .expect("a routine stem of the table")
}

/// The ScaLAPACK name of routine `stem` (`"potrf"`) for element type `T` (`"pzpotrf"`), lower
/// case as `HETLA_DISABLE`, the learner and the verbose lines name routines.
pub fn pname<T: Scalar>(stem: &'static str) -> &'static str {
    const NAMES: &[(&str, [&str; 4])] = &[
        ("potrf", ["pspotrf", "pdpotrf", "pcpotrf", "pzpotrf"]),
        ("potrs", ["pspotrs", "pdpotrs", "pcpotrs", "pzpotrs"]),
        ("posv", ["psposv", "pdposv", "pcposv", "pzposv"]),
        ("getrf", ["psgetrf", "pdgetrf", "pcgetrf", "pzgetrf"]),
        ("getrs", ["psgetrs", "pdgetrs", "pcgetrs", "pzgetrs"]),
        ("gesv", ["psgesv", "pdgesv", "pcgesv", "pzgesv"]),
        ("geqrf", ["psgeqrf", "pdgeqrf", "pcgeqrf", "pzgeqrf"]),
        ("trtri", ["pstrtri", "pdtrtri", "pctrtri", "pztrtri"]),
        ("potri", ["pspotri", "pdpotri", "pcpotri", "pzpotri"]),
        ("getri", ["psgetri", "pdgetri", "pcgetri", "pzgetri"]),
        ("orgqr", ["psorgqr", "pdorgqr", "pcungqr", "pzungqr"]),
        ("ormqr", ["psormqr", "pdormqr", "pcunmqr", "pzunmqr"]),
    ];
    NAMES
        .iter()
        .find(|(s, _)| *s == stem)
        .map(|(_, n)| n[type_index::<T>()])
        .expect("a routine stem of the ScaLAPACK table")
}

/// 0, 1, 2, 3 for s, d, c, z.
pub fn type_index<T: Scalar>() -> usize {
    match T::LETTER {
        b's' => 0,
        b'd' => 1,
        b'c' => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_layout_is_fortrans() {
        assert_eq!(std::mem::size_of::<c32>(), 8);
        assert_eq!(std::mem::align_of::<c32>(), 4);
        assert_eq!(std::mem::size_of::<c64>(), 16);
        assert_eq!(std::mem::align_of::<c64>(), 8);
        let z = [c64 { re: 1.5, im: -2.0 }];
        // SAFETY: a c64 is two f64s, real part first (repr(C)).
        let parts = unsafe { std::slice::from_raw_parts(z.as_ptr() as *const f64, 2) };
        assert_eq!(parts, [1.5, -2.0]);
    }

    #[test]
    fn values_and_names() {
        assert_eq!(c64::from_parts(3.0, 4.0).abs(), 5.0);
        assert_eq!(c32::from_parts(1.0, 2.0).conj(), c32 { re: 1.0, im: -2.0 });
        assert_eq!(<f32 as Scalar>::one(), 1.0f32);
        assert_eq!(<c64 as Scalar>::zero(), c64 { re: 0.0, im: 0.0 });
        assert_eq!(name::<f32>("potrf"), "spotrf");
        assert_eq!(name::<f64>("potrf"), "dpotrf");
        assert_eq!(name::<c32>("potrf"), "cpotrf");
        assert_eq!(name::<c64>("potrf"), "zpotrf");
        assert_eq!(name::<f32>("potrs"), "spotrs");
        assert_eq!(name::<c64>("posv"), "zposv");
        assert_eq!(<c32 as Scalar>::eps(), 2f64.powi(-24));
        assert_eq!(name::<c32>("getrs"), "cgetrs");
        assert_eq!(name::<f32>("gesv"), "sgesv");
        assert_eq!(name::<f32>("trtri"), "strtri");
        assert_eq!(name::<c32>("potri"), "cpotri");
        assert_eq!(name::<c64>("getri"), "zgetri");
        assert_eq!(name::<c32>("orgqr"), "cungqr");
        assert_eq!(name::<c64>("ormqr"), "zunmqr");
        assert_eq!(name::<f32>("ormqr"), "sormqr");
        assert_eq!(pname::<f64>("potrf"), "pdpotrf");
        assert_eq!(pname::<f32>("getrs"), "psgetrs");
        assert_eq!(pname::<c32>("orgqr"), "pcungqr");
        assert_eq!(pname::<c64>("ormqr"), "pzunmqr");
        assert_eq!(c64::from_parts(1.0, 2.0).add(c64::from_parts(0.5, -1.0)), c64::from_parts(1.5, 1.0));
        assert_eq!(c32::from_parts(1.0, 2.0).sub(c32::from_parts(0.5, -1.0)), c32::from_parts(0.5, 3.0));
        assert_eq!(0.1f32.add(0.2f32), 0.1f32 + 0.2f32);
    }

    /// Every LAPACK integer survives an element of each type, rows past 2^24 in single precision
    /// too, and -1 (a pivot buffer's "none").
    #[test]
    fn indices_are_exact_in_every_type() {
        fn each<T: Scalar>() {
            for i in [-1, 0, 1, 2, 17, (1 << 24) + 1, i32::MAX - 1, i32::MAX] {
                let x = T::from_index(i);
                // Copied as a pivot buffer's entries are (plain loads and stores).
                let y = [x][0];
                assert_eq!(y.index(), i, "{} {i}", std::any::type_name::<T>());
            }
        }
        each::<f32>();
        each::<f64>();
        each::<c32>();
        each::<c64>();
        assert_eq!(f64::from_index(7), 7.0, "f64 keeps the value itself");
    }

    /// The one-value arithmetic the split LU panel and CALU's zero-safe solve use: products and
    /// quotients as the type rounds them (exact cases), Smith's quotient without overflow where
    /// the textbook one's |y|² overflows, CABS1 summed in the real type, the safe minimum.
    #[test]
    fn products_quotients_and_magnitudes() {
        assert_eq!(3.0f64.mul(0.1), 3.0 * 0.1);
        assert_eq!(1.0f32.div(3.0), 1.0f32 / 3.0);
        let (x, y) = (c64 { re: 1.0, im: 2.0 }, c64 { re: 3.0, im: -1.0 });
        assert_eq!(x.mul(y), c64 { re: 5.0, im: 5.0 });
        // (1 + 2i)(2 + i) = 5i; Smith's ratio 1/2 is exact.
        assert_eq!(c64 { re: 0.0, im: 5.0 }.div(c64 { re: 2.0, im: 1.0 }), x);
        assert_eq!(c32 { re: 0.0, im: 5.0 }.div(c32 { re: 1.0, im: 2.0 }), c32 { re: 2.0, im: 1.0 });
        assert_eq!(c64 { re: 4.0, im: 6.0 }.div(c64 { re: 2.0, im: 0.0 }), c64 { re: 2.0, im: 3.0 });
        let big = c64 { re: 1e300, im: 1e300 };
        assert_eq!(big.div(big), c64 { re: 1.0, im: 0.0 });
        assert_eq!(c64 { re: -3.0, im: 4.0 }.abs1(), 7.0);
        // 1 + 2^-24 rounds to 1 in single: summed in f32 as ICAMAX's CABS1 sums.
        assert_eq!(c32 { re: 1.0, im: 2f32.powi(-24) }.abs1(), 1.0);
        assert_eq!(f32::safe_min(), f32::MIN_POSITIVE as f64);
        assert_eq!(c32::safe_min(), f32::MIN_POSITIVE as f64);
        assert_eq!(f64::safe_min(), f64::MIN_POSITIVE);
        assert_eq!(c64::safe_min(), f64::MIN_POSITIVE);
    }
}
