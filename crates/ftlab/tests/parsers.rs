//! Integration tests of the trace parsers (`ftlab::internals::workload::read_trace`) and of
//! `trace_stats`: hand-written fixtures for every format (tests/fixtures/traces), one test
//! per kind of malformation per format, and whole-file checks of the real samples in the
//! repository's `data/traces`.
//!
//! Not here: the simulator, the CLI, or file opening by the API; expected values are
//! computed in the tests from the raw text, never through the parsers under test.

use crate::common;
use common::traces_dir;

use ftlab::internals::workload::stats::{trace_reader_stats, trace_stats};
use ftlab::internals::workload::{read_trace, IoOp, LineError, TraceErrorKind, TraceRecord, MAX_LINE_BYTES};
use ftlab::{SimTime, TraceFormat, TraceStats};
use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use IoOp::{Read as R, Trim as T, Write as W};
use TraceFormat::*;

/// A record as (time_ns, op, offset_bytes, size_bytes, stream).
type Rec = (u64, IoOp, u64, u64, u16);

/// What a parse must produce: these records and nothing else, or (after any number of
/// records) one error on `line` whose reason contains every one of `says`.
enum Want<'a> {
    Records(&'a [Rec]),
    Error { line: u64, says: &'a [&'a str] },
}

fn tuple(r: &TraceRecord) -> Rec {
    (r.time.ns(), r.op, r.offset_bytes, r.size_bytes, r.stream)
}

/// The one checking helper: parse `input` as `format` and compare with `want`.
fn check(format: TraceFormat, input: &str, want: Want) {
    let items: Vec<Result<TraceRecord, LineError>> = read_trace(format, input.as_bytes()).collect();
    let name = format.name();
    match want {
        Want::Records(expected) => {
            let got: Vec<Rec> = items
                .iter()
                .map(|item| tuple(item.as_ref().unwrap_or_else(|e| panic!("{name}: unexpected error: {e}"))))
                .collect();
            assert_eq!(got, expected, "{name}: records of {input:?}");
        }
        Want::Error { line, says } => {
            let (last, before) =
                items.split_last().unwrap_or_else(|| panic!("{name}: no error for {input:?}"));
            assert!(before.iter().all(Result::is_ok), "{name}: more than one error: {items:?}");
            let err = last.as_ref().expect_err(&format!("{name}: no error for {input:?}"));
            assert_eq!(err.line, line, "{name}: wrong line in {err}");
            for s in says {
                assert!(err.kind.to_string().contains(s), "{name}: {err:?} does not say {s:?}");
            }
        }
    }
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ----- valid fixtures, one per format (and two for fio) ------------------------------------

#[test]
fn msr_fixture() {
    // time = FILETIME ticks * 100 ns; Type in any case; stream 0; file order kept although
    // the third record's time goes backwards.
    check(
        Msr,
        &fixture("msr.csv"),
        Want::Records(&[
            (12_816_637_200_306_162_900, R, 3_154_132_992, 4096, 0),
            (12_816_637_200_306_162_900, W, 3_154_137_088, 512, 0),
            (12_816_637_200_206_162_900, W, 0, 65536, 0),
        ]),
    );
}

#[test]
fn systor_fixture() {
    // Header skipped; empty Response accepted; "1456095145.5" = 1456095145 s + 500000000 ns.
    check(
        Systor,
        &fixture("systor.csv"),
        Want::Records(&[
            (1_456_095_145_133_076_000, R, 899_056_122_368, 131_072, 0),
            (1_456_095_145_500_000_000, W, 4096, 4096, 0),
            (1_456_095_146_000_000_000, W, 8192, 512, 0),
        ]),
    );
}

#[test]
fn mqsim_fixture() {
    // offset = lba * 512, size = sectors * 512; type 1 = read, 0 = write; tabs are
    // whitespace too; 4294967296 * 512 = 2199023255552.
    check(
        Mqsim,
        &fixture("mqsim.trace"),
        Want::Records(&[
            (0, W, 0, 4096, 0),
            (1500, R, 1_048_576, 8192, 0),
            (1500, W, 2_199_023_255_552, 512, 0),
        ]),
    );
}

#[test]
fn spc_fixture() {
    // asu -> stream; lba * 512: 303567*512 = 155426304, 303574*512 = 155429888,
    // 20941264*512 = 10721927168; spaces after commas and an optional 6th field accepted;
    // the zero-size record (legal in SPC) is skipped.
    check(
        Spc,
        &fixture("spc.spc"),
        Want::Records(&[
            (0, W, 155_426_304, 3584, 0),
            (13_264_000, R, 155_429_888, 512, 1),
            (551_706_000, R, 10_721_927_168, 8192, 0),
        ]),
    );
    // The zero-size record is counted as skipped, not dropped silently.
    let text = fixture("spc.spc");
    let mut reader = read_trace(Spc, text.as_bytes());
    assert_eq!(reader.by_ref().count(), 3);
    assert_eq!(reader.skipped(), 1);
}

#[test]
fn tencent_fixture() {
    // io_type 1 = write, 0 = read; sectors * 512; volume_id -> stream.
    check(
        Tencent,
        &fixture("tencent.csv"),
        Want::Records(&[
            (1_538_323_200_000_000_000, W, 1_048_576, 4096, 1283),
            (1_538_323_200_000_000_000, R, 2_097_152, 8192, 1283),
            (1_538_323_201_000_000_000, W, 0, 512, 7),
        ]),
    );
}

#[test]
fn alibaba_fixture() {
    // timestamp_us * 1000; device_id -> stream; opcode in any case.
    check(
        Alibaba,
        &fixture("alibaba.csv"),
        Want::Records(&[
            (1_577_808_000_000_001_000, R, 126_703_644_672, 4096, 0),
            (1_577_808_000_000_002_000, W, 2_054_098_944, 16384, 0),
            (1_577_808_000_000_010_000, W, 0, 512, 815),
        ]),
    );
}

#[test]
fn blkparse_fixture() {
    // Only D events with data: W 2048+8 (2048*512 = 1048576, 8*512 = 4096), RS 0+256,
    // DS (discard) 1000000+2048 = 512000000 / 1048576, WFS 4096+16 with an elapsed column.
    // Skipped: Q/G/I/C/m/U events, D FN (no data), a pass-through D (bytes, no "+"), a
    // zero-sector D, the "Input file" lines and the summary blocks.
    check(
        Blkparse,
        &fixture("blkparse.txt"),
        Want::Records(&[
            (3250, W, 1_048_576, 4096, 0),
            (100_000, R, 0, 131_072, 0),
            (400_000, T, 512_000_000, 1_048_576, 0),
            (1_000_000, W, 2_097_152, 8192, 0),
        ]),
    );
    // The three D events with no request (D FN, the pass-through D R 36, D W with no range)
    // are counted as skipped; the other actions are the same requests' other events.
    let text = fixture("blkparse.txt");
    let mut reader = read_trace(Blkparse, text.as_bytes());
    assert_eq!(reader.by_ref().count(), 4);
    assert_eq!(reader.skipped(), 3);
}

#[test]
fn fio_v2_fixture() {
    // No timestamps: time 0 until the first wait (1500 us), then 1500 + 250 us.
    check(
        Fio,
        &fixture("fio-v2.log"),
        Want::Records(&[
            (0, W, 0, 4096, 0),
            (0, R, 4096, 8192, 0),
            (1_500_000, T, 1_048_576, 65536, 0),
            (1_750_000, W, 8192, 4096, 0),
        ]),
    );
}

#[test]
fn fio_v3_fixture() {
    // Timestamps in microseconds; a zero-length trim is accepted.
    check(
        Fio,
        &fixture("fio-v3.log"),
        Want::Records(&[(878_000, W, 0, 16384, 0), (888_000, R, 16384, 4096, 0), (891_000, T, 0, 0, 0)]),
    );
}

#[test]
fn msprod_fixture() {
    // TimeStamp in µs * 1000 = ns; ByteOffset and IOSize hexadecimal (either digit case);
    // DiskNum -> stream; the header block and the DiskReadInit, FileIoCreate, DiskFlush and
    // HardFault events skipped; a FileName with a comma and an empty FileName accepted; file
    // order kept although the last time goes backwards.
    check(
        Msprod,
        &fixture("msprod.csv"),
        Want::Records(&[
            (10_530_000, R, 0x4a3c000, 0x1000, 1),    // 77_840_384, 4096
            (10_611_000, W, 0, 0x10000, 0),           // 65536
            (10_600_000, W, 0x1_FFFF_FE00, 0x200, 2), // 8_589_934_080, 512
        ]),
    );
}

#[test]
fn fiu_fixture() {
    // ts in ns as is; lba and size in 512-byte sectors; op R/W in any case; stream 0.
    // Accepted: CRLF on the first three lines, a blank line, a tab-separated line, runs of
    // spaces, two digests after a 16-sector write; file order kept although line 8's time
    // goes backwards.
    check(
        Fiu,
        &fixture("fiu.trace"),
        Want::Records(&[
            (89_966_527_724_133, W, 144_994_910_208, 4096, 0), // 283193184 * 512, 8 * 512
            (89_966_527_731_907, W, 144_994_914_304, 4096, 0), // 283193192 * 512
            (89_966_528_001_552, R, 536_870_912, 4096, 0),     // 1048576 * 512
            (89_966_528_001_552, R, 536_875_008, 4096, 0),     // 1048584 * 512, "r"
            (89_966_528_250_000, W, 268_435_456, 4096, 0),     // 524288 * 512, tabs
            (89_966_529_000_000, W, 0, 4096, 0),               // lba 0
            (89_966_528_999_999, R, 4096, 4096, 0),            // 8 * 512; time goes back
            (89_966_530_000_000, W, 144_994_918_400, 8192, 0), // 283193200 * 512, 16 * 512, "w"
            (89_966_531_000_000, R, 4_398_046_507_008, 4096, 0), // 8589934584 * 512 = 2^42 - 4096
            (89_966_531_000_400, R, 4_398_046_511_104, 512, 0), // 8589934592 * 512 = 2^42, 1 sector
            (89_966_532_123_456, W, 39_833_600, 4096, 0),      // 77800 * 512, runs of spaces
            (89_966_532_123_999, W, 144_994_922_496, 4096, 0), // 283193208 * 512
        ]),
    );
    assert_eq!(TraceFormat::from_name("fiu"), Some(Fiu));
    assert!(TraceFormat::ALL.contains(&Fiu));
}

#[test]
fn vscsi_fixture() {
    // The published CSV form (libCacheSim's CloudPhysics `trace.csv`): opcodes in hexadecimal
    // WITHOUT a prefix, several of them all digits (28, 88, 00, 42), in either case and with
    // spaces after commas; time in seconds (a fraction accepted): ns = s * 10^9; offset =
    // lbn * 512; size in bytes; the header and a blank line skipped. Skipped and counted (3):
    // TEST UNIT READY 00, UNMAP 42 (read as decimal it would be 0x2a, a WRITE(10)), a
    // zero-length WRITE(10). File order kept although 33901.5 comes after 33902.
    let text = fixture("vscsi.csv");
    check(
        Vscsi,
        &text,
        Want::Records(&[
            (33_898_000_000_000, R, 1_048_576, 4096, 0), // 28 READ(10), 2048 * 512
            (33_898_000_000_000, W, 2_097_152, 8192, 0), // 2a WRITE(10), 4096 * 512
            (33_899_000_000_000, R, 2_199_023_255_552, 65536, 0), // 88 READ(16), 2^32 * 512 = 2^41
            (33_899_000_000_000, W, 4096, 4096, 0),      // 8A WRITE(16), 8 * 512
            (33_901_000_000_000, R, 51_200, 512, 0),     // 8 READ(6), 100 * 512
            (33_901_000_000_000, W, 52_224, 1024, 0),    // 0a WRITE(6), 102 * 512
            (33_902_000_000_000, R, 0, 4096, 0),         // a8 READ(12), lbn 0
            (33_902_000_000_000, W, 8192, 4096, 0),      // aa WRITE(12), 16 * 512
            (33_901_500_000_000, W, 16_384, 4096, 0),    // 2e WRITE AND VERIFY(10), 32 * 512
            (33_904_000_000_000, R, 32_768, 512, 0),     // 28 READ(10), 64 * 512
        ]),
    );
    let mut reader = read_trace(Vscsi, text.as_bytes());
    assert_eq!(reader.by_ref().count(), 10);
    assert_eq!(reader.skipped(), 3);
    assert_eq!(TraceFormat::from_name("vscsi"), Some(Vscsi));
    assert!(TraceFormat::ALL.contains(&Vscsi));
}

#[test]
fn vscsi_fixture_with_0x_prefixes() {
    // The same format with `0x`/`0X` prefixed opcodes; 7200.000001 s = 7_200_000_001_000 ns.
    // Skipped and counted (2): SYNCHRONIZE CACHE(10) 0x35 and INQUIRY 0x12.
    let text = fixture("vscsi-0x.csv");
    check(
        Vscsi,
        &text,
        Want::Records(&[
            (7_200_000_000_000, R, 1_048_576, 4096, 0), // 0x28, 2048 * 512
            (7_200_000_001_000, W, 2_097_152, 8192, 0), // 0x2a, 4096 * 512
            (7_201_000_000_000, R, 512, 512, 0),        // 0X88, 1 * 512
            (7_201_000_000_000, W, 0, 1024, 0),         // 0x8a, lbn 0
            (7_203_000_000_000, W, 4096, 512, 0),       // 0x0A WRITE(6), 8 * 512
        ]),
    );
    let mut reader = read_trace(Vscsi, text.as_bytes());
    assert_eq!(reader.by_ref().count(), 5);
    assert_eq!(reader.skipped(), 2);
}

#[test]
fn vscsi_opcodes_are_hexadecimal_never_decimal() {
    // (op as written, Some(what it is) or None: skipped and counted). Each all-digit code is
    // read in hexadecimal: as decimal, 28 would be 0x1c and 88 0x58 (both skipped), while 42
    // would be 0x2a (a write) and 40 0x28 (a read).
    let cases: &[(&str, Option<IoOp>)] = &[
        ("28", Some(R)),
        ("0x28", Some(R)),
        ("0028", Some(R)),
        ("88", Some(R)),
        ("08", Some(R)),
        ("8", Some(R)),
        ("a8", Some(R)),
        ("2a", Some(W)),
        ("2A", Some(W)),
        ("0X2a", Some(W)),
        ("8a", Some(W)),
        ("a", Some(W)),
        ("aa", Some(W)),
        ("2e", Some(W)),
        ("ae", Some(W)),
        ("8e", Some(W)),
        ("42", None),
        ("40", None),
        ("12", None),
        ("35", None),
        ("91", None),
        ("0", None),
        ("ff", None),
    ];
    for &(op, want) in cases {
        let line = format!("1,5,{op},4096,8\n");
        let mut reader = read_trace(Vscsi, line.as_bytes());
        let got: Vec<IoOp> = reader.by_ref().map(|r| r.unwrap_or_else(|e| panic!("{op}: {e}")).op).collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "op {op:?}");
        assert_eq!(reader.skipped(), u64::from(want.is_none()), "op {op:?}");
    }
}

#[test]
fn ftlab_csv_fixture() {
    // A comment line and a header in any case; op in any case; a trim of size 0 accepted; the
    // stream column kept for trims (65535 is the largest stream id); file order kept although
    // the last time goes backwards.
    check(
        FtlabCsv,
        &fixture("ftlab.csv"),
        Want::Records(&[
            (0, W, 4096, 8192, 1),
            (1500, R, 0, 512, 0),
            (2000, T, 4096, 0, 65535),
            (1999, T, 12288, 4096, 7),
        ]),
    );
    assert_eq!(TraceFormat::from_name("ftlab-csv"), Some(FtlabCsv));
    assert!(TraceFormat::ALL.contains(&FtlabCsv));
}

#[test]
fn ftlab_csv_writes_what_it_reads() {
    use ftlab::internals::workload::ftlab_csv::{write_header, write_record};
    let records: Vec<TraceRecord> = [(7u64, W, 0u64, 4096u64, 3u16), (9, T, 4096, 8192, 4), (10, R, 1, 1, 0)]
        .iter()
        .map(|&(t, op, offset_bytes, size_bytes, stream)| TraceRecord {
            time: SimTime::from_ns(t),
            op,
            offset_bytes,
            size_bytes,
            stream,
        })
        .collect();
    let mut text = Vec::new();
    write_header(&mut text).unwrap();
    for r in &records {
        write_record(&mut text, r).unwrap();
    }
    let text = String::from_utf8(text).unwrap();
    assert_eq!(
        text,
        "time_ns,op,offset_bytes,size_bytes,stream\n7,write,0,4096,3\n9,trim,4096,8192,4\n10,read,1,1,0\n"
    );
    let back: Vec<TraceRecord> = read_trace(FtlabCsv, text.as_bytes()).map(Result::unwrap).collect();
    assert_eq!(back, records);
}

// ----- rules shared by every format --------------------------------------------------------

#[test]
fn blank_lines_and_crlf_are_accepted_everywhere() {
    let msprod = format!(
        "{MSPROD_HEADER}\r\n DiskWrite, 7, p ( 1), 1, 0x1, 0x200, 0x200, 1, 3, 0x0, 1, Normal, 0x0, 0x0, \
         f\r\n"
    );
    let cases: [(TraceFormat, &str, Rec); 12] = [
        (Msr, "\r\n  \n1,h,0,Read,0,512,1\r\n\t\n", (100, R, 0, 512, 0)),
        (
            Systor,
            "\nTimestamp,Response,IOType,LUN,Offset,Size\r\n\r\n1.5,,R,0,0,512\r\n",
            (1_500_000_000, R, 0, 512, 0),
        ),
        (Mqsim, " \r\n7 0 1 1 1\r\n", (7, R, 512, 512, 0)),
        (Spc, "\r\n0,1,512,r,0.5\r\n", (500_000_000, R, 512, 512, 0)),
        (Tencent, "\r\n2,1,1,0,3\r\n", (2_000_000_000, R, 512, 512, 3)),
        (Alibaba, "\r\n3,R,0,512,2\r\n", (2000, R, 0, 512, 3)),
        (Blkparse, "\r\n  8,0  0  1  0.000000002  1  D  R 1 + 1 [x]\r\n", (2, R, 512, 512, 0)),
        (Fio, "\r\nfio version 3 iolog\r\n\r\n4 f read 0 512\r\n", (4000, R, 0, 512, 0)),
        (Msprod, &msprod, (7000, W, 512, 512, 3)),
        (Fiu, "\r\n \n7 1 p 1 1 R 8 0 d\r\n\r\n", (7, R, 512, 512, 0)),
        (Vscsi, "\r\nversion,time,op,size,lbn\r\n\r\n2,7,28,512,1\r\n", (7_000_000_000, R, 512, 512, 0)),
        (
            FtlabCsv,
            "\r\ntime_ns,op,offset_bytes,size_bytes,stream\r\n\r\n5,trim,0,512,2\r\n",
            (5, T, 0, 512, 2),
        ),
    ];
    for (format, input, rec) in cases {
        check(format, input, Want::Records(&[rec]));
    }
}

#[test]
fn timestamps_keep_file_order_even_when_going_backwards() {
    check(Mqsim, "9 0 0 1 1\n3 0 0 1 0\n", Want::Records(&[(9, R, 0, 512, 0), (3, W, 0, 512, 0)]));
}

#[test]
fn fractions_convert_exactly_and_truncate_below_a_nanosecond() {
    // 0.1 s is not exact in binary floating point; here it must be exactly 100000000 ns.
    // "2.0000000019" keeps 9 fraction digits: 2000000001 ns.
    let input =
        "Timestamp,Response,IOType,LUN,Offset,Size\n0.1,,R,0,0,1\n2.0000000019,,R,0,0,1\n7.,,R,0,0,1\n";
    check(
        Systor,
        input,
        Want::Records(&[(100_000_000, R, 0, 1, 0), (2_000_000_001, R, 0, 1, 0), (7_000_000_000, R, 0, 1, 0)]),
    );
}

#[test]
fn errors_name_the_line_counting_blank_and_skipped_lines() {
    check(
        Systor,
        "Timestamp,Response,IOType,LUN,Offset,Size\n\n1,,R,0,0,1\n\n2,,R,0,0,abc\n",
        Want::Error { line: 5, says: &["field 6 (Size): expected an unsigned integer, got \"abc\""] },
    );
}

#[test]
fn the_iterator_stops_after_the_first_error() {
    let mut it = read_trace(Mqsim, "1 0 0 1 1\nbad\n2 0 0 1 1\n3 0 0 1 1\n".as_bytes());
    assert!(it.next().unwrap().is_ok());
    assert_eq!(it.next().unwrap().unwrap_err().line, 2);
    assert!(it.next().is_none());
    assert!(it.next().is_none());
}

#[test]
fn invalid_utf8_is_an_error_with_its_line() {
    let input: &[u8] = b"1 0 0 1 1\n2 0 \xff 1 1\n";
    let items: Vec<_> = read_trace(Mqsim, input).collect();
    assert_eq!(items.len(), 2);
    let err = items[1].as_ref().unwrap_err();
    assert_eq!(err.line, 2);
    assert_eq!(err.kind, TraceErrorKind::NotUtf8);
    assert!(err.to_string().contains("UTF-8"), "{err}");
}

#[test]
fn an_overlong_line_is_an_error_not_unbounded_memory() {
    let long = "7".repeat(MAX_LINE_BYTES as usize + 10);
    check(
        Mqsim,
        &format!("1 0 0 1 1\n{long}\n"),
        Want::Error { line: 2, says: &["longer than 65536 bytes"] },
    );
    // A line just under the cap (leading zeros in the time field) is read normally.
    let almost = format!("{} 0 0 1 1\n", "0".repeat(MAX_LINE_BYTES as usize - 20));
    check(Mqsim, &almost, Want::Records(&[(0, R, 0, 512, 0)]));
    // A final line of exactly the cap, without a terminator, is complete: it is read.
    let exact = format!("{} 0 0 1 1", "0".repeat(MAX_LINE_BYTES as usize - 8));
    assert_eq!(exact.len() as u64, MAX_LINE_BYTES);
    check(Mqsim, &exact, Want::Records(&[(0, R, 0, 512, 0)]));
    check(Mqsim, &format!("{exact}\n"), Want::Error { line: 1, says: &["longer than 65536 bytes"] });
}

#[test]
fn empty_input_is_empty_where_no_header_is_required() {
    for format in [Msr, Mqsim, Spc, Tencent, Alibaba, Blkparse, Fiu, Vscsi] {
        check(format, "", Want::Records(&[]));
        check(format, "\n\n", Want::Records(&[]));
    }
}

// ----- malformations, per format -----------------------------------------------------------

/// (input, line of the error, fragments its reason must contain)
type Bad<'a> = (&'a str, u64, &'a [&'a str]);

fn check_all_bad(format: TraceFormat, cases: &[Bad]) {
    for &(input, line, says) in cases {
        check(format, input, Want::Error { line, says });
    }
}

#[test]
fn msr_malformations() {
    check_all_bad(
        Msr,
        &[
            ("1,hm,0,Read,0,512\n", 1, &["expected 7 fields", "got 6"]),
            ("1,hm,0,Read,0,512,1,9\n", 1, &["expected 7 fields", "got 8"]),
            (
                "1,hm,0,Read,0,512,1\n1,hm,0,Read,abc,512,1\n",
                2,
                &["field 5 (Offset)", "unsigned integer", "\"abc\""],
            ),
            ("1,hm,0,Read,0,-512,1\n", 1, &["field 6 (Size)", "negative number \"-512\""]),
            ("1,hm,0,Read,0,+512,1\n", 1, &["field 6 (Size)", "unsigned integer", "\"+512\""]),
            (
                "99999999999999999999,hm,0,Read,0,512,1\n",
                1,
                &["field 1 (Timestamp)", "does not fit in 64 bits"],
            ),
            // 2e17 ticks * 100 ns = 2e19 ns > u64::MAX (1.8e19).
            (
                "200000000000000000,hm,0,Read,0,512,1\n",
                1,
                &["field 1 (Timestamp)", "ticks of 100 ns overflow"],
            ),
            ("1,hm,0,Delete,0,512,1\n", 1, &["field 4 (Type)", "\"Read\" or \"Write\"", "\"Delete\""]),
            ("1,hm,0,Write,0,0,1\n", 1, &["field 6 (Size)", "size must be > 0"]),
            ("1,hm,0,Write,18446744073709551615,1,1\n", 1, &["field 6 (Size)", "overflows"]),
        ],
    );
}

const SYSTOR_HEADER: &str = "Timestamp,Response,IOType,LUN,Offset,Size\n";

#[test]
fn systor_malformations() {
    let with_header = |body: &str| format!("{SYSTOR_HEADER}{body}");
    let cases: Vec<(String, u64, &[&str])> = vec![
        ("1.5,,R,0,0,512\n".into(), 1, &["missing header", "Timestamp,Response,IOType,LUN,Offset,Size"]),
        ("".into(), 1, &["missing header", "end of the input"]),
        ("\n\n".into(), 3, &["missing header"]),
        (with_header("1.5,,R,0,0\n"), 2, &["expected 6 fields", "got 5"]),
        (with_header("1.5x,,R,0,0,512\n"), 2, &["field 1 (Timestamp)", "decimal number", "\"1.5x\""]),
        (with_header("-1.5,,R,0,0,512\n"), 2, &["field 1 (Timestamp)", "negative"]),
        (with_header("1e3,,R,0,0,512\n"), 2, &["field 1 (Timestamp)", "decimal number"]),
        (with_header("1.5,,X,0,0,512\n"), 2, &["field 3 (IOType)", "\"R\" or \"W\"", "\"X\""]),
        (with_header("1.5,,R,0,0,12a\n"), 2, &["field 6 (Size)", "\"12a\""]),
        (with_header("1.5,,R,0,0,0\n"), 2, &["field 6 (Size)", "size must be > 0"]),
        (
            with_header("99999999999.5,,R,0,0,1\n"),
            2,
            &["field 1 (Timestamp)", "overflows the 64-bit nanosecond clock"],
        ),
    ];
    for (input, line, says) in &cases {
        check(Systor, input, Want::Error { line: *line, says });
    }
    // A repeated header (concatenated files) is skipped, not an error.
    check(
        Systor,
        &format!("{SYSTOR_HEADER}1,,R,0,0,1\n{SYSTOR_HEADER}2,,W,0,0,1\n"),
        Want::Records(&[(1_000_000_000, R, 0, 1, 0), (2_000_000_000, W, 0, 1, 0)]),
    );
}

#[test]
fn mqsim_malformations() {
    check_all_bad(
        Mqsim,
        &[
            ("1 0 0 8\n", 1, &["expected 5 fields", "arrival_ns device lba size_sectors type", "got 4"]),
            ("1,0,0,8,1\n", 1, &["expected 5 fields", "got 1"]),
            ("1 0 0 8 2\n", 1, &["field 5 (type)", "1 (read) or 0 (write)", "\"2\""]),
            ("x 0 0 8 1\n", 1, &["field 1 (arrival_ns)", "unsigned integer"]),
            ("0.025 0 0 8 1\n", 1, &["field 1 (arrival_ns)", "DiskSim"]),
            ("1 0 -4 8 1\n", 1, &["field 3 (lba)", "negative"]),
            // 2^55 sectors * 512 = 2^64 bytes: one past u64::MAX.
            ("1 0 36028797018963968 8 1\n", 1, &["field 3 (lba)", "sectors of 512 bytes overflow"]),
            ("1 0 0 0 0\n", 1, &["field 4 (size_sectors)", "size must be > 0"]),
        ],
    );
}

#[test]
fn spc_malformations() {
    check_all_bad(
        Spc,
        &[
            ("0,1,512,r\n", 1, &["expected at least 5 fields", "got 4"]),
            ("0,1,512,x,0.5\n", 1, &["field 4 (opcode)", "\"r\" or \"w\"", "\"x\""]),
            ("70000,1,512,r,0.5\n", 1, &["field 1 (asu)", "70000", "stream id"]),
            ("0,1,512,r,abc\n", 1, &["field 5 (timestamp_s)", "decimal number"]),
            ("0,1,-512,r,0.5\n", 1, &["field 3 (size_bytes)", "negative"]),
            ("0,1 2,512,r,0.5\n", 1, &["field 2 (lba)", "\"1 2\""]),
        ],
    );
}

#[test]
fn tencent_malformations() {
    check_all_bad(
        Tencent,
        &[
            ("1,0,8,1\n", 1, &["expected 5 fields", "got 4"]),
            ("1,0,8,2,0\n", 1, &["field 4 (io_type)", "0 (read) or 1 (write)", "\"2\""]),
            ("1,0,8,1,65536\n", 1, &["field 5 (volume_id)", "stream id"]),
            ("1,-8,8,1,0\n", 1, &["field 2 (offset_sectors)", "negative"]),
            ("1,0,eight,1,0\n", 1, &["field 3 (size_sectors)", "\"eight\""]),
            ("1,0,0,0,0\n", 1, &["field 3 (size_sectors)", "size must be > 0"]),
            ("t,0,8,1,0\n", 1, &["field 1 (timestamp_s)", "decimal number"]),
        ],
    );
}

const FTLAB_HEADER: &str = "time_ns,op,offset_bytes,size_bytes,stream\n";

#[test]
fn ftlab_csv_malformations() {
    let h = |body: &str| format!("{FTLAB_HEADER}{body}");
    let cases: Vec<(String, u64, &[&str])> = vec![
        ("0,write,0,4096,1\n".into(), 1, &["missing header", "time_ns,op,offset_bytes,size_bytes,stream"]),
        ("".into(), 1, &["missing header", "end of the input"]),
        (h("0,write,0,4096\n"), 2, &["expected 5 fields", "got 4"]),
        (h("0,write,0,4096,1,9\n"), 2, &["expected 5 fields", "got 6"]),
        (h("0.5,write,0,4096,1\n"), 2, &["field 1 (time_ns)", "unsigned integer", "\"0.5\""]),
        (h("0,erase,0,4096,1\n"), 2, &["field 2 (op)", "\"read\", \"write\" or \"trim\"", "\"erase\""]),
        (h("0,write,-1,4096,1\n"), 2, &["field 3 (offset_bytes)", "negative"]),
        (h("0,write,0,4k,1\n"), 2, &["field 4 (size_bytes)", "\"4k\""]),
        (h("0,write,0,0,1\n"), 2, &["field 4 (size_bytes)", "size must be > 0"]),
        (h("0,read,18446744073709551615,1,1\n"), 2, &["field 4 (size_bytes)", "overflows"]),
        (h("0,write,0,4096,65536\n"), 2, &["field 5 (stream)", "65536", "stream id"]),
        (h("0,write,0,4096,\n"), 2, &["field 5 (stream)", "unsigned integer"]),
    ];
    for (input, line, says) in &cases {
        check(FtlabCsv, input, Want::Error { line: *line, says });
    }
    // A repeated header (concatenated files) is skipped, not an error.
    check(
        FtlabCsv,
        &format!("{FTLAB_HEADER}1,read,0,1,0\n{FTLAB_HEADER}2,write,0,1,2\n"),
        Want::Records(&[(1, R, 0, 1, 0), (2, W, 0, 1, 2)]),
    );
}

#[test]
fn alibaba_malformations() {
    check_all_bad(
        Alibaba,
        &[
            ("0,R,0,512\n", 1, &["expected 5 fields", "got 4"]),
            ("0,D,0,512,1\n", 1, &["field 2 (opcode)", "\"R\" or \"W\"", "\"D\""]),
            ("-1,R,0,512,1\n", 1, &["field 1 (device_id)", "negative"]),
            ("0,R,0,512,1e6\n", 1, &["field 5 (timestamp_us)", "decimal number"]),
            ("0,R,0,0,1\n", 1, &["field 4 (length_bytes)", "size must be > 0"]),
            ("0,R,0x10,512,1\n", 1, &["field 3 (offset_bytes)", "\"0x10\""]),
        ],
    );
}

#[test]
fn blkparse_malformations() {
    check_all_bad(
        Blkparse,
        &[
            ("hello world\n", 1, &["field 1 (maj,min)", "event line", "\"hello\""]),
            ("  8,0 0 1 0.1 42 D\n", 1, &["expected at least 7 fields", "got 6"]),
            ("  8,0 0 1 0.1 42 D W\n", 1, &["expected at least 8 fields"]),
            ("  8,0 0 1 abc 42 D W 0 + 8 [x]\n", 1, &["field 4 (time)", "decimal number"]),
            ("  8,0 0 1 0.1 42 D Q 0 + 8 [x]\n", 1, &["field 7 (rwbs)", "\"Q\""]),
            ("  8,0 0 1 0.1 42 D FA 0 + 8 [x]\n", 1, &["field 7 (rwbs)", "one of R, W, D or N"]),
            ("  8,0 0 1 0.1 42 D W 0 - 8 [x]\n", 1, &["field 9 (+)", "\"-\""]),
            ("  8,0 0 1 0.1 42 D W 0\n", 1, &["field 9 (+)", "got \"\""]),
            ("  8,0 0 1 0.1 42 D W 0 + x [p]\n", 1, &["field 10 (count)", "\"x\""]),
            ("  8,0 0 1 0.1 42 D W -5 + 8 [p]\n", 1, &["field 8 (sector)", "negative"]),
            // A non-event line between events (outside a summary block) is an error too.
            ("  8,0 0 1 0.1 42 D W 0 + 8 [p]\nReads Queued: 0\n", 2, &["field 1 (maj,min)", "\"Reads\""]),
        ],
    );
    // After a summary block, event lines are read again (e.g. concatenated outputs).
    let two_runs =
        "  8,0 0 1 0.1 1 D W 0 + 1 [p]\nTotal (sda):\n Reads Queued: 0\n  8,0 0 1 0.2 1 D R 0 + 1 [p]\n";
    check(Blkparse, two_runs, Want::Records(&[(100_000_000, W, 0, 512, 0), (200_000_000, R, 0, 512, 0)]));
}

#[test]
fn fio_malformations() {
    check_all_bad(
        Fio,
        &[
            ("/dev/sda write 0 4096\n", 1, &["missing header", "fio version 2 iolog"]),
            ("", 1, &["missing header", "end of the input"]),
            ("fio version 1 iolog\n", 1, &["unsupported fio iolog version", "\"fio version 1 iolog\""]),
            ("fio version 2 iolog\nf frobnicate 0 1\n", 2, &["field 2 (action)", "\"frobnicate\""]),
            (
                "fio version 2 iolog\nf read 0\n",
                2,
                &["field 2 (action)", "needs an offset and a length", "expected 4 fields, got 3"],
            ),
            (
                "fio version 2 iolog\nf open 0 1\n",
                2,
                &["field 2 (action)", "takes no offset or length", "expected 2 fields, got 4"],
            ),
            ("fio version 2 iolog\nf write 0 4096 9\n", 2, &["field 2 (action)", "expected 4 fields, got 5"]),
            ("fio version 2 iolog\nf\n", 2, &["expected 2 or 4 fields", "got 1"]),
            ("fio version 2 iolog\nf write x 4096\n", 2, &["field 3 (offset)", "\"x\""]),
            ("fio version 2 iolog\nf write 0 0\n", 2, &["field 4 (length)", "size must be > 0"]),
            ("fio version 2 iolog\nf wait soon\n", 2, &["field 3 (offset)", "\"soon\""]),
            ("fio version 2 iolog\nf wait\n", 2, &["field 2 (action)", "needs a time in microseconds"]),
            ("fio version 3 iolog\nf write 0 4096\n", 2, &["field 1 (timestamp)", "\"f\""]),
            ("fio version 3 iolog\n5 f\n", 2, &["expected 3 or 5 fields", "got 2"]),
            (
                "fio version 3 iolog\n5 f wait 100 0\n",
                2,
                &["field 3 (action)", "not allowed in a version 3 iolog"],
            ),
            ("fio version 3 iolog\n5 f read 0 -1\n", 2, &["field 5 (length)", "negative"]),
            (
                "fio version 3 iolog\n18446744073709552 f read 0 1\n",
                2,
                &["field 1 (timestamp)", "microseconds overflow"],
            ),
        ],
    );
}

/// The smallest valid header block (no column lists), with a line end after `EndHeader`
/// left to the caller.
const MSPROD_HEADER: &str = "BeginHeader\nEndHeader";

/// A `DiskRead` line with the given TimeStamp, ByteOffset, IOSize and DiskNum.
fn msprod_read(ts: &str, offset: &str, size: &str, disk: &str) -> String {
    format!(
        "DiskRead, {ts}, System (   4), 56, 0xfffffa80062d1c10, {offset}, {size}, 118, {disk}, 0x00060043, \
         118, Normal, 0x0, 0x0, x\n"
    )
}

#[test]
fn msprod_malformations() {
    let body = |lines: &str| format!("{MSPROD_HEADER}\n{lines}");
    let read = |ts: &str, offset: &str, size: &str, disk: &str| body(&msprod_read(ts, offset, size, disk));
    let header_with = |columns: &str| format!("BeginHeader\n DiskRead, {columns}\nEndHeader\n");
    let cols = "TimeStamp, Process Name ( PID), ThreadID, IrpPtr, ByteOffset, IOSize, ElapsedTime, DiskNum, \
                IrpFlags, DiskSvcTime, I/O Pri, VolSnap, FileObject, FileName";
    let cases: Vec<(String, u64, &[&str])> = vec![
        (
            msprod_read("1", "0x0", "0x200", "0"),
            1,
            &["missing header", "expected \"BeginHeader\" as the first line"],
        ),
        ("".into(), 1, &["missing header", "end of the input"]),
        (
            "BeginHeader\n DiskFlushInit, TimeStamp, Process Name ( PID), ThreadID, IrpPtr\n".into(),
            3,
            &["the input ends inside a header block", "without \"EndHeader\""],
        ),
        ("BeginHeader\nBeginHeader\nEndHeader\n".into(), 2, &["\"BeginHeader\" inside a header block"]),
        (body("EndHeader\n"), 3, &["\"EndHeader\" without a \"BeginHeader\" before it"]),
        (
            header_with(&cols.replace("IOSize", "Size")),
            2,
            &["field 7 (IOSize)", "names this column \"Size\"", "this parser reads"],
        ),
        (
            header_with(&cols.replace("ByteOffset, IOSize", "IOSize, ByteOffset")),
            2,
            &["field 6 (ByteOffset)", "\"IOSize\""],
        ),
        (
            header_with(&format!("{cols}, Priority")),
            2,
            &["the DiskRead header lists 16 columns, expected 15"],
        ),
        (
            header_with("TimeStamp, Process Name ( PID)"),
            2,
            &["the DiskRead header lists 3 columns, expected 15"],
        ),
        (
            body("DiskWrite, 1, p ( 1), 1, 0x1, 0x0, 0x200, 1, 0\n"),
            3,
            &["expected at least 15 fields", "got 9"],
        ),
        (
            read("abc", "0x0", "0x200", "0"),
            3,
            &["field 2 (TimeStamp)", "non-negative decimal number", "\"abc\""],
        ),
        (read("-5", "0x0", "0x200", "0"), 3, &["field 2 (TimeStamp)", "negative number"]),
        (
            read("18446744073709552", "0x0", "0x200", "0"),
            3,
            &["field 2 (TimeStamp)", "overflows the 64-bit nanosecond clock"],
        ),
        (
            read("1", "4096", "0x200", "0"),
            3,
            &["field 6 (ByteOffset)", "hexadecimal number with a 0x prefix", "\"4096\""],
        ),
        (read("1", "0x", "0x200", "0"), 3, &["field 6 (ByteOffset)", "hexadecimal", "\"0x\""]),
        (read("1", "0x1g", "0x200", "0"), 3, &["field 6 (ByteOffset)", "\"0x1g\""]),
        (
            read("1", "0x10000000000000000", "0x200", "0"),
            3,
            &["field 6 (ByteOffset)", "does not fit in 64 bits"],
        ),
        (read("1", "0x0", "-0x200", "0"), 3, &["field 7 (IOSize)", "negative number"]),
        (read("1", "0x0", "0x0", "0"), 3, &["field 7 (IOSize)", "size must be > 0"]),
        (
            read("1", "0xffffffffffffff00", "0x200", "0"),
            3,
            &["field 7 (IOSize)", "overflows the 64-bit byte address space"],
        ),
        (read("1", "0x0", "0x200", "disk1"), 3, &["field 9 (DiskNum)", "unsigned integer", "\"disk1\""]),
        (read("1", "0x0", "0x200", "70000"), 3, &["field 9 (DiskNum)", "too large for a stream id"]),
    ];
    for (input, line, says) in &cases {
        check(Msprod, input, Want::Error { line: *line, says });
    }
    // Concatenated dumps: a second header block after events is skipped; other event kinds,
    // including unknown ones and DiskRead lookalikes, are skipped; upper-case 0X accepted.
    let two = format!(
        "{}\n{}BeginHeader\n DiskRead, {cols}\nEndHeader\nDiskReadInit, 5, p ( 1), 1, 0x1\nSomeNewEvent, \
         6\nDiskReadX, 7, junk\n{}",
        MSPROD_HEADER,
        msprod_read("1", "0x200", "0x200", "0"),
        msprod_read("2.5", "0XABC00", "0X400", "7"),
    );
    check(Msprod, &two, Want::Records(&[(1000, R, 512, 512, 0), (2500, R, 0xabc00, 1024, 7)]));
}

#[test]
fn fiu_malformations() {
    const MD5: &str = "0f9a3c4d5e6b7a8c9d0e1f2a3b4c5d6e";
    let line =
        |ts: &str, lba: &str, size: &str, op: &str| format!("{ts} 4312 nfsd {lba} {size} {op} 6 0 {MD5}\n");
    let good = line("100", "8", "8", "W");
    let cases: Vec<(String, u64, &[&str])> = vec![
        // 8 fields (no digest), then a line cut after the op.
        ("100 4312 nfsd 8 8 W 6 0\n".into(), 1, &["expected at least 9 fields", LAYOUT_FIU, "got 8"]),
        (format!("{good}100 4312 nfsd 8 8 W\n"), 2, &["expected at least 9 fields", "got 6"]),
        // A comma-separated line is one field.
        (format!("{good}{good}100,4312,nfsd,8,8,W,6,0,{MD5}\n"), 3, &["expected at least 9 fields", "got 1"]),
        // A process name with a space shifts its second word into lba.
        (
            format!("100 4312 Web Content 8 8 W 6 0 {MD5}\n"),
            1,
            &["field 4 (lba)", "unsigned integer", "\"Content\""],
        ),
        (line("1.5", "8", "8", "W"), 1, &["field 1 (ts)", "unsigned integer", "\"1.5\""]),
        (line("-100", "8", "8", "W"), 1, &["field 1 (ts)", "negative number \"-100\""]),
        (line("99999999999999999999", "8", "8", "W"), 1, &["field 1 (ts)", "does not fit in 64 bits"]),
        (format!("{good}\n{}", line("100", "0x10", "8", "W")), 3, &["field 4 (lba)", "\"0x10\""]),
        (line("100", "-8", "8", "W"), 1, &["field 4 (lba)", "negative"]),
        // 2^55 sectors * 512 = 2^64 bytes: one past u64::MAX.
        (line("100", "36028797018963968", "8", "W"), 1, &["field 4 (lba)", "sectors of 512 bytes overflow"]),
        (line("100", "8", "eight", "W"), 1, &["field 5 (size)", "\"eight\""]),
        (line("100", "8", "-8", "W"), 1, &["field 5 (size)", "negative"]),
        (line("100", "8", "0", "W"), 1, &["field 5 (size)", "size must be > 0"]),
        (line("100", "8", "0", "R"), 1, &["field 5 (size)", "size must be > 0"]),
        (line("100", "8", "8", "Write"), 1, &["field 6 (op)", "\"R\" or \"W\"", "\"Write\""]),
        (line("100", "8", "8", "D"), 1, &["field 6 (op)", "\"R\" or \"W\"", "\"D\""]),
        // offset 36028797018963967 * 512 = 2^64 - 512, + 2 sectors overflows.
        (line("100", "36028797018963967", "2", "W"), 1, &["field 5 (size)", "overflows"]),
    ];
    for (input, line, says) in &cases {
        check(Fiu, input, Want::Error { line: *line, says });
    }
}

const LAYOUT_FIU: &str = "ts pid process lba size op major minor md5";

#[test]
fn vscsi_malformations() {
    let row = |version: &str, time: &str, op: &str, size: &str, lbn: &str| {
        format!("{version},{time},{op},{size},{lbn}\n")
    };
    let good = row("1", "10", "0x28", "4096", "8");
    let cases: Vec<(String, u64, &[&str])> = vec![
        ("1,10,0x28,4096\n".into(), 1, &["expected 5 fields", "version,time,op,size,lbn", "got 4"]),
        (format!("{good}1,10,0x28,4096,8,0\n"), 2, &["expected 5 fields", "got 6"]),
        // A misspelt header is a data line.
        (
            "version,time,opcode,size,lbn\n".into(),
            1,
            &["field 1 (version)", "unsigned integer", "\"version\""],
        ),
        (row("3", "10", "0x28", "4096", "8"), 1, &["field 1 (version)", "expected 1 or 2", "got 3"]),
        (row("0", "10", "0x28", "4096", "8"), 1, &["field 1 (version)", "expected 1 or 2", "got 0"]),
        (
            format!("{good}\n{}", row("1", "1e3", "0x28", "4096", "8")),
            3,
            &["field 2 (time)", "decimal number", "\"1e3\""],
        ),
        (row("1", "-10", "0x28", "4096", "8"), 1, &["field 2 (time)", "negative"]),
        // 18446744074 s * 10^9 = 1.8446744074e19 ns > u64::MAX (1.8446744073709551615e19).
        (
            row("1", "18446744074", "0x28", "4096", "8"),
            1,
            &["field 2 (time)", "overflows the 64-bit nanosecond clock"],
        ),
        (row("1", "10", "READ", "4096", "8"), 1, &["field 3 (op)", "SCSI operation code", "\"READ\""]),
        (row("1", "10", "28h", "4096", "8"), 1, &["field 3 (op)", "SCSI operation code", "\"28h\""]),
        (row("1", "10", "0x", "4096", "8"), 1, &["field 3 (op)", "hexadecimal", "\"0x\""]),
        (row("1", "10", "", "4096", "8"), 1, &["field 3 (op)", "hexadecimal", "got \"\""]),
        (row("1", "10", "x28", "4096", "8"), 1, &["field 3 (op)", "hexadecimal", "\"x28\""]),
        (row("1", "10", "+28", "4096", "8"), 1, &["field 3 (op)", "\"+28\""]),
        (row("1", "10", "-40", "4096", "8"), 1, &["field 3 (op)", "\"-40\""]),
        (
            row("1", "10", "0x128", "4096", "8"),
            1,
            &["field 3 (op)", "not a SCSI operation code", "at most ff"],
        ),
        // Three hexadecimal digits: 0x100 = 256, one past the largest code.
        (row("1", "10", "100", "4096", "8"), 1, &["field 3 (op)", "not a SCSI operation code", "at most ff"]),
        (row("1", "10", "0x2a", "-4096", "8"), 1, &["field 4 (size)", "negative number \"-4096\""]),
        (row("1", "10", "0x2a", "4k", "8"), 1, &["field 4 (size)", "\"4k\""]),
        (row("1", "10", "0x2a", "4096", "0x8"), 1, &["field 5 (lbn)", "\"0x8\""]),
        (
            row("1", "10", "0x2a", "4096", "36028797018963968"),
            1,
            &["field 5 (lbn)", "sectors of 512 bytes overflow"],
        ),
        (row("1", "10", "0x2a", "4096", "36028797018963967"), 1, &["field 4 (size)", "overflows"]),
        // A skipped command is still validated.
        (row("1", "10", "0x35", "x", "0"), 1, &["field 4 (size)", "\"x\""]),
    ];
    for (input, line, says) in &cases {
        check(Vscsi, input, Want::Error { line: *line, says });
    }
}

#[test]
fn vscsi_skips_and_counts_other_commands_and_zero_lengths() {
    // Every line is well formed; only the READ(10) and WRITE(16) are requests. Skipped (6):
    // INQUIRY 12, UNMAP 0x42, WRITE SAME(16) 93, the variable-length 7f, SYNCHRONIZE
    // CACHE(16) 91, and a READ(10) of size 0 (version 2). Headers are not counted. Times in
    // seconds: 2 s and 8 s.
    let input = "version,time,op,size,lbn\n1,1,12,36,0\n1,2,28,512,0\n1,3,0x42,24,0\n2,4,93,512,64\n2,5,7f,\
                 4096,8\nVERSION,TIME,OP,SIZE,LBN\n2,6,91,0,0\n2,7,28,0,16\n2,8,8a,1024,16\n";
    check(Vscsi, input, Want::Records(&[(2_000_000_000, R, 0, 512, 0), (8_000_000_000, W, 8192, 1024, 0)]));
    let mut reader = read_trace(Vscsi, input.as_bytes());
    assert_eq!(reader.skipped(), 0, "nothing read yet");
    assert!(reader.next().unwrap().is_ok());
    assert_eq!(reader.skipped(), 1, "the INQUIRY before the first request");
    assert_eq!(reader.by_ref().count(), 1);
    assert_eq!(reader.skipped(), 6);
    // A file of nothing but skipped commands: no request, all counted, not an error.
    let mut only = read_trace(Vscsi, "1,1,00,0,0\n1,2,35,0,0\n".as_bytes());
    assert!(only.next().is_none());
    assert_eq!(only.skipped(), 2);
    // Formats that skip nothing, or do not count, report 0.
    let mut fiu = read_trace(Fiu, "1 1 p 1 1 R 8 0 d\n".as_bytes());
    assert_eq!(fiu.by_ref().count(), 1);
    assert_eq!(fiu.skipped(), 0);
}

// ----- real samples in data/traces ---------------------------------------------------------

/// The raw text of a sample and its records parsed by streaming from the file itself.
fn sample(name: &str, format: TraceFormat) -> (String, Vec<TraceRecord>) {
    let path = traces_dir().join(name);
    let raw = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = BufReader::new(File::open(&path).unwrap());
    let records =
        read_trace(format, reader).collect::<Result<Vec<_>, _>>().unwrap_or_else(|e| panic!("{name}: {e}"));
    (raw, records)
}

fn num(text: &str) -> u64 {
    text.trim().parse().unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// "1456095145.133076000" -> ns, by string padding (not the parser's code path).
fn secs_to_ns(text: &str) -> u64 {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    num(whole) * 1_000_000_000 + num(&format!("{frac:0<9}")[..9])
}

#[test]
fn msr_sample_whole_file() {
    let (raw, records) = sample("msr-hm0-sample.csv", Msr);
    let lines: Vec<Vec<&str>> =
        raw.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split(',').collect()).collect();
    assert_eq!(records.len(), lines.len());
    let reads = lines.iter().filter(|f| f[3] == "Read").count();
    assert_eq!(records.iter().filter(|r| r.op == R).count(), reads);
    assert_eq!(records.iter().filter(|r| r.op == W).count(), lines.len() - reads);
    let total: u64 = lines.iter().map(|f| num(f[5])).sum();
    assert_eq!(records.iter().map(|r| r.size_bytes).sum::<u64>(), total);
    for (f, r) in [(&lines[0], &records[0]), (lines.last().unwrap(), records.last().unwrap())] {
        let op = if f[3] == "Read" { R } else { W };
        assert_eq!(tuple(r), (num(f[0]) * 100, op, num(f[4]), num(f[5]), 0));
    }
    assert_eq!(trace_stats(records.into_iter().map(Ok)).unwrap(), naive_stats(&raw_rows_msr(&lines)));
}

fn raw_rows_msr(lines: &[Vec<&str>]) -> Vec<Rec> {
    lines
        .iter()
        .map(|f| (num(f[0]) * 100, if f[3] == "Read" { R } else { W }, num(f[4]), num(f[5]), 0))
        .collect()
}

#[test]
fn systor_sample_whole_file() {
    let (raw, records) = sample("systor17-sample.csv", Systor);
    let mut lines = raw.lines().filter(|l| !l.trim().is_empty());
    assert_eq!(lines.next(), Some("Timestamp,Response,IOType,LUN,Offset,Size"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(records.len(), rows.len());
    let reads = rows.iter().filter(|f| f[2] == "R").count();
    assert_eq!(records.iter().filter(|r| r.op == R).count(), reads);
    assert_eq!(records.iter().filter(|r| r.op == W).count(), rows.len() - reads);
    for (f, r) in [(&rows[0], &records[0]), (rows.last().unwrap(), records.last().unwrap())] {
        let op = if f[2] == "R" { R } else { W };
        assert_eq!(tuple(r), (secs_to_ns(f[0]), op, num(f[4]), num(f[5]), 0));
    }
    // The sample is not sorted by time: the parser must keep file order.
    assert!(records.windows(2).any(|w| w[1].time < w[0].time));
}

#[test]
fn mqsim_sample_whole_file() {
    let (raw, records) = sample("tpcc-small.trace", Mqsim);
    let rows: Vec<Vec<&str>> =
        raw.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(records.len(), rows.len());
    let reads = rows.iter().filter(|f| f[4] == "1").count();
    assert_eq!(records.iter().filter(|r| r.op == R).count(), reads);
    let expected: Vec<Rec> = rows
        .iter()
        .map(|f| (num(f[0]), if f[4] == "1" { R } else { W }, num(f[2]) * 512, num(f[3]) * 512, 0))
        .collect();
    assert_eq!(tuple(&records[0]), expected[0]);
    assert_eq!(tuple(records.last().unwrap()), *expected.last().unwrap());
    assert_eq!(trace_stats(records.into_iter().map(Ok)).unwrap(), naive_stats(&expected));
}

// ----- trace_stats -------------------------------------------------------------------------

/// Statistics computed the obvious way (a HashSet of every page), to compare with.
fn naive_stats(records: &[Rec]) -> TraceStats {
    let mut pages = HashSet::new();
    let sized: Vec<&Rec> = records.iter().filter(|r| r.3 > 0).collect();
    for &&(_, _, offset, size, _) in &sized {
        pages.extend(offset / 4096..=(offset + size - 1) / 4096);
    }
    let times = records.iter().map(|r| r.0);
    let count = |op| records.iter().filter(|r| r.1 == op).count() as u64;
    TraceStats {
        requests: records.len() as u64,
        reads: count(R),
        writes: count(W),
        trims: count(T),
        bytes: records.iter().map(|r| r.3).sum(),
        duration_s: times.clone().max().map_or(0, |max| max - times.min().unwrap()) as f64 / 1e9,
        footprint_pages: pages.len() as u64,
        lba_min_bytes: sized.iter().map(|r| r.2).min().unwrap_or(0),
        lba_max_bytes: sized.iter().map(|r| r.2 + r.3 - 1).max().unwrap_or(0),
        skipped: 0,
    }
}

fn records_of(rows: &[Rec]) -> Vec<Result<TraceRecord, LineError>> {
    rows.iter()
        .map(|&(t, op, offset, size, stream)| {
            Ok(TraceRecord { time: SimTime::from_ns(t), op, offset_bytes: offset, size_bytes: size, stream })
        })
        .collect()
}

#[test]
fn stats_of_the_mqsim_fixture() {
    let stats = trace_stats(read_trace(Mqsim, fixture("mqsim.trace").as_bytes())).unwrap();
    let expected = TraceStats {
        requests: 3,
        reads: 1,
        writes: 2,
        trims: 0,
        bytes: 4096 + 8192 + 512, // = 12800
        // times 0, 1500, 1500 ns: 1500 ns = 1.5e-6 s
        duration_s: 1.5e-6,
        // [0, 4096) -> page 0; [1048576, +8192) -> pages 256, 257;
        // [2199023255552, +512) -> page 2199023255552 / 4096 = 536870912: 4 pages
        footprint_pages: 4,
        lba_min_bytes: 0,
        lba_max_bytes: 2_199_023_255_552 + 512 - 1, // = 2199023256063
        skipped: 0,
    };
    assert_eq!(stats, expected);
}

#[test]
fn stats_of_the_msprod_fixture() {
    // `ftlab trace stats --format msprod` reads the same records as the parser test.
    let stats = trace_stats(read_trace(Msprod, fixture("msprod.csv").as_bytes())).unwrap();
    let expected = TraceStats {
        requests: 3,
        reads: 1,
        writes: 2,
        trims: 0,
        bytes: 4096 + 65536 + 512, // = 70144
        // times 10530, 10611, 10600 us: 10611 - 10530 = 81 us
        duration_s: 81e-6,
        // [77840384, +4096) -> page 19004; [0, 65536) -> pages 0..=15;
        // [8589934080, +512) -> page 2097151
        footprint_pages: 1 + 16 + 1,
        lba_min_bytes: 0,
        lba_max_bytes: 8_589_934_080 + 512 - 1, // = 8589934591
        skipped: 0,
    };
    assert_eq!(stats, expected);
    assert_eq!(TraceFormat::from_name("msprod"), Some(Msprod));
    assert!(TraceFormat::ALL.contains(&Msprod));
}

#[test]
fn stats_of_the_vscsi_fixture_count_the_skipped_commands() {
    // What `ftlab trace stats --format vscsi` computes: the records of `vscsi_fixture` and its
    // 3 skipped lines.
    let stats = trace_reader_stats(read_trace(Vscsi, fixture("vscsi.csv").as_bytes())).unwrap();
    let expected = TraceStats {
        requests: 10,
        reads: 5,
        writes: 5,
        trims: 0,
        bytes: 4096 + 8192 + 65536 + 4096 + 512 + 1024 + 4096 + 4096 + 4096 + 512, // = 96256
        // times 33898 .. 33904 s
        duration_s: 6.0,
        // [1048576, +4096) page 256; [2097152, +8192) pages 512, 513; [2^41, +65536) 16 pages;
        // [4096, +4096) page 1; [51200, +512) page 12; [52224, +1024) page 12 again;
        // [0, 4096) page 0; [8192, +4096) page 2; [16384, +4096) page 4; [32768, +512) page 8
        footprint_pages: 1 + 2 + 16 + 1 + 1 + 1 + 1 + 1 + 1,
        lba_min_bytes: 0,
        lba_max_bytes: 2_199_023_255_552 + 65536 - 1, // = 2199023321087
        skipped: 3,
    };
    assert_eq!(stats, expected);
    // Without the reader, `trace_stats` sees records only.
    let plain = trace_stats(read_trace(Vscsi, fixture("vscsi.csv").as_bytes())).unwrap();
    assert_eq!(plain, TraceStats { skipped: 0, ..expected });
}

#[test]
fn trace_stats_errors_name_the_file_and_line() {
    // The API adds the file name: `file:line: reason`, for both new formats.
    let dir = std::env::temp_dir().join(format!("ftlab-parsers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (Fiu, "bad.fiu", "1 1 p 8 8 W 6 0 d\n\n1 1 p 8 8 X 6 0 d\n", ":3: field 6 (op)"),
        (
            Vscsi,
            "bad.csv",
            "version,time,op,size,lbn\n1,1,0x28,512,8\n1,2,0x2a,512\n",
            ":3: expected 5 fields",
        ),
    ];
    for (format, name, text, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let err = ftlab::trace_stats(&path, format).unwrap_err().to_string();
        assert!(err.starts_with(&path.display().to_string()), "{err}");
        assert!(err.contains(says), "{err} does not say {says:?}");
    }
    let ok = dir.join("ok.csv");
    std::fs::write(&ok, "1,1,0x35,0,0\n1,2,0x2a,512,8\n").unwrap();
    let stats = ftlab::trace_stats(&ok, Vscsi).unwrap();
    assert_eq!((stats.requests, stats.writes, stats.skipped), (1, 1, 1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stats_of_overlapping_unaligned_and_empty_requests() {
    let rows: [Rec; 5] = [
        (5_000_000_000, W, 4000, 200, 0),   // bytes 4000..4199: pages 0 and 1
        (2_000_000_000, R, 8192, 8192, 1),  // pages 2, 3 (time goes backwards)
        (3_000_000_000, W, 12288, 4097, 0), // bytes 12288..16384: pages 3 and 4
        (4_000_000_000, T, 100, 0, 0),      // zero-size trim: counted, touches nothing
        (2_500_000_000, T, 40960, 4096, 0), // page 10
    ];
    let stats = trace_stats(records_of(&rows).into_iter()).unwrap();
    let expected = TraceStats {
        requests: 5,
        reads: 1,
        writes: 2,
        trims: 2,
        bytes: 200 + 8192 + 4097 + 4096, // = 16585
        duration_s: 3.0,                 // max 5 s - min 2 s
        footprint_pages: 6,              // pages 0, 1, 2, 3, 4, 10
        lba_min_bytes: 4000,             // the zero-size trim at 100 does not count
        lba_max_bytes: 40960 + 4096 - 1, // = 45055
        skipped: 0,
    };
    assert_eq!(stats, expected);
    assert_eq!(naive_stats(&rows), expected);
}

#[test]
fn stats_of_nothing_and_of_an_error() {
    assert_eq!(trace_stats(std::iter::empty()).unwrap(), TraceStats::default());
    let err = trace_stats(read_trace(Mqsim, "1 0 0 1 1\n1 0 0 1 7\n".as_bytes())).unwrap_err();
    assert_eq!(err.line, 2);
}

#[test]
fn stats_footprint_matches_a_hash_set_over_many_random_requests() {
    // A deterministic pseudo-random mix (enough records to force many range merges).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let rows: Vec<Rec> = (0..20_000)
        .map(|i| {
            let offset = if i % 3 == 0 { i as u64 * 4096 } else { next() % (64 << 20) };
            let size = 1 + next() % (256 << 10);
            (next() % 1_000_000_000, [R, W, T][i % 3], offset, size, 0)
        })
        .collect();
    assert_eq!(trace_stats(records_of(&rows).into_iter()).unwrap(), naive_stats(&rows));
}
