//! The `HETLA_*` environment variables, read once per process.
//!
//! A bad value prints one warning on stderr and the default is used (ARCHITECTURE.md). Tests build a
//! [`Config`] by hand instead of going through the environment.

use std::sync::OnceLock;

/// Routines that have a tile path; `HETLA_DISABLE` names them in lower case.
pub const ROUTINES: &[&str] = &[
    "dpotrf", "spotrf", "cpotrf", "zpotrf", "dpotrs", "spotrs", "cpotrs", "zpotrs", "dposv", "sposv",
    "cposv", "zposv", "dgetrf", "sgetrf", "cgetrf", "zgetrf", "dgetrs", "sgetrs", "cgetrs", "zgetrs",
    "dgesv", "sgesv", "cgesv", "zgesv", "dgeqrf", "sgeqrf", "cgeqrf", "zgeqrf", "dgels", "sgels", "cgels",
    "zgels", "dtrtri", "strtri", "ctrtri", "ztrtri", "dpotri", "spotri", "cpotri", "zpotri", "dgetri",
    "sgetri", "cgetri", "zgetri", "dorgqr", "sorgqr", "cungqr", "zungqr", "dormqr", "sormqr", "cunmqr",
    "zunmqr", "dgemm", "sgemm", "cgemm", "zgemm", "pdpotrf", "pdpotrs", "pdposv", "pdgetrf", "pdgetrs",
    "pdgesv", "pdgeqrf", "pdtrtri", "pdpotri", "pdgetri", "pdorgqr", "pdormqr", "pspotrf", "pcpotrf",
    "pzpotrf", "pspotrs", "pcpotrs", "pzpotrs", "psposv", "pcposv", "pzposv", "psgetrf", "pcgetrf",
    "pzgetrf", "psgetrs", "pcgetrs", "pzgetrs", "psgesv", "pcgesv", "pzgesv", "psgeqrf", "pcgeqrf",
    "pzgeqrf", "psorgqr", "pcungqr", "pzungqr", "psormqr", "pcunmqr", "pzunmqr", "pstrtri", "pctrtri",
    "pztrtri", "pspotri", "pcpotri", "pzpotri", "psgetri", "pcgetri", "pzgetri",
];

#[derive(Clone, Debug)]
pub struct Config {
    /// Threads that execute tasks, the calling thread included.
    pub threads: usize,
    /// Tile size override (`HETLA_NB`); `None` means the per-routine default.
    pub nb: Option<usize>,
    /// Calls whose problem size is below this go to the backend (`HETLA_MIN_N`).
    pub min_n: Option<usize>,
    /// Where break-even sizes are learned and kept when `min_n` is unset (`HETLA_CACHE_DIR`).
    pub learn: Learn,
    /// Routines always forwarded (`HETLA_DISABLE`).
    pub disabled: Vec<String>,
    /// One line per call on stderr (`HETLA_VERBOSE=1`).
    pub verbose: bool,
    /// Chrome trace-event output file (`HETLA_TRACE`).
    pub trace: Option<String>,
    /// CUDA devices to use (`HETLA_GPUS`: `all`, `none`, or ordinals like `0,2`).
    pub gpus: GpuSelect,
    /// Emulated accelerators added to the devices (`HETLA_EMULATE_GPUS`), a testing device.
    pub emulate_gpus: usize,
    /// Memory of each emulated accelerator in bytes (`HETLA_EMULATE_GPU_MEM`, K/M/G suffixes).
    pub emulate_gpu_mem: usize,
    /// Fraction of the columns the host keeps when devices are used (`HETLA_HOST_SHARE`, 0..1):
    /// B_h/B, the thin part of each hybrid big tile; `None`: from the measured kernel rates.
    pub host_share: Option<f64>,
    /// Use the devices for every tile-path call, bypassing the cost model (`HETLA_DEVICE_FORCE`;
    /// for testing the device paths on small problems).
    pub device_force: bool,
    /// The big tile B of the hybrid partition on CUDA devices (`HETLA_DEVICE_NB`); `None`: the
    /// routine's default ([`default_device_nb`]). Small values put many tiles, and so every
    /// device kernel and transfer, on small problems (the fake-CUDA tests).
    pub device_nb: Option<usize>,
    /// The tile layout of the distributed LU and QR (`HETLA_DIST_LAYOUT`: `grid` or `row`);
    /// `None`: the library's choice ([`crate::api::scalapack::lu_qr_shape`]). Process (0, 0)'s
    /// setting is the grid's.
    pub dist_layout: Option<DistLayout>,
    /// How LU calls pivot (`HETLA_LU`: `gepp`, LAPACK's partial pivoting, the default; `calu`,
    /// tournament pivoting). Process (0, 0)'s setting is the grid's.
    pub lu: Pivoting,
    /// Where the distributed LU factors a GEPP panel whose tiles are on several process rows
    /// (`HETLA_LU_PANEL`: `gather`, on the rank of its top tile; `split`, where its rows are,
    /// column by column); `None`: gathered (`api::scalapack::lu_split`). Process (0, 0)'s
    /// setting is the grid's.
    pub lu_panel: Option<LuPanel>,
    /// Test hook (`HETLA_TEST_FAULT=R`): on rank R of a grid, the first task of every
    /// distributed call fails as an internal error would (the job must then abort, not hang).
    pub test_fault: Option<usize>,
    /// The block tridiagonal solvers' elimination (`HETLA_BT`: `thomas`, the sequential block
    /// LU; `twisted`, block LU from both ends at once; `cyclic`, block cyclic reduction);
    /// `None`: the library's choice by size (`api::bt::method`).
    pub bt: Option<crate::algo::bt::Method>,
    /// How a tiled DGEMM gives its C tiles to the host and the devices (`HETLA_GEMM_ALLOC`:
    /// `nrrp`, `cyclic`, `dynamic`).
    pub gemm_alloc: crate::runtime::alloc::Policy,
    /// Declared relative speeds of the emulated accelerators, in their order
    /// (`HETLA_EMULATE_GPU_SPEED=s1,s2,...`; missing entries are 1): what the allocation of a
    /// tiled DGEMM believes, in units of the device's measured rate (they still compute with
    /// one host core's BLAS).
    pub emulate_gpu_speed: Vec<f64>,
    /// DGEMMs with m·n·k below this are forwarded without a look at the devices (and without
    /// a verbose line), even under `HETLA_DEVICE_FORCE`: [`GEMM_MIN_VOLUME`]; tests lower it.
    pub gemm_min_volume: usize,
    /// Whether a tiled DGEMM with the `nrrp` allocation lets idle workers steal (tests turn it
    /// off to count exactly what the allocation moves).
    pub gemm_steal: bool,
    /// How a factorization with devices places its trailing updates (`HETLA_UPDATE_ALLOC`:
    /// `cyclic`, the hybrid partition's columns; `nrrp`, a repeated pattern of NRRP zones).
    pub update_alloc: crate::runtime::alloc::UpdatePolicy,
    /// Whether DPOTRF, DGETRF and DGEQRF may run whole on one device by its vendor solver
    /// (`HETLA_SOLVER`: `auto`, where the learner finds it fastest; `off`; `force`, every call
    /// that is not forwarded, where a device takes it).
    pub solver: Solver,
}

/// `HETLA_SOLVER`: whether a whole factorization may go to a device's vendor solver
/// ([`crate::device::Device::factor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Solver {
    /// A way the learner tries and keeps where it is fastest (`api::tune`).
    #[default]
    Auto,
    /// Never.
    Off,
    /// Every call that is not forwarded, before the tiles (tests).
    Force,
}

/// m·n·k below which a DGEMM is always forwarded (a 64³ product takes about 10 µs on one core,
/// less than a device sequence costs to start; the LAPACK test programs make hundreds of
/// thousands of far smaller calls).
pub const GEMM_MIN_VOLUME: usize = 64 * 64 * 64;

/// How the distributed LU and QR deal their tiles over the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DistLayout {
    /// 2-D block-cyclic over the caller's P×Q grid.
    Grid,
    /// Whole tile columns dealt over all P·Q ranks (one process row).
    Row,
}

/// Where the distributed LU factors a GEPP panel on several process rows (`HETLA_LU_PANEL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LuPanel {
    /// Gathered on the rank of the panel's top tile, factored there, scattered back.
    Gather,
    /// Where its rows are: one task per rank and column, the ranks exchanging each column's
    /// pivot candidates.
    Split,
}

/// The pivoting of the LU routines (`HETLA_LU`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pivoting {
    /// Partial pivoting: LAPACK's DGETRF pivots, exactly.
    #[default]
    Gepp,
    /// Communication-avoiding LU: tournament pivoting in each panel (TSLU). A valid `ipiv`, but
    /// not GEPP's.
    Calu,
}

impl Pivoting {
    /// Its name in the verbose lines (`pivot=`).
    pub fn name(self) -> &'static str {
        match self {
            Pivoting::Gepp => "gepp",
            Pivoting::Calu => "calu",
        }
    }
}

/// Which CUDA devices `HETLA_GPUS` selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuSelect {
    All,
    None,
    Ordinals(Vec<usize>),
}

impl GpuSelect {
    /// Parses `all`, `none` or a comma list of ordinals (no duplicates).
    pub fn parse(s: &str) -> Option<GpuSelect> {
        match s.trim().to_ascii_lowercase().as_str() {
            "all" | "" => Some(GpuSelect::All),
            "none" => Some(GpuSelect::None),
            list => {
                let v: Option<Vec<usize>> = list.split(',').map(|x| x.trim().parse().ok()).collect();
                let v = v?;
                let mut sorted = v.clone();
                sorted.sort_unstable();
                sorted.dedup();
                (sorted.len() == v.len()).then_some(GpuSelect::Ordinals(v))
            }
        }
    }

    /// Whether CUDA device `ordinal` is selected.
    pub fn selects(&self, ordinal: usize) -> bool {
        match self {
            GpuSelect::All => true,
            GpuSelect::None => false,
            GpuSelect::Ordinals(v) => v.contains(&ordinal),
        }
    }
}

/// Default memory of an emulated accelerator.
pub(crate) const DEFAULT_EMULATE_GPU_MEM: usize = 256 << 20;

/// A byte count with an optional K, M or G suffix (powers of 1024; `KB`/`MiB` spellings too).
pub fn parse_bytes(s: &str) -> Option<usize> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, suffix) = s.split_at(digits);
    let n: usize = num.parse().ok()?;
    let mult: usize = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult).filter(|&b| b > 0)
}

/// Built-in break-even sizes: below these the backend's own routine was at least as fast as the
/// tile path on the 2-core machine we build on (`bench/breakeven.sh`, 2026-11-22: dpotrf and
/// dgetrf first at least as fast from n = 1536 on, dgeqrf from 1024; OpenBLAS with two threads).
/// The solvers follow their factorizations; pdpotrf and friends use the same sizes. LAPACK calls
/// learn the machine's own sizes around these ([`crate::api::tune`]).
pub fn default_min_n(routine: &str) -> usize {
    match lapack_stem(routine.trim_start_matches('p')) {
        Some("geqrf" | "gels" | "orgqr" | "ormqr") => 1024,
        _ => 1536,
    }
}

/// A LAPACK name without its type letter (`zgetrf` → `getrf`), the complex types' unitary Q
/// read as the real types' orthogonal one (`zungqr` → `orgqr`, `cunmqr` → `ormqr`): the sizes
/// below are stated once for the four types. `None` for a name that is not of a LAPACK routine
/// (ScaLAPACK's `p` names keep their own defaults in [`default_nb`]).
fn lapack_stem(routine: &str) -> Option<&str> {
    let stem = routine.strip_prefix(['s', 'd', 'c', 'z'])?;
    Some(match stem {
        "ungqr" => "orgqr",
        "unmqr" => "ormqr",
        s => s,
    })
}

/// How break-even sizes are learned ([`crate::api::tune`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Learn {
    /// Not at all: the built-in sizes ([`default_min_n`]); configurations built in code.
    Off,
    /// In this process only (no cache folder is known).
    Memory,
    /// And kept in this folder for later processes.
    Dir(std::path::PathBuf),
}

/// `HETLA_CACHE_DIR` (`off`: no learning), else `$XDG_CACHE_HOME/hetla`, else `$HOME/.cache/hetla`.
fn learn_from_env() -> Learn {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    if let Some(d) = nonempty("HETLA_CACHE_DIR") {
        return if d == "off" { Learn::Off } else { Learn::Dir(d.into()) };
    }
    if let Some(x) = nonempty("XDG_CACHE_HOME") {
        return Learn::Dir(std::path::PathBuf::from(x).join("hetla"));
    }
    match nonempty("HOME") {
        Some(h) => Learn::Dir(std::path::PathBuf::from(h).join(".cache").join("hetla")),
        None => Learn::Memory,
    }
}

/// Tile columns per thread below which the default tile size shrinks (see [`Config::nb_for`]).
pub const TILES_PER_THREAD: usize = 3;
/// The smallest tile size chosen automatically.
pub const MIN_AUTO_NB: usize = 64;

/// The factorizations' tile edge for large problems ([`Config::nb_for`], the routines of
/// [`takes_wide_tiles`]): the trailing updates are GEMMs of inner size nb, which run closer to
/// the DGEMM rate at 384 than at 256 (or QR's 192), once there are enough tile columns per thread
/// ([`WIDE_TILES_PER_THREAD`]) for the look-ahead. Measured with forced tiles on the 2-core
/// machines, interleaved with OpenBLAS: on the AMD EPYC VM (2026-11-26, 07:30 UTC) DGETRF
/// n = 6000 1.01, 1.03 of OpenBLAS with 384 against 0.96, 0.96 with 256 (320: 1.00, 1.03); DGESV
/// n = 6000 1.03, 1.05 against 1.01, 0.99; n = 3000 the same with both (1.09, 1.09 against 1.10,
/// 1.10), n = 1500 slower with 384 (1.17 against 1.31). On the AVX-512 Xeon VM with OpenBLAS's
/// SkylakeX kernels (2026-11-27, 02:40 UTC), n = 6000: DPOTRF 1.01, 1.03 with 384 against 0.96,
/// 0.95 with 256 (512: 1.02, 1.06); DPOSV 1.02 against 0.98; DGEQRF 1.49 with 384 and 1.47 with
/// 256 against 1.38 with 192.
pub const WIDE_NB: usize = 384;
/// Tile columns of [`WIDE_NB`] per thread from which the wider tiles are taken: 6000 rows on
/// 2 threads are 15.6 such columns, 3000 are 7.8.
pub const WIDE_TILES_PER_THREAD: usize = 7;

/// Whether `routine` takes [`WIDE_NB`] tiles for large problems: the one-sided factorizations
/// and the solvers built on them.
pub fn takes_wide_tiles(routine: &str) -> bool {
    matches!(lapack_stem(routine), Some("getrf" | "gesv" | "potrf" | "posv" | "geqrf" | "gels"))
}

/// Default tile edge per routine, tuned with bench/ on a 2-core machine (the largest; smaller
/// problems get narrower tiles, [`Config::nb_for`]). DGETRI and DTRTRI take 512: their work is
/// almost all GEMM and TRMM on whole tiles, which one core runs faster on 512 than on 256, and
/// at n = 4000 on 2 cores 8 tile columns still keep both busy. Measured with forced tiles,
/// interleaved with OpenBLAS (2026-11-25 23:04–23:10 UTC, quiet): DGETRI n = 4000 hetla's
/// time 1016, 1074, 1036 ms with 256 against 964, 1027, 930 ms with 512 (384: 959, 946,
/// 1031); DTRTRI n = 4000 279, 263, 267 ms against 244, 256, 244 ms, n = 6000 860, 867 ms
/// against 800, 786 ms. DPOTRI gained nothing (497 ms with 256, 517 ms with 512).
///
/// The other types take the same sizes by routine (`sgeqrf` as `dgeqrf`, `lapack_stem`). Forced
/// tiles of 192, 256 and 384 against OpenBLAS, one process each (2026-11-28 20:51–20:57 UTC,
/// `speed_types --sizes 6000 --complex-sizes 4000`, 3 samples): SGEQRF 1.38, 1.24, 1.22×;
/// ZGEQRF 1.27, 1.15× (192, 256); SPOTRF 0.93, 0.98, 1.08× and SGETRF 0.90, 1.03, 1.10× (the
/// wide tiles, [`WIDE_NB`], win at n = 6000 as in double).
pub fn default_nb(routine: &str) -> usize {
    match lapack_stem(routine) {
        Some("potrf" | "posv" | "potrs") => 256,
        Some("getrf" | "gesv" | "getrs") => 256,
        Some("geqrf" | "orgqr" | "gels") => 192,
        Some("getri" | "trtri") => 512,
        _ => 256,
    }
}

/// Default big tile B of the hybrid partition on GPUs per routine (the device's tile width plus
/// the host's thin tiles: seeds 001 §3.1, 000). Emulated devices, whose kernels are host BLAS,
/// use twice the host tile instead.
///
/// Measured on one H200 with 16 host cores (`GPU_STEPS=nb bash tests/gpu/run.sh`, every call
/// forced onto the GPU, GFLOP/s at n = 4000 / 8000, 2 samples): the host factors each B-wide
/// panel while the GPU waits, so a narrower B shortens the critical path until the GPU's
/// kernels get too small. DGEQRF 225 / 522 with B = 256, 196 / 438 with 384, 162 / 342 with
/// 512; DGETRF 194 / 301, 159 / 367, 146 / 346 (384 is kept: the larger sizes are where a GPU
/// pays); DPOTRF 176 / 298, 197 / 386, 210 / 402, and 254 at 4000 with 768 in the run before.
pub fn default_device_nb(routine: &str) -> usize {
    match routine {
        "dpotrf" | "dposv" | "dpotrs" => 768,
        "dgetrf" | "dgesv" | "dgetrs" => 384,
        "dgeqrf" => 256,
        _ => 512,
    }
}

impl Config {
    /// Defaults with `threads` workers and no overrides. No CUDA device: a configuration built
    /// in code (tests) uses exactly the devices it names; `HETLA_GPUS` defaults to `all` in
    /// `Config::from_env`.
    pub fn with_threads(threads: usize) -> Self {
        let c = Config {
            threads: threads.max(1),
            nb: None,
            min_n: None,
            learn: Learn::Off,
            disabled: Vec::new(),
            verbose: false,
            trace: None,
            gpus: GpuSelect::None,
            emulate_gpus: 0,
            emulate_gpu_mem: DEFAULT_EMULATE_GPU_MEM,
            host_share: None,
            device_force: false,
            device_nb: None,
            dist_layout: None,
            lu: Pivoting::Gepp,
            lu_panel: None,
            test_fault: None,
            bt: None,
            gemm_alloc: crate::runtime::alloc::Policy::Nrrp,
            emulate_gpu_speed: Vec::new(),
            gemm_min_volume: GEMM_MIN_VOLUME,
            gemm_steal: true,
            update_alloc: crate::runtime::alloc::UpdatePolicy::default(),
            solver: Solver::Auto,
        };
        test_cuda(c)
    }

    /// These settings with `n` emulated accelerators of `mem` bytes each (tests).
    pub fn with_emulated(mut self, n: usize, mem: usize) -> Self {
        self.emulate_gpus = n;
        self.emulate_gpu_mem = mem;
        self
    }

    /// Tile size for a call of `routine` whose problem size is `n`: `HETLA_NB` when set, else the
    /// routine's default (the factorizations' wider for large problems, [`WIDE_NB`]), shrunk for mid-sized problems so that there are at least
    /// [`TILES_PER_THREAD`] tile columns per thread to keep every thread busy (never below
    /// [`MIN_AUTO_NB`], where a tile kernel's own efficiency collapses).
    pub fn nb_for(&self, routine: &str, n: usize) -> usize {
        if let Some(nb) = self.nb {
            return nb;
        }
        if takes_wide_tiles(routine) && n >= WIDE_TILES_PER_THREAD * self.threads * WIDE_NB {
            return WIDE_NB;
        }
        let want = n.div_ceil(TILES_PER_THREAD * self.threads);
        // Multiples of 32 keep the BLAS kernels on their fast paths.
        let rounded = want.div_ceil(32) * 32;
        default_nb(routine).min(rounded.max(MIN_AUTO_NB))
    }

    pub fn min_n_for(&self, routine: &str) -> usize {
        self.min_n.unwrap_or_else(|| default_min_n(routine))
    }

    pub fn is_disabled(&self, routine: &str) -> bool {
        self.disabled.iter().any(|d| d == routine)
    }

    fn from_env() -> Self {
        let mut c = Config::with_threads(default_threads());
        if let Some(t) = parse_var("HETLA_NUM_THREADS", |s| s.parse::<usize>().ok().filter(|&t| t > 0)) {
            c.threads = t;
        }
        c.nb = parse_var("HETLA_NB", |s| s.parse::<usize>().ok().filter(|&t| t > 0));
        c.min_n = parse_var("HETLA_MIN_N", |s| s.parse::<usize>().ok());
        c.learn = learn_from_env();
        c.disabled = std::env::var("HETLA_DISABLE").map(|s| parse_disable(&s)).unwrap_or_default();
        c.verbose = parse_var("HETLA_VERBOSE", |s| match s {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" | "" => Some(false),
            _ => None,
        })
        .unwrap_or(false);
        c.trace = parse_var("HETLA_TRACE", |s| (!s.is_empty()).then(|| s.to_string()));
        c.gpus = parse_var("HETLA_GPUS", GpuSelect::parse).unwrap_or(GpuSelect::All);
        c.emulate_gpus =
            parse_var("HETLA_EMULATE_GPUS", |s| s.parse::<usize>().ok().filter(|&n| n <= 64)).unwrap_or(0);
        c.emulate_gpu_mem =
            parse_var("HETLA_EMULATE_GPU_MEM", parse_bytes).unwrap_or(DEFAULT_EMULATE_GPU_MEM);
        c.host_share =
            parse_var("HETLA_HOST_SHARE", |s| s.parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x)));
        c.device_force = parse_var("HETLA_DEVICE_FORCE", |s| match s {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" | "" => Some(false),
            _ => None,
        })
        .unwrap_or(false);
        c.device_nb = parse_var("HETLA_DEVICE_NB", |s| s.parse::<usize>().ok().filter(|&n| n >= 1));
        c.test_fault = parse_var("HETLA_TEST_FAULT", |s| s.parse::<usize>().ok());
        c.dist_layout = parse_var("HETLA_DIST_LAYOUT", |s| match s.to_ascii_lowercase().as_str() {
            "grid" => Some(DistLayout::Grid),
            "row" => Some(DistLayout::Row),
            _ => None,
        });
        c.lu = parse_var("HETLA_LU", |s| match s.to_ascii_lowercase().as_str() {
            "gepp" => Some(Pivoting::Gepp),
            "calu" => Some(Pivoting::Calu),
            _ => None,
        })
        .unwrap_or_default();
        c.lu_panel = parse_var("HETLA_LU_PANEL", |s| match s.to_ascii_lowercase().as_str() {
            "gather" => Some(LuPanel::Gather),
            "split" => Some(LuPanel::Split),
            _ => None,
        });
        c.gemm_alloc =
            parse_var("HETLA_GEMM_ALLOC", crate::runtime::alloc::Policy::parse).unwrap_or_default();
        c.update_alloc =
            parse_var("HETLA_UPDATE_ALLOC", crate::runtime::alloc::UpdatePolicy::parse).unwrap_or_default();
        c.solver = parse_var("HETLA_SOLVER", |s| match s.to_ascii_lowercase().as_str() {
            "auto" | "" => Some(Solver::Auto),
            "off" | "0" | "no" => Some(Solver::Off),
            "force" => Some(Solver::Force),
            _ => None,
        })
        .unwrap_or_default();
        c.emulate_gpu_speed = parse_var("HETLA_EMULATE_GPU_SPEED", |s| {
            s.split(',').map(|x| x.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0)).collect()
        })
        .unwrap_or_default();
        c.bt = parse_var("HETLA_BT", |s| match s.to_ascii_lowercase().as_str() {
            "thomas" => Some(crate::algo::bt::Method::Thomas),
            "cyclic" => Some(crate::algo::bt::Method::Cyclic),
            "twisted" => Some(crate::algo::bt::Method::Twisted),
            _ => None,
        });
        c
    }
}

/// Unit tests only: `HETLA_TEST_GPUS` (`all` or ordinals, as `HETLA_GPUS`) gives every
/// configuration built in code those CUDA devices, forced (`device_force`), with device tiles of
/// 16 and half of the columns on the host, so that the whole unit suite runs on the fake CUDA of
/// tests/fakecuda as it does on emulated accelerators with `HETLA_TEST_EMULATE_GPUS`.
#[cfg(test)]
fn test_cuda(mut c: Config) -> Config {
    if let Some(g) = std::env::var("HETLA_TEST_GPUS").ok().and_then(|s| GpuSelect::parse(&s)) {
        c.gpus = g;
        c.device_force = true;
        c.device_nb = Some(16);
        c.host_share = Some(0.5);
    }
    c
}

/// Outside the unit tests a configuration built in code has no CUDA device.
#[cfg(not(test))]
fn test_cuda(c: Config) -> Config {
    c
}

/// Reads `name`; when it is set but `parse` rejects it, warns once and returns `None`.
/// `HETLA_DISABLE`: the routines named (`all` for every one), with or without the trailing
/// underscore, any case; a name that is not one of hetla's routines is warned about and skipped,
/// the valid ones are kept.
fn parse_disable(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in s.split(',').map(|x| x.trim().to_ascii_lowercase().trim_end_matches('_').to_string()) {
        if x.is_empty() {
            continue;
        }
        if x == "all" {
            out.extend(ROUTINES.iter().map(|r| r.to_string()));
        } else if ROUTINES.contains(&x.as_str()) {
            out.push(x);
        } else {
            crate::error::say(format_args!("hetla: warning: HETLA_DISABLE names {x:?}, which is not a routine hetla runs; ignoring that name"));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn parse_var<T>(name: &str, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
    let raw = std::env::var(name).ok()?;
    let v = parse(raw.trim());
    if v.is_none() {
        crate::error::say(format_args!(
            "hetla: warning: ignoring {name}={raw:?} (not a valid value); using the default"
        ));
    }
    v
}

/// Cores this process may run on (its affinity mask), divided among the ranks sharing the node
/// when an MPI launcher tells us how many there are.
fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let local_ranks = ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    (cores / local_ranks).max(1)
}

/// The process-wide configuration, read from the environment on first use.
pub fn get() -> &'static Config {
    static CFG: OnceLock<Config> = OnceLock::new();
    CFG.get_or_init(Config::from_env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_with_suffixes() {
        assert_eq!(parse_bytes("256M"), Some(256 << 20));
        assert_eq!(parse_bytes("4k"), Some(4096));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("12 MiB"), Some(12 << 20));
        for bad in ["", "M", "12X", "-5M", "0", "1.5G"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn gpu_selection() {
        assert_eq!(GpuSelect::parse("all"), Some(GpuSelect::All));
        assert_eq!(GpuSelect::parse("NONE"), Some(GpuSelect::None));
        assert_eq!(GpuSelect::parse("0, 2"), Some(GpuSelect::Ordinals(vec![0, 2])));
        assert_eq!(GpuSelect::parse("1,1"), None);
        assert_eq!(GpuSelect::parse("gpu0"), None);
        assert!(GpuSelect::parse("2").unwrap().selects(2));
        assert!(!GpuSelect::parse("2").unwrap().selects(0));
        assert!(!GpuSelect::None.selects(0));
    }
}

#[cfg(test)]
mod nb_tests {
    use super::*;

    #[test]
    fn tile_size_shrinks_for_mid_sized_problems_only() {
        let c = Config::with_threads(2);
        assert_eq!(c.nb_for("dpotrf", 4000), default_nb("dpotrf"));
        // 1000 / (3 tiles per thread · 2 threads) = 167, rounded up to a multiple of 32.
        assert_eq!(c.nb_for("dpotrf", 1000), 192.min(default_nb("dpotrf")));
        assert_eq!(c.nb_for("dpotrf", 100), MIN_AUTO_NB);
        // The factorizations take wider tiles when there are enough of them per thread.
        for r in ["dgetrf", "dgesv", "dpotrf", "dposv", "dgeqrf", "dgels"] {
            assert_eq!(c.nb_for(r, 6000), WIDE_NB, "{r}");
            assert_eq!(c.nb_for(r, 3000), default_nb(r), "{r}");
        }
        assert_eq!(c.nb_for("dpotrs", 6000), default_nb("dpotrs"));
        // The other types by the same routine; ScaLAPACK's names keep theirs.
        for (r, d) in [("zgetrf", "dgetrf"), ("sgeqrf", "dgeqrf"), ("cungqr", "dorgqr"), ("ztrtri", "dtrtri")]
        {
            assert_eq!(c.nb_for(r, 3000), c.nb_for(d, 3000), "{r}");
            assert_eq!(c.nb_for(r, 6000), c.nb_for(d, 6000), "{r}");
        }
        assert_eq!(default_nb("pdgeqrf"), 256);
        assert!(!takes_wide_tiles("pdgetrf"));
        assert_eq!(default_min_n("zunmqr"), default_min_n("dormqr"));
        assert_eq!(default_min_n("pzgeqrf"), default_min_n("dgeqrf"));
        assert_eq!(Config::with_threads(16).nb_for("dgetrf", 6000), MIN_AUTO_NB.max(128));
        let mut c = c;
        c.nb = Some(7);
        assert_eq!(c.nb_for("dpotrf", 4000), 7);
        assert_eq!(c.nb_for("dgetrf", 10), 7);
    }
}

#[cfg(test)]
mod disable_tests {
    use super::*;

    #[test]
    fn hetla_disable_keeps_the_valid_names() {
        assert_eq!(parse_disable("dpotrf,bogus"), vec!["dpotrf".to_string()]);
        assert_eq!(parse_disable(" DGETRF_ , dgels,,"), vec!["dgels".to_string(), "dgetrf".to_string()]);
        assert_eq!(parse_disable("nothing"), Vec::<String>::new());
        let all = parse_disable("all,bogus");
        assert_eq!(all.len(), ROUTINES.len());
        assert!(ROUTINES.iter().all(|r| all.contains(&r.to_string())));
    }
}
