//! The BLACS process grid of a context and the MPI communicator behind it.
//!
//! The communicator is the grid's own (`Cblacs_get(ctxt, 10, &h)`, `Cblacs2sys_handle(h)`;
//! ARCHITECTURE.md, decision 3). The application owns it: it is wrapped without ownership
//! (a borrowed [`Comm`], never freed here), and the library's messages travel on a
//! duplicate that the library owns and frees, so they can never match the application's or the
//! BLACS' own traffic. Which rank is which grid position is taken from the BLACS itself (every
//! rank contributes its coordinates), so row- and column-major grids, `blacs_gridmap` grids and
//! contexts over part of `MPI_COMM_WORLD` all work the same way.

use crate::api::scalapack::GridInfo;
use crate::backend::blacs;
use crate::backend::mpi::Comm;

pub struct Grid {
    pub nprow: usize,
    pub npcol: usize,
    pub myrow: usize,
    pub mycol: usize,
    /// Our own duplicate of the grid's communicator (freed when the grid is dropped).
    pub comm: Comm,
    /// Rank in `comm` of grid position (prow, pcol), at `prow * npcol + pcol`.
    ranks: Vec<i32>,
    /// MPI ranks of this grid that share this process's node.
    pub ranks_on_node: usize,
}

impl Grid {
    /// The grid of context `ctxt`, for a process inside it (`g` from the BLACS). Collective over
    /// the grid.
    pub fn from_context(ctxt: i32, g: &GridInfo) -> Grid {
        let raw = blacs::system_comm(ctxt);
        // SAFETY: `raw` is the live communicator the BLACS keep for this context; a borrowed
        // `Comm` is never freed (the application owns it).
        let app = unsafe { Comm::borrowed(raw) };
        let comm = app.duplicate();
        let size = comm.size() as usize;
        let mine = [g.myrow, g.mycol];
        let mut all = vec![0i32; 2 * size];
        comm.all_gather_into(&mine[..], &mut all[..]);
        let (nprow, npcol) = (g.nprow as usize, g.npcol as usize);
        let mut ranks = vec![-1; nprow * npcol];
        for r in 0..size {
            let (pr, pc) = (all[2 * r], all[2 * r + 1]);
            if pr >= 0 && pc >= 0 {
                ranks[pr as usize * npcol + pc as usize] = r as i32;
            }
        }
        assert!(ranks.iter().all(|&r| r >= 0), "hetla: the BLACS grid and its communicator disagree");
        let node = comm.split_shared(comm.rank());
        let ranks_on_node = node.size().max(1) as usize;
        Grid { nprow, npcol, myrow: g.myrow as usize, mycol: g.mycol as usize, comm, ranks, ranks_on_node }
    }

    /// Rank in [`Grid::comm`] of grid position (prow, pcol).
    pub fn rank_of(&self, prow: usize, pcol: usize) -> usize {
        self.ranks[prow * self.npcol + pcol] as usize
    }

    /// This process's rank in [`Grid::comm`].
    pub fn me(&self) -> usize {
        self.rank_of(self.myrow, self.mycol)
    }

    /// Worker threads for this rank: `HETLA_NUM_THREADS` when set, else the cores this process
    /// may use divided by the grid's ranks on this node.
    pub fn threads(&self, configured: usize) -> usize {
        if std::env::var_os("HETLA_NUM_THREADS").is_some() {
            return configured;
        }
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        (cores / self.ranks_on_node).max(1)
    }
}
