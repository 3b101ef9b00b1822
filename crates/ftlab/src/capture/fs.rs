//! The capture's file-system model: what an ext4-like file system with `discard` would send
//! to the device for a sequence of file calls. It turns file offsets into block addresses and
//! emits `TraceRecord`s (writes, trims) tagged with each file's stream.
//!
//! - Blocks are 4 KiB ([`BLOCK`]). A write allocates the file's missing blocks at once (delayed allocation is
//!   not modelled) through [`Allocator`]: the goal is the block after the physical block of the file block
//!   before it (so appends stay contiguous), else after the file's last extent, else the first data block (so
//!   freed space is reused first, as ext4 does within a block group).
//! - Page cache: a buffered write marks its blocks dirty; dirty blocks reach the device (one write per run of
//!   physically contiguous blocks, in file order) at `fsync`, `fdatasync`, `close`, before a truncate, when a
//!   file holds `dirty_limit_blocks`, and at the end of the trace. `O_DIRECT` writes reach it at once. Dirty
//!   blocks of a file deleted before write-back never reach it (counted). Reads are not modelled.
//! - Freeing (unlink, rename over a file, truncate, `FALLOC_FL_PUNCH_HOLE`) returns the extents to the
//!   allocator and emits one trim per extent, with the file's stream (the `discard` mount option, issued at
//!   once rather than at the journal commit).
//! - File-system metadata (optional, `journal_blocks > 0`): a namespace change (create, unlink, rename,
//!   truncate, allocation) makes metadata dirty; a journal commit writes [`COMMIT_BLOCKS`] blocks
//!   (descriptor, one metadata block, commit record) at the head of a circular journal in blocks `[0,
//!   journal_blocks)`, at the next `fsync`/`fdatasync` (of a file or a directory) or `commit_interval_ns`
//!   after the last commit. Checkpoints of metadata to its home blocks (inode tables, bitmaps) are not
//!   modelled.
//!
//! Not here: strace parsing (`strace.rs`), stream rules (`mod.rs`). The fd table is global:
//! the threads of one process share it, separate processes are not told apart.

use super::alloc::Allocator;
use crate::error::CaptureErrorKind;
use crate::sim::time::SimTime;
use crate::workload::{IoOp, TraceRecord};
use std::collections::{BTreeMap, BTreeSet};

/// Bytes per file-system block.
pub(crate) const BLOCK: u64 = 4096;
/// Blocks written per journal commit: descriptor, one metadata block, commit record.
pub(crate) const COMMIT_BLOCKS: u64 = 3;

/// The model's parameters (validated by the caller).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FsConfig {
    pub(crate) device_blocks: u64,
    /// 0: file-system metadata is not modelled.
    pub(crate) journal_blocks: u64,
    pub(crate) metadata_stream: u16,
    pub(crate) dirty_limit_blocks: u64,
    pub(crate) commit_interval_ns: u64,
}

/// Counters of the model, reported in the capture summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct FsStats {
    pub(crate) files_created: u64,
    pub(crate) files_deleted: u64,
    /// Files first seen on a write or open without `O_CREAT` (they existed before the trace).
    pub(crate) files_preexisting: u64,
    /// Dirty blocks of files deleted or truncated before write-back (never written).
    pub(crate) dirty_blocks_dropped: u64,
    /// Dirty blocks written back at the end of the trace.
    pub(crate) dirty_blocks_at_end: u64,
    pub(crate) journal_commits: u64,
    pub(crate) peak_used_blocks: u64,
}

#[derive(Debug)]
struct File {
    stream: u16,
    size: u64,
    /// file block → (physical block, length in blocks)
    map: BTreeMap<u64, (u64, u64)>,
    dirty: BTreeSet<u64>,
}

#[derive(Clone, Debug)]
struct Fd {
    file: usize,
    path: String,
    pos: u64,
    direct: bool,
    append: bool,
}

/// How a file is opened.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpenFlags {
    pub(crate) create: bool,
    pub(crate) trunc: bool,
    pub(crate) direct: bool,
    pub(crate) append: bool,
}

/// The model; see the module doc. Records accumulate in `out` until the caller drains them.
#[derive(Debug)]
pub(crate) struct Fs {
    cfg: FsConfig,
    alloc: Allocator,
    files: Vec<File>,
    paths: BTreeMap<String, usize>,
    fds: BTreeMap<i64, Fd>,
    journal_head: u64,
    meta_dirty: bool,
    last_commit_ns: u64,
    pub(crate) out: Vec<TraceRecord>,
    pub(crate) stats: FsStats,
}

fn record(now: u64, op: IoOp, block: u64, blocks: u64, stream: u16) -> TraceRecord {
    TraceRecord {
        time: SimTime::from_ns(now),
        op,
        offset_bytes: block * BLOCK,
        size_bytes: blocks * BLOCK,
        stream,
    }
}

/// Split the extent of `map` that straddles file block `k`, so that an extent starts at `k`.
fn split_at(map: &mut BTreeMap<u64, (u64, u64)>, k: u64) {
    if let Some((&fs, &(p, l))) = map.range(..k).next_back() {
        if fs + l > k {
            let cut = k - fs;
            map.insert(fs, (p, cut));
            map.insert(k, (p + cut, l - cut));
        }
    }
}

/// Map file blocks `[fb, fb + l)` to `[p, p + l)`, merged with the neighbouring extents when
/// both the file and the physical ranges continue.
fn insert_merged(map: &mut BTreeMap<u64, (u64, u64)>, fb: u64, p: u64, l: u64) {
    let (mut start, mut phys, mut len) = (fb, p, l);
    if let Some((&fs, &(pp, pl))) = map.range(..fb).next_back() {
        if fs + pl == fb && pp + pl == p {
            (start, phys, len) = (fs, pp, pl + l);
        }
    }
    if let Some(&(np, nl)) = map.get(&(fb + l)) {
        if p + l == np {
            map.remove(&(fb + l));
            len += nl;
        }
    }
    map.insert(start, (phys, len));
}

fn lookup(map: &BTreeMap<u64, (u64, u64)>, fb: u64) -> Option<u64> {
    map.range(..=fb).next_back().filter(|(&fs, &(_, l))| fs + l > fb).map(|(&fs, &(p, _))| p + (fb - fs))
}

impl Fs {
    pub(crate) fn new(cfg: FsConfig) -> Fs {
        Fs {
            alloc: Allocator::new(cfg.journal_blocks, cfg.device_blocks),
            cfg,
            files: Vec::new(),
            paths: BTreeMap::new(),
            fds: BTreeMap::new(),
            journal_head: 0,
            meta_dirty: false,
            last_commit_ns: 0,
            out: Vec::new(),
            stats: FsStats::default(),
        }
    }

    /// The file at `path`, created (with `stream`) if the model has not seen it.
    pub(crate) fn file_at(&mut self, path: &str, stream: u16, create: bool) -> usize {
        if let Some(&id) = self.paths.get(path) {
            return id;
        }
        self.files.push(File { stream, size: 0, map: BTreeMap::new(), dirty: BTreeSet::new() });
        let id = self.files.len() - 1;
        self.paths.insert(path.to_string(), id);
        if create {
            self.stats.files_created += 1;
            self.meta_dirty = true;
        } else {
            self.stats.files_preexisting += 1;
        }
        id
    }

    /// `open` returned `fd` for `path`.
    pub(crate) fn open(&mut self, now: u64, fd: i64, path: &str, stream: u16, flags: OpenFlags) {
        let existed = self.paths.contains_key(path);
        let file = self.file_at(path, stream, flags.create);
        if existed && flags.trunc {
            self.truncate(now, file, 0);
        }
        self.fds.insert(
            fd,
            Fd { file, path: path.to_string(), pos: 0, direct: flags.direct, append: flags.append },
        );
    }

    /// The file an fd was opened on, if the model saw the open.
    pub(crate) fn fd_file(&self, fd: i64) -> Option<usize> {
        self.fds.get(&fd).map(|f| f.file)
    }

    pub(crate) fn fd_direct(&self, fd: i64) -> bool {
        self.fds.get(&fd).is_some_and(|f| f.direct)
    }

    /// The offset a `write` on `fd` starts at, and moves the position past `len` bytes.
    pub(crate) fn advance(&mut self, fd: i64, len: u64) -> Option<u64> {
        let f = self.fds.get_mut(&fd)?;
        let at = if f.append { self.files[f.file].size } else { f.pos };
        f.pos = at + len;
        Some(at)
    }

    pub(crate) fn seek(&mut self, fd: i64, pos: u64) {
        if let Some(f) = self.fds.get_mut(&fd) {
            f.pos = pos;
        }
    }

    /// `close(fd)` whose argument named `path`. A close reported after another thread's open
    /// already reused its fd number (strace shows the close's result late) names the older
    /// file: that file is written back and the fd keeps its new file.
    pub(crate) fn close(&mut self, now: u64, fd: i64, path: Option<&str>) {
        let stale = matches!((self.fds.get(&fd), path), (Some(f), Some(p)) if f.path != p);
        if stale {
            if let Some(&file) = path.and_then(|p| self.paths.get(p)) {
                self.flush(now, file);
            }
            return;
        }
        if let Some(f) = self.fds.remove(&fd) {
            self.flush(now, f.file);
        }
    }

    /// `len` bytes written at `offset` of `file`. `Err`: the device is full.
    pub(crate) fn write(
        &mut self,
        now: u64,
        file: usize,
        offset: u64,
        len: u64,
        direct: bool,
    ) -> Result<(), CaptureErrorKind> {
        if len == 0 {
            return Ok(());
        }
        let (b0, b1) = (offset / BLOCK, (offset + len).div_ceil(BLOCK));
        self.allocate(file, b0, b1)?;
        let f = &mut self.files[file];
        f.size = f.size.max(offset + len);
        if direct {
            self.emit_writes(now, file, b0..b1);
        } else {
            f.dirty.extend(b0..b1);
            if f.dirty.len() as u64 >= self.cfg.dirty_limit_blocks {
                self.flush(now, file);
            }
        }
        Ok(())
    }

    /// Map every unmapped block of `[b0, b1)` of `file`.
    fn allocate(&mut self, file: usize, b0: u64, b1: u64) -> Result<(), CaptureErrorKind> {
        let mut fb = b0;
        let mut got = Vec::new();
        while fb < b1 {
            let map = &self.files[file].map;
            if lookup(map, fb).is_some() {
                fb += 1;
                continue;
            }
            let end = map.range(fb..b1).next().map_or(b1, |(&s, _)| s);
            let goal = match fb.checked_sub(1).and_then(|p| lookup(map, p)) {
                Some(p) => p + 1,
                None => map.iter().next_back().map_or(self.alloc.first(), |(_, &(p, l))| p + l),
            };
            got.clear();
            if !self.alloc.alloc(goal, end - fb, &mut got) {
                return Err(CaptureErrorKind::FileSystemFull {
                    wanted_blocks: end - fb,
                    free_blocks: self.alloc.free_blocks(),
                    device_blocks: self.cfg.device_blocks,
                });
            }
            for &(p, l) in &got {
                insert_merged(&mut self.files[file].map, fb, p, l);
                fb += l;
            }
            self.meta_dirty = true;
        }
        self.stats.peak_used_blocks = self.alloc.peak_used;
        Ok(())
    }

    /// Write blocks `blocks` (ascending) of `file`: one record per physically contiguous run.
    fn emit_writes(&mut self, now: u64, file: usize, blocks: impl Iterator<Item = u64>) {
        let f = &self.files[file];
        let mut run: Option<(u64, u64)> = None;
        for fb in blocks {
            let p = lookup(&f.map, fb).expect("a written block is mapped");
            run = match run {
                Some((s, l)) if s + l == p => Some((s, l + 1)),
                Some((s, l)) => {
                    self.out.push(record(now, IoOp::Write, s, l, f.stream));
                    Some((p, 1))
                }
                None => Some((p, 1)),
            };
        }
        if let Some((s, l)) = run {
            self.out.push(record(now, IoOp::Write, s, l, f.stream));
        }
    }

    /// Write back the dirty blocks of `file`.
    pub(crate) fn flush(&mut self, now: u64, file: usize) {
        let dirty = std::mem::take(&mut self.files[file].dirty);
        self.emit_writes(now, file, dirty.into_iter());
    }

    /// Free the blocks of `[a, b)` of `file` (trims), dropping their dirty state.
    fn free_range(&mut self, now: u64, file: usize, a: u64, b: u64) {
        let f = &mut self.files[file];
        let dropped: Vec<u64> = f.dirty.range(a..b).copied().collect();
        self.stats.dirty_blocks_dropped += dropped.len() as u64;
        for d in dropped {
            f.dirty.remove(&d);
        }
        split_at(&mut f.map, a);
        split_at(&mut f.map, b);
        let gone: Vec<u64> = f.map.range(a..b).map(|(&k, _)| k).collect();
        for k in gone {
            let (p, l) = f.map.remove(&k).expect("listed");
            self.alloc.free(p, l);
            self.out.push(record(now, IoOp::Trim, p, l, f.stream));
            self.meta_dirty = true;
        }
    }

    /// Set the size of `file` to `size`, freeing the blocks past it.
    pub(crate) fn truncate(&mut self, now: u64, file: usize, size: u64) {
        self.free_range(now, file, size.div_ceil(BLOCK), u64::MAX);
        self.files[file].size = size;
        self.meta_dirty = true;
    }

    /// `fallocate`: `keep_size`/plain allocate, `punch` frees whole blocks. The caller rejects
    /// other modes.
    pub(crate) fn fallocate(
        &mut self,
        now: u64,
        file: usize,
        punch: bool,
        keep_size: bool,
        offset: u64,
        len: u64,
    ) -> Result<(), CaptureErrorKind> {
        if punch {
            self.free_range(now, file, offset.div_ceil(BLOCK), (offset + len) / BLOCK);
            return Ok(());
        }
        self.allocate(file, offset / BLOCK, (offset + len).div_ceil(BLOCK))?;
        if !keep_size {
            let f = &mut self.files[file];
            f.size = f.size.max(offset + len);
        }
        Ok(())
    }

    /// Remove `path`, freeing its blocks; `false` if the model does not know it.
    pub(crate) fn unlink(&mut self, now: u64, path: &str) -> bool {
        let Some(file) = self.paths.remove(path) else {
            return false;
        };
        self.free_range(now, file, 0, u64::MAX);
        self.stats.files_deleted += 1;
        self.meta_dirty = true;
        true
    }

    /// Rename `from` to `to`, replacing (freeing) a file at `to`.
    pub(crate) fn rename(&mut self, now: u64, from: &str, to: &str) -> bool {
        if from == to {
            return self.paths.contains_key(from);
        }
        let Some(file) = self.paths.remove(from) else {
            return false;
        };
        self.unlink(now, to);
        self.paths.insert(to.to_string(), file);
        for f in self.fds.values_mut().filter(|f| f.file == file) {
            f.path = to.to_string();
        }
        self.meta_dirty = true;
        true
    }

    /// `fsync`/`fdatasync` of `file` (None: a directory): write back, then commit.
    pub(crate) fn sync(&mut self, now: u64, file: Option<usize>) {
        if let Some(file) = file {
            self.flush(now, file);
        }
        self.commit(now);
    }

    /// Commit the journal if metadata is dirty and `commit_interval_ns` has passed.
    pub(crate) fn tick(&mut self, now: u64) {
        if self.meta_dirty && now.saturating_sub(self.last_commit_ns) >= self.cfg.commit_interval_ns {
            self.commit(now);
        }
    }

    fn commit(&mut self, now: u64) {
        if !self.meta_dirty {
            return;
        }
        self.meta_dirty = false;
        self.last_commit_ns = now;
        if self.cfg.journal_blocks == 0 {
            return;
        }
        self.stats.journal_commits += 1;
        let (head, size, stream) = (self.journal_head, self.cfg.journal_blocks, self.cfg.metadata_stream);
        let first = COMMIT_BLOCKS.min(size - head);
        self.out.push(record(now, IoOp::Write, head, first, stream));
        if first < COMMIT_BLOCKS {
            self.out.push(record(now, IoOp::Write, 0, COMMIT_BLOCKS - first, stream));
        }
        self.journal_head = (head + COMMIT_BLOCKS) % size;
    }

    /// The end of the trace: write back every dirty block (file order), then commit.
    pub(crate) fn finish(&mut self, now: u64) {
        for file in 0..self.files.len() {
            self.stats.dirty_blocks_at_end += self.files[file].dirty.len() as u64;
            self.flush(now, file);
        }
        self.commit(now);
        self.stats.peak_used_blocks = self.alloc.peak_used;
    }
}
