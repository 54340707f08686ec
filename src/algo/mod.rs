//! Tile algorithms: plain loops over tile indices that submit tasks. They know nothing of
//! threads, devices or MPI; they state what each task reads and writes, what it computes and how
//! urgent it is ([`crate::graph::prio`]), and the runtime does the rest. `potrf`, `getrf`,
//! `geqrf` and `trsm` are generators over [`crate::graph::Graph`], run by the shared-memory, the
//! distributed and the simulated runtimes alike; `gels`'s tile QR and `potrs` still submit to a
//! [`crate::runtime::Seq`] directly.

pub mod gels;
pub mod geqrf;
pub mod getrf;
pub mod potrf;
pub mod potrs;
pub mod tileqr;
pub mod trsm;

pub(crate) use crate::graph::prio;

/// Where a panel is factored (QR and LU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// On its tiles (which must be one block: in one place, adjacent in memory).
    InPlace,
    /// In a buffer the tiles are gathered into, then scattered back.
    Gathered,
}

#[cfg(test)]
pub(crate) mod testutil;
