//! Every trace parser's typed error (`error::trace::TraceErrorKind`): one table of (format,
//! input, line, expected kind), each kind with the fields worked out by hand from the format's
//! column list (docs/scenario.md, "Trace formats") and the input, not from the code under
//! test. Not here: the messages of the valid and edge-case inputs (`parsers.rs`), the host's
//! kinds (`host.rs`).

use ftlab::error::trace::{Arity, Column, HeaderBlock, TraceErrorKind};
use ftlab::internals::workload::{read_trace, LineError};
use ftlab::TraceFormat;
use TraceErrorKind::*;
use TraceFormat::*;

const fn col(index: usize, name: &'static str) -> Column {
    Column { index, name }
}

fn bad(field: Column, expected: &str, found: &str) -> TraceErrorKind {
    BadField { field, expected: expected.into(), found: found.into() }
}

const MSR_LAYOUT: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";
const SYSTOR_LAYOUT: &str = "Timestamp,Response,IOType,LUN,Offset,Size";
const BLK_LAYOUT: &str = "maj,min cpu seq time pid action rwbs sector + count [process]";
const MSPROD_LAYOUT: &str = "DiskRead|DiskWrite, TimeStamp, Process Name ( PID), ThreadID, IrpPtr, \
                             ByteOffset, IOSize, ElapsedTime, DiskNum, IrpFlags, DiskSvcTime, I/O Pri, \
                             VolSnap, FileObject, FileName";
const FIO_HEADERS: &[&str] = &["fio version 2 iolog", "fio version 3 iolog"];
const SYSTOR_HEADER: &[&str] = &[SYSTOR_LAYOUT];

/// (format, input, line of the error, the kind).
fn table() -> Vec<(TraceFormat, &'static str, u64, TraceErrorKind)> {
    vec![
        // A size that is not a number: MSR's 6th column is Size.
        (Msr, "1,h,0,Read,0,abc,0\n", 1, bad(col(6, "Size"), "an unsigned integer", "abc")),
        (Msr, "1,h,0,Read,0\n", 1, FieldCount { expected: Arity::Exactly(7), layout: MSR_LAYOUT, found: 5 }),
        (Msr, "1,h,0,Copy,0,4096,0\n", 1, bad(col(4, "Type"), "\"Read\" or \"Write\"", "Copy")),
        // 184467440737095517 ticks x 100 ns = 18446744073709551700 > 2^64 - 1.
        (
            Msr,
            "184467440737095517,h,0,Read,0,4096,0\n",
            1,
            ScaleOverflow {
                field: col(1, "Timestamp"),
                value: 184_467_440_737_095_517,
                unit: "ticks of 100 ns",
            },
        ),
        (
            Mqsim,
            "0 0 0 8 1\n1.5 0 0 8 1\n",
            2,
            Hint {
                kind: Box::new(bad(col(1, "arrival_ns"), "an unsigned integer", "1.5")),
                hint: "MQSim times are integer nanoseconds; DiskSim's fractional milliseconds are not read",
            },
        ),
        (Mqsim, "0 0 0 8 2\n", 1, bad(col(5, "type"), "1 (read) or 0 (write)", "2")),
        (Mqsim, "0 0 0 0 1\n", 1, ZeroSize { field: col(4, "size_sectors") }),
        (
            Mqsim,
            "-5 0 0 8 1\n",
            1,
            Negative { field: col(1, "arrival_ns"), expected: "an unsigned integer", found: "-5".into() },
        ),
        (
            Mqsim,
            "99999999999999999999 0 0 8 1\n",
            1,
            TooLarge {
                field: col(1, "arrival_ns"),
                found: "99999999999999999999".into(),
                max: u64::MAX,
                hex: false,
            },
        ),
        // lba 2^55 sectors x 512 bytes = 2^64.
        (
            Mqsim,
            "0 0 36028797018963968 8 1\n",
            1,
            ScaleOverflow { field: col(3, "lba"), value: 1 << 55, unit: "sectors of 512 bytes" },
        ),
        // lba 2^55 - 1 sectors = 2^64 - 512 bytes, plus 2 sectors = 1024 bytes, past 2^64.
        (
            Mqsim,
            "0 0 36028797018963967 2 1\n",
            1,
            AddressOverflow { field: col(4, "size_sectors"), offset_bytes: u64::MAX - 511, size_bytes: 1024 },
        ),
        (
            Tencent,
            "1,0,8,0,70000\n",
            1,
            OutOfRange { field: col(5, "volume_id"), value: 70_000, max: 65_535, what: "a stream id" },
        ),
        (
            Systor,
            "1,2,R,0,0,4096\n",
            1,
            MissingHeader { expected: SYSTOR_HEADER, found: Some("1,2,R,0,0,4096".into()) },
        ),
        // The end of the input is reported at the line after the last (here: none).
        (Systor, "", 1, MissingHeader { expected: SYSTOR_HEADER, found: None }),
        (
            Fio,
            "fio version 4 iolog\n",
            1,
            UnsupportedVersion {
                what: "fio iolog version",
                found: "fio version 4 iolog".into(),
                supported: FIO_HEADERS,
            },
        ),
        // v2 `read` takes an offset and a length: 4 fields, the line has 3.
        (
            Fio,
            "fio version 2 iolog\nf read 0\n",
            2,
            ActionArity {
                field: col(2, "action"),
                action: "read".into(),
                needs: "needs an offset and a length",
                expected: 4,
                found: 3,
            },
        ),
        (
            Fio,
            "fio version 3 iolog\n5 f wait 10 0\n",
            2,
            ActionNotAllowed {
                field: col(3, "action"),
                action: "wait",
                context: "a version 3 iolog (timestamps replace it)",
            },
        ),
        (
            Fio,
            "fio version 2 iolog\nf\n",
            2,
            FieldCount { expected: Arity::Either(2, 4), layout: "filename action [offset length]", found: 1 },
        ),
        (Msprod, "BeginHeader\nBeginHeader\n", 2, HeaderBlock(HeaderBlock::NestedBegin)),
        (Msprod, "BeginHeader\n", 2, HeaderBlock(HeaderBlock::Unterminated)),
        // The 6th column of a DiskRead header must be ByteOffset.
        (
            Msprod,
            "BeginHeader\nDiskRead, TimeStamp, Process Name ( PID), ThreadID, IrpPtr, Offset\n",
            2,
            HeaderColumn {
                field: col(6, "ByteOffset"),
                event: "DiskRead".into(),
                found: "Offset".into(),
                layout: MSPROD_LAYOUT,
            },
        ),
        (
            Vscsi,
            "3,0,28,512,0\n",
            1,
            NotAllowed { field: col(1, "version"), value: 3, expected: "1 or 2 (the vscsi record version)" },
        ),
        (
            Vscsi,
            "1,0,1ff,512,0\n",
            1,
            NotA {
                field: col(3, "op"),
                found: "1ff".into(),
                what: "a SCSI operation code (at most ff = 255)",
            },
        ),
        (
            Blkparse,
            "8,0 1 1 0.1 42 D W 2048 x 8\n",
            1,
            bad(col(9, "+"), "\"+\" between sector and count", "x"),
        ),
        (
            Blkparse,
            "garbage line\n",
            1,
            bad(col(1, "maj,min"), &format!("an event line starting with maj,min ({BLK_LAYOUT})"), "garbage"),
        ),
        (
            Fiu,
            "1 2 p 0 8\n",
            1,
            FieldCount {
                expected: Arity::AtLeast(9),
                layout: "ts pid process lba size op major minor md5",
                found: 5,
            },
        ),
        (Spc, "0,0,512,x,0.1\n", 1, bad(col(4, "opcode"), "\"r\" or \"w\"", "x")),
        // 18446744073709552 us x 1000 = 18446744073709552000 ns > 2^64 - 1.
        (
            Alibaba,
            "1,R,0,4096,18446744073709552\n",
            1,
            ClockOverflow { field: col(5, "timestamp_us"), found: "18446744073709552".into() },
        ),
        (
            FtlabCsv,
            "time_ns,op,offset_bytes,size_bytes,stream\n0,read,0,4096,x\n",
            2,
            bad(col(5, "stream"), "an unsigned integer", "x"),
        ),
    ]
}

#[test]
fn each_parser_returns_the_typed_kind_of_a_malformed_line() {
    let mut failures = Vec::new();
    for (format, input, line, kind) in table() {
        let err = read_trace(format, input.as_bytes()).find_map(Result::err);
        let want = LineError { line, kind };
        if err.as_ref() != Some(&want) {
            failures.push(format!("{}: {input:?}:\n  got  {err:?}\n  want {want:?}", format.name()));
            continue;
        }
        // The message names the line and, where there is one, the column.
        let text = want.to_string();
        let column = want.kind.column().map(|c| format!("field {} ({})", c.index, c.name));
        if !text.starts_with(&format!("line {line}: ")) || column.is_some_and(|c| !text.contains(&c)) {
            failures.push(format!("{}: message {text:?}", format.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_table_covers_every_format() {
    let formats: Vec<TraceFormat> = table().iter().map(|r| r.0).collect();
    for f in TraceFormat::ALL {
        assert!(formats.contains(&f), "no malformed line of {} in the table", f.name());
    }
}

#[test]
fn kinds_name_their_field_found_and_expected() {
    // What Python's TraceError carries as `kind`, `field`, `found`, `expected`.
    let k = bad(col(6, "Size"), "an unsigned integer", "abc");
    assert_eq!(k.name(), "bad_field");
    assert_eq!(k.column(), Some(col(6, "Size")));
    assert_eq!((k.found().as_deref(), k.expected().as_deref()), (Some("abc"), Some("an unsigned integer")));
    let k = OutOfRange { field: col(5, "volume_id"), value: 70_000, max: 65_535, what: "a stream id" };
    assert_eq!(
        (k.name(), k.found().as_deref(), k.expected().as_deref()),
        ("out_of_range", Some("70000"), Some("at most 65535"))
    );
    let k = Hint { kind: Box::new(ZeroSize { field: col(4, "size") }), hint: "h" };
    assert_eq!((k.name(), k.column(), k.found().as_deref()), ("zero_size", Some(col(4, "size")), Some("0")));
    assert_eq!(k.to_string(), "field 4 (size): size must be > 0 for a read or write, got 0 (h)");
}
