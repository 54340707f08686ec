//! One file per routine family: LAPACK's argument checks in LAPACK's order, quick returns,
//! the forward-or-run decision, the tile layout, and the verbose report. Nothing here touches raw
//! memory: pointers arrive as [`crate::tile::Raw`] from `abi`.

pub mod gels;
pub mod geqrf;
pub mod getrf;
pub mod potrf;
pub mod scalapack;

use crate::backend::BlasThreadsGuard;
use crate::config::Config;
use crate::error::Error;
use crate::runtime::Seq;
use std::time::Instant;

/// How a call was executed, for `HETLA_VERBOSE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Tiles,
    Forward,
}

/// Why a call goes to the backend, if it does.
pub(crate) fn forward_reason(cfg: &Config, routine: &str, size: usize) -> Option<&'static str> {
    if crate::runtime::in_task() {
        Some("nested")
    } else if cfg.is_disabled(routine) {
        Some("disabled")
    } else if size < cfg.min_n_for(routine) {
        Some("small")
    } else {
        None
    }
}

/// Runs one tile algorithm to completion: single-threaded backend BLAS while it runs, a fresh
/// sequence, the generator on this thread (which then works until the sequence drains).
pub(crate) fn run_tiles(cfg: &Config, generate: impl FnOnce(&Seq)) -> Result<(), Error> {
    let _blas = BlasThreadsGuard::new();
    let seq = Seq::new(cfg);
    generate(&seq);
    seq.wait()
}

/// Times a call and prints its `HETLA_VERBOSE` line.
pub(crate) struct Report<'a> {
    cfg: &'a Config,
    t0: Instant,
}

impl<'a> Report<'a> {
    pub fn start(cfg: &'a Config) -> Self {
        Report { cfg, t0: Instant::now() }
    }

    /// `desc` holds the routine's sizes (`uplo=L n=4000 nb=256`); `flops` the nominal count.
    pub fn finish(
        &self,
        routine: &str,
        desc: std::fmt::Arguments,
        path: Path,
        why: Option<&str>,
        flops: f64,
    ) {
        if !self.cfg.verbose {
            return;
        }
        let t = self.t0.elapsed().as_secs_f64();
        let gf = if t > 0.0 { flops / t * 1e-9 } else { 0.0 };
        let path = match (path, why) {
            (Path::Tiles, _) => format!("path=tiles threads={}", self.cfg.threads),
            (Path::Forward, Some(w)) => format!("path=forward reason={w}"),
            (Path::Forward, None) => "path=forward".to_string(),
        };
        eprintln!("hetla: {routine} {desc} {path} time={t:.6}s gflops={gf:.2}");
    }
}

/// LAPACK's LSAME for one character flag.
pub(crate) fn flag(c: u8, want: u8) -> bool {
    c.eq_ignore_ascii_case(&want)
}
