//! The accuracy benchmark (`bench/accuracy.sh`, bench/README.md): every routine hetla runs on
//! tiles, on every input class, against the reference (the backend's LAPACK) on the same input,
//! at the sizes asked. It prints one Markdown table: per routine, class and measure the medians
//! over the seeds of the reference's measure, hetla's and the floor, the ratio's median and
//! maximum, INFO, hetla's path and whether the project's rule holds; then every failed
//! comparison. The harness, measures and rule are the unit tests' own (`hetla::accuracy`).
//!
//! ```text
//! accuracy [--sizes 500,1000] [--seeds 3] [--routines dgetrf,dpotrf,...] [--classes well,nan,...]
//!          [--types d|s,c,z|all] [--threads T] [--nb NB] [--emulate-gpus G] [--gpus all] [--solver force] [--out FILE]
//! ```
//!
//! `--routines` and `--classes` take prefixes of the names in the table (`dgels` is all four
//! DGELS variants, `cond` all three condition classes; the type letter is not matched: `--types`
//! chooses the types, double real by default, each routine compared in those it runs in, in
//! single precision on single's own scales); hetla's tiles are the library's choice
//! for the size unless `--nb` says; `--solver force` runs DPOTRF, DGETRF and DGEQRF whole on a
//! device's solver (with `--emulate-gpus 1`, or `--gpus all` on a CUDA machine). The exit
//! status is 0 even when comparisons fail: this is a report, the unit tests are the gate.

use hetla::accuracy::{self, Class, Routine, Ty};
use hetla::config::{Config, GpuSelect, Solver};
use std::time::Instant;

struct Args {
    sizes: Vec<usize>,
    seeds: u64,
    routines: Vec<Routine>,
    classes: Vec<Class>,
    types: Vec<Ty>,
    cfg: Config,
    nb: Option<usize>,
    out: Option<String>,
}

fn usage(why: &str) -> ! {
    eprintln!("accuracy: {why}");
    eprintln!(
        "usage: accuracy [--sizes 500,1000] [--seeds 3] [--routines NAMES] [--classes NAMES] [--types LETTERS] [--threads T] \
         [--nb NB] [--emulate-gpus G] [--gpus all] [--solver force] [--out FILE]"
    );
    std::process::exit(2)
}

fn list<T>(v: &str, parse: impl Fn(&str) -> Vec<T>) -> Vec<T> {
    let out: Vec<T> = v.split(',').filter(|s| !s.is_empty()).flat_map(|s| parse(s.trim())).collect();
    if out.is_empty() {
        usage(&format!("nothing matches {v:?}"));
    }
    out
}

fn parse_args() -> Args {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut a = Args {
        sizes: vec![1000],
        seeds: 3,
        routines: Routine::ALL.to_vec(),
        classes: Class::ALL.to_vec(),
        types: vec![Ty::D],
        cfg: accuracy::tiles_config(Config::with_threads(threads)),
        nb: None,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number = |v: String| v.parse::<usize>().unwrap_or_else(|_| usage(&format!("{flag}: {v:?}")));
        match flag.as_str() {
            "--sizes" => a.sizes = list(&value(), |s| vec![number(s.to_string())]),
            "--seeds" => a.seeds = number(value()) as u64,
            "--routines" => a.routines = list(&value(), Routine::parse),
            "--classes" => a.classes = list(&value(), Class::parse),
            "--types" => a.types = list(&value(), Ty::parse),
            "--threads" => a.cfg.threads = number(value()).max(1),
            "--nb" => a.nb = Some(number(value())),
            "--emulate-gpus" => {
                a.cfg.emulate_gpus = number(value());
                a.cfg.device_force = a.cfg.emulate_gpus > 0;
            }
            "--gpus" => {
                a.cfg.gpus =
                    GpuSelect::parse(&value()).unwrap_or_else(|| usage("--gpus: all, none or ordinals"));
                a.cfg.device_force = a.cfg.gpus != GpuSelect::None;
            }
            "--solver" => {
                a.cfg.solver = match value().as_str() {
                    "force" => Solver::Force,
                    "off" => Solver::Off,
                    v => usage(&format!("--solver: force or off, not {v:?}")),
                };
                // The whole-call way is chosen before the cost model: the devices need no forcing.
                a.cfg.device_force = false;
            }
            "--out" => a.out = Some(value()),
            "-h" | "--help" => usage("the accuracy benchmark"),
            f => usage(&format!("unknown option {f}")),
        }
    }
    a.routines.sort();
    a.routines.dedup();
    a.classes.sort();
    a.classes.dedup();
    a.types.sort();
    a.types.dedup();
    a
}

fn main() {
    let a = parse_args();
    let mut all = Vec::new();
    let t0 = Instant::now();
    for &n in &a.sizes {
        let cases = accuracy::cases(&a.routines, &a.classes, &[(n, a.nb)], a.seeds, &a.types);
        for (i, case) in cases.iter().enumerate() {
            let t = Instant::now();
            let o = accuracy::compare(&a.cfg, case);
            let worst = o.measures.iter().filter_map(|m| m.ratio()).fold(0.0, f64::max);
            eprintln!(
                "[{:>5.0}s] n {n} {}/{}: {} seed {}: INFO {}/{}, ratio {worst:.2} ({:.2}s, {})",
                t0.elapsed().as_secs_f64(),
                i + 1,
                cases.len(),
                case.label(),
                case.seed,
                o.info.0,
                o.info.1,
                t.elapsed().as_secs_f64(),
                o.path
            );
            all.push(o);
        }
        accuracy::gen::forget_orthogonal();
    }
    let rows = accuracy::summarize(&all);
    let failed = accuracy::failures(&rows);
    let mut text = accuracy::markdown(&rows);
    text += &format!("\n{} comparisons failed", failed.len());
    text += if failed.is_empty() { ".\n" } else { ":\n\n" };
    for f in &failed {
        text += &format!("- {f}\n");
    }
    match &a.out {
        Some(path) => std::fs::write(path, &text).unwrap_or_else(|e| usage(&format!("{path}: {e}"))),
        None => print!("{text}"),
    }
    eprintln!(
        "accuracy: {} cases in {:.0} s, {} comparisons failed",
        all.len(),
        t0.elapsed().as_secs_f64(),
        failed.len()
    );
}
