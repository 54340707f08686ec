//! `HETLA_TRACE=file`: every task as a Chrome trace event (`ph:"X"`, times in µs), viewable in
//! Perfetto or chrome://tracing. Each call's events are appended to the file (kept a valid JSON
//! array after every call: the closing bracket is moved along), so it is complete whenever the
//! program stops and nothing accumulates in memory. Under MPI with several ranks, `pid` is the
//! rank and each rank writes its own file, the rank inserted before the extension
//! (`trace.json` → `trace.3.json`).

use crate::config::Config;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

pub(crate) struct Event {
    pub name: &'static str,
    pub tid: u32,
    pub ts: f64,
    pub dur: f64,
    pub dims: [usize; 3],
    pub device: &'static str,
}

fn epoch() -> Instant {
    static E: OnceLock<Instant> = OnceLock::new();
    *E.get_or_init(Instant::now)
}

/// Microseconds since the first traced moment of the process.
pub(crate) fn now_us() -> f64 {
    epoch().elapsed().as_secs_f64() * 1e6
}

pub(crate) fn enabled(cfg: &Config) -> bool {
    cfg.trace.is_some()
}

/// Files this process has started (written their opening bracket to), so later calls append.
static STARTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The started files' lock (also taken around a fork, by [`crate::fork`]).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Vec<String>> {
    STARTED.lock().unwrap_or_else(|e| e.into_inner())
}

/// MPI rank and size (0 and 1 for a process without MPI).
fn rank() -> (i64, i64) {
    match crate::backend::mpi::world_rank_size() {
        Some((r, s)) => (r as i64, s as i64),
        None => (0, 1),
    }
}

/// This rank's file: `path`, or with several ranks the rank before the extension.
fn rank_path(path: &str, rank: i64, size: i64) -> String {
    if size <= 1 {
        return path.to_string();
    }
    let p = std::path::Path::new(path);
    match (p.file_stem(), p.extension()) {
        (Some(stem), Some(ext)) => p
            .with_file_name(format!("{}.{rank}.{}", stem.to_string_lossy(), ext.to_string_lossy()))
            .to_string_lossy()
            .into_owned(),
        _ => format!("{path}.{rank}"),
    }
}

pub(crate) fn record(path: &str, events: Vec<Event>) {
    let (pid, size) = rank();
    let path = rank_path(path, pid, size);
    let mut lines: Vec<String> = Vec::with_capacity(events.len());
    for e in events {
        lines.push(format!(
            "{{\"name\":\"{}\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":{},\"tid\":{},\"args\":{{\"kernel\":\"{}\",\"device\":\"{}\",\"m\":{},\"n\":{},\"k\":{}}}}}",
            e.name, e.ts, e.dur, pid, e.tid, e.name, e.device, e.dims[0], e.dims[1], e.dims[2]
        ));
    }
    if lines.is_empty() {
        return;
    }
    let mut started = lock();
    let first = !started.contains(&path);
    let write = || -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        let mut f = if first {
            let mut f = std::fs::File::create(&path)?;
            f.write_all(b"[\n")?;
            f
        } else {
            // Over the closing "]\n" of the previous call, after a separating comma.
            let mut f = std::fs::OpenOptions::new().write(true).open(&path)?;
            f.seek(SeekFrom::End(-2))?;
            f.write_all(b",\n")?;
            f
        };
        let mut body = lines.join(",\n");
        body.push_str("\n]\n");
        f.write_all(body.as_bytes())
    };
    let result = write();
    if result.is_ok() && first {
        started.push(path.clone());
    }
    if let Err(e) = result {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            crate::error::say(format_args!("hetla: warning: cannot write HETLA_TRACE file {path}: {e}"))
        });
    }
}
