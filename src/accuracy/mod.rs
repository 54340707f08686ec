//! Accuracy against the reference on the same input: the harness of the accuracy tests
//! (`api::accuracy_tests`) and of the accuracy benchmark (`examples/accuracy.rs`,
//! `bench/accuracy.sh`).
//!
//! Every routine hetla runs on tiles is called three times on copies of one seeded input: by the
//! backend ([`crate::backend::forward`], one BLAS thread), by the reference LAPACK (netlib's
//! LAPACK over netlib's BLAS, [`crate::backend::reference`]), and by hetla's `api` function with
//! the configuration given. Both outputs are measured the same way
//! (`routines.rs`: the backward error of a factorization, the residual of a solve, ‖AX − I‖ and
//! ‖XA − I‖ of an inverse, the orthogonality of Q, the error of a product), in double-double
//! along random probe vectors ([`dd`]), so a measure shows the result's own error and not the
//! measurement's rounding. A [`Case`] is one routine on one input [`Class`] at one size and seed;
//! [`compare`] runs it; [`summarize`] groups the outcomes over seeds and holds each measure to
//! the project's rule: hetla's within 2× of the reference's as a median over seeds and 4× in
//! every case ([`Bounds`]; CALU, whose pivots are not GEPP's, to its documented 4× of GEPP's),
//! the same INFO in every case, and NaN wherever the reference's output has NaN (and only there:
//! a NaN where the reference returns a number is a wrong answer).
//!
//! Every measure is in units of the unit roundoff ε times the scale the error is relative to
//! (‖A‖·‖x‖ for a backward error, ‖A‖·‖X‖ + ‖B‖ for a residual, ...), with no dimension factor.
//! A ratio is hetla's measure over max(backend's, reference LAPACK's, floor), the floor being the
//! same measure of the backend's output with one more rounding error in every entry
//! ([`Measure::floor`]).
//!
//! Why two references: on some inputs two LAPACKs differ from each other by far more than 2×.
//! Measured with this harness (2026-11-28, n = 53-113): on triangles graded over 1e±100,
//! OpenBLAS 0.3.21's own DTRTRI and netlib's DTRTRI differ by up to 70× in ‖X·T − I‖; on the
//! graded Cholesky, netlib's ‖A − UᵀU‖ is 100× below OpenBLAS's; with a NaN in a band matrix,
//! OpenBLAS's DGBSV reports a zero pivot (INFO = 62) where netlib's finds none. A rule held
//! against one of them would call either one's summation order a defect of the other. So
//! hetla's measure is held to the larger of the two, and its INFO to either's; where the two
//! agree (nearly everywhere), this is the same as comparing with either.

pub mod dd;
pub mod gen;
mod routines;

use crate::backend::reference;
use crate::config::Config;

/// The kinds of input every routine is compared on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Normal random entries (symmetric positive definite: condition number 10).
    Well,
    /// Condition number 1e6 (U·diag(σ)·Vᵀ, σ graded geometrically; Q·diag(σ)·Qᵀ).
    Cond6,
    /// Condition number 1e10.
    Cond10,
    /// Condition number 1e14.
    Cond14,
    /// Rows and columns scaled from 1e-100 to 1e100 (D₁·A·D₂).
    Graded,
    /// Entries near overflow (scaled by 1e300).
    Big,
    /// Entries near underflow (scaled by 1e-300).
    Tiny,
    /// One column exactly zero.
    ZeroCol,
    /// One row exactly zero: singular.
    ZeroRow,
    /// One NaN.
    Nan,
    /// One Inf.
    Inf,
}

impl Class {
    pub const ALL: [Class; 11] = [
        Class::Well,
        Class::Cond6,
        Class::Cond10,
        Class::Cond14,
        Class::Graded,
        Class::Big,
        Class::Tiny,
        Class::ZeroCol,
        Class::ZeroRow,
        Class::Nan,
        Class::Inf,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Well => "well",
            Class::Cond6 => "cond 1e6",
            Class::Cond10 => "cond 1e10",
            Class::Cond14 => "cond 1e14",
            Class::Graded => "graded 1e±100",
            Class::Big => "big 1e300",
            Class::Tiny => "tiny 1e-300",
            Class::ZeroCol => "zero column",
            Class::ZeroRow => "zero row",
            Class::Nan => "NaN",
            Class::Inf => "Inf",
        }
    }

    /// The class's name for inputs of type `ty`: single precision's inputs keep the classes'
    /// meaning at its own range and unit roundoff (condition numbers 1e3, 1e5, 1e7 for 1e6,
    /// 1e10, 1e14; grading over 1e±15; scales 1e±36; `gen`).
    pub fn label(self, ty: Ty) -> &'static str {
        if !ty.single() {
            return self.name();
        }
        match self {
            Class::Cond6 => "cond 1e3",
            Class::Cond10 => "cond 1e5",
            Class::Cond14 => "cond 1e7",
            Class::Graded => "graded 1e±15",
            Class::Big => "big 1e36",
            Class::Tiny => "tiny 1e-36",
            c => c.name(),
        }
    }

    /// The condition number of a condition class.
    pub fn kappa(self) -> Option<f64> {
        match self {
            Class::Cond6 => Some(1e6),
            Class::Cond10 => Some(1e10),
            Class::Cond14 => Some(1e14),
            _ => None,
        }
    }

    /// Whether the class is a corruption (zeros, NaN, Inf) applied to a well-conditioned input.
    pub fn is_corruption(self) -> bool {
        matches!(self, Class::ZeroCol | Class::ZeroRow | Class::Nan | Class::Inf)
    }

    /// The classes whose name (spaces and ± left out, any case) starts with `s`: `cond` is all
    /// three condition classes.
    pub fn parse(s: &str) -> Vec<Class> {
        let key = |x: &str| x.replace([' ', '±'], "").to_ascii_lowercase();
        Class::ALL.into_iter().filter(|c| key(c.name()).starts_with(&key(s))).collect()
    }
}

/// LAPACK's four element types: a case's routine runs in one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    S,
    D,
    C,
    Z,
}

impl Ty {
    pub const ALL: [Ty; 4] = [Ty::S, Ty::D, Ty::C, Ty::Z];

    /// LAPACK's letter.
    pub fn letter(self) -> char {
        match self {
            Ty::S => 's',
            Ty::D => 'd',
            Ty::C => 'c',
            Ty::Z => 'z',
        }
    }

    /// Single precision: its inputs' scales are single's ([`Class::label`]).
    pub fn single(self) -> bool {
        matches!(self, Ty::S | Ty::C)
    }

    /// The types whose letters `s` lists (`"s,z"`, or `"all"`).
    pub fn parse(s: &str) -> Vec<Ty> {
        if s == "all" {
            return Ty::ALL.to_vec();
        }
        Ty::ALL.into_iter().filter(|t| s.contains(t.letter())).collect()
    }
}

/// Every routine (and variant) compared: the arguments in the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Routine {
    PotrfL,
    PotrfU,
    PotrsL,
    PosvU,
    Getrf,
    GetrsN,
    GetrsT,
    GetrsC,
    Gesv,
    GetrfCalu,
    GesvCalu,
    Geqrf,
    GeqrfWide,
    GelsNTall,
    GelsTTall,
    GelsNWide,
    GelsTWide,
    TrtriU,
    TrtriLUnit,
    PotriL,
    Getri,
    Orgqr,
    OrmqrLN,
    OrmqrLT,
    OrmqrRN,
    OrmqrRT,
    BtsvThomas,
    BtsvTwisted,
    BtsvCyclic,
    BttrsTThomas,
    BttrsTTwisted,
    BttrsTCyclic,
    GemmNN,
    GemmTN,
    GemmNT,
    GemmTT,
    /// The complex types' conjugate transposes (`C` is the real types' `T`).
    GemmCT,
    GemmNC,
}

/// Hetla's measure over the reference's: the largest median over seeds, and the largest in any
/// one case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub median: f64,
    pub each: f64,
}

impl Routine {
    pub const ALL: [Routine; 38] = [
        Routine::PotrfL,
        Routine::PotrfU,
        Routine::PotrsL,
        Routine::PosvU,
        Routine::Getrf,
        Routine::GetrsN,
        Routine::GetrsT,
        Routine::GetrsC,
        Routine::Gesv,
        Routine::GetrfCalu,
        Routine::GesvCalu,
        Routine::Geqrf,
        Routine::GeqrfWide,
        Routine::GelsNTall,
        Routine::GelsTTall,
        Routine::GelsNWide,
        Routine::GelsTWide,
        Routine::TrtriU,
        Routine::TrtriLUnit,
        Routine::PotriL,
        Routine::Getri,
        Routine::Orgqr,
        Routine::OrmqrLN,
        Routine::OrmqrLT,
        Routine::OrmqrRN,
        Routine::OrmqrRT,
        Routine::BtsvThomas,
        Routine::BtsvTwisted,
        Routine::BtsvCyclic,
        Routine::BttrsTThomas,
        Routine::BttrsTTwisted,
        Routine::BttrsTCyclic,
        Routine::GemmNN,
        Routine::GemmTN,
        Routine::GemmNT,
        Routine::GemmTT,
        Routine::GemmCT,
        Routine::GemmNC,
    ];

    /// The call, with the arguments that make the variant (m×n shapes: `tall` m = n + n/3,
    /// `wide` m = n − n/4).
    pub fn name(self) -> &'static str {
        use Routine::*;
        match self {
            PotrfL => "dpotrf L",
            PotrfU => "dpotrf U",
            PotrsL => "dpotrs L",
            PosvU => "dposv U",
            Getrf => "dgetrf",
            GetrsN => "dgetrs N",
            GetrsT => "dgetrs T",
            GetrsC => "dgetrs C",
            Gesv => "dgesv",
            GetrfCalu => "dgetrf CALU",
            GesvCalu => "dgesv CALU",
            Geqrf => "dgeqrf tall",
            GeqrfWide => "dgeqrf wide",
            GelsNTall => "dgels N tall",
            GelsTTall => "dgels T tall",
            GelsNWide => "dgels N wide",
            GelsTWide => "dgels T wide",
            TrtriU => "dtrtri U N",
            TrtriLUnit => "dtrtri L U",
            PotriL => "dpotri L",
            Getri => "dgetri",
            Orgqr => "dorgqr",
            OrmqrLN => "dormqr L N",
            OrmqrLT => "dormqr L T",
            OrmqrRN => "dormqr R N",
            OrmqrRT => "dormqr R T",
            BtsvThomas => "dbtsv thomas",
            BtsvTwisted => "dbtsv twisted",
            BtsvCyclic => "dbtsv cyclic",
            BttrsTThomas => "dbttrf+dbttrs T thomas",
            BttrsTTwisted => "dbttrf+dbttrs T twisted",
            BttrsTCyclic => "dbttrf+dbttrs T cyclic",
            GemmNN => "dgemm N N",
            GemmTN => "dgemm T N",
            GemmNT => "dgemm N T",
            GemmTT => "dgemm T T",
            GemmCT => "dgemm C T",
            GemmNC => "dgemm N C",
        }
    }

    /// The measures of the routine's outputs, in the order [`compare`] records them.
    pub fn measures(self) -> &'static [&'static str] {
        use Routine::*;
        match self {
            PotrfL | PotrfU | Getrf => &[BACKWARD],
            Geqrf | GeqrfWide => &[BACKWARD, ORTHO],
            GetrfCalu => &[BACKWARD, GROWTH],
            GesvCalu => &[RESIDUAL, GROWTH],
            GelsNTall | GelsTWide => &[NORMAL_EQ],
            GelsTTall | GelsNWide => &[RESIDUAL, ROW_SPACE],
            TrtriU | TrtriLUnit | PotriL | Getri => &[AX_I, XA_I],
            Orgqr => &[ORTHO, BACKWARD],
            OrmqrLN | OrmqrLT | OrmqrRN | OrmqrRT | GemmNN | GemmTN | GemmNT | GemmTT | GemmCT | GemmNC => {
                &[ERROR]
            }
            _ => &[RESIDUAL],
        }
    }

    /// The element types the routine is compared in: the Cholesky, LU, inversion and QR families
    /// (with xGELS) and the matrix product in all four (TRANS = 'C' in the complex ones alone),
    /// the rest in double real so far.
    pub fn types(self) -> &'static [Ty] {
        use Routine::*;
        match self {
            PotrfL | PotrfU | PotrsL | PosvU | Getrf | GetrsN | GetrsT | Gesv | TrtriU | TrtriLUnit
            | PotriL | Getri | Geqrf | GeqrfWide | Orgqr | OrmqrLN | OrmqrLT | OrmqrRN | OrmqrRT
            | GelsNTall | GelsTTall | GelsNWide | GelsTWide | GemmNN | GemmTN | GemmNT | GemmTT => &Ty::ALL,
            GetrsC | GemmCT | GemmNC => &[Ty::C, Ty::Z],
            _ => &[Ty::D],
        }
    }

    /// The call in type `ty`: [`Routine::name`] with `ty`'s letter.
    pub fn name_in(self, ty: Ty) -> String {
        let stem = &self.name()[1..];
        // The complex types' unitary Q: xUNGQR, xUNMQR; their TRANS = 'C' where real ones take 'T'.
        let stem = match (ty, stem.strip_prefix("or")) {
            (Ty::C | Ty::Z, Some(rest)) => format!("un{rest}").replace(" T", " C"),
            (Ty::C | Ty::Z, None) if stem.starts_with("gels") => stem.replace(" T", " C"),
            _ => stem.to_string(),
        };
        format!("{}{stem}", ty.letter())
    }

    /// The input classes the routine is compared on: all but the condition classes for a matrix
    /// product (whose error does not depend on a condition number).
    pub fn classes(self) -> Vec<Class> {
        Class::ALL.into_iter().filter(|c| !(self.is_gemm() && c.kappa().is_some())).collect()
    }

    fn is_gemm(self) -> bool {
        matches!(
            self,
            Routine::GemmNN
                | Routine::GemmTN
                | Routine::GemmNT
                | Routine::GemmTT
                | Routine::GemmCT
                | Routine::GemmNC
        )
    }

    /// CALU's tournament pivots are not GEPP's, so it is held to its own documented bound: its
    /// backward error (and its growth factor, and the residual of the solve with its factors)
    /// within 4× of GEPP's, the reference's. Everything else: 2× as a median over seeds, 4× in
    /// each case.
    pub fn bounds(self) -> Bounds {
        match self {
            Routine::GetrfCalu | Routine::GesvCalu => Bounds { median: 4.0, each: 4.0 },
            _ => Bounds { median: 2.0, each: 4.0 },
        }
    }

    /// The routines whose name (spaces, `+` and `-` left out, any case) starts with `s`:
    /// `dgels` is all four DGELS variants.
    /// The type letter is not part of the match (`zgetrs` is every DGETRS variant): the types
    /// are chosen apart.
    pub fn parse(s: &str) -> Vec<Routine> {
        let key =
            |x: &str| x.replace([' ', '+', '-'], "").to_ascii_lowercase().chars().skip(1).collect::<String>();
        Routine::ALL.into_iter().filter(|r| key(r.name()).starts_with(&key(s))).collect()
    }
}

/// The measure names.
pub const BACKWARD: &str = "backward";
pub const ORTHO: &str = "orthogonality";
pub const RESIDUAL: &str = "residual";
pub const NORMAL_EQ: &str = "normal eq.";
pub const ROW_SPACE: &str = "row space";
pub const AX_I: &str = "AX-I";
pub const XA_I: &str = "XA-I";
pub const ERROR: &str = "error";
pub const GROWTH: &str = "growth";

/// One routine on one input class at one size (n, the other dimensions derived from it) and
/// seed, with hetla's tile size (`None`: the library's choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    pub routine: Routine,
    /// The element type it runs in.
    pub ty: Ty,
    pub class: Class,
    pub seed: u64,
    pub n: usize,
    pub nb: Option<usize>,
}

/// One measure of both outputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    pub name: &'static str,
    /// The backend's measure (or the reference LAPACK's, where only its INFO is hetla's).
    pub reference: f64,
    /// The other reference's measure, where its INFO is hetla's too.
    pub other: Option<f64>,
    pub hetla: f64,
    /// The measure of the reference's output with every entry perturbed by a random rounding
    /// error: the error that rounding an exact answer to double precision alone leaves, which no
    /// algorithm avoids (`rounding_floor`). Where the reference's own measure is below it (a
    /// reference that happens to be closer than a rounding, or a scale so large that every
    /// output measures near zero), the ratio is taken against it; it is the smallest floor that
    /// makes a ratio mean something, and the only one applied.
    pub floor: f64,
}

impl Measure {
    /// hetla's over max(reference's, other reference's, floor); infinite where hetla's is not
    /// finite and the reference's is; `None` where the reference's is not finite (nothing to
    /// compare).
    pub fn ratio(&self) -> Option<f64> {
        if !self.reference.is_finite() {
            return None;
        }
        if !self.hetla.is_finite() {
            return Some(f64::INFINITY);
        }
        let other = self.other.filter(|x| x.is_finite()).unwrap_or(0.0);
        let base = self.reference.max(other).max(self.floor);
        Some(if self.hetla == 0.0 { 0.0 } else { self.hetla / base })
    }
}

/// What one [`compare`] found.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub case: Case,
    /// Why the case did not run (the reference could not produce the input it needs).
    pub skipped: Option<String>,
    /// INFO of the reference held to (the backend, or the reference LAPACK where only its INFO is
    /// hetla's) and of hetla.
    pub info: (i32, i32),
    /// INFO of the other reference.
    pub info_other: i32,
    /// Entries of the output LAPACK defines that are NaN in the reference's and not in hetla's.
    pub nan_missing: usize,
    /// Entries of that output that are NaN in hetla's and a number in the reference's.
    pub nan_extra: usize,
    /// Entries NaN in both.
    pub nan_both: usize,
    /// Empty where the INFO leaves nothing to measure or the INFOs differ.
    pub measures: Vec<Measure>,
    /// The path hetla's call took (`api::last_path`).
    pub path: String,
}

/// `base` with every call on tiles: no size forwarding, no learning, no whole-call solver,
/// every DGEMM tiled where devices are configured.
pub fn tiles_config(mut base: Config) -> Config {
    base.min_n = Some(0);
    base.learn = crate::config::Learn::Off;
    base.solver = crate::config::Solver::Off;
    base.gemm_min_volume = 0;
    base
}

/// Runs `case` by the reference and by hetla (`cfg`, with the case's tile size) on copies of the
/// same input, and measures both outputs.
pub fn compare(cfg: &Config, case: &Case) -> Outcome {
    let mut out = Outcome {
        case: *case,
        skipped: None,
        info: (0, 0),
        info_other: 0,
        nan_missing: 0,
        nan_extra: 0,
        nan_both: 0,
        measures: vec![],
        path: String::new(),
    };
    let problem = match routines::build(case) {
        Ok(p) => p,
        Err(why) => {
            out.skipped = Some(why);
            return out;
        }
    };
    let mut cfg = cfg.clone();
    if case.nb.is_some() {
        cfg.nb = case.nb;
    }
    let netlib = reference::Netlib::open().unwrap_or_else(|e| panic!("the accuracy comparisons: {e}"));
    let backend = problem.run(None);
    let nl = reference::with(netlib, || problem.run(None));
    let h = problem.run(Some(&cfg));
    out.path = crate::api::last_path();
    // The reference whose INFO is hetla's, the backend's first.
    let (r, other) = if backend.info != h.info && nl.info == h.info { (nl, backend) } else { (backend, nl) };
    out.info = (r.info, h.info);
    out.info_other = other.info;
    if r.info != h.info {
        return out;
    }
    let (dr, dh) = (problem.defined(&r), problem.defined(&h));
    out.nan_missing = dr.iter().zip(&dh).filter(|(x, y)| x.is_nan() && !y.is_nan()).count();
    out.nan_extra = dr.iter().zip(&dh).filter(|(x, y)| !x.is_nan() && y.is_nan()).count();
    out.nan_both = dr.iter().zip(&dh).filter(|(x, y)| x.is_nan() && y.is_nan()).count();
    // A NaN or Inf input is held to INFO and NaN alone: its outputs have no accuracy.
    if case.class == Class::Nan || case.class == Class::Inf {
        return out;
    }
    let floor = rounding_floor(problem.as_ref(), &r, case.seed);
    let mo = if other.info == h.info { problem.measure(&other) } else { None };
    if let (Some(mr), Some(mh), Some(mf)) = (problem.measure(&r), problem.measure(&h), floor) {
        let names = case.routine.measures();
        out.measures = (0..names.len())
            .map(|i| Measure {
                name: names[i],
                reference: mr[i],
                other: mo.as_ref().map(|m| m[i]),
                hetla: mh[i],
                floor: mf[i],
            })
            .collect();
    }
    out
}

/// The perturbation [`rounding_floor`] measures, in units of ε: large enough that the perturbed
/// output's own rounding is negligible, small enough that every measure is still linear in it.
const PERTURBATION: f64 = (1u64 << 20) as f64;

/// The RMS relative rounding error of a double, ε·(E[1/m²]/3)^½ with the mantissa m
/// log-uniform in [1, 2) (E[1/m²] = 0.375/ln 2 = 0.541), over that of t·ε with t uniform in
/// [−1, 1), ε/√3.
const ROUNDING_RMS: f64 = 0.7357;

/// The measures of `out` (the reference's) with every entry perturbed by a rounding error: the
/// measures of a perturbation [`PERTURBATION`] times larger, scaled back (each measure is a norm
/// of a residual linear in the perturbation) and to a rounding error's RMS size.
fn rounding_floor(problem: &dyn routines::Problem, out: &routines::Out, seed: u64) -> Option<Vec<f64>> {
    let m = problem.measure(&routines::perturbed(out, seed, PERTURBATION * problem.eps() / routines::EPS))?;
    Some(m.into_iter().map(|x| x * ROUNDING_RMS / PERTURBATION).collect())
}

/// Every case of `routines` × `types` (those each routine runs in) × their classes × `seeds`,
/// seed s at size `sizes[s % len]`; the NaN
/// and Inf inputs, held to INFO and NaN alone (no measure to take a median of), on the last seed
/// only. Class by class, seed by seed: the routines of one class and seed share their input.
pub fn cases(
    routines: &[Routine],
    classes: &[Class],
    sizes: &[(usize, Option<usize>)],
    seeds: u64,
    types: &[Ty],
) -> Vec<Case> {
    let mut v = Vec::new();
    for &ty in types {
        for &class in classes {
            let first = if matches!(class, Class::Nan | Class::Inf) { seeds.saturating_sub(1) } else { 0 };
            for seed in first..seeds {
                let (n, nb) = sizes[seed as usize % sizes.len()];
                for &routine in
                    routines.iter().filter(|r| r.classes().contains(&class) && r.types().contains(&ty))
                {
                    v.push(Case { routine, ty, class, seed, n, nb });
                }
            }
        }
    }
    v
}

impl Case {
    /// The call with its type letter and the class as that type's inputs have it.
    pub fn label(&self) -> String {
        format!("{} {}", self.routine.name_in(self.ty), self.class.label(self.ty))
    }
}

/// One measure of one routine and class over the seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    pub name: &'static str,
    /// Medians over the seeds measured (`other`: over those where the other reference has one,
    /// NaN where none).
    pub reference: f64,
    pub other: f64,
    pub hetla: f64,
    pub floor: f64,
    pub ratio_median: f64,
    pub ratio_max: f64,
    /// Seeds whose reference measure was finite.
    pub measured: usize,
    /// The comparisons of this measure that failed, with their cases.
    pub problems: Vec<String>,
}

/// One routine on one input class over the seeds: its measures and what failed.
#[derive(Clone, Debug)]
pub struct Row {
    pub routine: Routine,
    pub ty: Ty,
    pub class: Class,
    pub n: Vec<usize>,
    pub seeds: usize,
    /// The INFOs seen (the reference's; where hetla's differs, both).
    pub info: String,
    pub stats: Vec<Stat>,
    /// hetla's paths seen.
    pub paths: Vec<String>,
    /// Every INFO or NaN comparison that failed (and every case that could not run), with its
    /// case; the measures' are in their [`Stat`]s.
    pub problems: Vec<String>,
    /// The measures with no ratio in any seed because the reference's own measure was not
    /// finite (its output overflowed): these cases are held to INFO and NaN alone, and the table
    /// says so instead of showing them as measured.
    pub unmeasured: Vec<&'static str>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        l if l % 2 == 1 => v[l / 2],
        l => 0.5 * (v[l / 2 - 1] + v[l / 2]),
    }
}

/// Groups `outcomes` by routine and class and holds them to the rule ([`Routine::bounds`],
/// INFO, NaN).
pub fn summarize(outcomes: &[Outcome]) -> Vec<Row> {
    let key = |o: &Outcome| (o.case.ty, o.case.routine, o.class());
    let mut keys: Vec<(Ty, Routine, Class)> = outcomes.iter().map(key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let group: Vec<&Outcome> = outcomes.iter().filter(|o| key(o) == k).collect();
            summarize_group(k.1, k.0, k.2, &group)
        })
        .collect()
}

impl Outcome {
    fn class(&self) -> Class {
        self.case.class
    }
    fn at(&self) -> String {
        format!(
            "seed {} n {}{}",
            self.case.seed,
            self.case.n,
            self.case.nb.map(|b| format!(" nb {b}")).unwrap_or_default()
        )
    }
}

fn summarize_group(routine: Routine, ty: Ty, class: Class, group: &[&Outcome]) -> Row {
    let what = format!("{} {}", routine.name_in(ty), class.label(ty));
    let mut problems = Vec::new();
    let mut infos: Vec<String> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    let mut n: Vec<usize> = Vec::new();
    for o in group {
        n.push(o.case.n);
        if !paths.contains(&o.path) && o.skipped.is_none() {
            paths.push(o.path.clone());
        }
        if let Some(why) = &o.skipped {
            infos.push("skipped".into());
            problems.push(format!("{what} ({}): not run: {why}", o.at()));
            continue;
        }
        let (r, h) = o.info;
        let also = if o.info_other != r { format!(" (2nd {})", o.info_other) } else { String::new() };
        infos.push(if r == h { format!("{r}{also}") } else { format!("{r}{also}/hetla {h}") });
        if r != h {
            problems.push(format!("{what} ({}): INFO {h}, the reference's {r}", o.at()));
        }
        // Whether the output holds a NaN at all, not which entries: that depends on the blocking
        // as well as on the mathematics (a block reflector or a block product multiplies a NaN by
        // an exact zero that an unblocked code never forms; reference ScaLAPACK's pdgeqrf with
        // blocks of 16 leaves R(32,48) NaN for a NaN in A(65,43), which R(32,48) does not depend
        // on), so entry-by-entry agreement is asked of no library.
        let (any_r, any_h) = (o.nan_missing + o.nan_both > 0, o.nan_extra + o.nan_both > 0);
        if any_r != any_h {
            problems.push(format!(
                "{what} ({}): NaN in {} output only ({} entries NaN in the reference's alone, {} in hetla's alone)",
                o.at(),
                if any_r { "the reference's" } else { "hetla's" },
                o.nan_missing,
                o.nan_extra
            ));
        }
    }
    infos.dedup();
    n.dedup();
    let bounds = routine.bounds();
    let mut stats = Vec::new();
    let mut unmeasured = Vec::new();
    for &name in routine.measures() {
        let ms: Vec<(&Outcome, Measure)> = group
            .iter()
            .filter_map(|o| o.measures.iter().find(|m| m.name == name).map(|m| (*o, *m)))
            .collect();
        let rated: Vec<(&Outcome, Measure, f64)> =
            ms.iter().filter_map(|(o, m)| m.ratio().map(|r| (*o, *m, r))).collect();
        if rated.is_empty() {
            if !ms.is_empty() {
                unmeasured.push(name);
            }
            continue;
        }
        let mut ratios: Vec<f64> = rated.iter().map(|x| x.2).collect();
        let ratio_max = ratios.iter().copied().fold(0.0, f64::max);
        let ratio_median = median(&mut ratios);
        let reference = median(&mut rated.iter().map(|x| x.1.reference).collect::<Vec<_>>());
        let hetla = median(&mut rated.iter().map(|x| x.1.hetla).collect::<Vec<_>>());
        let floor = median(&mut rated.iter().map(|x| x.1.floor).collect::<Vec<_>>());
        let other = median(&mut rated.iter().filter_map(|x| x.1.other).collect::<Vec<_>>());
        let mut failed = Vec::new();
        if ratio_median > bounds.median {
            failed.push(format!(
                "{what} {name}: ratio {ratio_median:.2} as the median over {} seeds (hetla {hetla:.3e}, reference {reference:.3e}, 2nd {other:.3e}), above {}",
                rated.len(),
                bounds.median
            ));
        }
        for (o, m, r) in &rated {
            if *r > bounds.each {
                failed.push(format!(
                    "{what} {name} ({}): ratio {r:.2} (hetla {:.3e}, reference {:.3e}, 2nd {:.3e}), above {}",
                    o.at(),
                    m.hetla,
                    m.reference,
                    m.other.unwrap_or(f64::NAN),
                    bounds.each
                ));
            }
        }
        stats.push(Stat {
            name,
            reference,
            other,
            hetla,
            floor,
            ratio_median,
            ratio_max,
            measured: rated.len(),
            problems: failed,
        });
    }
    Row {
        routine,
        ty,
        class,
        n,
        seeds: group.len(),
        info: infos.join(","),
        stats,
        paths,
        problems,
        unmeasured,
    }
}

/// Every failed comparison of `rows`.
pub fn failures(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .flat_map(|r| r.problems.iter().chain(r.stats.iter().flat_map(|s| &s.problems)).cloned())
        .collect()
}

/// `rows` as a Markdown table: one line per routine, class and measure (one for a class with no
/// measure), the medians over seeds of the three measures (the backend's, the reference LAPACK's,
/// hetla's) and of the floor, the ratio's median and maximum, INFO, and `ok` or what failed. A
/// measure the reference's output made non-finite in every seed reads `not finite`, held to INFO
/// and NaN alone.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| routine | class | n | measure | reference | 2nd reference | hetla | floor | ratio median | ratio max | INFO | path | verdict |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|\n",
    );
    let sizes = |v: &[usize]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",");
    for r in rows {
        let verdict = |n: usize| if n == 0 { "ok".to_string() } else { format!("**FAIL** ({n})") };
        // Routine, class and sizes open every line of the row; INFO and paths close it.
        let lead = format!("| {} | {} | {} |", r.routine.name_in(r.ty), r.class.label(r.ty), sizes(&r.n));
        let tail = format!("{} | {} |", r.info, r.paths.join(","));
        if r.stats.is_empty() && r.unmeasured.is_empty() {
            s += &format!("{lead} – | – | – | – | – | – | – | {tail} {} |\n", verdict(r.problems.len()));
        }
        for name in &r.unmeasured {
            let held = if r.problems.is_empty() {
                "ok: INFO and NaN only".to_string()
            } else {
                verdict(r.problems.len())
            };
            s += &format!("{lead} {name} | not finite | – | – | – | – | – | {tail} {held} |\n");
        }
        for st in &r.stats {
            s += &format!(
                "{lead} {} | {:.3e} | {:.3e} | {:.3e} | {:.1e} | {:.2} | {:.2} | {tail} {} |\n",
                st.name,
                st.reference,
                st.other,
                st.hetla,
                st.floor,
                st.ratio_median,
                st.ratio_max,
                verdict(r.problems.len() + st.problems.len())
            );
        }
    }
    s
}
