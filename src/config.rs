//! The `HETLA_*` environment variables, read once per process.
//!
//! A bad value prints one warning on stderr and the default is used (DESIGN.md). Tests build a
//! [`Config`] by hand instead of going through the environment.

use std::sync::OnceLock;

/// Routines that have a tile path; `HETLA_DISABLE` names them in lower case.
pub const ROUTINES: &[&str] = &[
    "dpotrf", "dpotrs", "dposv", "dgetrf", "dgetrs", "dgesv", "dgeqrf", "dgels", "pdpotrf", "pdpotrs",
    "pdposv", "pdgetrf", "pdgetrs", "pdgesv", "pdgeqrf",
];

#[derive(Clone, Debug)]
pub struct Config {
    /// Threads that execute tasks, the calling thread included.
    pub threads: usize,
    /// Tile size override (`HETLA_NB`); `None` means the per-routine default.
    pub nb: Option<usize>,
    /// Calls whose problem size is below this go to the backend (`HETLA_MIN_N`).
    pub min_n: Option<usize>,
    /// Routines always forwarded (`HETLA_DISABLE`).
    pub disabled: Vec<String>,
    /// One line per call on stderr (`HETLA_VERBOSE=1`).
    pub verbose: bool,
    /// Chrome trace-event output file (`HETLA_TRACE`).
    pub trace: Option<String>,
}

/// Measured break-even sizes (bench/README.md explains how): below these the backend's own
/// routine is at least as fast as the tile path on the machines we build on.
pub fn default_min_n(routine: &str) -> usize {
    match routine {
        "dpotrf" | "dposv" => 256,
        "dgetrf" | "dgesv" => 256,
        "dgeqrf" | "dgels" => 256,
        _ => 256,
    }
}

/// Default tile edge per routine, tuned with bench/ on a 2-core machine.
pub fn default_nb(routine: &str) -> usize {
    match routine {
        "dpotrf" | "dposv" | "dpotrs" => 256,
        "dgetrf" | "dgesv" | "dgetrs" => 256,
        "dgeqrf" => 128,
        "dgels" => 128,
        _ => 256,
    }
}

impl Config {
    /// Defaults with `threads` workers and no overrides.
    pub fn with_threads(threads: usize) -> Self {
        Config {
            threads: threads.max(1),
            nb: None,
            min_n: None,
            disabled: Vec::new(),
            verbose: false,
            trace: None,
        }
    }

    pub fn nb_for(&self, routine: &str) -> usize {
        self.nb.unwrap_or_else(|| default_nb(routine))
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
        c.disabled = parse_var("HETLA_DISABLE", |s| {
            let list: Vec<String> = s
                .split(',')
                .map(|x| x.trim().to_ascii_lowercase().trim_end_matches('_').to_string())
                .filter(|x| !x.is_empty())
                .collect();
            list.iter().all(|x| ROUTINES.contains(&x.as_str()) || x == "all").then(|| {
                if list.iter().any(|x| x == "all") {
                    ROUTINES.iter().map(|s| s.to_string()).collect()
                } else {
                    list
                }
            })
        })
        .unwrap_or_default();
        c.verbose = parse_var("HETLA_VERBOSE", |s| match s {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" | "" => Some(false),
            _ => None,
        })
        .unwrap_or(false);
        c.trace = parse_var("HETLA_TRACE", |s| (!s.is_empty()).then(|| s.to_string()));
        c
    }
}

/// Reads `name`; when it is set but `parse` rejects it, warns once and returns `None`.
fn parse_var<T>(name: &str, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
    let raw = std::env::var(name).ok()?;
    let v = parse(raw.trim());
    if v.is_none() {
        eprintln!("hetla: warning: ignoring {name}={raw:?} (not a valid value); using the default");
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
