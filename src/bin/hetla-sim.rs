//! hetla-sim: predicts a call's time by scheduling hetla's own task graph on a modelled machine.
//!
//! ```text
//! hetla-sim ROUTINE --n N [--nb NB] [--grid PxQ] [--user-nb NB] [--cores C] [--gpus G]
//!           [--machine FILE] [--trace FILE] [--comm-thread]
//! hetla-sim calibrate [--out FILE]
//! ```
//! See the README's "Simulator" section.

use hetla::algo::geqrf::{self, Panel};
use hetla::algo::potrf::{self, Granularity};
use hetla::config::{default_device_nb, Config};
use hetla::graph::Tiling;
use hetla::kernels::Uplo;
use hetla::runtime::placement::{column_share, hybrid_part};
use hetla::sim::machine::{calibrate, rate, Machine};
use hetla::sim::{simulate, Recorder, Setup};
use hetla::tile::Part;
use std::collections::HashMap;
use std::process::exit;

const USAGE: &str = "usage: hetla-sim ROUTINE --n N [--nb NB] [--grid PxQ] [--user-nb NB] [--cores C] [--gpus G] [--machine FILE] [--trace FILE] [--comm-thread]
       hetla-sim calibrate [--out FILE]
ROUTINE: dpotrf or dgeqrf (shared memory, one node), or pdpotrf (a PxQ grid of ranks, one per node);
--comm-thread: what if a thread of its own drove MPI on each rank (one core fewer computes);
the other routines are not simulated yet.";

fn fail(msg: &str) -> ! {
    eprintln!("hetla-sim: {msg}\n{USAGE}");
    exit(2)
}

/// This machine's last calibration: `$XDG_CACHE_HOME/hetla/machine.json` (or under `~/.cache`).
fn default_machine_path() -> String {
    let base = std::env::var("XDG_CACHE_HOME")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("{}/.cache", std::env::var("HOME").unwrap_or_else(|_| ".".into())));
    format!("{base}/hetla/machine.json")
}

fn cores_here() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(routine) = args.first().cloned() else { fail("no routine") };
    let mut opt: HashMap<String, String> = HashMap::new();
    let mut it = args[1..].iter();
    let mut comm_thread = false;
    while let Some(k) = it.next() {
        if k == "--comm-thread" {
            comm_thread = true;
            continue;
        }
        let Some(name) = k.strip_prefix("--") else { fail(&format!("unexpected argument {k}")) };
        let Some(v) = it.next() else { fail(&format!("{k} needs a value")) };
        opt.insert(name.to_string(), v.clone());
    }
    let num = |k: &str| -> Option<usize> {
        opt.get(k).map(|v| v.parse().unwrap_or_else(|_| fail(&format!("--{k} {v}: not a number"))))
    };

    if routine == "calibrate" {
        let out = opt.get("out").cloned().unwrap_or_else(default_machine_path);
        let m = calibrate(cores_here());
        if let Some(dir) = std::path::Path::new(&out).parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        m.save(&out).unwrap_or_else(|e| fail(&e));
        let g = |s| rate(&m.host, "gemm", s) / 1e9;
        println!(
            "hetla-sim: calibrated {} cores: gemm {:.1} GFLOP/s per core at nb=64, {:.1} at nb=256; task overhead {:.1} us; wrote {out}",
            m.cores,
            g(64),
            g(256),
            m.task_overhead_s * 1e6
        );
        return;
    }

    let machine = match opt.get("machine") {
        Some(f) => Machine::load(f).unwrap_or_else(|e| fail(&e)),
        None => {
            let f = default_machine_path();
            Machine::load(&f).unwrap_or_else(|_| {
                eprintln!("hetla-sim: no calibration of this machine yet; calibrating ({f})");
                let m = calibrate(cores_here());
                if let Some(dir) = std::path::Path::new(&f).parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                let _ = m.save(&f);
                m
            })
        }
    };
    let Some(n) = num("n") else { fail("--n is required") };
    let cores = num("cores").unwrap_or(machine.cores);
    let gpus = num("gpus").unwrap_or(machine.gpus);
    if gpus > 0 && machine.gpu.is_empty() {
        fail("--gpus > 0 needs a machine file with GPU rates");
    }
    let (p, q) = match opt.get("grid") {
        None => (1, 1),
        Some(g) => {
            let v: Vec<usize> = g.split(['x', 'X']).filter_map(|s| s.parse().ok()).collect();
            if v.len() != 2 || v[0] == 0 || v[1] == 0 {
                fail(&format!("--grid {g}: expected PxQ"));
            }
            (v[0], v[1])
        }
    };
    // The library's own choices: its tile size for the routine and this many threads.
    let cfg = Config::with_threads(machine.cores);
    let (tiling, setup, gran, convert_s, nb) = match routine.as_str() {
        "dpotrf" | "dgeqrf" => {
            if (p, q) != (1, 1) {
                fail(&format!("{routine} runs on one node; use pdpotrf with --grid"));
            }
            let nb = num("nb").unwrap_or_else(|| cfg.nb_for(&routine, n));
            let mut part = Part::uniform(nb);
            let mut share = 1.0;
            if gpus > 0 {
                // As api::run_tiles_on_devices: big tiles for the GPU, thin host tiles, the
                // host's share from the GEMM rates.
                let big = default_device_nb(&routine).max(nb);
                let r_cpu = rate(&machine.host, "gemm", nb) * cores as f64;
                let r_gpu = rate(&machine.gpu, "gemm", big) * gpus as f64;
                if let Some(hp) = hybrid_part(big, nb, r_cpu / (r_cpu + r_gpu)) {
                    part = hp;
                    share = column_share(&hp);
                }
            }
            let t = Tiling::of_parts(n, n, &part, &part);
            (
                t,
                Setup { grid: (1, 1), cores, gpus, host_share: share, distributed: false, comm_thread },
                Granularity::Tiles,
                0.0,
                nb,
            )
        }
        "pdpotrf" => {
            let user_nb = num("user-nb").unwrap_or(64);
            let nb = num("nb").unwrap_or(hetla::api::scalapack::caller_aligned_nb(
                &cfg,
                "pdpotrf",
                n as i32,
                user_nb as i32,
                hetla::api::scalapack::PDPOTRF_IN_PLACE,
            ));
            let gran = if p == 1 && gpus == 0 { Granularity::Columns } else { Granularity::Tiles };
            // Conversion from the caller's blocks to tiles and back when they differ: the local
            // triangle is copied twice each way and most of it crosses the network.
            let convert_s = if nb == user_nb {
                0.0
            } else {
                let bytes = (n * n) as f64 * 8.0 / 2.0 / (p * q) as f64;
                let remote = 1.0 - 1.0 / (p * q) as f64;
                2.0 * (2.0 * bytes / machine.memcpy_bw + remote * bytes / machine.net_bw)
            };
            let share = if gpus > 0 {
                let r_cpu = rate(&machine.host, "gemm", nb) * cores as f64;
                let r_gpu = rate(&machine.gpu, "gemm", nb) * gpus as f64;
                r_cpu / (r_cpu + r_gpu)
            } else {
                1.0
            };
            let t = Tiling::uniform(n, nb, n, nb);
            (
                t,
                Setup { grid: (p, q), cores, gpus, host_share: share, distributed: true, comm_thread },
                gran,
                convert_s,
                nb,
            )
        }
        other => fail(&format!(
            "{other}: not simulated yet (dpotrf, dgeqrf and pdpotrf run on the task-graph interface so far)"
        )),
    };
    let mut rec = Recorder::new(tiling.clone());
    let nf = n as f64;
    let flops = if routine == "dgeqrf" {
        // The QR ops without a calibrated table (the panel, DLARFB) are costed at the GEMM rate.
        geqrf::generate(&mut rec, Panel::InPlace);
        4.0 * nf * nf * nf / 3.0
    } else {
        potrf::generate(&mut rec, Uplo::Lower, gran);
        nf * nf * nf / 3.0
    };
    let pred = simulate(&machine, &tiling, &rec.tasks, &setup);
    let time = pred.time_s + convert_s;
    if let Some(f) = opt.get("trace") {
        std::fs::write(f, pred.chrome_trace()).unwrap_or_else(|e| fail(&format!("{f}: {e}")));
    }
    println!(
        "hetla-sim: {routine} n={n} nb={nb} grid={p}x{q} cores={cores} gpus={gpus}{} machine=\"{}\" tasks={} messages={} net_MB={:.1} link_MB={:.1} evictions={} convert_s={convert_s:.3} predicted_time={time:.4} s gflops={:.1}",
        if comm_thread { " comm-thread" } else { "" },
        machine.name,
        pred.tasks,
        pred.messages,
        pred.net_bytes / 1e6,
        pred.link_bytes / 1e6,
        pred.evictions,
        flops / time / 1e9
    );
}
