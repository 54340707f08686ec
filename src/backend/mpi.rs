//! MPI, reached at run time in the process's own MPI library.
//!
//! libhetla does not link libmpi: a program that only calls LAPACK never loads it, and runs where
//! no MPI is installed. A ScaLAPACK program has loaded its MPI before it can build a BLACS grid,
//! so on the first distributed call the few MPI routines hetla uses are looked up in the global
//! symbol table (`dlsym(RTLD_DEFAULT)`); when there is none, distributed calls are forwarded
//! (`reason=no-mpi`). Nothing is ever `dlopen`ed here.
//!
//! Handles follow Open MPI's ABI (Debian's MPI, the one ScaLAPACK is built against there): every
//! handle is a pointer, and the predefined ones (`MPI_COMM_WORLD`, `MPI_DOUBLE`, `MPI_SUM`, ...)
//! are the addresses of exported objects (`ompi_mpi_comm_world`, ...). An MPI without those
//! objects (MPICH's handles are integers) is detected and its calls forwarded
//! (`reason=mpi-not-open-mpi`), never misread.
//!
//! The method names follow rsmpi's (`all_reduce_into`, `duplicate`, `split_shared`, ...), so the
//! distributed code reads like ordinary Rust MPI code.

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

/// An Open MPI handle (communicator, datatype, operation, request, info).
type Handle = *mut c_void;

/// Open MPI's `MPI_Status` (`struct ompi_status_public_t`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Status {
    source: i32,
    tag: i32,
    error: i32,
    cancelled: i32,
    ucount: usize,
}

const MPI_ANY_SOURCE: i32 = -1;
const MPI_ANY_TAG: i32 = -1;
/// `MPI_COMM_TYPE_SHARED`, the first entry of Open MPI's communicator-type enum.
const MPI_COMM_TYPE_SHARED: i32 = 0;

type IntOut = unsafe extern "C" fn(*mut i32) -> i32;
type CommInt = unsafe extern "C" fn(Handle, *mut i32) -> i32;
type CommDupFn = unsafe extern "C" fn(Handle, *mut Handle) -> i32;
type CommFreeFn = unsafe extern "C" fn(*mut Handle) -> i32;
type CommSplitTypeFn = unsafe extern "C" fn(Handle, i32, i32, Handle, *mut Handle) -> i32;
type AllreduceFn = unsafe extern "C" fn(*const c_void, *mut c_void, i32, Handle, Handle, Handle) -> i32;
type AllgatherFn = unsafe extern "C" fn(*const c_void, i32, Handle, *mut c_void, i32, Handle, Handle) -> i32;
type AlltoallvFn = unsafe extern "C" fn(
    *const c_void,
    *const i32,
    *const i32,
    Handle,
    *mut c_void,
    *const i32,
    *const i32,
    Handle,
    Handle,
) -> i32;
type IsendFn = unsafe extern "C" fn(*const c_void, i32, Handle, i32, i32, Handle, *mut Handle) -> i32;
type TestFn = unsafe extern "C" fn(*mut Handle, *mut i32, *mut Status) -> i32;
type WaitallFn = unsafe extern "C" fn(i32, *mut Handle, *mut Status) -> i32;
type IprobeFn = unsafe extern "C" fn(i32, i32, Handle, *mut i32, *mut Status) -> i32;
type GetCountFn = unsafe extern "C" fn(*const Status, Handle, *mut i32) -> i32;
type RecvFn = unsafe extern "C" fn(*mut c_void, i32, Handle, i32, i32, Handle, *mut Status) -> i32;
type AbortFn = unsafe extern "C" fn(Handle, i32) -> i32;

/// The routines and predefined handles hetla uses, resolved once.
struct Api {
    initialized: IntOut,
    finalized: IntOut,
    comm_rank: CommInt,
    comm_size: CommInt,
    comm_dup: CommDupFn,
    comm_free: CommFreeFn,
    comm_split_type: CommSplitTypeFn,
    allreduce: AllreduceFn,
    allgather: AllgatherFn,
    alltoallv: AlltoallvFn,
    isend: IsendFn,
    test: TestFn,
    waitall: WaitallFn,
    iprobe: IprobeFn,
    get_count: GetCountFn,
    recv: RecvFn,
    abort: AbortFn,
    world: usize,
    info_null: usize,
    request_null: usize,
    double: usize,
    float: usize,
    c_float_complex: usize,
    c_double_complex: usize,
    int: usize,
    int64: usize,
    op_sum: usize,
    op_min: usize,
    op_max: usize,
}

fn global(name: &str) -> usize {
    let c = CString::new(name).expect("symbol names have no NUL");
    // SAFETY: dlsym with a valid NUL-terminated name and the RTLD_DEFAULT pseudo-handle.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, c.as_ptr()) as usize }
}

fn load() -> Result<Api, &'static str> {
    if global("MPI_Initialized") == 0 {
        return Err("no-mpi");
    }
    if global("ompi_mpi_comm_world") == 0 {
        return Err("mpi-not-open-mpi");
    }
    macro_rules! f {
        ($sym:literal, $ty:ty) => {{
            let p = global($sym);
            if p == 0 {
                return Err("mpi-incomplete");
            }
            // SAFETY: `p` is the address of the named MPI routine of the process's Open MPI,
            // whose C signature is the one of the field it is stored in (mpi.h).
            unsafe { std::mem::transmute::<usize, $ty>(p) }
        }};
    }
    macro_rules! h {
        ($sym:literal) => {{
            let p = global($sym);
            if p == 0 {
                return Err("mpi-incomplete");
            }
            p
        }};
    }
    Ok(Api {
        initialized: f!("MPI_Initialized", IntOut),
        finalized: f!("MPI_Finalized", IntOut),
        comm_rank: f!("MPI_Comm_rank", CommInt),
        comm_size: f!("MPI_Comm_size", CommInt),
        comm_dup: f!("MPI_Comm_dup", CommDupFn),
        comm_free: f!("MPI_Comm_free", CommFreeFn),
        comm_split_type: f!("MPI_Comm_split_type", CommSplitTypeFn),
        allreduce: f!("MPI_Allreduce", AllreduceFn),
        allgather: f!("MPI_Allgather", AllgatherFn),
        alltoallv: f!("MPI_Alltoallv", AlltoallvFn),
        isend: f!("MPI_Isend", IsendFn),
        test: f!("MPI_Test", TestFn),
        waitall: f!("MPI_Waitall", WaitallFn),
        iprobe: f!("MPI_Iprobe", IprobeFn),
        get_count: f!("MPI_Get_count", GetCountFn),
        recv: f!("MPI_Recv", RecvFn),
        abort: f!("MPI_Abort", AbortFn),
        world: h!("ompi_mpi_comm_world"),
        info_null: h!("ompi_mpi_info_null"),
        request_null: h!("ompi_request_null"),
        double: h!("ompi_mpi_double"),
        float: h!("ompi_mpi_float"),
        c_float_complex: h!("ompi_mpi_c_float_complex"),
        c_double_complex: h!("ompi_mpi_c_double_complex"),
        int: h!("ompi_mpi_int"),
        int64: h!("ompi_mpi_int64_t"),
        op_sum: h!("ompi_mpi_op_sum"),
        op_min: h!("ompi_mpi_op_min"),
        op_max: h!("ompi_mpi_op_max"),
    })
}

fn api_or_reason() -> Result<&'static Api, &'static str> {
    static API: OnceLock<Result<Api, &'static str>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(|e| *e)
}

/// The loaded API. Callers have checked [`unsupported_reason`] first.
fn api() -> &'static Api {
    api_or_reason().unwrap_or_else(|why| panic!("hetla: MPI is not usable in this process ({why})"))
}

/// Why this process cannot run distributed calls, if it cannot: no MPI loaded, an MPI with
/// another ABI, or MPI not initialized (or already finalized).
pub fn unsupported_reason() -> Option<&'static str> {
    let a = match api_or_reason() {
        Ok(a) => a,
        Err(why) => return Some(why),
    };
    let (mut init, mut fin) = (0, 0);
    // SAFETY: both may be called at any time, even before MPI_Init, and write one int.
    unsafe {
        (a.initialized)(&mut init);
        (a.finalized)(&mut fin);
    }
    if init == 0 || fin != 0 {
        return Some("no-mpi");
    }
    None
}

/// This process's rank and the size of `MPI_COMM_WORLD`, when MPI is usable.
pub fn world_rank_size() -> Option<(i32, i32)> {
    if unsupported_reason().is_some() {
        return None;
    }
    let w = Comm::world();
    Some((w.rank(), w.size()))
}

/// Element types that travel in messages and collectives.
pub trait Equivalence: Copy {
    /// The predefined MPI datatype of this type.
    fn datatype() -> *mut c_void;
}
impl Equivalence for f64 {
    fn datatype() -> Handle {
        api().double as Handle
    }
}
impl Equivalence for f32 {
    fn datatype() -> Handle {
        api().float as Handle
    }
}
impl Equivalence for crate::scalar::c32 {
    fn datatype() -> Handle {
        api().c_float_complex as Handle
    }
}
impl Equivalence for crate::scalar::c64 {
    fn datatype() -> Handle {
        api().c_double_complex as Handle
    }
}
impl Equivalence for i32 {
    fn datatype() -> Handle {
        api().int as Handle
    }
}
impl Equivalence for i64 {
    fn datatype() -> Handle {
        api().int64 as Handle
    }
}

/// A send buffer: one value or a slice of them.
pub trait Buffer {
    type E: Equivalence;
    fn ptr(&self) -> *const Self::E;
    fn count(&self) -> usize;
}
/// A receive buffer: one value or a slice of them.
pub trait BufferMut {
    type E: Equivalence;
    fn ptr_mut(&mut self) -> *mut Self::E;
    fn count(&self) -> usize;
}
impl<T: Equivalence> Buffer for T {
    type E = T;
    fn ptr(&self) -> *const T {
        self
    }
    fn count(&self) -> usize {
        1
    }
}
impl<T: Equivalence> Buffer for [T] {
    type E = T;
    fn ptr(&self) -> *const T {
        self.as_ptr()
    }
    fn count(&self) -> usize {
        self.len()
    }
}
impl<T: Equivalence> BufferMut for T {
    type E = T;
    fn ptr_mut(&mut self) -> *mut T {
        self
    }
    fn count(&self) -> usize {
        1
    }
}
impl<T: Equivalence> BufferMut for [T] {
    type E = T;
    fn ptr_mut(&mut self) -> *mut T {
        self.as_mut_ptr()
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// The reduction operations hetla uses.
#[derive(Clone, Copy, Debug)]
pub enum SystemOperation {
    Sum,
    Min,
    Max,
}
impl SystemOperation {
    pub fn sum() -> Self {
        SystemOperation::Sum
    }
    pub fn min() -> Self {
        SystemOperation::Min
    }
    pub fn max() -> Self {
        SystemOperation::Max
    }
    fn handle(self, a: &Api) -> Handle {
        (match self {
            SystemOperation::Sum => a.op_sum,
            SystemOperation::Min => a.op_min,
            SystemOperation::Max => a.op_max,
        }) as Handle
    }
}

/// Panics on an MPI error code: Open MPI's default handler (`MPI_ERRORS_ARE_FATAL`) ends the job
/// before returning one, so this only fires when the application installed another handler;
/// the panic then becomes the call's internal failure (`dist::abort_job`).
fn check(rc: i32, what: &str) {
    assert!(rc == 0, "hetla: {what} returned MPI error {rc}");
}

/// A communicator: `MPI_COMM_WORLD`, one the application owns (never freed here), or one hetla
/// created and frees when dropped.
pub struct Comm {
    raw: Handle,
    owned: bool,
}

impl Comm {
    /// `MPI_COMM_WORLD`.
    pub fn world() -> Comm {
        Comm { raw: api().world as Handle, owned: false }
    }

    /// A communicator the application owns, for example the BLACS' (`Cblacs2sys_handle`).
    ///
    /// # Safety
    /// `raw` must be a live Open MPI communicator for as long as the result is used.
    pub unsafe fn borrowed(raw: *mut c_void) -> Comm {
        Comm { raw, owned: false }
    }

    pub fn rank(&self) -> i32 {
        let mut r = -1;
        // SAFETY: a live communicator and an int we own.
        check(unsafe { (api().comm_rank)(self.raw, &mut r) }, "MPI_Comm_rank");
        r
    }

    pub fn size(&self) -> i32 {
        let mut s = 0;
        // SAFETY: as in `rank`.
        check(unsafe { (api().comm_size)(self.raw, &mut s) }, "MPI_Comm_size");
        s
    }

    /// `MPI_Comm_dup`: a communicator of the same group that hetla owns. Collective.
    pub fn duplicate(&self) -> Comm {
        let mut out: Handle = std::ptr::null_mut();
        // SAFETY: a live communicator; MPI writes the new handle into `out`.
        check(unsafe { (api().comm_dup)(self.raw, &mut out) }, "MPI_Comm_dup");
        Comm { raw: out, owned: true }
    }

    /// The processes of this communicator that share this one's node (`MPI_Comm_split_type`
    /// with `MPI_COMM_TYPE_SHARED`), ordered by `key`. Collective.
    pub fn split_shared(&self, key: i32) -> Comm {
        let a = api();
        let mut out: Handle = std::ptr::null_mut();
        // SAFETY: a live communicator, MPI_INFO_NULL, and a handle MPI writes.
        let rc = unsafe {
            (a.comm_split_type)(self.raw, MPI_COMM_TYPE_SHARED, key, a.info_null as Handle, &mut out)
        };
        check(rc, "MPI_Comm_split_type");
        Comm { raw: out, owned: true }
    }

    /// `MPI_Allreduce` of `send` into `recv` (same element count).
    pub fn all_reduce_into<T: Equivalence, S: Buffer<E = T> + ?Sized, R: BufferMut<E = T> + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        op: SystemOperation,
    ) {
        assert_eq!(send.count(), recv.count(), "hetla: MPI_Allreduce buffers differ in length");
        let a = api();
        // SAFETY: both buffers hold `count` elements of T, whose MPI datatype is passed.
        let rc = unsafe {
            (a.allreduce)(
                send.ptr() as *const c_void,
                recv.ptr_mut() as *mut c_void,
                send.count() as i32,
                T::datatype(),
                op.handle(a),
                self.raw,
            )
        };
        check(rc, "MPI_Allreduce");
    }

    /// `MPI_Allgather`: `recv` gets every rank's `send`, in rank order.
    pub fn all_gather_into<T: Equivalence>(&self, send: &[T], recv: &mut [T]) {
        assert_eq!(send.len() * self.size() as usize, recv.len(), "hetla: MPI_Allgather buffer size");
        let a = api();
        let n = send.len() as i32;
        // SAFETY: `send` holds n elements and `recv` n per rank, of T's MPI datatype.
        let rc = unsafe {
            (a.allgather)(
                send.as_ptr() as *const c_void,
                n,
                T::datatype(),
                recv.as_mut_ptr() as *mut c_void,
                n,
                T::datatype(),
                self.raw,
            )
        };
        check(rc, "MPI_Allgather");
    }

    /// `MPI_Alltoallv` of values of type `E`: to rank r `scounts[r]` values from
    /// `send[sdispls[r]..]`, from rank r `rcounts[r]` values into `recv[rdispls[r]..]`.
    pub fn all_to_all_v<E: Equivalence>(
        &self,
        send: &[E],
        scounts: &[i32],
        sdispls: &[i32],
        recv: &mut [E],
        rcounts: &[i32],
        rdispls: &[i32],
    ) {
        let size = self.size() as usize;
        assert!(
            scounts.len() == size && sdispls.len() == size && rcounts.len() == size && rdispls.len() == size
        );
        let fits = |b: usize, c: &[i32], d: &[i32]| {
            c.iter().zip(d).all(|(&c, &d)| c >= 0 && d >= 0 && (c + d) as usize <= b)
        };
        assert!(
            fits(send.len(), scounts, sdispls) && fits(recv.len(), rcounts, rdispls),
            "hetla: MPI_Alltoallv extents"
        );
        let a = api();
        // SAFETY: every (count, displacement) pair lies inside its buffer (checked above).
        let rc = unsafe {
            (a.alltoallv)(
                send.as_ptr() as *const c_void,
                scounts.as_ptr(),
                sdispls.as_ptr(),
                E::datatype(),
                recv.as_mut_ptr() as *mut c_void,
                rcounts.as_ptr(),
                rdispls.as_ptr(),
                E::datatype(),
                self.raw,
            )
        };
        check(rc, "MPI_Alltoallv");
    }

    /// Starts sending `data` to `dest` with `tag` (`MPI_Isend`).
    ///
    /// # Safety
    /// `data` must stay alive and unmoved in memory until [`Request::test`] or [`waitall`] reports
    /// the send complete.
    pub unsafe fn isend(&self, data: &[f64], dest: usize, tag: i32) -> Request {
        let a = api();
        let mut req: Handle = a.request_null as Handle;
        // SAFETY: the caller keeps the buffer alive until completion; MPI writes the request.
        let rc = unsafe {
            (a.isend)(
                data.as_ptr() as *const c_void,
                data.len() as i32,
                a.double as Handle,
                dest as i32,
                tag,
                self.raw,
                &mut req,
            )
        };
        check(rc, "MPI_Isend");
        Request(req)
    }

    /// Takes one message that has arrived from any rank with any tag, if there is one, into
    /// `buf` (grown to the message's size when shorter; the values past it are left as they
    /// were): (source, tag, number of values). Reusing one buffer saves an allocation and a
    /// page-faulting first touch per message.
    pub fn try_receive_into(&self, buf: &mut Vec<f64>) -> Option<(usize, i32, usize)> {
        let a = api();
        let (mut flag, mut st) = (0, Status::default());
        // SAFETY: a live communicator; MPI writes the flag and the status we own.
        check(unsafe { (a.iprobe)(MPI_ANY_SOURCE, MPI_ANY_TAG, self.raw, &mut flag, &mut st) }, "MPI_Iprobe");
        if flag == 0 {
            return None;
        }
        let mut count = 0;
        // SAFETY: `st` is the status MPI_Iprobe filled.
        check(unsafe { (a.get_count)(&st, a.double as Handle, &mut count) }, "MPI_Get_count");
        let count = count.max(0) as usize;
        if buf.len() < count {
            buf.resize(count, 0.0);
        }
        let mut rst = Status::default();
        // SAFETY: `buf` holds at least `count` doubles, the size of the probed message from
        // (source, tag), which MPI keeps in order, so this receive takes exactly that message.
        let rc = unsafe {
            (a.recv)(
                buf.as_mut_ptr() as *mut c_void,
                count as i32,
                a.double as Handle,
                st.source,
                st.tag,
                self.raw,
                &mut rst,
            )
        };
        check(rc, "MPI_Recv");
        Some((st.source as usize, st.tag, count))
    }

    /// Ends the whole job (`MPI_Abort`).
    pub fn abort(&self, code: i32) -> ! {
        // SAFETY: MPI_Abort on a live communicator; it does not return in Open MPI.
        unsafe { (api().abort)(self.raw, code) };
        std::process::abort()
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        if self.owned && unsupported_reason().is_none() {
            // SAFETY: a communicator hetla created (dup or split) and nobody else holds.
            unsafe { (api().comm_free)(&mut self.raw) };
        }
    }
}

/// A pending non-blocking send.
pub struct Request(Handle);

impl Request {
    /// True once the send has completed (the request is then freed by MPI).
    pub fn test(&mut self) -> bool {
        let mut done = 0;
        // SAFETY: an active request from MPI_Isend; a status we own.
        check(unsafe { (api().test)(&mut self.0, &mut done, &mut Status::default()) }, "MPI_Test");
        done != 0
    }
}

/// Waits until every request in `reqs` has completed (`MPI_Waitall`).
pub fn waitall(reqs: &mut [Request]) {
    let mut raw: Vec<Handle> = reqs.iter().map(|r| r.0).collect();
    let mut st = vec![Status::default(); raw.len()];
    // SAFETY: `raw` holds the requests' handles (active or MPI_REQUEST_NULL) and `st` one status
    // per request.
    check(unsafe { (api().waitall)(raw.len() as i32, raw.as_mut_ptr(), st.as_mut_ptr()) }, "MPI_Waitall");
    for (r, h) in reqs.iter_mut().zip(raw) {
        r.0 = h;
    }
}
