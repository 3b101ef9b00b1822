//! The strace text grammar `ftlab capture` reads: one syscall per line, as printed by
//! `strace -f -ttt -y -s 0 -o FILE -e trace=...` (docs/capture.md).
//!
//! - A line is `[PID ]TIME NAME(ARGS) = RET[ extra]`; `PID` is present with `-f` (also in the `[pid N]`
//!   form), `TIME` is `-ttt` seconds with a fraction, converted exactly to ns.
//! - A call split by another thread (`NAME(ARGS <unfinished ...>` then `<... NAME resumed>REST) = RET`) is
//!   joined and reported at its resumed line (the time its result is known).
//! - `+++ exited ...`, `--- SIG... ---` and `strace: ...` lines carry no call: [`Line::Skip`].
//! - Arguments are split at top-level commas (quotes, brackets and `-y` path annotations respected);
//!   `fd<path>` and `"string"` arguments have helpers.
//!
//! Not here: what a call does to files (`fs.rs`), nor which calls matter (`mod.rs`).

use crate::error::CaptureErrorKind;
use crate::workload::Field;
use std::collections::BTreeMap;

/// The result of a call: its value and, with `-y`, the path of a returned fd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ret {
    Ok {
        value: i64,
        path: Option<String>,
    },
    /// A negative return (`-1 ENOENT (...)`): the call failed and changed nothing.
    Failed,
    /// `= ?` (the process exited during the call): unknown.
    Unknown,
}

/// One complete syscall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    pub(crate) pid: u32,
    pub(crate) time_ns: u64,
    pub(crate) name: String,
    pub(crate) args: Vec<String>,
    pub(crate) ret: Ret,
}

/// What a line holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    Call(Call),
    /// The first half of a split call (kept until its resumed line).
    Unfinished,
    /// A resumed line with no unfinished start (the trace began mid-call).
    Orphan,
    /// A line with no call (exit, signal, strace message).
    Skip,
}

/// The strace line parser: remembers the unfinished calls per pid.
#[derive(Debug, Default)]
pub(crate) struct StraceParser {
    pending: BTreeMap<u32, (String, String)>,
}

const TIME: Field = Field::new(2, "time");

impl StraceParser {
    /// The number of calls still unfinished (at the end of a trace: calls cut by its end).
    pub(crate) fn unfinished(&self) -> usize {
        self.pending.len()
    }

    /// Parse one non-blank line.
    pub(crate) fn parse(&mut self, line: &str) -> Result<Line, CaptureErrorKind> {
        if line.starts_with("strace: ") {
            return Ok(Line::Skip);
        }
        let (pid, rest) = split_pid(line);
        let (time, body) = rest.split_once(' ').ok_or_else(|| malformed("`[PID] TIME CALL`", line))?;
        let time_ns = TIME.decimal_ns(time, 1_000_000_000).map_err(CaptureErrorKind::Time)?;
        let body = body.trim_start();
        if body.starts_with("+++") || body.starts_with("---") {
            return Ok(Line::Skip);
        }
        if let Some(resumed) = body.strip_prefix("<... ") {
            let (name, rest) = resumed
                .split_once(" resumed>")
                .ok_or_else(|| CaptureErrorKind::MalformedResumed { found: body.to_string() })?;
            let Some((_, start)) = self.pending.remove(&pid) else {
                return Ok(Line::Orphan);
            };
            return finish_call(
                pid,
                time_ns,
                name,
                &format!("{start}{}", rest.trim_start_matches(' ')),
                body,
            );
        }
        let (name, after) = body.split_once('(').ok_or_else(|| malformed("`NAME(ARGS) = RET`", body))?;
        if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') || name.is_empty() {
            return Err(malformed("a syscall name before '('", name));
        }
        if let Some(start) = after.strip_suffix(" <unfinished ...>") {
            self.pending.insert(pid, (name.to_string(), start.to_string()));
            return Ok(Line::Unfinished);
        }
        finish_call(pid, time_ns, name, after, body)
    }
}

/// A part of a line not in the shape `expected` describes.
fn malformed(expected: &'static str, found: &str) -> CaptureErrorKind {
    CaptureErrorKind::Malformed { expected, found: found.to_string() }
}

/// The pid column (`123 ` or `[pid 123] `) and the rest; pid 0 without one.
fn split_pid(line: &str) -> (u32, &str) {
    if let Some(rest) = line.strip_prefix("[pid ") {
        if let Some((pid, rest)) = rest.split_once(']') {
            if let Ok(p) = pid.trim().parse() {
                return (p, rest.trim_start());
            }
        }
    }
    if let Some((first, rest)) = line.split_once(' ') {
        if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(p) = first.parse() {
                return (p, rest.trim_start());
            }
        }
    }
    (0, line)
}

/// `ARGS) = RET...` → the call.
fn finish_call(pid: u32, time_ns: u64, name: &str, text: &str, body: &str) -> Result<Line, CaptureErrorKind> {
    let cut = text.rfind(") = ").ok_or_else(|| malformed("`) = RET` at the end of the call", body))?;
    let args = split_args(&text[..cut]);
    let ret = parse_ret(text[cut + 4..].trim())
        .ok_or_else(|| CaptureErrorKind::MalformedReturn { found: body.to_string() })?;
    Ok(Line::Call(Call { pid, time_ns, name: name.to_string(), args, ret }))
}

fn parse_ret(text: &str) -> Option<Ret> {
    if text.starts_with('?') {
        return Some(Ret::Unknown);
    }
    let end = text.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(text.len());
    let value: i64 = text[..end].parse().ok()?;
    if value < 0 {
        return Some(Ret::Failed);
    }
    let rest = &text[end..];
    let path = rest.strip_prefix('<').and_then(|p| p.split_once('>').map(|(path, _)| path.to_string()));
    Some(Ret::Ok { value, path })
}

/// Split at top-level `, ` (outside quotes, brackets and `<path>` annotations).
fn split_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let (mut depth, mut in_str, mut escaped, mut start) = (0i32, false, false, 0);
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' | b'(' => depth += 1,
            b']' | b'}' | b')' => depth -= 1,
            b'<' if i > 0 && (bytes[i - 1].is_ascii_alphanumeric()) => depth += 1,
            b'>' if depth > 0 => depth -= 1,
            b',' if depth == 0 => {
                args.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() || !args.is_empty() {
        args.push(last.to_string());
    }
    args
}

/// An fd argument `6</path>` (`AT_FDCWD</dir>` gives fd -100): its number and path.
/// A file deleted while open shows as `6</path>(deleted)`: the path is kept.
pub(crate) fn fd_arg(arg: &str) -> Option<(i64, Option<String>)> {
    let arg = arg.strip_suffix("(deleted)").unwrap_or(arg);
    let (num, path) = match arg.split_once('<') {
        Some((n, p)) => (n, p.strip_suffix('>').map(str::to_string)),
        None => (arg, None),
    };
    let fd = if num == "AT_FDCWD" { -100 } else { num.parse().ok()? };
    Some((fd, path))
}

/// A quoted string argument `"..."`, unescaped (`\"`, `\\`, `\n`, `\t`, `\ooo`, `\xhh`).
pub(crate) fn str_arg(arg: &str) -> Option<String> {
    let inner = arg.strip_prefix('"')?;
    let inner = inner.strip_suffix("\"...").or_else(|| inner.strip_suffix('"'))?;
    let mut out = Vec::with_capacity(inner.len());
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let (byte, used) = unescape(&b[i + 1..])?;
        out.push(byte);
        i += 1 + used;
    }
    String::from_utf8(out).ok()
}

/// One escape after the backslash: the byte and how many bytes it used.
fn unescape(b: &[u8]) -> Option<(u8, usize)> {
    let digits = |radix: u32, max: usize, skip: usize| {
        let s: String = b[skip..]
            .iter()
            .take(max)
            .take_while(|c| (**c as char).is_digit(radix))
            .map(|&c| c as char)
            .collect();
        u8::from_str_radix(&s, radix).ok().map(|v| (v, skip + s.len()))
    };
    match b[0] {
        b'n' => Some((b'\n', 1)),
        b't' => Some((b'\t', 1)),
        b'r' => Some((b'\r', 1)),
        b'x' => digits(16, 2, 1),
        b'0'..=b'7' => digits(8, 3, 0),
        other => Some((other, 1)),
    }
}

/// An integer argument (decimal, or `0x` hexadecimal).
pub(crate) fn int_arg(arg: &str) -> Option<i64> {
    match arg.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => arg.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(p: &mut StraceParser, line: &str) -> Call {
        match p.parse(line).unwrap() {
            Line::Call(c) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn plain_split_and_annotated_calls() {
        let mut p = StraceParser::default();
        let c = call(
            &mut p,
            concat!(
                r#"14142 1795371677.705325 openat(AT_FDCWD</tmp/x>, "/tmp/x/db/000000.dbtmp", "#,
                r#"O_WRONLY|O_CREAT, 0644) = 6</tmp/x/db/000000.dbtmp>"#,
            ),
        );
        assert_eq!((c.pid, c.time_ns, c.name.as_str()), (14142, 1_795_371_677_705_325_000, "openat"));
        assert_eq!(fd_arg(&c.args[0]), Some((-100, Some("/tmp/x".into()))));
        assert_eq!(fd_arg("3</a/LOG>(deleted)"), Some((3, Some("/a/LOG".into()))));
        assert_eq!(str_arg(&c.args[1]).as_deref(), Some("/tmp/x/db/000000.dbtmp"));
        assert_eq!(c.ret, Ret::Ok { value: 6, path: Some("/tmp/x/db/000000.dbtmp".into()) });
        assert_eq!(
            p.parse(r#"7 1.5 pwrite64(11</a,b>, ""..., 4096, 8192 <unfinished ...>"#),
            Ok(Line::Unfinished)
        );
        assert_eq!(p.unfinished(), 1);
        let c = call(&mut p, "7 1.75 <... pwrite64 resumed>) = 4096");
        assert_eq!(c.args, vec!["11</a,b>", "\"\"...", "4096", "8192"]);
        assert_eq!((c.time_ns, c.ret.clone()), (1_750_000_000, Ret::Ok { value: 4096, path: None }));
        assert_eq!(p.parse("7 2.0 <... write resumed>) = 1"), Ok(Line::Orphan));
        let c = call(&mut p, r#"1.0 unlink("/tmp/q\"x\101") = -1 ENOENT (No such file or directory)"#);
        assert_eq!((c.pid, c.ret, str_arg(&c.args[0]).unwrap()), (0, Ret::Failed, "/tmp/q\"xA".to_string()));
        assert_eq!(p.parse("9 3.0 +++ exited with 0 +++"), Ok(Line::Skip));
        assert_eq!(p.parse("strace: Process 9 attached"), Ok(Line::Skip));
        let c = call(
            &mut p,
            "[pid 12] 3.5 pwritev(5</f>, [{iov_base=\"\"..., iov_len=4096}, {iov_base=\"\"..., \
             iov_len=4096}], 2, 0) = 8192",
        );
        assert_eq!((c.pid, c.args.len(), c.args[3].as_str()), (12, 4, "0"));
        assert_eq!(call(&mut p, "1 4.0 exit_group(0) = ?").ret, Ret::Unknown);
    }

    #[test]
    fn malformed_lines_say_what_was_expected() {
        let mut p = StraceParser::default();
        let e = p.parse("1 x write(1) = 1").unwrap_err();
        assert!(matches!(e, CaptureErrorKind::Time(_)) && e.to_string().contains("-ttt"), "{e}");
        let e = p.parse("1 1.0 write(1)").unwrap_err();
        assert_eq!(e, malformed("`) = RET` at the end of the call", "write(1)"));
        assert!(e.to_string().contains(") = RET"), "{e}");
        let e = p.parse("1 1.0 garbage").unwrap_err();
        assert_eq!(e, malformed("`NAME(ARGS) = RET`", "garbage"));
        let e = p.parse("1 1.0 write(1) = x").unwrap_err();
        assert_eq!(e, CaptureErrorKind::MalformedReturn { found: "write(1) = x".into() });
        assert!(e.to_string().contains("return value"), "{e}");
    }
}
