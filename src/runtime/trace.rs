//! `HETLA_TRACE=file`: every task as a Chrome trace event (`ph:"X"`, times in µs), viewable in
//! Perfetto or chrome://tracing. Events of all calls in the process accumulate and the file is
//! rewritten after each call, so it is complete whenever the program stops.

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

static ALL: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// MPI rank shown as the trace's `pid` (0 for a single process).
fn pid() -> i64 {
    0
}

pub(crate) fn record(path: &str, events: Vec<Event>) {
    let mut all = ALL.lock().unwrap_or_else(|e| e.into_inner());
    for e in events {
        all.push(format!(
            "{{\"name\":\"{}\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":{},\"tid\":{},\"args\":{{\"kernel\":\"{}\",\"device\":\"{}\",\"m\":{},\"n\":{},\"k\":{}}}}}",
            e.name, e.ts, e.dur, pid(), e.tid, e.name, e.device, e.dims[0], e.dims[1], e.dims[2]
        ));
    }
    let write = || -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        writeln!(f, "[")?;
        for (i, l) in all.iter().enumerate() {
            writeln!(f, "{}{}", l, if i + 1 < all.len() { "," } else { "" })?;
        }
        writeln!(f, "]")?;
        f.flush()
    };
    if let Err(e) = write() {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            crate::error::say(format_args!("hetla: warning: cannot write HETLA_TRACE file {path}: {e}"))
        });
    }
}
