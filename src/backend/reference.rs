//! The reference LAPACK (netlib's LAPACK over netlib's reference BLAS: Debian's `liblapack3`
//! and `libblas3`), loaded beside the backend for the accuracy comparisons (`crate::accuracy`):
//! a second reference implementation, so that the comparisons can tell what two LAPACKs running
//! the same algorithms disagree on (summation order, a BLAS's own handling of NaN) from what
//! hetla gets wrong.
//!
//! Both libraries are opened in a link-map namespace of their own (`dlmopen(LM_ID_NEWLM)`), so
//! that the reference LAPACK's calls bind to the reference BLAS and not to the backend's
//! `libblas.so.3` (Debian's alternatives name OpenBLAS's BLAS that way too, and the backend
//! lookup has usually opened it), and nothing of theirs enters the process's global scope.
//!
//! [`with`] runs a closure with every backend call of this thread (`backend::lapack`'s counted
//! entry points) sent to the reference LAPACK instead. Only builds for the tests or with the
//! `netlib-reference` feature consult it; elsewhere [`Netlib::open`] says so and fails, so that
//! no comparison silently runs the backend twice.

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::sync::OnceLock;

/// The directories Debian's multiarch layout puts `lapack/liblapack.so.3` and
/// `blas/libblas.so.3` in.
const DIRS: &[&str] = &["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"];

/// The reference LAPACK, opened.
pub struct Netlib {
    lapack: usize,
    /// The LAPACK library's path.
    pub path: String,
}

impl Netlib {
    /// The reference LAPACK, opened once per process; `Err` says why it cannot be used.
    pub fn open() -> Result<&'static Netlib, String> {
        static LIB: OnceLock<Result<Netlib, String>> = OnceLock::new();
        LIB.get_or_init(open).as_ref().map_err(|e| e.clone())
    }

    /// The reference LAPACK's (or its BLAS's) `sym`.
    fn symbol(&self, sym: &str) -> Option<usize> {
        let c = CString::new(sym).ok()?;
        // SAFETY: dlsym on a handle kept open for the life of the process, with a valid
        // NUL-terminated name.
        let p = unsafe { libc::dlsym(self.lapack as *mut c_void, c.as_ptr()) };
        (!p.is_null()).then_some(p as usize)
    }
}

fn open() -> Result<Netlib, String> {
    if !cfg!(any(test, feature = "netlib-reference")) {
        return Err("this build does not consult the reference LAPACK (build with the \
                    netlib-reference feature)"
            .into());
    }
    // The backend first, so that its own lookups are settled before another libblas.so.3 exists.
    super::lookup("dgemm_");
    let found = DIRS.iter().find(|d| std::path::Path::new(&format!("{d}/lapack/liblapack.so.3")).exists());
    let Some(dir) = found else {
        return Err(format!(
            "no reference LAPACK: lapack/liblapack.so.3 in none of {DIRS:?} (Debian: liblapack3 libblas3)"
        ));
    };
    let (lapack, blas) = (format!("{dir}/lapack/liblapack.so.3"), format!("{dir}/blas/libblas.so.3"));
    let c = |s: &str| CString::new(s).expect("paths have no NUL");
    // SAFETY: dlmopen/dlinfo with valid NUL-terminated paths and a Lmid_t we own; the handles
    // are never closed, so symbols taken from them stay valid.
    unsafe {
        let b = libc::dlmopen(libc::LM_ID_NEWLM, c(&blas).as_ptr(), libc::RTLD_NOW);
        if b.is_null() {
            return Err(format!("cannot open {blas} (Debian: libblas3)"));
        }
        let mut id: libc::Lmid_t = 0;
        if libc::dlinfo(b, libc::RTLD_DI_LMID, &mut id as *mut libc::Lmid_t as *mut c_void) != 0 {
            return Err("dlinfo(RTLD_DI_LMID) failed".into());
        }
        let l = libc::dlmopen(id, c(&lapack).as_ptr(), libc::RTLD_NOW);
        if l.is_null() {
            return Err(format!("cannot open {lapack}"));
        }
        let lib = Netlib { lapack: l as usize, path: lapack };
        // Its DGEMM must be the reference BLAS's.
        let g = lib.symbol("dgemm_").ok_or("the reference LAPACK's namespace has no dgemm_")?;
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(g as *const c_void, &mut info) == 0 || info.dli_fname.is_null() {
            return Err("dladdr failed on the reference dgemm_".into());
        }
        let from = std::ffi::CStr::from_ptr(info.dli_fname).to_string_lossy().into_owned();
        if from != blas {
            return Err(format!("the reference LAPACK's dgemm_ comes from {from}, not {blas}"));
        }
        Ok(lib)
    }
}

thread_local! {
    /// The library this thread's backend calls go to inside [`with`].
    static ACTIVE: Cell<Option<&'static Netlib>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's backend calls sent to `lib`.
pub fn with<R>(lib: &'static Netlib, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<&'static Netlib>);
    impl Drop for Restore {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
        }
    }
    let _restore = Restore(ACTIVE.with(|a| a.replace(Some(lib))));
    f()
}

/// The reference LAPACK's `sym` while this thread is inside [`with`] (it must have it).
#[cfg(any(test, feature = "netlib-reference"))]
pub(crate) fn active_symbol(sym: &str) -> Option<usize> {
    active_symbol_of(|| sym.to_string())
}

/// [`active_symbol`] with the name made only when this thread is inside [`with`].
#[cfg(any(test, feature = "netlib-reference"))]
pub(crate) fn active_symbol_of(sym: impl FnOnce() -> String) -> Option<usize> {
    let lib = ACTIVE.with(|a| a.get())?;
    let sym = sym();
    Some(lib.symbol(&sym).unwrap_or_else(|| panic!("hetla: the reference LAPACK has no `{sym}`")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::forward;
    use crate::tile::Raw;

    fn raw<T: crate::tile::Elem>(v: &mut [T]) -> Raw<T> {
        // SAFETY: each vector is n×n with leading dimension n, as passed.
        unsafe { Raw::new(v.as_mut_ptr()) }
    }

    /// A symmetric positive definite n×n matrix in `T`.
    fn spd<T: crate::scalar::Scalar>(n: usize) -> Vec<T> {
        let mut a = vec![T::from_f64(0.0); n * n];
        for j in 0..n {
            for i in 0..n {
                let x = ((i * 7 + j * 13) % 17) as f64 / 17.0 + ((i + j) % 5) as f64 * 0.01;
                a[i + j * n] =
                    T::from_f64(if i == j { n as f64 } else { x * 0.5 / (1.0 + i.abs_diff(j) as f64) });
            }
        }
        a
    }

    /// The backend's and the reference LAPACK's Cholesky differ in their last bits (different
    /// BLAS, different summation order), and [`with`] switches between them and back (the typed
    /// entry points, `backend::lapack::potrf`).
    fn switches<T: crate::scalar::Scalar + PartialEq + std::fmt::Debug>() {
        let lib = Netlib::open().expect("the reference LAPACK (Debian: liblapack3 libblas3)");
        let n = 300;
        let run = |a: &mut Vec<T>| forward::potrf::<T>(b'L', n as i32, raw(a), n as i32);
        let (mut x, mut y, mut z) = (spd::<T>(n), spd::<T>(n), spd::<T>(n));
        assert_eq!(run(&mut x), 0);
        assert_eq!(with(lib, || run(&mut y)), 0);
        assert_eq!(run(&mut z), 0);
        assert_eq!(x, z, "the backend again after `with`");
        assert_ne!(x, y, "the reference LAPACK's factor is bit for bit the backend's: not switched");
    }

    #[test]
    fn with_switches_to_the_reference_lapack() {
        // One backend thread, as the accuracy harness calls it (OpenBLAS's threaded DGETRF
        // overflows a test thread's stack).
        let _one = crate::backend::BlasThreadsGuard::new();
        switches::<f64>();
        switches::<f32>();
        // The entry points `backend_fns!` makes: DGETRF.
        let lib = Netlib::open().expect("the reference LAPACK");
        let n = 300;
        let mut ipiv = vec![0i32; n];
        let mut run =
            |a: &mut Vec<f64>| forward::dgetrf(n as i32, n as i32, raw(a), n as i32, raw(&mut ipiv));
        let (mut x, mut y, mut z) = (spd::<f64>(n), spd::<f64>(n), spd::<f64>(n));
        assert_eq!(run(&mut x), 0);
        assert_eq!(with(lib, || run(&mut y)), 0);
        assert_eq!(run(&mut z), 0);
        assert_eq!(x, z, "the backend again after `with`");
        assert_ne!(x, y, "the reference LAPACK's LU is bit for bit the backend's: not switched");
    }
}
