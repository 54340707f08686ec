//! hetla-sim: predicts a call's time by scheduling hetla's own task graph on a modelled machine.
//!
//! ```text
//! hetla-sim ROUTINE --n N [--nb NB] [--grid PxQ] [--user-nb NB] [--cores C] [--gpus G]
//!           [--emulated-gpus G] [--machine FILE] [--trace FILE] [--comm-thread]
//! hetla-sim dbttrf --n BLOCKROWS --m BLOCKSIZE [--method thomas|twisted|cyclic] [--cores C]
//! hetla-sim calibrate [--out FILE]
//! hetla-sim --help
//! ```
//! See docs/simulator.md.

use hetla::algo::bt;
use hetla::algo::geqrf::{self, Panel};
use hetla::algo::getrf::{self, Lu};
use hetla::algo::getri;
use hetla::algo::potrf::{self, Granularity};
use hetla::algo::trtri;
use hetla::api::device_part;
use hetla::api::scalapack::{caller_layout, layout_name, lu_qr_nb, lu_qr_shape, lu_split, potrf_shape};
use hetla::config::Pivoting;
use hetla::config::{default_device_nb, Config, LuPanel};
use hetla::device;
use hetla::dist::getrf::lu_tasks;
use hetla::dist::redistribute::Shape;
use hetla::graph::Tiling;
use hetla::kernels::{Diag, Uplo};
use hetla::runtime::placement::{column_share, hybrid_part};
use hetla::sim::machine::{calibrate, calibrate_watched, rate, Machine};
use hetla::sim::{simulate, Recorder, Setup};
use hetla::tile::Part;
use std::collections::HashMap;
use std::process::exit;

/// `hetla-sim --help`: what it does, its usage and options, in one screen (at most 24 lines).
const HELP: &str =
    "hetla-sim: predicts how long a hetla call takes, by scheduling hetla's own task graph on a
modelled machine (kernel rates from a calibration of this one, or from a machine file).

usage: hetla-sim ROUTINE --n N [options]
       hetla-sim dbttrf --n BLOCKROWS --m BLOCKSIZE [--method thomas|twisted|cyclic] [--cores C]
       hetla-sim calibrate [--out FILE]     measure this machine, write its machine file
       hetla-sim --help
ROUTINE: dpotrf dgetrf dgeqrf dtrtri dpotri dgetri (one node), pdpotrf pdgetrf pdgeqrf (a grid)
options:
  --n N                  matrix order (required)
  --nb NB                tile size (default: the library's choice)
  --grid PxQ             process grid of a pd routine, one rank per node (default 1x1)
  --user-nb NB           the ScaLAPACK caller's block size (conversion to tiles included)
  --cores C              cores per rank, also the library's threads (default: the machine's)
  --gpus G               GPUs per rank (needs a machine file with GPU rates)
  --emulated-gpus G      G of the library's emulated accelerators, sharing the cores (one node)
  --lu gepp|calu         the LU's pivoting (HETLA_LU)
  --lu-panel gather|split  where pdgetrf factors a panel on several process rows
  --comm-thread          what if a thread of its own drove MPI on each rank
  --machine FILE         machine file (default: this machine's, in $XDG_CACHE_HOME/hetla or
                         ~/.cache/hetla, calibrated first if missing)
  --trace FILE           write the simulated run as a Chrome trace
prints: hetla-sim: ROUTINE n=N nb=NB grid=PxQ ... predicted_time=T s gflops=G";

/// Printed after an error.
const USAGE: &str = "usage: hetla-sim ROUTINE --n N [options] | hetla-sim calibrate [--out FILE]
(hetla-sim --help lists the routines and options)";

/// The routines simulated on one node (shared memory).
const SHARED: [&str; 6] = ["dpotrf", "dgetrf", "dgeqrf", "dtrtri", "dpotri", "dgetri"];

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
    if args.iter().any(|a| a == "--help" || a == "-h") || args.first().is_some_and(|a| a == "help") {
        println!("{HELP}");
        return;
    }
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
        let (m, other) = calibrate_watched(cores_here());
        if let Some(dir) = std::path::Path::new(&out).parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        m.save(&out).unwrap_or_else(|e| fail(&e));
        if let Some(o) = other.filter(|&o| o > 0.05) {
            eprintln!(
                "hetla-sim: warning: other work used {:.0}% of the CPU time during the calibration, so its rates are low; calibrate again when the machine is quiet",
                o * 100.0
            );
        }
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
    if routine == "dbttrf" {
        let Some(m) = num("m") else { fail("dbttrf needs --m, the block size (--n: block rows)") };
        return simulate_bt(&machine, (n, m), opt.get("method").map(String::as_str), cores, opt.get("trace"));
    }
    let emulated = num("emulated-gpus").unwrap_or(0);
    // The library's own choices: its tile size for the routine with this many threads per rank.
    let mut cfg = Config::with_threads(cores);
    let mut extra = String::new();
    let mut machine = machine;
    if emulated > 0 {
        if opt.contains_key("gpus") {
            fail("--gpus and --emulated-gpus exclude each other");
        }
        if !SHARED.contains(&routine.as_str()) {
            fail("--emulated-gpus is for the shared-memory routines (dpotrf, dgetrf, dgeqrf, dtrtri, dpotri, dgetri)");
        }
        let mem = cfg.emulate_gpu_mem;
        cfg = cfg.with_emulated(emulated, mem);
        machine = emulated_machine(&machine, emulated, cfg.emulate_gpu_mem as f64);
    }
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
    let nf = n as f64;
    let flops = if routine.ends_with("geqrf") || routine == "dgetri" {
        4.0 * nf * nf * nf / 3.0
    } else if routine == "dpotri" || routine.ends_with("getrf") {
        2.0 * nf * nf * nf / 3.0
    } else {
        nf * nf * nf / 3.0
    };
    let pivot = match opt.get("lu").map(|s| s.as_str()) {
        None => cfg.lu,
        Some("gepp") => Pivoting::Gepp,
        Some("calu") => Pivoting::Calu,
        Some(x) => fail(&format!("--lu {x}: gepp or calu")),
    };
    cfg.lu_panel = match opt.get("lu-panel").map(|s| s.as_str()) {
        None => cfg.lu_panel,
        Some("gather") => Some(LuPanel::Gather),
        Some("split") => Some(LuPanel::Split),
        Some(x) => fail(&format!("--lu-panel {x}: gather or split")),
    };
    if pivot == Pivoting::Calu {
        extra += " pivot=calu";
    }
    // Converting the caller's blocks to tiles and back when they differ (`dist::redistribute`):
    // each way, of a rank's part (the triangle for Cholesky, all of it for QR), what stays on
    // the rank is copied once and what moves (most of it) is packed, sent and unpacked; the tile
    // store the data goes into is freshly allocated, so filling it also pays the first touch.
    let convert = |part: f64, ranks: usize| {
        let bytes = part * nf * nf * 8.0 / ranks as f64;
        let remote = 1.0 - 1.0 / ranks as f64;
        let passes = 2.0 * (1.0 + 2.0 * remote) + machine.first_touch_passes;
        passes * bytes / machine.memcpy_bw + 2.0 * remote * bytes / machine.net_bw
    };
    // The host's share of a rank's tile columns for modelled GPUs, from the GEMM rates.
    let gpu_share = |nb_host: usize, nb_gpu: usize| {
        if gpus == 0 {
            return 1.0;
        }
        let r_cpu = rate(&machine.host, "gemm", nb_host) * cores as f64;
        let r_gpu = rate(&machine.gpu, "gemm", nb_gpu) * gpus as f64;
        r_cpu / (r_cpu + r_gpu)
    };
    let (tiling, setup, convert_s, nb) = match routine.as_str() {
        r if SHARED.contains(&r) => {
            if (p, q) != (1, 1) {
                fail(&format!("{routine} runs on one node; use pdpotrf or pdgeqrf with --grid"));
            }
            let nb = num("nb").unwrap_or_else(|| cfg.nb_for(&routine, n));
            let mut part = Part::uniform(nb);
            let mut share = 1.0;
            if emulated > 0 {
                // The library's own partition for these devices (api::run_tiles_on_devices), and
                // whether its cost model would use them without HETLA_DEVICE_FORCE.
                let devices = device::open(&cfg);
                let work = device::Work { flops, bytes: 8.0 * nf * nf, cols: n };
                extra += &format!(
                    " cost_model={}",
                    if device::worth_using(&cfg, &devices, work) { "devices" } else { "host" }
                );
                if let Some(hp) = device_part(&cfg, &routine, nb, &devices) {
                    part = hp;
                    share = column_share(&hp);
                    extra += &format!(" tiles={}", hp.describe());
                }
            } else if gpus > 0 {
                // As api::run_tiles_on_devices: big tiles for the GPU, thin host tiles, the
                // host's share from the GEMM rates.
                let big = default_device_nb(&routine).max(nb);
                if let Some(hp) = hybrid_part(big, nb, gpu_share(nb, big)) {
                    part = hp;
                    share = column_share(&hp);
                    extra += &format!(" tiles={}", hp.describe());
                }
            }
            let gpus = if share < 1.0 { gpus } else { 0 };
            let t = Tiling::of_parts(n, n, &part, &part);
            let setup = Setup {
                grid: (1, 1),
                cores,
                gpus,
                host_share: share,
                distributed: false,
                comm_thread,
                emulated_gpus: emulated > 0,
            };
            (t, setup, 0.0, nb)
        }
        "pdpotrf" => {
            let user_nb = num("user-nb").unwrap_or(64);
            let nb = num("nb").unwrap_or(hetla::api::scalapack::caller_aligned_nb(
                &cfg,
                "pdpotrf",
                n as i32,
                user_nb as i32,
                hetla::api::scalapack::pdpotrf_in_place(&cfg, p as i32, q as i32),
            ));
            // The library's layout (whole tile columns over all ranks when converted on a small
            // grid of several process rows).
            let shape = potrf_shape(&cfg, p as i32, q as i32, nb, user_nb as i32);
            let (tp, tq) = if shape == Shape::OneRow { (1, p * q) } else { (p, q) };
            extra += &format!(" layout={}", layout_name(shape));
            let convert_s = if nb == user_nb && (tp, tq) == (p, q) { 0.0 } else { convert(0.5, p * q) };
            let t = Tiling::uniform(n, nb, n, nb);
            let setup = Setup {
                grid: (tp, tq),
                cores,
                gpus,
                host_share: gpu_share(nb, nb),
                distributed: true,
                comm_thread,
                emulated_gpus: false,
            };
            (t, setup, convert_s, nb)
        }
        "pdgeqrf" | "pdgetrf" => {
            // The library's layout (whole tile columns over all ranks on small grids) and tile.
            let user_nb = num("user-nb").unwrap_or(64);
            let shape = lu_qr_shape(&cfg, p as i32, q as i32);
            let (tp, tq) = if shape == Shape::OneRow { (1, p * q) } else { (p, q) };
            let nb = num("nb").unwrap_or_else(|| lu_qr_nb(&cfg, &routine, n as i32, user_nb as i32, (tp as i32, tq as i32), caller_layout(shape, p as i32)));
            extra += &format!(" layout={}", layout_name(shape));
            let convert_s = if nb == user_nb && (tp, tq) == (p, q) { 0.0 } else { convert(1.0, p * q) };
            let t = Tiling::uniform(n, nb, n, nb);
            let setup = Setup {
                grid: (tp, tq),
                cores,
                gpus,
                host_share: gpu_share(nb, nb),
                distributed: true,
                comm_thread,
                emulated_gpus: false,
            };
            (t, setup, convert_s, nb)
        }
        other => fail(&format!(
            "{other}: not simulated (dpotrf, dgetrf, dgeqrf, dtrtri, dpotri, dgetri, pdpotrf, pdgetrf and pdgeqrf run on the task-graph interface)"
        )),
    };
    let tiling_nt = tiling.nt();
    let mut rec = Recorder::on_grid(tiling, setup.grid);
    match routine.as_str() {
        "dgeqrf" => {
            geqrf::generate(&mut rec, Panel::InPlace, geqrf::host_cut(nb, cores, setup.gpus > 0));
        }
        "pdgeqrf" => {
            geqrf::generate(&mut rec, Panel::Gathered, geqrf::Fuse::qr(nb, cores));
        }
        "dgetrf" => {
            // As algo::getrf::getrf: panels in place, one task per column on the host, separate
            // device kernels when devices take part.
            let fused = setup.gpus == 0;
            getrf::generate(
                &mut rec,
                &Lu {
                    pivot,
                    panel: Panel::InPlace,
                    fused,
                    cut: getrf::Fuse::lu(cores),
                    leaves: cores,
                    leaf: if cores > 1 { getrf::LEAF } else { 0 },
                    split: false,
                },
            );
        }
        "pdgetrf" => {
            getrf::generate(&mut rec, &lu_tasks(pivot, nb, cores, lu_split(&cfg), setup.grid.0 == 1));
        }
        "dtrtri" => trtri::generate_trtri(&mut rec, Uplo::Lower, Diag::NonUnit, 0),
        "dpotri" => {
            trtri::generate_trtri(&mut rec, Uplo::Lower, Diag::NonUnit, 0);
            trtri::generate_lauum(&mut rec, Uplo::Lower, tiling_nt);
        }
        "dgetri" => {
            // DGETRF's pivots of a matrix that needs interchanges (their values do not change the
            // tasks, only whether the interchange tasks are there).
            let ipiv: Vec<i32> = (1..=n as i32).map(|i| (i + 1).min(n as i32)).collect();
            getri::generate(&mut rec, &ipiv);
        }
        "pdpotrf" => {
            let gran = if setup.grid.0 == 1 && gpus == 0 { Granularity::Columns } else { Granularity::Tiles };
            potrf::generate(&mut rec, Uplo::Lower, gran);
        }
        _ => {
            // As algo::potrf::potrf: stacks of tile rows on the host alone.
            let gran = if gpus == 0 { Granularity::on_host(n, nb, cores) } else { Granularity::Tiles };
            potrf::generate(&mut rec, Uplo::Lower, gran)
        }
    }
    let pred = simulate(&machine, &rec, &setup);
    let time = pred.time_s + convert_s;
    if let Some(f) = opt.get("trace") {
        std::fs::write(f, pred.chrome_trace()).unwrap_or_else(|e| fail(&format!("{f}: {e}")));
    }
    let (gp, gq) = setup.grid;
    println!(
        "hetla-sim: {routine} n={n} nb={nb} grid={gp}x{gq} cores={cores} gpus={}{}{extra} machine=\"{}\" tasks={} messages={} net_MB={:.1} link_MB={:.1} evictions={} convert_s={convert_s:.3} predicted_time={time:.4} s gflops={:.1}",
        setup.gpus,
        if emulated > 0 { " emulated" } else if comm_thread { " comm-thread" } else { "" },
        machine.name,
        pred.tasks,
        pred.messages,
        pred.net_bytes / 1e6,
        pred.link_bytes / 1e6,
        pred.evictions,
        flops / time / 1e9
    );
}

/// DBTTRF of `n` block rows of `m`×`m` blocks on one node: the block tridiagonal generator
/// (`algo::bt`) in the elimination the library picks for `cores` workers (`api::bt::method`) or
/// `method`, its blocks numbered as tiles of one tile row. Block Thomas, which the library runs
/// inline on the calling thread, is simulated on the tasks of one worker.
fn simulate_bt(
    machine: &Machine,
    (n, m): (usize, usize),
    method: Option<&str>,
    cores: usize,
    trace: Option<&String>,
) {
    let meth = match method {
        None => hetla::api::bt::method(&Config::with_threads(cores), n, m),
        Some("thomas") => bt::Method::Thomas,
        Some("twisted") => bt::Method::Twisted,
        Some("cyclic") => bt::Method::Cyclic,
        Some(x) => fail(&format!("--method {x}: thomas, twisted or cyclic")),
    };
    let cores = if meth == bt::Method::Thomas { 1 } else { cores };
    let (blocks, ids) = bt::tile_row_ids(n);
    let mut rec = Recorder::new(Tiling::uniform(m, m, blocks * m, m));
    let sch = bt::schedule(meth, n);
    bt::generate_factor(&mut rec, &sch, m, &ids);
    let setup = Setup {
        grid: (1, 1),
        cores,
        gpus: 0,
        host_share: 1.0,
        distributed: false,
        comm_thread: false,
        emulated_gpus: false,
    };
    let pred = simulate(machine, &rec, &setup);
    if let Some(f) = trace {
        std::fs::write(f, pred.chrome_trace()).unwrap_or_else(|e| fail(&format!("{f}: {e}")));
    }
    println!(
        "hetla-sim: dbttrf n={n} m={m} method={meth:?} cores={cores} machine=\"{}\" tasks={} predicted_time={:.4} s gflops={:.1}",
        machine.name,
        pred.tasks,
        pred.time_s,
        sch.factor_flops(m) / pred.time_s / 1e9
    );
}

/// `m` with `g` emulated accelerators (`device::emulated`) of `memory` bytes: their kernels are
/// the host's BLAS (the host's per-core rates, on cores shared with the host workers: see
/// `Setup::emulated_gpus`), their copies are host memory copies.
fn emulated_machine(m: &Machine, g: usize, memory: f64) -> Machine {
    Machine {
        name: format!("{} with {g} emulated accelerators", m.name),
        gpus: g,
        gpu: m.host.clone(),
        gpu_memory: memory,
        link_bw: m.memcpy_bw,
        link_latency_s: 0.0,
        ..m.clone()
    }
}
