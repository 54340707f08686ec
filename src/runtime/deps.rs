//! Per-tile task lists with the APPEND and FIRE rules of Song and Dongarra's runtime
//! (seeds 000 §4, 001 §4), extended to be exact for all three hazards.
//!
//! Every tile has a list of the unfinished tasks that access it, in program order.
//!
//! * **APPEND**: a new task's access is *granted* at once when nothing earlier in the list
//!   conflicts with it: a read is granted iff no earlier unfinished task writes the tile
//!   (read-after-write), a write iff the list is empty (write-after-read and write-after-write:
//!   a writer waits for every earlier reader and writer). A task is ready when all its accesses are
//!   granted.
//! * **FIRE**: when a task finishes, its entries leave the lists; each list it was in is then
//!   walked from the front, granting readers until the first writer, which is granted only if it
//!   is now first in the list.
//!
//! The paper removes write-after-read hazards "by renaming"; here a writer simply waits, which
//! costs some parallelism but no memory and is always correct.

use std::collections::{HashMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Read,
    Write,
    ReadWrite,
}

impl Mode {
    pub fn writes(self) -> bool {
        !matches!(self, Mode::Read)
    }
    /// The mode that covers both (a task declaring the same tile twice).
    pub fn merge(self, other: Mode) -> Mode {
        if self == Mode::Read && other == Mode::Read {
            Mode::Read
        } else if self == Mode::Write && other == Mode::Write {
            Mode::Write
        } else {
            Mode::ReadWrite
        }
    }
}

#[derive(Debug)]
struct Entry {
    task: u64,
    writes: bool,
    granted: bool,
}

/// The tile lists of one sequence.
#[derive(Default, Debug)]
pub struct TileLists {
    lists: HashMap<u64, VecDeque<Entry>>,
}

impl TileLists {
    /// APPEND: records that `task` accesses `key` with `mode`; returns whether it is granted now.
    pub fn append(&mut self, key: u64, task: u64, mode: Mode) -> bool {
        let list = self.lists.entry(key).or_default();
        let writes = mode.writes();
        let granted = if writes { list.is_empty() } else { list.iter().all(|e| !e.writes) };
        list.push_back(Entry { task, writes, granted });
        granted
    }

    /// FIRE: `task` has finished with `key`. Calls `grant(t)` for every task whose access to
    /// `key` has just been granted.
    pub fn release(&mut self, key: u64, task: u64, mut grant: impl FnMut(u64)) {
        let Some(list) = self.lists.get_mut(&key) else {
            debug_assert!(false, "release of an unknown tile");
            return;
        };
        if let Some(pos) = list.iter().position(|e| e.task == task) {
            debug_assert!(list[pos].granted, "a task finished before its access was granted");
            list.remove(pos);
        }
        for (idx, e) in list.iter_mut().enumerate() {
            if e.writes {
                if idx == 0 && !e.granted {
                    e.granted = true;
                    grant(e.task);
                }
                break;
            }
            if !e.granted {
                e.granted = true;
                grant(e.task);
            }
        }
        if list.is_empty() {
            self.lists.remove(&key);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fire(l: &mut TileLists, key: u64, task: u64) -> Vec<u64> {
        let mut v = Vec::new();
        l.release(key, task, |t| v.push(t));
        v
    }

    #[test]
    fn read_after_write_waits() {
        let mut l = TileLists::default();
        assert!(l.append(1, 10, Mode::Write));
        assert!(!l.append(1, 11, Mode::Read));
        assert!(!l.append(1, 12, Mode::Read));
        assert_eq!(fire(&mut l, 1, 10), vec![11, 12]);
    }

    #[test]
    fn write_after_read_waits_for_all_readers() {
        let mut l = TileLists::default();
        assert!(l.append(1, 1, Mode::Read));
        assert!(l.append(1, 2, Mode::Read));
        assert!(!l.append(1, 3, Mode::Write));
        assert!(!l.append(1, 4, Mode::Read));
        assert_eq!(fire(&mut l, 1, 2), Vec::<u64>::new());
        assert_eq!(fire(&mut l, 1, 1), vec![3]);
        assert_eq!(fire(&mut l, 1, 3), vec![4]);
        assert_eq!(fire(&mut l, 1, 4), Vec::<u64>::new());
        assert!(l.is_empty());
    }

    #[test]
    fn write_after_write_is_ordered() {
        let mut l = TileLists::default();
        assert!(l.append(7, 1, Mode::ReadWrite));
        assert!(!l.append(7, 2, Mode::Write));
        assert!(!l.append(7, 3, Mode::ReadWrite));
        assert_eq!(fire(&mut l, 7, 1), vec![2]);
        assert_eq!(fire(&mut l, 7, 2), vec![3]);
    }

    #[test]
    fn readers_before_a_writer_run_together() {
        let mut l = TileLists::default();
        assert!(l.append(1, 1, Mode::Write));
        assert!(!l.append(1, 2, Mode::Read));
        assert!(!l.append(1, 3, Mode::Read));
        assert!(!l.append(1, 4, Mode::Write));
        assert!(!l.append(1, 5, Mode::Read));
        assert_eq!(fire(&mut l, 1, 1), vec![2, 3]);
        assert_eq!(fire(&mut l, 1, 3), Vec::<u64>::new());
        assert_eq!(fire(&mut l, 1, 2), vec![4]);
    }

    #[test]
    fn merge_modes() {
        assert_eq!(Mode::Read.merge(Mode::Read), Mode::Read);
        assert_eq!(Mode::Read.merge(Mode::Write), Mode::ReadWrite);
        assert_eq!(Mode::Write.merge(Mode::Write), Mode::Write);
    }
}
