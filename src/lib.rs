//! hetla: LAPACK and ScaLAPACK entry points that run as tile algorithms on a task runtime.
//!
//! The flow of one call (ARCHITECTURE.md has the full picture): `abi` (exported symbols) →
//! `api` (checks, quick return, forward or run) → `tile` (layout) → `algo` (tile loops) →
//! `runtime` (dependencies, workers, device queues) → `device` (accelerators, their memory) →
//! `kernels` (tile operations on the `backend` BLAS).

pub mod abi;
pub mod accuracy;
pub mod algo;
pub mod api;
pub mod backend;
pub mod config;
pub mod device;
pub mod dist;
pub mod error;
pub mod fenv;
mod fork;
pub mod graph;
pub mod kernels;
pub mod runtime;
pub mod scalar;
pub mod sim;
pub mod tile;
