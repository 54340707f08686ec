//! The distributed layer: a BLACS process grid and its MPI communicator ([`grid`]), the caller's
//! block-cyclic layout and the library's tile layout over the same grid ([`layout`]), the
//! conversion between them ([`redistribute`]), tile messages between ranks ([`comm`]), owner-
//! computes task generation over the shared-memory runtime ([`tasks`]) and the distributed
//! tile algorithms built on it: [`potrf`] on the tiles of a triangle, [`getrf`] and [`geqrf`]
//! on the 2-D tiles of a general M×N sub(A) ([`tiles2d`]), the triangular solves of PDPOTRS and
//! PDGETRS in [`solve`], and the block tridiagonal solver of PDBTTRF/PDBTTRS in [`bt`].
//!
//! Everything but [`bt`] is generic over the element type ([`DistElem`]: f32, f64, c32, c64):
//! the PD* routines are the f64 instances, PS*, PC* and PZ* the others. Tile messages carry any
//! type as bytes ([`comm::pack`]); the conversions and reductions use the type's MPI datatype.
//!
//! It follows the distributed task assignment of Song and Dongarra (seeds 000 §6, 001 §4): every
//! rank runs the same serial task generator and creates only the task instances whose output tile
//! it owns; an input tile owned elsewhere arrives as a message that names the tile and its
//! version, into a local copy whose arrival releases the tasks waiting on it. The calling thread
//! is the only one that calls MPI (ARCHITECTURE.md, decision 3).
//!
//! `unsafe` appears here only where MPI and the BLACS are called through FFI (the communicator
//! wrapper in `grid`, non-blocking sends in `comm`), each block with its `// SAFETY:` reason.

pub mod bt;
pub mod comm;
pub mod geqrf;
pub mod getrf;
pub mod grid;
pub mod inverse;
pub mod layout;
pub mod local;
pub mod orgqr;
pub mod potrf;
pub mod redistribute;
pub mod shm;
pub mod solve;
pub mod tasks;
pub mod tiles2d;

/// The element types of the distributed layer: LAPACK's four ([`crate::scalar::Scalar`]), whose
/// ops run on tiles ([`crate::graph::op::OpElem`]) and whose values travel in MPI collectives
/// ([`crate::backend::mpi::Equivalence`]: `MPI_DOUBLE`, `MPI_FLOAT`, `MPI_C_FLOAT_COMPLEX`,
/// `MPI_C_DOUBLE_COMPLEX`). Tile messages carry any of them as bytes ([`comm`]).
pub trait DistElem: crate::graph::op::OpElem + crate::backend::mpi::Equivalence {}
impl<T: crate::graph::op::OpElem + crate::backend::mpi::Equivalence> DistElem for T {}

/// Why a distributed call cannot run on tiles in this process, if it cannot: the process's MPI
/// must be Open MPI ([`crate::backend::mpi`]), initialized (by the application or its BLACS)
/// and not yet finalized.
pub fn unsupported_reason() -> Option<&'static str> {
    crate::backend::mpi::unsupported_reason()
}

thread_local! {
    /// The distributed routine this thread is running (set at the library boundary), for the
    /// abort message.
    static CALL: std::cell::Cell<&'static str> = const { std::cell::Cell::new("a distributed call") };
}

/// Names the distributed routine this thread runs from now on.
pub fn set_call(name: &'static str) {
    CALL.with(|c| c.set(name));
}

/// Ends the whole job after an internal failure of this rank in a distributed call: prints
/// `hetla: <routine> failed on rank R: <why>; aborting` and calls `MPI_Abort` on `comm`. The other
/// ranks of the grid may be waiting for this one's messages; a clear end beats a hang.
pub fn abort_job(comm: &crate::backend::mpi::Comm, why: &str) -> ! {
    let routine = CALL.with(|c| c.get()).to_ascii_lowercase();
    crate::error::say(format_args!("hetla: {routine} failed on rank {}: {why}; aborting", comm.rank()));
    comm.abort(1)
}

/// What a distributed call measured, for the verbose line.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Seconds spent converting to tiles and back (both directions).
    pub redistribution_s: f64,
    /// Tile messages this rank sent and received (values or notices), and of the tiles received
    /// those read in place in their owner's storage (notices).
    pub sent: usize,
    pub received: usize,
    pub in_place: usize,
    /// What this rank's devices moved and ran (empty without devices).
    pub devices: Vec<crate::device::DevStats>,
    /// How the conversion moved values between ranks: `shared` (copied straight to and from
    /// tile storage that every rank of the node maps) or `alltoallv`; `None` when it did not
    /// run.
    pub conversion: Option<&'static str>,
}

impl Stats {
    /// What a run of the distributed tasks (`run`) and the conversions around it measured.
    pub fn of<T: crate::scalar::Scalar>(
        redistribution_s: f64,
        run: &mut tasks::SeqRun<T>,
        conversion: Option<&'static str>,
    ) -> Stats {
        let devices = std::mem::take(&mut run.devices);
        Stats {
            redistribution_s,
            sent: run.sent,
            received: run.received,
            in_place: run.in_place,
            devices,
            conversion,
        }
    }
}

impl std::fmt::Display for Stats {
    /// The verbose-line fields every distributed routine reports.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "redist={:.6}s tiles_sent={} tiles_received={} tiles_in_place={}",
            self.redistribution_s, self.sent, self.received, self.in_place
        )?;
        match self.conversion {
            Some(c) => write!(f, " conv={c}"),
            None => Ok(()),
        }
    }
}
