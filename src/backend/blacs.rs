//! The BLACS of the process (the grid the application built) and ScaLAPACK's error handler.
//!
//! These are not names hetla exports, so they are taken from the global symbol table: the
//! application's BLACS is the one whose contexts it passes us. A process that has no BLACS cannot
//! have created a context, so a missing symbol is reported as a runtime failure, never guessed.

use std::ffi::c_char;
use std::sync::OnceLock;

fn resolve(cache: &OnceLock<usize>, sym: &str) -> usize {
    *cache.get_or_init(|| super::lookup_global(sym) as usize)
}

macro_rules! blacs_fn {
    ($cache:ident, $sym:literal, $ty:ty) => {{
        static $cache: OnceLock<usize> = OnceLock::new();
        let p = resolve(&$cache, $sym);
        if p == 0 {
            panic!(concat!("hetla: no BLACS in this process (`", $sym, "` is missing)"));
        }
        // SAFETY: `p` is the address of the named BLACS routine, whose C or Fortran signature is
        // the one spelled out at the call site (LP64 integers).
        unsafe { std::mem::transmute::<usize, $ty>(p) }
    }};
}

/// Shape of the grid of context `ctxt` and this process's coordinates in it: `(nprow, npcol,
/// myrow, mycol)`, all -1 when this process is not part of the grid.
pub fn gridinfo(ctxt: i32) -> (i32, i32, i32, i32) {
    let f = blacs_fn!(
        P,
        "blacs_gridinfo_",
        unsafe extern "C" fn(*const i32, *mut i32, *mut i32, *mut i32, *mut i32)
    );
    let (mut a, mut b, mut c, mut d) = (-1, -1, -1, -1);
    // SAFETY: BLACS_GRIDINFO reads the context and writes four integers we own.
    unsafe { f(&ctxt, &mut a, &mut b, &mut c, &mut d) };
    (a, b, c, d)
}

/// The MPI communicator of context `ctxt` (`Cblacs_get(ctxt, 10, &h)` then
/// `Cblacs2sys_handle(h)`, ARCHITECTURE.md, decision 3). The application owns it: never free it.
pub fn system_comm(ctxt: i32) -> *mut std::ffi::c_void {
    let get = blacs_fn!(G, "Cblacs_get", unsafe extern "C" fn(i32, i32, *mut i32));
    let sys = blacs_fn!(S, "Cblacs2sys_handle", unsafe extern "C" fn(i32) -> *mut std::ffi::c_void);
    let mut h = 0;
    // SAFETY: Cblacs_get with WHAT = 10 writes the context's system handle into `h`;
    // Cblacs2sys_handle maps it to the MPI communicator the BLACS keeps for that handle.
    unsafe {
        get(ctxt, 10, &mut h);
        sys(h)
    }
}

/// Broadcasts `x` from this process to the whole grid (`Cigebs2d`, scope "All").
pub fn igebs2d_all(ctxt: i32, x: &mut [i32]) {
    type F = unsafe extern "C" fn(i32, *const c_char, *const c_char, i32, i32, *mut i32, i32);
    let f = blacs_fn!(P, "Cigebs2d", F);
    let n = x.len() as i32;
    // SAFETY: an n×1 integer block with leading dimension n, valid for the call.
    unsafe { f(ctxt, c"All".as_ptr(), c" ".as_ptr(), n, 1, x.as_mut_ptr(), n.max(1)) };
}

/// Receives into `x` the broadcast of process (`rsrc`, `csrc`) (`Cigebr2d`, scope "All").
pub fn igebr2d_all(ctxt: i32, x: &mut [i32], rsrc: i32, csrc: i32) {
    type F = unsafe extern "C" fn(i32, *const c_char, *const c_char, i32, i32, *mut i32, i32, i32, i32);
    let f = blacs_fn!(P, "Cigebr2d", F);
    let n = x.len() as i32;
    // SAFETY: as for igebs2d_all.
    unsafe { f(ctxt, c"All".as_ptr(), c" ".as_ptr(), n, 1, x.as_mut_ptr(), n.max(1), rsrc, csrc) };
}

/// The value of the smallest magnitude of `v` over the whole grid, left on every process
/// (`Cigamn2d`, scope "All"; the BLACS compare absolute values): the minimum of values ≥ 0.
pub fn igamn2d_all(ctxt: i32, v: i32) -> i32 {
    combine(ctxt, v, false)
}

/// The value of the largest magnitude of `v` over the whole grid, left on every process
/// (`Cigamx2d`, scope "All"): the maximum of values ≥ 0.
pub fn igamx2d_all(ctxt: i32, v: i32) -> i32 {
    combine(ctxt, v, true)
}

fn combine(ctxt: i32, v: i32, max: bool) -> i32 {
    type F = unsafe extern "C" fn(
        i32,
        *const c_char,
        *const c_char,
        i32,
        i32,
        *mut i32,
        i32,
        *mut i32,
        *mut i32,
        i32,
        i32,
        i32,
    );
    let f = if max { blacs_fn!(PX, "Cigamx2d", F) } else { blacs_fn!(P, "Cigamn2d", F) };
    let mut x = v;
    // SAFETY: a 1×1 block; LDIA = -1 tells the BLACS not to return the owners' coordinates, so
    // the two null pointers are never dereferenced; RDEST = -1 leaves the result everywhere.
    unsafe {
        f(
            ctxt,
            c"All".as_ptr(),
            c" ".as_ptr(),
            1,
            1,
            &mut x,
            1,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            -1,
            -1,
            0,
        )
    };
    x
}

/// ScaLAPACK's error handler `PXERBLA(ICTXT, SRNAME, INFO)`, the application's own when it
/// defines one (the testers do).
pub fn pxerbla(ctxt: i32, srname: &str, pos: i32) {
    static P: OnceLock<usize> = OnceLock::new();
    let p = resolve(&P, "pxerbla_");
    if p == 0 {
        crate::error::say(format_args!(
            "{{ ?, ?}}: On entry to {srname} parameter number {pos} had an illegal value"
        ));
        return;
    }
    // SAFETY: PXERBLA reads the context, a CHARACTER string of the given length and an integer.
    unsafe {
        let f: unsafe extern "C" fn(*const i32, *const c_char, *const i32, usize) = std::mem::transmute(p);
        f(&ctxt, srname.as_ptr() as *const c_char, &pos, srname.len());
    }
}

/// True when a BLACS is present in the process (tests of the library alone have none).
pub fn present() -> bool {
    static P: OnceLock<usize> = OnceLock::new();
    resolve(&P, "blacs_gridinfo_") != 0
}
