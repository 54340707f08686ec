//! The speed benchmark of the single and complex types (and of double, for comparison): every
//! routine hetla runs in `s`, `c` and `z` against the backend's own, interleaved in one process.
//!
//! ```text
//! cargo run --release --example speed_types -- [--types s,c,z] [--routines potrf,getrf,...]
//!     [--sizes 1500,3000] [--complex-sizes 1000,2000] [--reps 3] [--gemm-n 4000] [--out FILE]
//! ```
//!
//! For each type, routine and order n it makes one seeded input (the problems of `bench/driver.c`,
//! the double benchmark: a symmetric or Hermitian matrix with a dominant diagonal for the Cholesky
//! family and the triangular inverse, uniform entries otherwise; the inverses' and Q's inputs are
//! the backend's factors of it, made once), makes two untimed hetla calls (the learner's first
//! decision for the size runs its trials there) and one untimed backend call, then takes `reps`
//! samples of each side, interleaved in pairs whose order alternates (hetla, backend, backend,
//! hetla, ...), every call on a fresh copy of the input, each after
//! 250 ms idle (OpenBLAS's pool threads spin for a while after a threaded call). hetla runs with
//! the settings of the environment (`HETLA_*`), as a program linked with it would; the backend
//! is the LAPACK hetla forwards to (OpenBLAS here), with its own threads. Times are medians;
//! rates count LAPACK Working Note 41's flops, a complex multiply-add as four real ones, and each
//! is also given as a percentage of the type's GEMM rate measured in the same run (the backend's
//! `?gemm` of order `--gemm-n`, the ceiling on this machine). hetla's result is compared with the
//! backend's (the largest entry of the difference over the largest entry, in units of the type's
//! ε·n), so that a fast wrong answer shows.
//!
//! Prints a Markdown table and writes it to `--out` (default `bench/out/speed-types.md`), and the
//! rows as CSV beside it (`.csv`); `bench/speed_types.sh` runs it and plots the CSV.

use hetla::api;
use hetla::backend::{forward, lapack as bk};
use hetla::graph::op::OpElem;
use hetla::scalar::{c32, c64};
use hetla::tile::Raw;
use std::time::{Duration, Instant};

const ROUTINES: [&str; 13] = [
    "potrf", "potrs", "posv", "getrf", "getrs", "gesv", "geqrf", "gels", "trtri", "potri", "getri", "orgqr",
    "ormqr",
];

struct Args {
    types: Vec<char>,
    routines: Vec<String>,
    sizes: Vec<usize>,
    complex_sizes: Vec<usize>,
    reps: usize,
    gemm_n: usize,
    out: String,
}

fn list(s: &str) -> Vec<String> {
    s.split([',', ' ']).filter(|x| !x.is_empty()).map(str::to_string).collect()
}

fn parse() -> Args {
    let mut a = Args {
        types: vec!['s', 'c', 'z'],
        routines: ROUTINES.iter().map(|s| s.to_string()).collect(),
        sizes: vec![1500, 3000, 6000],
        complex_sizes: vec![1000, 2000, 4000],
        reps: 3,
        gemm_n: 4000,
        out: "bench/out/speed-types.md".into(),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let v = argv.get(i + 1).cloned().unwrap_or_default();
        let sizes = |v: &str| list(v).iter().map(|x| x.parse().expect("a size")).collect();
        match argv[i].as_str() {
            "--types" => a.types = list(&v).iter().flat_map(|s| s.chars()).collect(),
            "--routines" => a.routines = list(&v),
            "--sizes" => a.sizes = sizes(&v),
            "--complex-sizes" => a.complex_sizes = sizes(&v),
            "--reps" => a.reps = v.parse().expect("--reps N"),
            "--gemm-n" => a.gemm_n = v.parse().expect("--gemm-n N"),
            "--out" => a.out = v,
            _ => {
                eprintln!(
                    "usage: speed_types [--types s,c,z] [--routines {}] [--sizes N,..] [--complex-sizes N,..] \
                     [--reps R] [--gemm-n N] [--out FILE]",
                    ROUTINES.join(",")
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    for r in &a.routines {
        assert!(ROUTINES.contains(&r.as_str()), "unknown routine {r}");
    }
    a
}

/// A seeded generator of uniform numbers in [−1, 1).
struct Rng(u64);
impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn value<T: OpElem>(&mut self) -> T {
        let re = self.uniform();
        T::from_parts(re, if T::COMPLEX { self.uniform() } else { 0.0 })
    }
}

fn raw<T: hetla::tile::Elem>(v: &mut [T]) -> Raw<T> {
    // SAFETY: every vector handed to a routine here is at least as large as the routine documents
    // for the arguments passed with it, and nothing else uses it during the call.
    unsafe { Raw::new(v.as_mut_ptr()) }
}

/// One routine's input at one order and what a call changes.
struct Problem<T> {
    routine: String,
    n: usize,
    /// The input (for the inverses and Q: the backend's factors of it) and the working copy.
    a0: Vec<T>,
    a: Vec<T>,
    /// Right-hand sides (one column), or xORMQR's n×n C.
    b0: Vec<T>,
    b: Vec<T>,
    ipiv0: Vec<i32>,
    ipiv: Vec<i32>,
    tau: Vec<T>,
    work: Vec<T>,
}

fn lwork_of<T: OpElem>(call: impl FnOnce(Raw<T>, i32) -> i32) -> usize {
    let mut w = [T::zero()];
    call(raw(&mut w), -1);
    (w[0].re().into() as usize).max(1)
}

impl<T: OpElem> Problem<T> {
    fn new(routine: &str, n: usize) -> Self {
        let mut rng = Rng(0x5EED_0000 + n as u64 * 1_000_003 + routine.len() as u64);
        let hermitian = matches!(routine, "potrf" | "potrs" | "posv" | "trtri" | "potri");
        let mut a0 = vec![T::zero(); n * n];
        for j in 0..n {
            for i in 0..n {
                if hermitian && i < j {
                    continue;
                }
                let v: T = rng.value();
                if hermitian {
                    let v = if i == j { T::from_f64(v.abs().into() + n as f64) } else { v };
                    a0[i + j * n] = v;
                    a0[j + i * n] = v.conj();
                } else {
                    a0[i + j * n] = v;
                }
            }
        }
        let nb = if routine == "ormqr" { n * n } else { n };
        let b0: Vec<T> = (0..nb).map(|_| rng.value()).collect();
        let (ni, nn) = (n as i32, n);
        let mut ipiv0 = vec![0i32; nn];
        let mut tau = vec![T::zero(); nn];
        let info = match routine {
            "potrs" | "potri" => forward::potrf(b'L', ni, raw(&mut a0), ni),
            "getrs" | "getri" => forward::getrf(ni, ni, raw(&mut a0), ni, raw(&mut ipiv0)),
            "orgqr" | "ormqr" => {
                let (pa, pt) = (raw(&mut a0), raw(&mut tau));
                let mut w = vec![T::zero(); lwork_of(|w, l| forward::geqrf(ni, ni, pa, ni, pt, w, l))];
                let lw = w.len() as i32;
                forward::geqrf(ni, ni, pa, ni, pt, raw(&mut w), lw)
            }
            _ => 0,
        };
        assert_eq!(info, 0, "the backend's factorization of the {routine} input failed");
        let mut p = Problem {
            routine: routine.to_string(),
            n,
            a: a0.clone(),
            a0,
            b: b0.clone(),
            b0,
            ipiv: ipiv0.clone(),
            ipiv0,
            tau,
            work: vec![],
        };
        // Workspace: the larger of the two sides' optimal sizes.
        let mut q = [T::zero()];
        let lw = (0..2).map(|side| {
            q[0] = T::zero();
            p.call(side == 0, raw(&mut q), -1);
            q[0].re().into() as usize
        });
        let lwork = lw.max().unwrap_or(0).max(64 * n);
        p.work = vec![T::zero(); lwork];
        p
    }

    fn reset(&mut self) {
        self.a.copy_from_slice(&self.a0);
        self.b.copy_from_slice(&self.b0);
        self.ipiv.copy_from_slice(&self.ipiv0);
    }

    /// One call by hetla (`hetla`) or by the backend, with WORK `w` of `lw` entries; INFO.
    fn call(&mut self, hetla: bool, w: Raw<T>, lw: i32) -> i32 {
        let n = self.n as i32;
        let cfg = hetla::config::get();
        let (a, b, p, t) = (raw(&mut self.a), raw(&mut self.b), raw(&mut self.ipiv), raw(&mut self.tau));
        let code = |r: Result<(), hetla::error::Error>| hetla::error::info_of(&r);
        let trans = T::ADJOINT;
        macro_rules! either {
            ($h:expr, $f:expr) => {
                if hetla {
                    code($h)
                } else {
                    $f
                }
            };
        }
        if lw == -1 && !matches!(self.routine.as_str(), "geqrf" | "gels" | "getri" | "orgqr" | "ormqr") {
            return 0;
        }
        match self.routine.as_str() {
            "potrf" => either!(api::potrf::potrf(cfg, b'L', n, a, n), forward::potrf(b'L', n, a, n)),
            "potrs" => either!(
                api::potrf::potrs(cfg, b'L', n, 1, a, n, b, n),
                forward::potrs(b'L', n, 1, a, n, b, n)
            ),
            "posv" => {
                either!(api::potrf::posv(cfg, b'L', n, 1, a, n, b, n), forward::posv(b'L', n, 1, a, n, b, n))
            }
            "getrf" => either!(api::getrf::getrf(cfg, n, n, a, n, p), forward::getrf(n, n, a, n, p)),
            "getrs" => {
                either!(
                    api::getrf::getrs(cfg, b'N', n, 1, a, n, p, b, n),
                    forward::getrs(b'N', n, 1, a, n, p, b, n)
                )
            }
            "gesv" => either!(api::getrf::gesv(cfg, n, 1, a, n, p, b, n), forward::gesv(n, 1, a, n, p, b, n)),
            "geqrf" => {
                either!(api::geqrf::geqrf(cfg, n, n, a, n, t, w, lw), forward::geqrf(n, n, a, n, t, w, lw))
            }
            "gels" => either!(
                api::gels::gels(cfg, b'N', n, n, 1, a, n, b, n, w, lw),
                forward::gels(b'N', n, n, 1, a, n, b, n, w, lw)
            ),
            "trtri" => {
                either!(api::inverse::trtri(cfg, b'L', b'N', n, a, n), forward::trtri(b'L', b'N', n, a, n))
            }
            "potri" => either!(api::inverse::potri(cfg, b'L', n, a, n), forward::potri(b'L', n, a, n)),
            "getri" => {
                either!(api::inverse::getri(cfg, n, a, n, p, w, lw), forward::getri(n, a, n, p, w, lw))
            }
            "orgqr" => either!(
                api::orgqr::orgqr(cfg, n, n, n, a, n, t, w, lw),
                forward::orgqr(n, n, n, a, n, t, w, lw)
            ),
            "ormqr" => either!(
                api::orgqr::ormqr(cfg, b'L', trans, n, n, n, a, n, t, b, n, w, lw),
                forward::ormqr(b'L', trans, n, n, n, a, n, t, b, n, w, lw)
            ),
            r => unreachable!("{r}"),
        }
    }

    /// A timed call on a fresh copy of the input, after an idle gap.
    fn sample(&mut self, hetla: bool) -> (f64, i32) {
        self.reset();
        std::thread::sleep(Duration::from_millis(250));
        let lw = self.work.len() as i32;
        let w = raw(&mut self.work);
        let t = Instant::now();
        let info = self.call(hetla, w, lw);
        (t.elapsed().as_secs_f64(), info)
    }

    /// What a call wrote: the matrix, and B where the routine solves or applies.
    fn output(&self) -> Vec<T> {
        match self.routine.as_str() {
            "potrs" | "getrs" | "ormqr" => self.b.clone(),
            "posv" | "gesv" | "gels" => [&self.a[..], &self.b[..]].concat(),
            _ => self.a.clone(),
        }
    }

    /// LAPACK Working Note 41's real flop count of one call (as `bench/driver.c` counts them).
    fn flops(&self) -> f64 {
        let n = self.n as f64;
        let real = match self.routine.as_str() {
            "potrf" => n * n * n / 3.0,
            "potrs" | "getrs" => 2.0 * n * n,
            "posv" => n * n * n / 3.0 + 2.0 * n * n,
            "getrf" => 2.0 * n * n * n / 3.0,
            "gesv" => 2.0 * n * n * n / 3.0 + 2.0 * n * n,
            "geqrf" => 4.0 * n * n * n / 3.0,
            "gels" => 4.0 * n * n * n / 3.0 + 5.0 * n * n,
            "trtri" => n * n * n / 3.0,
            "potri" => 2.0 * n * n * n / 3.0,
            "getri" => 4.0 * n * n * n / 3.0,
            "orgqr" => 4.0 * n * n * n / 3.0,
            "ormqr" => 2.0 * n * n * n,
            r => unreachable!("{r}"),
        };
        real * T::FLOPS
    }
}

/// max|x − y| / max|y| / (ε·n): how far hetla's output is from the backend's.
fn distance<T: OpElem>(x: &[T], y: &[T], n: usize) -> f64 {
    let (mut d, mut m) = (0.0f64, 0.0f64);
    for (a, b) in x.iter().zip(y) {
        d = d.max(a.sub(*b).abs().into());
        m = m.max(b.abs().into());
    }
    if m == 0.0 {
        d
    } else {
        d / m / (T::eps() * n as f64)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k % 2 == 1 {
        v[k / 2]
    } else {
        (v[k / 2 - 1] + v[k / 2]) / 2.0
    }
}

/// The backend's `?gemm` rate of order n in flop/s (median of 3, one untimed call first).
fn gemm_rate<T: OpElem>(n: usize) -> f64 {
    let mut rng = Rng(77);
    let a: Vec<T> = (0..n * n).map(|_| rng.value()).collect();
    let b: Vec<T> = (0..n * n).map(|_| rng.value()).collect();
    let mut c = vec![T::zero(); n * n];
    let ni = n as i32;
    let (one, zero) = (T::one(), T::zero());
    let mut times: Vec<f64> = (0..4)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(250));
            let t = Instant::now();
            // SAFETY: A, B and C are n×n with leading dimension n.
            unsafe {
                bk::gemm::<T>(
                    bk::ch(b'N'),
                    bk::ch(b'N'),
                    &ni,
                    &ni,
                    &ni,
                    &one,
                    a.as_ptr(),
                    &ni,
                    b.as_ptr(),
                    &ni,
                    &zero,
                    c.as_mut_ptr(),
                    &ni,
                )
            };
            t.elapsed().as_secs_f64()
        })
        .skip(1)
        .collect();
    2.0 * (n as f64).powi(3) * T::FLOPS / median(&mut times)
}

struct Row {
    name: String,
    n: usize,
    path: String,
    hetla_s: f64,
    backend_s: f64,
    flops: f64,
    gemm: f64,
    distance: f64,
    info: (i32, i32),
}

fn run_type<T: OpElem>(args: &Args, rows: &mut Vec<Row>) {
    let letter = T::LETTER as char;
    let sizes = if T::COMPLEX { &args.complex_sizes } else { &args.sizes };
    let gemm = gemm_rate::<T>(args.gemm_n);
    eprintln!("{letter}gemm n = {}: {:.1} GFLOP/s", args.gemm_n, gemm / 1e9);
    for r in &args.routines {
        for &n in sizes {
            let stem = ROUTINES.iter().find(|s| **s == r.as_str()).expect("a routine");
            let name = hetla::scalar::name::<T>(stem).to_string();
            let mut p = Problem::<T>::new(r, n);
            for _ in 0..2 {
                p.sample(true);
            }
            let path = api::last_path();
            p.sample(false);
            let (mut th, mut tb) = (Vec::new(), Vec::new());
            let (mut ih, mut ib) = (0, 0);
            let (mut out_h, mut out_b) = (vec![], vec![]);
            // Pairs in alternating order (hetla first, then the backend first), so that neither
            // side always runs right after the other's call.
            for rep in 0..args.reps {
                for hetla in [rep % 2 == 0, rep % 2 == 1] {
                    let (t, i) = p.sample(hetla);
                    if hetla {
                        th.push(t);
                        ih = i;
                        out_h = p.output();
                    } else {
                        tb.push(t);
                        ib = i;
                        out_b = p.output();
                    }
                }
            }
            let row = Row {
                name,
                n,
                path,
                hetla_s: median(&mut th),
                backend_s: median(&mut tb),
                flops: p.flops(),
                gemm,
                distance: distance(&out_h, &out_b, n),
                info: (ih, ib),
            };
            eprintln!(
                "{} n {}: hetla {:.4} s ({}), backend {:.4} s, ratio {:.3}, distance {:.2}",
                row.name,
                n,
                row.hetla_s,
                row.path,
                row.backend_s,
                row.backend_s / row.hetla_s,
                row.distance
            );
            rows.push(row);
        }
    }
}

fn main() {
    let args = parse();
    let mut rows = Vec::new();
    for &t in &args.types {
        match t {
            's' => run_type::<f32>(&args, &mut rows),
            'd' => run_type::<f64>(&args, &mut rows),
            'c' => run_type::<c32>(&args, &mut rows),
            'z' => run_type::<c64>(&args, &mut rows),
            _ => panic!("unknown type {t}"),
        }
    }
    // Each row's fields once, as (Markdown, CSV) renderings; the headers name them in order.
    let mut md = String::from(
        "| type | routine | n | hetla path | hetla s | backend s | backend / hetla | hetla GFLOP/s | backend GFLOP/s | hetla % of ?gemm | ?gemm GFLOP/s | distance | INFO |\n\
         |---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut csv = String::from(
        "type,routine,n,path,hetla_median_s,backend_median_s,ratio,hetla_gflops,backend_gflops,hetla_frac_gemm,gemm_gflops,distance,info_hetla,info_backend\n",
    );
    for r in &rows {
        let (gh, gb) = (r.flops / r.hetla_s / 1e9, r.flops / r.backend_s / 1e9);
        let frac = gh * 1e9 / r.gemm;
        let fields: [(String, String); 13] = [
            (r.name[..1].to_string(), r.name[..1].to_string()),
            (r.name.clone(), r.name.clone()),
            (r.n.to_string(), r.n.to_string()),
            (r.path.clone(), r.path.clone()),
            (format!("{:.4}", r.hetla_s), format!("{:.6e}", r.hetla_s)),
            (format!("{:.4}", r.backend_s), format!("{:.6e}", r.backend_s)),
            (format!("{:.3}", r.backend_s / r.hetla_s), format!("{:.4}", r.backend_s / r.hetla_s)),
            (format!("{gh:.1}"), format!("{gh:.3}")),
            (format!("{gb:.1}"), format!("{gb:.3}")),
            (format!("{:.0}%", 100.0 * frac), format!("{frac:.4}")),
            (format!("{:.1}", r.gemm / 1e9), format!("{:.3}", r.gemm / 1e9)),
            (format!("{:.2}", r.distance), format!("{:.3}", r.distance)),
            (format!("{}/{}", r.info.0, r.info.1), format!("{},{}", r.info.0, r.info.1)),
        ];
        let (m, c): (Vec<String>, Vec<String>) = fields.into_iter().unzip();
        md.push_str(&format!("| {} |\n", m.join(" | ")));
        csv.push_str(&format!("{}\n", c.join(",")));
    }
    print!("{md}");
    if let Some(dir) = std::path::Path::new(&args.out).parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&args.out, &md).expect("writing the table");
    std::fs::write(std::path::Path::new(&args.out).with_extension("csv"), csv).expect("writing the CSV");
}
