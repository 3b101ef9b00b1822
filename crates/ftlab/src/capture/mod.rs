//! `ftlab capture`: turn an strace log of an application (and, for RocksDB, its info `LOG`)
//! into ftlab trace records with a virtual stream per file type, as the vStream paper's
//! RocksDB traces had (§5.1: SSTable levels L0-L5, WAL, MANIFEST, temporary files and
//! file-system metadata: 10 streams). Pure: it reads `BufRead`s and hands records to a
//! callback; the edge that opens and writes files is `api::capture`. docs/capture.md is the
//! user's recipe.
//!
//! - `strace.rs` reads the syscall lines, `eventlog.rs` the LOG's `EVENT_LOG_v1` events (file number →
//!   level), `fs.rs` models the file system (ext4-like allocator in `alloc.rs`, page cache, trims, journal)
//!   and emits the records; this file holds the configuration, the stream rules, the dispatch of each call,
//!   and the summary with every count of what was dropped or could not be modelled.
//! - Time: each record has the time of the strace line that caused it (a split call: its resumed line),
//!   relative to the first line's, in ns. A time earlier than the previous line's is replaced by that one and
//!   counted (`times_backwards`).
//! - Only files under `root` are modelled; calls on other files are counted and ignored.
//!
//! Not here: running the application or strace (Python, `ftlab.capture`); reads (not
//! modelled: a real page cache serves most of them; counted).

pub(crate) mod alloc;
pub(crate) mod eventlog;
pub(crate) mod fs;
pub(crate) mod strace;

use crate::error::{CaptureErrorKind, RuleError, RuleProblem};
use crate::workload::{IoOp, TraceRecord};
use eventlog::EventLog;
use fs::{Fs, FsConfig, FsStats, OpenFlags, BLOCK};
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use strace::{fd_arg, int_arg, str_arg, Call, Line, Ret, StraceParser};

/// Which stream a file's data gets: files whose name (the last path component) matches
/// `pattern` (`*` matches any run of characters; the first matching rule wins) get `stream`,
/// plus the SSTable's level when `plus_level`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamRule {
    pub(crate) pattern: String,
    pub(crate) stream: u16,
    pub(crate) plus_level: bool,
}

impl StreamRule {
    /// Parse `PATTERN=STREAM` or `PATTERN=STREAM+level` (`*.sst=4+level`).
    pub fn parse(text: &str) -> Result<StreamRule, RuleError> {
        let bad = |problem| RuleError { rule: text.to_string(), problem };
        let (pattern, value) = text.rsplit_once('=').ok_or_else(|| bad(RuleProblem::NoStream))?;
        let (num, plus_level) = match value.strip_suffix("+level") {
            Some(n) => (n, true),
            None => (value, false),
        };
        let stream =
            num.trim().parse::<u16>().map_err(|_| bad(RuleProblem::Stream { found: num.to_string() }))?;
        let pattern = pattern.trim();
        if pattern.is_empty() || pattern.contains('/') {
            return Err(bad(RuleProblem::Pattern));
        }
        Ok(StreamRule { pattern: pattern.to_string(), stream, plus_level })
    }

    /// The paper's RocksDB rules (docs/capture.md): 0 file-system metadata and files no rule
    /// names (the info LOG, LOCK), 1 WAL, 2 MANIFEST, 3 temporary files, 4-9 SSTables L0-L5.
    pub(crate) fn rocksdb() -> Vec<StreamRule> {
        ["*.log=1", "MANIFEST-*=2", "*.dbtmp=3", "*.sst=4+level", "*=0"]
            .iter()
            .map(|r| StreamRule::parse(r).expect("built-in rule"))
            .collect()
    }
}

/// `*` glob over a file name.
fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first)
        || !name[first.len()..].ends_with(last)
        || name.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(at) => rest = &rest[at + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The converter's settings. Ranges are checked by `validate` (the `capture` call runs it).
#[derive(Clone, Debug)]
pub struct CaptureConfig {
    /// Only files under this directory are modelled (an absolute path).
    pub(crate) root: String,
    /// The modelled device (file system) size in bytes, a multiple of 4096.
    pub(crate) device_bytes: u64,
    /// Model file-system metadata (the journal) as stream `metadata_stream`.
    pub fs_metadata: bool,
    pub(crate) metadata_stream: u16,
    /// Journal size in bytes (a multiple of 4096); `None`: device/128 clamped to [1 MiB, 1 GiB].
    pub journal_bytes: Option<u64>,
    /// A file's dirty bytes that force a write-back.
    pub dirty_limit_bytes: u64,
    pub(crate) commit_interval_ns: u64,
    pub rules: Vec<StreamRule>,
}

impl CaptureConfig {
    /// RocksDB's defaults for a device of `device_bytes` and a DB directory `root`.
    pub fn rocksdb(root: &str, device_bytes: u64) -> CaptureConfig {
        CaptureConfig {
            root: root.to_string(),
            device_bytes,
            fs_metadata: true,
            metadata_stream: 0,
            journal_bytes: None,
            dirty_limit_bytes: 4 << 20,
            commit_interval_ns: 5_000_000_000,
            rules: StreamRule::rocksdb(),
        }
    }

    fn journal_blocks(&self) -> u64 {
        if !self.fs_metadata {
            return 0;
        }
        self.journal_bytes.unwrap_or((self.device_bytes / 128).clamp(1 << 20, 1 << 30)) / BLOCK
    }

    /// `Err((key, reason))` naming the key and its valid range.
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        let err = |k: &str, r: String| Err((k.to_string(), r));
        if !self.root.starts_with('/') {
            return err("root", format!("must be an absolute directory path, got {:?}", self.root));
        }
        if !(16 << 20..=1 << 52).contains(&self.device_bytes) || !self.device_bytes.is_multiple_of(BLOCK) {
            return err(
                "device_bytes",
                format!("must be a multiple of 4096 in [16 MiB, 4 PiB], got {}", self.device_bytes),
            );
        }
        let journal = self.journal_blocks() * BLOCK;
        if self.fs_metadata
            && (journal < 1 << 20 || journal > self.device_bytes / 4 || !journal.is_multiple_of(BLOCK))
        {
            return err(
                "journal_bytes",
                format!(
                    "must be a multiple of 4096 in [1 MiB, device_bytes / 4 = {}], got {journal}",
                    self.device_bytes / 4
                ),
            );
        }
        if !(BLOCK..=self.device_bytes).contains(&self.dirty_limit_bytes) {
            return err(
                "dirty_limit_bytes",
                format!(
                    "must be in [4096, device_bytes = {}], got {}",
                    self.device_bytes, self.dirty_limit_bytes
                ),
            );
        }
        if !(1_000_000..=3_600_000_000_000).contains(&self.commit_interval_ns) {
            return err(
                "commit_interval_ns",
                format!("must be in [1 ms, 1 h] = [1000000, 3600000000000], got {}", self.commit_interval_ns),
            );
        }
        if self.rules.is_empty() {
            return err(
                "rules",
                "must hold at least one rule (end with \"*=0\" to give every file a stream)".into(),
            );
        }
        Ok(())
    }
}

/// Per-stream totals of the emitted records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct StreamCounts {
    pub(crate) writes: u64,
    pub(crate) write_bytes: u64,
    pub(crate) trims: u64,
    pub(crate) trim_bytes: u64,
}

/// Everything the conversion counted (the sidecar's `capture` object).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CaptureSummary {
    pub(crate) records: u64,
    pub(crate) duration_ns: u64,
    pub(crate) device_bytes: u64,
    pub(crate) journal_bytes: u64,
    /// Stream id → totals.
    pub(crate) streams: BTreeMap<u16, StreamCounts>,
    pub(crate) strace_lines: u64,
    /// Calls modelled, by syscall name.
    pub(crate) calls: BTreeMap<String, u64>,
    /// Calls seen and ignored, by name (not modelled, e.g. reads, or unknown).
    pub(crate) calls_ignored: BTreeMap<String, u64>,
    pub(crate) calls_failed: u64,
    pub(crate) calls_outside_root: u64,
    /// Writes on an fd whose open was not traced (position unknown): dropped.
    pub(crate) writes_unknown_fd: u64,
    pub(crate) write_bytes_unknown_fd: u64,
    /// `fallocate` modes other than plain, KEEP_SIZE and PUNCH_HOLE: ignored.
    pub(crate) fallocate_unsupported: u64,
    /// unlink/rename/truncate of a file under root the model never saw.
    pub(crate) unknown_files: u64,
    pub(crate) lines_without_call: u64,
    pub(crate) resumed_without_start: u64,
    pub(crate) unfinished_at_end: u64,
    pub(crate) times_backwards: u64,
    /// SSTables (file numbers) whose level the LOG does not give: they got the rule's base
    /// stream (level 0).
    pub(crate) sst_level_unknown: BTreeSet<u64>,
    pub(crate) log: EventLog,
    pub(crate) fs: FsStats,
}

impl CaptureSummary {
    /// The summary as pretty JSON (keys in declaration order, streams by id).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the summary serialises")
    }
}

/// A conversion failure: where, and why (the API adds the file names: `error::CaptureError`).
#[derive(Debug)]
pub(crate) enum ConvertError {
    /// A bad setting: its key and valid range.
    Config { key: String, reason: String },
    /// A bad strace line (1-based).
    Strace { line: u64, kind: CaptureErrorKind },
    /// A bad LOG line (1-based).
    Log { line: u64, kind: CaptureErrorKind },
    /// The record sink failed.
    Output(std::io::Error),
}

/// Read the whole LOG (levels are needed before the first SSTable write).
pub(crate) fn read_event_log(log: impl BufRead) -> Result<EventLog, ConvertError> {
    let mut events = EventLog::default();
    for (i, line) in log.split(b'\n').enumerate() {
        let at = |kind| ConvertError::Log { line: i as u64 + 1, kind };
        let line = line.map_err(|e| at(CaptureErrorKind::Read { reason: e.to_string() }))?;
        let text = String::from_utf8_lossy(&line);
        events.add_line(text.trim_end_matches('\r')).map_err(at)?;
    }
    Ok(events)
}

/// Convert: strace lines + the LOG's events → records given to `emit` in order.
pub(crate) fn convert(
    strace_log: impl BufRead,
    events: EventLog,
    cfg: &CaptureConfig,
    emit: &mut dyn FnMut(&TraceRecord) -> std::io::Result<()>,
) -> Result<CaptureSummary, ConvertError> {
    cfg.validate().map_err(|(key, reason)| ConvertError::Config { key, reason })?;
    let mut c = Converter::new(cfg, events);
    let mut line_no = 0u64;
    for line in strace_log.lines() {
        line_no += 1;
        let at = |kind| ConvertError::Strace { line: line_no, kind };
        let line = line.map_err(|e| at(CaptureErrorKind::Read { reason: e.to_string() }))?;
        c.line(&line).map_err(at)?;
        c.drain(emit)?;
    }
    c.summary.strace_lines = line_no;
    c.finish();
    c.drain(emit)?;
    Ok(c.summary)
}

struct Converter<'a> {
    cfg: &'a CaptureConfig,
    parser: StraceParser,
    fs: Fs,
    summary: CaptureSummary,
    start_ns: Option<u64>,
    now: u64,
}

impl<'a> Converter<'a> {
    fn new(cfg: &'a CaptureConfig, log: EventLog) -> Converter<'a> {
        let fs_cfg = FsConfig {
            device_blocks: cfg.device_bytes / BLOCK,
            journal_blocks: cfg.journal_blocks(),
            metadata_stream: cfg.metadata_stream,
            dirty_limit_blocks: cfg.dirty_limit_bytes / BLOCK,
            commit_interval_ns: cfg.commit_interval_ns,
        };
        let summary = CaptureSummary {
            device_bytes: cfg.device_bytes,
            journal_bytes: fs_cfg.journal_blocks * BLOCK,
            log,
            ..Default::default()
        };
        Converter {
            cfg,
            parser: StraceParser::default(),
            fs: Fs::new(fs_cfg),
            summary,
            start_ns: None,
            now: 0,
        }
    }

    fn line(&mut self, line: &str) -> Result<(), CaptureErrorKind> {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            return Ok(());
        }
        match self.parser.parse(line)? {
            Line::Call(call) => self.call(&call),
            Line::Unfinished => Ok(()),
            Line::Orphan => {
                self.summary.resumed_without_start += 1;
                Ok(())
            }
            Line::Skip => {
                self.summary.lines_without_call += 1;
                Ok(())
            }
        }
    }

    /// Set the clock from a call's time (relative to the first, never backwards).
    fn clock(&mut self, time_ns: u64) {
        let start = *self.start_ns.get_or_insert(time_ns);
        let t = time_ns.saturating_sub(start);
        if t < self.now {
            self.summary.times_backwards += 1;
        }
        self.now = self.now.max(t);
        self.fs.tick(self.now);
    }

    fn call(&mut self, c: &Call) -> Result<(), CaptureErrorKind> {
        self.clock(c.time_ns);
        let value = match c.ret {
            Ret::Ok { value, .. } => value,
            Ret::Failed | Ret::Unknown => {
                self.summary.calls_failed += 1;
                return Ok(());
            }
        };
        let modelled = match c.name.as_str() {
            "openat" | "open" | "creat" => self.open(c, value)?,
            "write" | "writev" | "pwrite64" | "pwritev" | "pwritev2" => self.write(c, value as u64)?,
            "lseek" => self.fd_call(c, |fs, _, fd| fs.seek(fd, value as u64)),
            "close" => {
                let path = Self::arg(c, 0).ok().and_then(fd_arg).and_then(|(_, p)| p);
                self.fd_call(c, |fs, now, fd| fs.close(now, fd, path.as_deref()))
            }
            "fsync" | "fdatasync" => self.sync(c),
            "ftruncate" | "truncate" => self.truncate(c)?,
            "fallocate" => self.fallocate(c)?,
            "unlink" | "unlinkat" => self.unlink(c)?,
            "rename" | "renameat" | "renameat2" => self.rename(c)?,
            _ => false,
        };
        let counts = if modelled { &mut self.summary.calls } else { &mut self.summary.calls_ignored };
        *counts.entry(c.name.clone()).or_default() += 1;
        Ok(())
    }

    fn arg(c: &Call, i: usize) -> Result<&str, CaptureErrorKind> {
        c.args.get(i).map(String::as_str).ok_or_else(|| CaptureErrorKind::TooFewArguments {
            call: c.name.clone(),
            expected: i + 1,
            found: c.args.len(),
        })
    }

    fn int(c: &Call, i: usize, what: &'static str) -> Result<u64, CaptureErrorKind> {
        let a = Self::arg(c, i)?;
        int_arg(a)
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| Self::bad_arg(c, i, Some(what), "a non-negative integer", a))
    }

    /// Argument `i` (0-based; `what` it holds) is `found`, not `expected`.
    fn bad_arg(
        c: &Call,
        i: usize,
        what: Option<&'static str>,
        expected: &'static str,
        found: &str,
    ) -> CaptureErrorKind {
        let (call, found) = (c.name.clone(), found.to_string());
        CaptureErrorKind::BadArgument { call, index: i + 1, what, expected, found }
    }

    /// The path of argument `i` (a string, relative to the `-y` directory of `dir_arg`).
    fn path(c: &Call, i: usize, dir_arg: Option<usize>) -> Result<String, CaptureErrorKind> {
        let a = Self::arg(c, i)?;
        let p = str_arg(a).ok_or_else(|| Self::bad_arg(c, i, None, "a quoted path", a))?;
        if p.starts_with('/') {
            return Ok(p);
        }
        let dir = dir_arg.and_then(|d| c.args.get(d)).and_then(|d| fd_arg(d)).and_then(|(_, path)| path);
        let dir =
            dir.ok_or_else(|| CaptureErrorKind::RelativePath { call: c.name.clone(), path: p.clone() })?;
        Ok(format!("{}/{p}", dir.trim_end_matches('/')))
    }

    /// The root directory itself or a path under it.
    fn in_root(&self, path: &str) -> bool {
        path.trim_end_matches('/') == self.cfg.root.trim_end_matches('/') || self.under_root(path)
    }

    fn under_root(&self, path: &str) -> bool {
        let root = self.cfg.root.trim_end_matches('/');
        path.len() > root.len() && path.starts_with(root) && path.as_bytes()[root.len()] == b'/'
    }

    /// The stream of a file by its name, counting SSTables of unknown level.
    fn stream_of(&mut self, path: &str) -> u16 {
        let name = path.rsplit('/').next().unwrap_or(path);
        let Some(rule) = self.cfg.rules.iter().find(|r| glob(&r.pattern, name)) else {
            return self.cfg.metadata_stream;
        };
        if !rule.plus_level {
            return rule.stream;
        }
        match eventlog::table_number(name).and_then(|n| self.summary.log.level(n)) {
            Some(level) => rule.stream.saturating_add(level.min(u32::from(u16::MAX)) as u16),
            None => {
                if let Some(n) = eventlog::table_number(name) {
                    self.summary.sst_level_unknown.insert(n);
                }
                rule.stream
            }
        }
    }

    fn open(&mut self, c: &Call, fd: i64) -> Result<bool, CaptureErrorKind> {
        let Ret::Ok { path: Some(path), .. } = &c.ret else {
            return Err(CaptureErrorKind::FdWithoutPath { call: c.name.clone() });
        };
        let flags_at = if c.name == "openat" { 2 } else { 1 };
        let flags = if c.name == "creat" { "O_CREAT|O_WRONLY|O_TRUNC" } else { Self::arg(c, flags_at)? };
        if !self.in_root(path) {
            self.summary.calls_outside_root += 1;
            return Ok(false);
        }
        if flags.contains("O_DIRECTORY") || !self.under_root(path) {
            return Ok(false); // a directory: its fsync commits the journal (see `sync`)
        }
        let has = |f: &str| flags.split('|').any(|x| x == f);
        let open_flags = OpenFlags {
            create: has("O_CREAT"),
            trunc: has("O_TRUNC"),
            direct: has("O_DIRECT"),
            append: has("O_APPEND"),
        };
        let stream = self.stream_of(path);
        self.fs.open(self.now, fd, path, stream, open_flags);
        Ok(true)
    }

    /// The fd of argument 0, if it is a file under root (counted otherwise).
    fn fd0(&mut self, c: &Call) -> Result<Option<(i64, Option<String>)>, CaptureErrorKind> {
        let a = Self::arg(c, 0)?;
        let (fd, path) = fd_arg(a).ok_or_else(|| Self::bad_arg(c, 0, None, "an fd", a))?;
        if path.as_deref().is_some_and(|p| !self.in_root(p)) {
            self.summary.calls_outside_root += 1;
            return Ok(None);
        }
        Ok(Some((fd, path)))
    }

    fn fd_call(&mut self, c: &Call, f: impl FnOnce(&mut Fs, u64, i64)) -> bool {
        match self.fd0(c) {
            Ok(Some((fd, _))) if self.fs.fd_file(fd).is_some() => {
                f(&mut self.fs, self.now, fd);
                true
            }
            _ => false,
        }
    }

    fn write(&mut self, c: &Call, written: u64) -> Result<bool, CaptureErrorKind> {
        let Some((fd, path)) = self.fd0(c)? else { return Ok(false) };
        let offset = match c.name.as_str() {
            "pwrite64" | "pwritev" | "pwritev2" => Some(Self::int(c, 3, "offset")?),
            _ => self.fs.advance(fd, written),
        };
        let file = match (self.fs.fd_file(fd), &path) {
            (Some(f), _) => Some(f),
            (None, Some(p)) if offset.is_some() => Some(self.file_by_path(p)),
            _ => None,
        };
        let (Some(file), Some(offset)) = (file, offset) else {
            self.summary.writes_unknown_fd += 1;
            self.summary.write_bytes_unknown_fd += written;
            return Ok(false);
        };
        offset.checked_add(written).ok_or_else(|| CaptureErrorKind::OffsetOverflow {
            call: c.name.clone(),
            offset_bytes: offset,
            size_bytes: written,
        })?;
        let direct = self.fs.fd_direct(fd);
        self.fs.write(self.now, file, offset, written, direct)?;
        Ok(true)
    }

    fn sync(&mut self, c: &Call) -> bool {
        match self.fd0(c) {
            Ok(Some((fd, _))) => {
                let file = self.fs.fd_file(fd);
                self.fs.sync(self.now, file);
                true
            }
            _ => false,
        }
    }

    /// The file of an fd argument or a path argument (`truncate`), if modelled.
    fn target(&mut self, c: &Call) -> Result<Option<usize>, CaptureErrorKind> {
        if c.name == "truncate" {
            let p = Self::path(c, 0, None)?;
            if !self.under_root(&p) {
                self.summary.calls_outside_root += 1;
                return Ok(None);
            }
            return Ok(Some(self.file_by_path(&p)));
        }
        let Some((fd, path)) = self.fd0(c)? else { return Ok(None) };
        match (self.fs.fd_file(fd), path) {
            (Some(f), _) => Ok(Some(f)),
            (None, Some(p)) => Ok(Some(self.file_by_path(&p))),
            (None, None) => Ok(None),
        }
    }

    /// The file at `path`, created as pre-existing if the model has not seen it.
    fn file_by_path(&mut self, path: &str) -> usize {
        let stream = self.stream_of(path);
        self.fs.file_at(path, stream, false)
    }

    fn truncate(&mut self, c: &Call) -> Result<bool, CaptureErrorKind> {
        let size = Self::int(c, 1, "length")?;
        let Some(file) = self.target(c)? else { return Ok(false) };
        self.fs.flush(self.now, file);
        self.fs.truncate(self.now, file, size);
        Ok(true)
    }

    fn fallocate(&mut self, c: &Call) -> Result<bool, CaptureErrorKind> {
        let mode = Self::arg(c, 1)?.to_string();
        let (offset, len) = (Self::int(c, 2, "offset")?, Self::int(c, 3, "len")?);
        let Some(file) = self.target(c)? else { return Ok(false) };
        let parts: Vec<&str> = mode.split('|').collect();
        let punch = parts.contains(&"FALLOC_FL_PUNCH_HOLE");
        let keep = parts.contains(&"FALLOC_FL_KEEP_SIZE");
        if !parts.iter().all(|p| matches!(*p, "0" | "FALLOC_FL_KEEP_SIZE" | "FALLOC_FL_PUNCH_HOLE"))
            || offset.checked_add(len).is_none()
        {
            self.summary.fallocate_unsupported += 1;
            return Ok(false);
        }
        self.fs.fallocate(self.now, file, punch, keep, offset, len)?;
        Ok(true)
    }

    fn unlink(&mut self, c: &Call) -> Result<bool, CaptureErrorKind> {
        let path = if c.name == "unlinkat" { Self::path(c, 1, Some(0))? } else { Self::path(c, 0, None)? };
        if c.name == "unlinkat" && Self::arg(c, 2).is_ok_and(|f| f.contains("AT_REMOVEDIR")) {
            return Ok(false);
        }
        if !self.under_root(&path) {
            self.summary.calls_outside_root += 1;
            return Ok(false);
        }
        if !self.fs.unlink(self.now, &path) {
            self.summary.unknown_files += 1;
        }
        Ok(true)
    }

    fn rename(&mut self, c: &Call) -> Result<bool, CaptureErrorKind> {
        let (from, to) = match c.name.as_str() {
            "rename" => (Self::path(c, 0, None)?, Self::path(c, 1, None)?),
            _ => (Self::path(c, 1, Some(0))?, Self::path(c, 3, Some(2))?),
        };
        if !self.under_root(&from) && !self.under_root(&to) {
            self.summary.calls_outside_root += 1;
            return Ok(false);
        }
        if !self.fs.rename(self.now, &from, &to) {
            self.summary.unknown_files += 1;
        }
        Ok(true)
    }

    fn finish(&mut self) {
        self.summary.unfinished_at_end = self.parser.unfinished() as u64;
        self.fs.finish(self.now);
        self.summary.duration_ns = self.now;
    }

    /// Hand the pending records to `emit`, counting them per stream.
    fn drain(
        &mut self,
        emit: &mut dyn FnMut(&TraceRecord) -> std::io::Result<()>,
    ) -> Result<(), ConvertError> {
        for r in self.fs.out.drain(..) {
            let s = self.summary.streams.entry(r.stream).or_default();
            match r.op {
                IoOp::Write => (s.writes += 1, s.write_bytes += r.size_bytes),
                IoOp::Trim => (s.trims += 1, s.trim_bytes += r.size_bytes),
                IoOp::Read => unreachable!("the capture emits no reads"),
            };
            self.summary.records += 1;
            emit(&r).map_err(ConvertError::Output)?;
        }
        self.summary.fs = self.fs.stats.clone();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
