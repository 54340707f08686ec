//! Single-threaded BLAS inside the library's workers.
//!
//! The tile workers run one BLAS kernel each, so the backend must not spawn its own threads
//! underneath them (ARCHITECTURE.md, decision 2). The backends' thread counts are process-wide,
//! so the first concurrent hetla call saves the count and sets 1, and the last one to leave
//! restores it: the application sees the same setting after the call as before.
//!
//! Which backend: the library that provides the backend's `dgemm_`, asked for its own
//! thread-count functions ([`Flavor`]): OpenBLAS (pthreads or OpenMP builds), Intel MKL, BLIS and
//! FlexiBLAS (which passes the count on to the BLAS it has loaded). A backend with none of them
//! (the reference BLAS) has no threads to set.

use std::ffi::{c_void, CString};
use std::sync::{Mutex, OnceLock};

pub(crate) struct Saved {
    active: usize,
    saved: i64,
}

static STATE: Mutex<Saved> = Mutex::new(Saved { active: 0, saved: 1 });

/// A backend's thread-count interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    OpenBlas,
    Mkl,
    Blis,
    FlexiBlas,
}

impl Flavor {
    /// (flavor, get, set) symbol names, in the order they are looked for: FlexiBLAS first, since
    /// it exports its own BLAS symbols and may have loaded OpenBLAS or BLIS beside.
    const ALL: [(Flavor, &'static str, &'static str); 4] = [
        (Flavor::FlexiBlas, "flexiblas_get_num_threads", "flexiblas_set_num_threads"),
        (Flavor::Mkl, "MKL_Get_Max_Threads", "MKL_Set_Num_Threads"),
        (Flavor::OpenBlas, "openblas_get_num_threads", "openblas_set_num_threads"),
        (Flavor::Blis, "bli_thread_get_num_threads", "bli_thread_set_num_threads"),
    ];

    /// The name in verbose output.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::OpenBlas => "openblas",
            Flavor::Mkl => "mkl",
            Flavor::Blis => "blis",
            Flavor::FlexiBlas => "flexiblas",
        }
    }
}

/// The backend's thread-count functions, as addresses (see [`get`] and [`set`] for their types).
#[derive(Clone, Copy)]
struct Fns {
    flavor: Flavor,
    get: usize,
    set: usize,
}

/// `name` in the library `lib` only (already loaded: `RTLD_NOLOAD`), or null.
fn lookup_in(lib: &std::ffi::CStr, name: &str) -> *mut c_void {
    // SAFETY: dlopen with RTLD_NOLOAD only returns a handle to a library already loaded (its
    // reference count raised, never dropped: the library stays for the process's life anyway).
    let h = unsafe { libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    if h.is_null() {
        return std::ptr::null_mut();
    }
    let cname = CString::new(name).expect("symbol names have no NUL");
    // SAFETY: `h` is a live handle; dlsym with a NUL-terminated name.
    unsafe { libc::dlsym(h, cname.as_ptr()) }
}

fn fns() -> Option<Fns> {
    static F: OnceLock<Option<Fns>> = OnceLock::new();
    *F.get_or_init(|| {
        let found = |look: &dyn Fn(&str) -> *mut c_void| {
            Flavor::ALL.iter().find_map(|&(flavor, g, s)| {
                let (g, s) = (look(g), look(s));
                (!g.is_null() && !s.is_null()).then_some(Fns { flavor, get: g as usize, set: s as usize })
            })
        };
        // The library that provides dgemm_ first, then any already in the process (never
        // `super::lookup`, whose fallback would load OpenBLAS into a process that has another).
        let global = |n: &str| {
            let c = CString::new(n).expect("symbol names have no NUL");
            // SAFETY: dlsym with a NUL-terminated name in the global scope; it loads nothing.
            unsafe { libc::dlsym(libc::RTLD_DEFAULT, c.as_ptr()) }
        };
        let lib = CString::new(super::describe()).ok();
        lib.as_ref().and_then(|lib| found(&|n| lookup_in(lib, n))).or_else(|| found(&global))
    })
}

/// The backend's current thread count.
fn get(f: Fns) -> i64 {
    // SAFETY: `f.get` is the backend's exported getter: OpenBLAS's, MKL's and FlexiBLAS's return
    // a C int, BLIS's a dim_t (int64_t in its default and Debian builds).
    unsafe {
        match f.flavor {
            Flavor::Blis => std::mem::transmute::<usize, unsafe extern "C" fn() -> i64>(f.get)(),
            _ => i64::from(std::mem::transmute::<usize, unsafe extern "C" fn() -> i32>(f.get)()),
        }
    }
}

/// Sets the backend's thread count.
fn set(f: Fns, n: i64) {
    // SAFETY: `f.set` is the backend's exported setter, taking a C int (a dim_t for BLIS).
    unsafe {
        match f.flavor {
            Flavor::Blis => std::mem::transmute::<usize, unsafe extern "C" fn(i64)>(f.set)(n),
            _ => std::mem::transmute::<usize, unsafe extern "C" fn(i32)>(f.set)(
                n.clamp(1, i32::MAX as i64) as i32
            ),
        }
    }
}

/// The backend's thread-count interface, if it has one.
pub fn flavor() -> Option<Flavor> {
    fns().map(|f| f.flavor)
}

/// The saved thread count's lock (also taken around a fork, by [`crate::fork`]).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Saved> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// In a forked child: the calls that had set the BLAS to one thread ran in the parent's other
/// threads, which the child does not have. Give the program its own setting back and count none.
pub(crate) fn after_fork_in_child(st: &mut Saved) {
    if st.active > 0 {
        if let Some(f) = fns() {
            set(f, st.saved);
        }
    }
    st.active = 0;
}

/// While alive, the backend BLAS runs single-threaded; dropping the last guard restores the
/// thread count the application had.
pub struct BlasThreadsGuard(());

impl BlasThreadsGuard {
    pub fn new() -> Self {
        let mut st = lock();
        if st.active == 0 {
            if let Some(f) = fns() {
                st.saved = get(f);
                set(f, 1);
            }
        }
        st.active += 1;
        BlasThreadsGuard(())
    }
}

impl Default for BlasThreadsGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for BlasThreadsGuard {
    fn drop(&mut self) {
        let mut st = lock();
        st.active -= 1;
        if st.active == 0 {
            if let Some(f) = fns() {
                set(f, st.saved);
            }
        }
    }
}
