//! The three kinds of failure a call can end with, kept apart so that each reaches the caller the
//! way LAPACK reports it (ARCHITECTURE.md, "No panic crosses the C boundary"): a bad argument (reported
//! through `xerbla_`), a numerical failure with a whole-matrix index (LAPACK's `INFO > 0`), and a
//! failure of the runtime itself (a panicking kernel, a missing backend symbol).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Argument number `pos` (1-based, LAPACK's numbering) is invalid.
    Arg(i32),
    /// Numerical failure; the value is LAPACK's positive INFO.
    Numerical(i32),
    /// The runtime could not complete the call.
    Runtime(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Arg(p) => write!(f, "argument {p} had an illegal value"),
            Error::Numerical(i) => write!(f, "numerical failure, INFO = {i}"),
            Error::Runtime(s) => write!(f, "runtime failure: {s}"),
        }
    }
}

impl std::error::Error for Error {}

/// LAPACK's INFO for a result.
pub fn info_of(r: &Result<(), Error>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(Error::Arg(p)) => -p,
        Err(Error::Numerical(i)) => *i,
        // LAPACK has no code for this; it is reported on stderr by the caller and mapped to the
        // smallest positive value the routine can return, never silently to success.
        Err(Error::Runtime(_)) => i32::MAX,
    }
}

/// Writes one line on stderr with a single `write`, so that lines from several threads or MPI
/// ranks sharing the terminal never interleave in the middle (`eprintln!` may write a line in
/// pieces). It takes no lock: a forked child must be able to print while the parent's other
/// threads were printing at the moment of the fork (Rust's stderr lock would stay held there).
pub(crate) fn say(args: std::fmt::Arguments) {
    let mut line = std::fmt::format(args);
    line.push('\n');
    let mut rest = line.as_bytes();
    while !rest.is_empty() {
        // SAFETY: writes from a live byte slice to file descriptor 2; nothing is retained.
        let n = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        if n > 0 {
            rest = &rest[n as usize..];
        } else if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        } else {
            break;
        }
    }
}
