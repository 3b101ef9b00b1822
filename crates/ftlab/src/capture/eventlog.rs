//! RocksDB's info `LOG`: the `EVENT_LOG_v1 {json}` lines that say at which LSM level each
//! SSTable was written.
//!
//! A table file's level comes from the job that created it: `table_file_creation`
//! (`job`, `file_number`) names the job; a job announced by `flush_started` or
//! `flush_finished` writes level 0; a job whose `compaction_finished` gives `output_level`
//! writes that level. A file whose job is neither (a table written during recovery, or a
//! compaction cut by the end of the run) has no level: [`EventLog::level`] returns `None` and
//! the caller counts it. `trivial_move` (a file moved to another level without a rewrite)
//! and `table_file_deletion` are counted; a moved file keeps the level it was written at,
//! since its data was written with that level's stream.
//!
//! Not here: the strace side; other LOG lines (options, stats) are not read.

use crate::error::CaptureErrorKind;
use serde_json::Value;
use std::collections::BTreeMap;

/// What the LOG says; see the module doc.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct EventLog {
    #[serde(skip)]
    file_job: BTreeMap<u64, u64>,
    #[serde(skip)]
    job_level: BTreeMap<u64, u32>,
    pub(crate) events: u64,
    pub(crate) table_file_creation: u64,
    pub(crate) table_file_deletion: u64,
    pub(crate) flush_finished: u64,
    pub(crate) compaction_finished: u64,
    pub(crate) trivial_move: u64,
}

/// The marker before the JSON object of an event line.
const MARKER: &str = "EVENT_LOG_v1 ";

impl EventLog {
    /// Read one LOG line; lines without the marker are ignored. `Err`: the reason.
    pub(crate) fn add_line(&mut self, line: &str) -> Result<(), CaptureErrorKind> {
        let Some(at) = line.find(MARKER) else {
            return Ok(());
        };
        let json: Value = serde_json::from_str(&line[at + MARKER.len()..])
            .map_err(|e| CaptureErrorKind::EventJson { reason: e.to_string() })?;
        let event = json.get("event").and_then(Value::as_str).ok_or(CaptureErrorKind::EventWithoutName)?;
        let num = |key: &'static str| {
            json.get(key)
                .and_then(Value::as_u64)
                .ok_or_else(|| CaptureErrorKind::EventField { event: event.to_string(), key })
        };
        self.events += 1;
        match event {
            "flush_started" | "flush_finished" => {
                self.job_level.insert(num("job")?, 0);
                self.flush_finished += u64::from(event == "flush_finished");
            }
            "compaction_finished" => {
                let value = num("output_level")?;
                let level = u32::try_from(value).map_err(|_| CaptureErrorKind::LevelOutOfRange { value })?;
                self.job_level.insert(num("job")?, level);
                self.compaction_finished += 1;
            }
            "table_file_creation" => {
                self.file_job.insert(num("file_number")?, num("job")?);
                self.table_file_creation += 1;
            }
            "table_file_deletion" => self.table_file_deletion += 1,
            "trivial_move" => self.trivial_move += 1,
            _ => {}
        }
        Ok(())
    }

    /// The level table file `number` was written at, if the LOG says.
    pub(crate) fn level(&self, number: u64) -> Option<u32> {
        self.file_job.get(&number).and_then(|job| self.job_level.get(job)).copied()
    }
}

/// The file number of a table file name (`000123.sst` → 123).
pub(crate) fn table_number(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".sst")?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_come_from_the_creating_job() {
        let mut log = EventLog::default();
        let lines = [
            r#"2026/11/22-18:21:17.998667 14142 RocksDB version: 7.8.3"#,
            r#"x 1 EVENT_LOG_v1 {"time_micros": 1, "job": 2, "event": "flush_started", "num_memtables": 1}"#,
            concat!(
                r#"x 1 EVENT_LOG_v1 {"time_micros": 2, "cf_name": "default", "job": 2, "event": "#,
                r#""table_file_creation", "file_number": 9}"#,
            ),
            concat!(
                r#"x 1 EVENT_LOG_v1 {"time_micros": 3, "job": 5, "event": "table_file_creation", "#,
                r#""file_number": 15}"#,
            ),
            concat!(
                r#"x (Original Log Time y) EVENT_LOG_v1 {"time_micros": 4, "job": 5, "event": "#,
                r#""compaction_finished", "output_level": 2}"#,
            ),
            concat!(
                r#"x 1 EVENT_LOG_v1 {"time_micros": 5, "job": 7, "event": "table_file_creation", "#,
                r#""file_number": 20}"#,
            ),
            concat!(
                r#"x 1 EVENT_LOG_v1 {"time_micros": 6, "job": 9, "event": "trivial_move", "#,
                r#""destination_level": 3}"#,
            ),
            concat!(
                r#"x 1 EVENT_LOG_v1 {"time_micros": 7, "job": 8, "event": "table_file_deletion", "#,
                r#""file_number": 9}"#,
            ),
        ];
        for l in lines {
            log.add_line(l).unwrap();
        }
        assert_eq!(
            (log.level(9), log.level(15), log.level(20), log.level(1)),
            (Some(0), Some(2), None, None)
        );
        assert_eq!(
            (log.events, log.table_file_creation, log.trivial_move, log.table_file_deletion),
            (7, 3, 1, 1)
        );
        let e = log.add_line("x EVENT_LOG_v1 {\"event\": ").unwrap_err();
        assert!(matches!(e, CaptureErrorKind::EventJson { .. }) && e.to_string().contains("malformed"));
        let e = log.add_line(r#"x EVENT_LOG_v1 {"event": "table_file_creation", "job": 1}"#).unwrap_err();
        let want = CaptureErrorKind::EventField { event: "table_file_creation".into(), key: "file_number" };
        assert_eq!(e, want);
        assert!(e.to_string().contains("\"file_number\" missing"), "{e}");
        let e =
            log.add_line(r#"x EVENT_LOG_v1 {"event": "compaction_finished", "output_level": 4294967296}"#);
        assert_eq!(e, Err(CaptureErrorKind::LevelOutOfRange { value: 1 << 32 }));
        assert_eq!(
            (table_number("000123.sst"), table_number("x.sst"), table_number("1.log")),
            (Some(123), None, None)
        );
    }
}
