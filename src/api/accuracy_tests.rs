//! Accuracy against the reference on the same input, for every routine hetla runs on tiles and
//! every input class (the harness and its rule: [`crate::accuracy`]). Three seeds, each at its
//! own size (n = 53, 79, 113, none a multiple of its tile of 8, 12, 16, so every matrix is 7
//! tiles or more across); hetla's calls forced onto tiles. Under `HETLA_TEST_EMULATE_GPUS` and
//! `HETLA_TEST_GPUS` (scripts/test.sh's unit-emu and unit-fakecuda runs) the same tests run on
//! the devices; `whole_calls_on_a_device_solver` runs the factorizations whole on a device's
//! solver.

use crate::accuracy::{self, Class, Outcome, Routine, Ty};
use crate::algo::testutil;
use crate::config::{Config, GpuSelect, Solver};

/// (n, tile size) of seeds 0, 1, 2.
const SIZES: [(usize, Option<usize>); 3] = [(53, Some(8)), (79, Some(12)), (113, Some(16))];
const SEEDS: u64 = 3;

/// Comparisons that fail today, by the start of their line (routine and class): open defects, each
/// to be fixed, not tolerances. A failure of any other comparison fails the test; one of these
/// that passes is printed, so that it can leave the list. (The rule holds hetla to the larger of
/// two references' measures, the backend's and netlib's reference LAPACK's, and its INFO to
/// either's: `crate::accuracy`. Against those two, the graded QR, the band solves with a NaN, and
/// the graded triangular inverses on host tiles, on this list while the backend was the only
/// reference, hold.)
/// * dtrtri U N on a graded triangle with the fake CUDA's hybrid tiles (unit-fakecuda runs):
///   ‖T·X − I‖ 5.9x both references' in one seed of three (median 1.9), where the two references
///   agree with each other (2.6e-199 and 2.2e-199): a defect of that tiling, not summation order.
/// * dbttrf+dbttrs with block cyclic reduction, condition 1e10: the residual 2-5x DGBSV's
///   (cyclic reduction is less stable than elimination in order); at 1e14 it holds in these seeds.
/// * dgels TRANS='T' and zgels TRANS='C' on a tall graded matrix (rows and columns over 1e±100;
///   at n = 400 dgels 3e2x since the QR applies its reflectors 32 at a time, 2e8x before, and
///   zgels 5e2x; at n = 53..113 with tiles of 8-16 also sgels TRANS='T' tall (4.4x) and its
///   row-space measure TRANS='N' wide (2.4x), graded over 1e±15, beyond single precision's
///   1/ε, where every measure is below 1e-6 ε; cgels holds): the minimum-norm problem is numerically singular there (both references' and hetla's residuals are 1e199-1e201
///   for a right side of norm 20), and the normwise backward error ‖r‖/(‖A‖·‖X‖ + ‖B‖) then ranks
///   answers by ‖X‖: hetla's X is 1e10-1e13 times smaller than the references', with the same
///   residual, and measures 200-17000x theirs. Open until the measure is one that such a problem
///   gives meaning to. How little the references' own measure means here (2026-11-29, this
///   test's input at n = 53, m = 70, NRHS = 3): OpenBLAS's DGELS measures 3.1e-43 with the LWORK
///   its workspace query answers (1749) and 9.4e-3 with LWORK = 100000, 1e40 apart on one input.
///   DGELS's query leaves DORMQR less room than its blocked code asks (NRHS·NB + 65·64), so below
///   min(m, n) ≈ 134 the reference applies Q one reflector at a time (DORM2R), above it in blocks;
///   at n = 150 and 250 (blocked references) hetla's median is 0.02x theirs.
/// * ztrtri on graded triangles (U N and L U, rows and columns over 1e±100): ‖T·X − I‖ 5.5x both
///   references' as the median of three seeds (67x in one; n = 79, tiles of 12), ‖X·T − I‖
///   within 1x; found when the comparisons gained the complex types. Not the leaves: DTRTRI's
///   tiles with the backend's DTRSM as leaves instead of hetla's own measure the same on these
///   inputs (2026-11-28). At n = 53..113 both references do most of the matrix in blocks of 64
///   by the unblocked column algorithm (xTRTI2) and agree closely, and a finer blocked order
///   measures differently: DTRTRI with tiles of 12 also fails there in ‖X·T − I‖ (7.8x in one
///   case).
///   At n = 400 and 1000, where the references block too, DTRTRI holds (median ≤ 1.24, max 1.79)
///   and ZTRTRI holds as a median (≤ 1.50) with one case of six at 7.7x (L U, ‖A·X − I‖,
///   n = 1000): what remains is one case's summation order against a 2x bound.
/// * Found on an AVX2 machine (AMD EPYC without AVX-512, OpenBLAS 0.3.21's Haswell/Zen kernels,
///   2026-11-29), where every one of these passed on the AVX-512 machines before; identical on
///   the host, on emulated devices and on the fake CUDA, and identical in the commit before
///   devices ran these types (so not a device defect):
///   dpotrf U graded backward 6.8x both references' in one seed of three (n = 79, tiles of 12;
///   median 1.0, L holds); dgetri graded ‖A·X − I‖ median 3.0x, 9.6x in one seed;
///   dgels N wide cond 1e10 residual 4.3x in one seed (median within 2x); zgeqrf wide graded
///   backward median 2.09x (max within 4x); ctrtri L U graded 1e±15 ‖A·X − I‖ 12400x in one seed
///   (n = 53, tiles of 8), where both references measure 7.2e-19, four orders below their other
///   seeds' 5e-15 and hetla's 8.9e-15, and the rounding floor is 3.7e-21: hetla's X is
///   componentwise far from a rounded inverse there, as ztrtri's above; dbtsv with cyclic
///   reduction on graded blocks 22x in one seed, and dbttrf+dbttrs T cyclic at cond 1e14 median
///   2.04x (cyclic reduction's stability, as at 1e10 above).
/// * Found when the single and complex types first ran on devices with the NRRP update
///   placement (`HETLA_TEST_UPDATE_ALLOC=nrrp`: uniform device tiles, so another blocking than
///   the host's), on the same AVX2 machine: spotrf U graded 1e±15 backward 5.8x in one seed
///   (n = 113), sgeqrf wide graded 4.5x in one seed, zgeqrf tall graded median 2.2x (its wide
///   case above). With the default placement on 1-3 emulated devices and 1-2 fake GPUs every
///   single and complex comparison holds. In one NRRP run of two (CI's, on a loaded machine,
///   where the pattern follows the measured speeds) cgels C tall graded 1e±15 residual median
///   2.05x: zgels's numerically singular case below, in single complex.
const KNOWN_OPEN: &[&str] = &[
    "cgels C tall graded",
    "spotrf U graded",
    "sgeqrf wide graded",
    "zgeqrf tall graded",
    "dpotrf U graded",
    "dgetri graded",
    "dgels N wide cond 1e10",
    "zgeqrf wide graded",
    "ctrtri L U graded",
    "dbtsv cyclic graded",
    "dbttrf+dbttrs T cyclic cond 1e14",
    "dbttrf+dbttrs T cyclic cond 1e10",
    "dgels T tall graded",
    "zgels C tall graded",
    "sgels T tall graded",
    "sgels N wide graded",
    "dtrtri U N graded",
    "ztrtri U N graded",
    "ztrtri L U graded",
];

/// Every class of `routines` at [`SIZES`] with `cfg`: asserts the rule and returns the outcomes.
fn check_with(cfg: &Config, routines: &[Routine], types: &[Ty]) -> Vec<Outcome> {
    // On a thread with a large stack: a call that goes to the backend (the single and complex
    // types forward where devices are) runs OpenBLAS's threaded xGETRF, which needs more than a
    // test thread's 2 MiB (it overflowed it under 3 emulated devices).
    let cases = accuracy::cases(routines, &Class::ALL, &SIZES, SEEDS, types);
    let c = cfg.clone();
    let run = move || cases.iter().map(|case| accuracy::compare(&c, case)).collect::<Vec<Outcome>>();
    let thread = std::thread::Builder::new().stack_size(64 << 20).spawn(run).unwrap();
    let outcomes = thread.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
    let rows = accuracy::summarize(&outcomes);
    // Shown with `--nocapture`.
    eprintln!("{}", accuracy::markdown(&rows));
    let (open, failed): (Vec<String>, Vec<String>) =
        accuracy::failures(&rows).into_iter().partition(|f| KNOWN_OPEN.iter().any(|k| f.starts_with(k)));
    for f in &open {
        eprintln!("known open: {f}");
    }
    for k in KNOWN_OPEN {
        let here = rows
            .iter()
            .any(|r| format!("{} {}", r.routine.name_in(r.ty), r.class.label(r.ty)).starts_with(k));
        if here && !open.iter().any(|f| f.starts_with(k)) {
            eprintln!("known open, holds now: {k}");
        }
    }
    assert!(
        failed.is_empty(),
        "{} comparisons failed:\n{}\n\n{}",
        failed.len(),
        failed.join("\n"),
        accuracy::markdown(&rows)
    );
    outcomes
}

/// Two threads, every call on tiles; the test run's devices (`testutil::cfg`).
fn check(routines: &[Routine]) {
    check_with(&accuracy::tiles_config(testutil::cfg(2)), routines, &[Ty::D]);
}

/// [`check`] in the single and complex types.
fn check_other_types(routines: &[Routine]) {
    check_with(&accuracy::tiles_config(testutil::cfg(2)), routines, &[Ty::S, Ty::C, Ty::Z]);
}

#[test]
fn cholesky() {
    check(&[Routine::PotrfL, Routine::PotrfU, Routine::PotrsL, Routine::PosvU]);
}

#[test]
fn lu() {
    check(&[Routine::Getrf, Routine::GetrsN, Routine::GetrsT, Routine::Gesv]);
}

/// SPOTRF, CPOTRF, ZPOTRF and their solves.
#[test]
fn cholesky_single_and_complex() {
    check_other_types(&[Routine::PotrfL, Routine::PotrfU, Routine::PotrsL, Routine::PosvU]);
}

/// SGETRF, CGETRF, ZGETRF and their solves (TRANS = 'C' in the complex types).
#[test]
fn lu_single_and_complex() {
    check_other_types(&[Routine::Getrf, Routine::GetrsN, Routine::GetrsT, Routine::GetrsC, Routine::Gesv]);
}

#[test]
fn calu() {
    check(&[Routine::GetrfCalu, Routine::GesvCalu]);
}

#[test]
fn qr() {
    check(&[Routine::Geqrf, Routine::GeqrfWide]);
}

#[test]
fn least_squares() {
    check(&[Routine::GelsNTall, Routine::GelsTTall, Routine::GelsNWide, Routine::GelsTWide]);
}

/// DTRTRI, DPOTRI and DGETRI (their accuracy is being worked on: see the report of this test).
#[test]
fn inverses() {
    check(&[Routine::TrtriU, Routine::TrtriLUnit, Routine::PotriL, Routine::Getri]);
}

/// STRTRI … ZGETRI.
#[test]
fn inverses_single_and_complex() {
    check_other_types(&[Routine::TrtriU, Routine::TrtriLUnit, Routine::PotriL, Routine::Getri]);
}

/// xGEQRF, xUNGQR/xORGQR, xUNMQR/xORMQR and xGELS (TRANS 'C' in the complex types) in S, C and Z.
#[test]
fn qr_single_and_complex() {
    check_other_types(&[
        Routine::GelsNTall,
        Routine::GelsTTall,
        Routine::GelsNWide,
        Routine::GelsTWide,
        Routine::Geqrf,
        Routine::GeqrfWide,
        Routine::Orgqr,
        Routine::OrmqrLN,
        Routine::OrmqrLT,
        Routine::OrmqrRN,
        Routine::OrmqrRT,
    ]);
}

#[test]
fn q_from_reflectors() {
    check(&[Routine::Orgqr, Routine::OrmqrLN, Routine::OrmqrLT, Routine::OrmqrRN, Routine::OrmqrRT]);
}

#[test]
fn block_tridiagonal() {
    check(&[
        Routine::BtsvThomas,
        Routine::BtsvTwisted,
        Routine::BtsvCyclic,
        Routine::BttrsTThomas,
        Routine::BttrsTTwisted,
        Routine::BttrsTCyclic,
    ]);
}

/// Forwarded on the host alone (DGEMM runs on tiles only with devices); tiled in the device runs.
#[test]
fn matrix_product() {
    check(&[Routine::GemmNN, Routine::GemmTN, Routine::GemmNT, Routine::GemmTT]);
}

/// SGEMM, CGEMM, ZGEMM as [`matrix_product`]: every TRANSA/TRANSB kind, 'T' and 'C' apart in the
/// complex types, complex α and β.
#[test]
fn matrix_product_other_types() {
    let all = [
        Routine::GemmNN,
        Routine::GemmTN,
        Routine::GemmNT,
        Routine::GemmTT,
        Routine::GemmCT,
        Routine::GemmNC,
    ];
    check_other_types(&all);
}

/// ?POTRF, ?GETRF and ?GEQRF of the four types whole on one device's solver (an emulated
/// device's, the host LAPACK on its copy, in a plain run; the fake or real CUDA devices' under
/// `HETLA_TEST_GPUS`: cuSOLVER's S, D, C, Z routines): the well-behaved inputs must take that
/// path; INFO > 0 and NaN make it decline to the tiles.
#[test]
fn whole_calls_on_a_device_solver() {
    let mut c = accuracy::tiles_config(Config::with_threads(2));
    if c.gpus == GpuSelect::None {
        c.emulate_gpus = 1;
        c.emulate_gpu_mem = 16 << 20;
    }
    c.device_force = false;
    c.solver = Solver::Force;
    // OpenBLAS's threaded DGETRF, which the emulated device's solver calls on the calling thread,
    // needs more stack than a test thread's 2 MiB (so would the backend's DGETRF called there).
    let routines = [Routine::PotrfL, Routine::PotrfU, Routine::Getrf, Routine::Geqrf];
    let run = move || check_with(&c, &routines, &[Ty::S, Ty::D, Ty::C, Ty::Z]);
    let thread = std::thread::Builder::new().stack_size(64 << 20).spawn(run).unwrap();
    let outcomes = thread.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
    for o in outcomes.iter().filter(|o| matches!(o.case.class, Class::Well | Class::Cond6 | Class::Big)) {
        assert_eq!(o.path, "solver", "{:?}", o.case);
    }
}
