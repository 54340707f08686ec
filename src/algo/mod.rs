//! Tile algorithms: plain loops over tile indices that submit tasks. They know nothing of
//! threads, devices or MPI; they state what each task reads and writes, what it computes and how
//! urgent it is ([`crate::graph::prio`]), and the runtime does the rest. `potrf` is a generator
//! over [`crate::graph::Graph`], run by the shared-memory and the distributed runtimes alike;
//! the others still submit to a [`crate::runtime::Seq`] directly (and `dist/` has their
//! distributed versions) until they move onto the same interface.

pub mod gels;
pub mod geqrf;
pub mod getrf;
pub mod potrf;
pub mod potrs;
pub mod tileqr;
pub mod trsm;

pub(crate) use crate::graph::prio;

#[cfg(test)]
pub(crate) mod testutil;
