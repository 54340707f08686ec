//! The exported symbols, and nothing else: each reads its by-reference arguments, calls one `api`
//! function under `catch_unwind`, reports a bad argument through `xerbla_` and writes INFO.
//! No panic crosses the C boundary (ARCHITECTURE.md, decision 6), and no floating-point flag that
//! hetla's own bookkeeping raised: each call runs inside a [`fenv::Boundary`] (ARCHITECTURE.md,
//! "The caller's floating-point environment").

mod blas;
mod lapack;
mod scalapack;

pub use blas::*;
pub use lapack::*;
pub use scalapack::*;

use crate::backend::lapack::xerbla;
use crate::error::Error;
use crate::fenv;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f` for routine `name` (LAPACK's upper-case name, as `xerbla_` expects) and returns INFO.
/// The caller's floating-point flags afterwards are its own and those the call's numerical work
/// raised; its control settings are untouched ([`fenv::Boundary`]).
pub(crate) fn guard(name: &str, f: impl FnOnce() -> Result<(), Error>) -> i32 {
    let _fp = fenv::Boundary::enter();
    crate::fork::install();
    let _entered = crate::api::Entered::new();
    result(name, catch_unwind(AssertUnwindSafe(f)))
}

/// A caught call's outcome as INFO (a bad argument reported through `xerbla_`).
fn result(name: &str, r: std::thread::Result<Result<(), Error>>) -> i32 {
    match r {
        Ok(Ok(())) => 0,
        Ok(Err(Error::Arg(pos))) => {
            xerbla(name, pos);
            -pos
        }
        Ok(Err(Error::Numerical(i))) => i,
        Ok(Err(Error::Runtime(msg))) => {
            crate::error::say(format_args!("hetla: {name}: {msg}"));
            crate::error::info_of(&Err(Error::Runtime(msg)))
        }
        Err(_) => {
            crate::error::say(format_args!(
                "hetla: {name}: internal error (panic caught at the library boundary)"
            ));
            crate::error::info_of(&Err(Error::Runtime(String::new())))
        }
    }
}

/// Like [`guard`] for a ScaLAPACK routine of context `ctxt`: a bad argument goes to `pxerbla_`
/// with ScaLAPACK's code (i·100 + j for entry j of descriptor argument i).
///
/// An internal failure (a runtime error or a panic) ends the whole job through
/// [`crate::dist::abort_job`]: the other processes of the grid may be waiting for messages from
/// this one, and a distributed call must never hang.
pub(crate) fn pguard(ctxt: i32, name: &'static str, f: impl FnOnce() -> Result<(), Error>) -> i32 {
    let _fp = fenv::Boundary::enter();
    crate::fork::install();
    crate::dist::set_call(name);
    let entered = crate::api::Entered::new();
    let r = catch_unwind(AssertUnwindSafe(f));
    drop(entered);
    let internal = match &r {
        Ok(Err(Error::Runtime(msg))) => Some(msg.clone()),
        Err(_) => Some("internal error (panic caught at the library boundary)".to_string()),
        _ => None,
    };
    if let Some(why) = internal {
        if crate::dist::unsupported_reason().is_none() {
            crate::dist::abort_job(&crate::backend::mpi::Comm::world(), &why);
        }
    }
    match r {
        Ok(Err(Error::Arg(pos))) => {
            crate::backend::blacs::pxerbla(ctxt, name, pos);
            -pos
        }
        r => result(name, r),
    }
}

/// The path of the last hetla call that returned on the calling thread, as a NUL-terminated
/// string: `tiles`, `tiles:host` (on tiles on the CPU alone although GPUs are there: a trial of
/// that way, or this machine measured it faster), `solver` (DPOTRF, DGETRF, DGEQRF whole on one
/// GPU by its vendor solver, the same way), `forward:<reason>` (the reason `HETLA_VERBOSE` prints: `small`,
/// `learned`, ...), or `none` before any call. Valid until the thread's next call of this
/// function.
#[no_mangle]
pub extern "C" fn hetla_last_path() -> *const std::ffi::c_char {
    thread_local! {
        static BUF: std::cell::RefCell<std::ffi::CString> = std::cell::RefCell::new(std::ffi::CString::default());
    }
    let s = std::ffi::CString::new(crate::api::last_path()).unwrap_or_default();
    BUF.with(|b| {
        *b.borrow_mut() = s;
        b.borrow().as_ptr()
    })
}

/// The library version, as a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn hetla_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const std::ffi::c_char
}
