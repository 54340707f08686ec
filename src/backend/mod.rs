//! The next LAPACK/BLAS in the process.
//!
//! hetla exports `dpotrf_` and friends, so a plain `extern "C"` call to one of those names from
//! inside the library would bind to our own export and recurse (ARCHITECTURE.md, decision 1). Every
//! BLAS/LAPACK routine the library needs is therefore looked up by name at run time:
//! `dlsym(RTLD_NEXT, name)` finds the definition that comes after libhetla in the symbol search
//! order (the application's LAPACK when we are preloaded or linked ahead of it), and when there
//! is none we `dlopen` the system OpenBLAS and take it from there.

pub mod array;
pub mod blacs;
pub mod forward;
pub mod lapack;
pub mod mpi;
pub mod reference;
pub mod scalapack;
pub(crate) mod threads;

pub use threads::BlasThreadsGuard;

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

/// Candidates tried, in order, when `RTLD_NEXT` finds nothing (the library was loaded by
/// `dlopen` from a program that has no LAPACK of its own, or by the Rust test harness).
const FALLBACK_LIBS: &[&str] = &["libopenblas.so.0", "libopenblas.so", "liblapack.so.3", "libblas.so.3"];

fn fallback_handles() -> &'static [usize] {
    static HANDLES: OnceLock<Vec<usize>> = OnceLock::new();
    HANDLES.get_or_init(|| {
        let mut v = Vec::new();
        for lib in FALLBACK_LIBS {
            let name = CString::new(*lib).expect("library names have no NUL");
            // SAFETY: dlopen with a valid NUL-terminated name; the handle is kept for the life of
            // the process (never dlclosed), so symbols taken from it stay valid.
            let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            if !h.is_null() {
                v.push(h as usize);
            }
        }
        v
    })
}

/// Address of the backend's definition of `name` (a Fortran symbol such as `dgemm_`), or null.
///
/// Our own exports are skipped: `RTLD_NEXT` starts the search after this library, and the
/// fallback handles are other libraries.
pub fn lookup(name: &str) -> *mut c_void {
    let cname = CString::new(name).expect("symbol names have no NUL");
    // SAFETY: dlsym with a valid NUL-terminated name and the RTLD_NEXT pseudo-handle.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, cname.as_ptr()) };
    if !p.is_null() && !is_own_symbol(p) {
        return p;
    }
    for &h in fallback_handles() {
        // SAFETY: `h` is a live handle returned by dlopen above.
        let p = unsafe { libc::dlsym(h as *mut c_void, cname.as_ptr()) };
        if !p.is_null() && !is_own_symbol(p) {
            return p;
        }
    }
    std::ptr::null_mut()
}

/// Address of `name` anywhere in the process, the executable first (used for `xerbla_`, which
/// test programs replace with their own to check error exits).
pub fn lookup_global(name: &str) -> *mut c_void {
    let cname = CString::new(name).expect("symbol names have no NUL");
    // SAFETY: dlsym with a valid NUL-terminated name and the RTLD_DEFAULT pseudo-handle.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, cname.as_ptr()) };
    if !p.is_null() {
        return p;
    }
    lookup(name)
}

/// True when `p` lies inside libhetla itself (an RTLD_NEXT lookup can return our own symbol when
/// the library was loaded twice, for instance as both rlib-in-a-test and preloaded cdylib).
pub(crate) fn is_own_symbol(p: *mut c_void) -> bool {
    let mut mine: libc::Dl_info = unsafe { std::mem::zeroed() };
    let mut theirs: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads its address argument and fills the Dl_info we own.
    let ok = unsafe {
        libc::dladdr(is_own_symbol as *const c_void, &mut mine) != 0 && libc::dladdr(p, &mut theirs) != 0
    };
    ok && mine.dli_fbase == theirs.dli_fbase
}

/// Name of the library that provides the backend's `dgemm_`, for verbose output and the README.
pub fn describe() -> String {
    let p = lookup("dgemm_");
    if p.is_null() {
        return "none".into();
    }
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: as in `is_own_symbol`.
    if unsafe { libc::dladdr(p, &mut info) } != 0 && !info.dli_fname.is_null() {
        // SAFETY: dli_fname is a NUL-terminated string owned by the dynamic loader.
        return unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    }
    "unknown".into()
}
