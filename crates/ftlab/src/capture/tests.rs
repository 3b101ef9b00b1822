//! Unit tests of the capture converter on a hand-written strace and LOG
//! (`tests/fixtures/capture/small.{strace,LOG}`): every expected record is worked out by hand
//! in the comments from the allocator's rules, not from the code under test.
//!
//! Not here: the db_bench capture end to end (tests/python/test_capture.py).

use super::*;

const STRACE: &str = include_str!("../../tests/fixtures/capture/small.strace");
const LOG: &str = include_str!("../../tests/fixtures/capture/small.LOG");
type Rec = (u64, IoOp, u64, u64, u16);

fn run(strace_text: &str, cfg: &CaptureConfig) -> Result<(Vec<Rec>, CaptureSummary), ConvertError> {
    let events = read_event_log(LOG.as_bytes())?;
    let mut out = Vec::new();
    let summary = convert(strace_text.as_bytes(), events, cfg, &mut |r| {
        out.push((r.time.ns(), r.op, r.offset_bytes, r.size_bytes, r.stream));
        Ok(())
    })?;
    Ok((out, summary))
}

fn cfg() -> CaptureConfig {
    // 16 MiB device; journal = max(16 MiB / 128, 1 MiB) = 1 MiB = blocks 0..256; data from 256.
    CaptureConfig::rocksdb("/db", 16 << 20)
}

#[test]
fn the_small_capture_gives_the_records_worked_out_by_hand() {
    use IoOp::{Trim as T, Write as W};
    let (records, s) = run(STRACE, &cfg()).unwrap();
    let b = |block: u64| block * 4096;
    let expected: Vec<Rec> = vec![
        (400_000, W, b(258), 4096, 2), // MANIFEST fsync: its block went after the WAL's 256, 257
        (400_000, W, b(0), 12288, 0),  // journal commit (creates, allocations)
        (500_000, W, b(256), 8192, 1), // WAL fdatasync: 5000 bytes = 2 blocks
        (2_000_000, W, b(259), 8192, 4), // 000007.sst, O_DIRECT, level 0 (flush job 2) -> 4
        (2_100_000, W, b(3), 12288, 0), // journal commit at the SST's fsync
        (3_100_000, W, b(261), 12288, 5), // 000009.sst, level 1 (compaction job 3) -> 5
        (3_300_000, T, b(259), 8192, 4), // unlink 000007.sst: its extent trimmed, stream 4
        (4_200_000, W, b(259), 4096, 3), // the .dbtmp reuses the freed block first (first fit)
        (4_200_000, W, b(6), 12288, 0), // journal commit
        (6_000_000, W, b(257), 4096, 1), // ftruncate writes back the WAL's dirty 2nd block
        (7_000_000, W, b(9), 12288, 0), // the end: commit of the rename and the truncate
    ];
    assert_eq!(records, expected);
    assert_eq!(s.records, 11);
    assert_eq!(s.duration_ns, 7_000_000);
    let st = |id: u16| s.streams[&id];
    assert_eq!((st(0).writes, st(0).write_bytes), (4, 4 * 12288));
    assert_eq!((st(1).writes, st(1).write_bytes, st(4).trims, st(4).trim_bytes), (2, 12288, 1, 8192));
    assert_eq!(s.streams.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!((s.calls_outside_root, s.writes_unknown_fd, s.write_bytes_unknown_fd), (1, 1, 10));
    assert_eq!((s.calls_failed, s.lines_without_call, s.unfinished_at_end), (1, 1, 0));
    assert_eq!(s.calls_ignored.get("pread64"), Some(&1));
    assert_eq!((s.fs.files_created, s.fs.files_deleted, s.fs.journal_commits), (5, 1, 4));
    assert_eq!((s.log.table_file_creation, s.log.table_file_deletion), (2, 1));
    assert!(s.sst_level_unknown.is_empty());
}

#[test]
fn the_output_is_deterministic_and_the_sidecar_serialises() {
    let a = run(STRACE, &cfg()).unwrap();
    let b = run(STRACE, &cfg()).unwrap();
    assert_eq!(a.0, b.0);
    let json = serde_json::to_string(&a.1).unwrap();
    assert_eq!(json, serde_json::to_string(&b.1).unwrap());
    assert!(json.contains("\"streams\":{\"0\":"), "{json}");
}

#[test]
fn without_metadata_there_is_no_journal_and_no_stream_0() {
    let cfg = CaptureConfig { fs_metadata: false, ..cfg() };
    let (records, s) = run(STRACE, &cfg).unwrap();
    assert_eq!(s.journal_bytes, 0);
    assert!(records.iter().all(|r| r.4 != 0));
    // Data blocks start at 0: the WAL's first write-back is at block 0.
    assert_eq!(records[1], (500_000, IoOp::Write, 0, 8192, 1));
}

#[test]
fn a_sstable_the_log_does_not_know_is_counted() {
    let text = STRACE.replace("000009.sst", "000099.sst");
    let (records, s) = run(&text, &cfg()).unwrap();
    assert_eq!(s.sst_level_unknown.iter().copied().collect::<Vec<_>>(), vec![99]);
    assert!(records.iter().any(|r| r.3 == 12288 && r.4 == 4), "given level 0's stream");
}

#[test]
fn buffered_writes_wait_for_the_dirty_limit_or_a_sync() {
    let text = "1 0.0 openat(AT_FDCWD</>, \"/db/LOG\", O_WRONLY|O_CREAT, 0644) = 3</db/LOG>\n1 0.1 \
                write(3</db/LOG>, \"\"..., 8192) = 8192\n1 0.2 write(3</db/LOG>, \"\"..., 4096) = 4096\n1 \
                0.3 unlink(\"/db/LOG\") = 0\n";
    let cfg = CaptureConfig { dirty_limit_bytes: 8192, fs_metadata: false, ..cfg() };
    let (records, s) = run(text, &cfg).unwrap();
    // The first write reaches the limit and is written back; the second is dropped by the
    // unlink; both are trimmed (the file's info LOG falls to the `*=0` rule).
    assert_eq!(records, vec![(100_000_000, IoOp::Write, 0, 8192, 0), (300_000_000, IoOp::Trim, 0, 12288, 0)]);
    assert_eq!(s.fs.dirty_blocks_dropped, 1);
}

#[test]
fn errors_name_the_line_and_config_errors_the_key() {
    let bad = format!(
        "{}100 1000.1 write(3</db/000004.log>, \"\"...\n",
        STRACE.lines().take(3).map(|l| format!("{l}\n")).collect::<String>()
    );
    match run(&bad, &cfg()) {
        Err(ConvertError::Strace { line: 4, kind: kind @ CaptureErrorKind::Malformed { expected, .. } }) => {
            assert_eq!(expected, "`) = RET` at the end of the call");
            assert!(kind.to_string().contains(") = RET"), "{kind}")
        }
        other => panic!("{other:?}"),
    }
    let full = CaptureConfig { device_bytes: 16 << 20, ..cfg() };
    let huge = "1 0.0 openat(AT_FDCWD</>, \"/db/1.sst\", O_WRONLY|O_CREAT, 0644) = 3</db/1.sst>\n1 0.1 \
                pwrite64(3</db/1.sst>, \"\"..., 20000000, 0) = 20000000\n";
    match run(huge, &full) {
        Err(ConvertError::Strace {
            line: 2,
            kind: kind @ CaptureErrorKind::FileSystemFull { device_blocks, .. },
        }) => {
            // 16 MiB of 4 KiB blocks.
            assert_eq!(device_blocks, 4096);
            let text = kind.to_string();
            assert!(text.contains("full") && text.contains("device_bytes"), "{text}")
        }
        other => panic!("{other:?}"),
    }
    let small = CaptureConfig { device_bytes: 1 << 20, ..cfg() };
    match run(STRACE, &small) {
        Err(ConvertError::Config { key, reason }) => {
            assert!(key == "device_bytes" && reason.contains("[16 MiB"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    match read_event_log("ok\nx EVENT_LOG_v1 {nope\n".as_bytes()) {
        Err(ConvertError::Log { line: 2, kind: CaptureErrorKind::EventJson { .. } }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn stream_rules_parse_and_glob() {
    assert_eq!(
        StreamRule::parse("*.sst=4+level"),
        Ok(StreamRule { pattern: "*.sst".into(), stream: 4, plus_level: true })
    );
    let rule = |r: &str, problem| Err(RuleError { rule: r.into(), problem });
    assert_eq!(StreamRule::parse("*.sst"), rule("*.sst", RuleProblem::NoStream));
    assert!(StreamRule::parse("*.sst").unwrap_err().to_string().contains("PATTERN=STREAM"));
    let found = "70000".to_string();
    assert_eq!(StreamRule::parse("*.x=70000"), rule("*.x=70000", RuleProblem::Stream { found }));
    assert!(StreamRule::parse("*.x=70000").unwrap_err().to_string().contains("[0, 65535]"));
    assert_eq!(StreamRule::parse("a/b=1"), rule("a/b=1", RuleProblem::Pattern));
    assert!(StreamRule::parse("a/b=1").unwrap_err().to_string().contains("without '/'"));
    for (p, n, m) in [
        ("*.log", "000004.log", true),
        ("*.log", "LOG", false),
        ("MANIFEST-*", "MANIFEST-000005", true),
        ("*", "x", true),
        ("a*b*c", "abxc", true),
        ("a*b*c", "acb", false),
        ("ab*ba", "aba", false),
        ("LOG", "LOG", true),
    ] {
        assert_eq!(glob(p, n), m, "{p} on {n}");
    }
}

#[test]
fn a_close_reported_after_the_fd_was_reused_keeps_the_new_file() {
    // Thread 2's close of fd 5 (a.log) completes after thread 1's open got fd 5 for b.log.
    let text = "1 0.0 openat(AT_FDCWD</>, \"/db/a.log\", O_WRONLY|O_CREAT, 0644) = 5</db/a.log>\n1 0.1 \
                write(5</db/a.log>, \"\"..., 4096) = 4096\n2 0.2 close(5</db/a.log> <unfinished ...>\n1 0.3 \
                openat(AT_FDCWD</>, \"/db/b.log\", O_WRONLY|O_CREAT, 0644) = 5</db/b.log>\n2 0.4 <... close \
                resumed>) = 0\n1 0.5 write(5</db/b.log>, \"\"..., 4096) = 4096\n1 0.6 close(5</db/b.log>) = \
                0\n";
    let cfg = CaptureConfig { fs_metadata: false, ..cfg() };
    let (records, s) = run(text, &cfg).unwrap();
    assert_eq!(
        records,
        vec![(400_000_000, IoOp::Write, 0, 4096, 1), (600_000_000, IoOp::Write, 4096, 4096, 1)]
    );
    assert_eq!(s.writes_unknown_fd, 0);
}
