//! Web Storage writes in an answer: each as a line with its time (`+3 localStorage readerPrefs =
//! {size: string, theme: string}`). Effects, the load report and `page.timeline` show them; the
//! words are `wording::storage`'s.

use super::super::records::{Entry, Record};
use super::super::store::Store;
use super::wording;

/// Storage lines an action's effects or a load report lists before "… N more".
pub const MAX_LINES: usize = 12;

/// The storage writes among `entries` as lines timed from `t0` (ms since the Unix epoch), the first
/// [`MAX_LINES`], and how many more there were.
pub fn lines<'a>(store: &Store, entries: impl Iterator<Item = &'a Entry>, t0: f64) -> (Vec<String>, u64) {
    let mut lines = Vec::new();
    let mut more = 0;
    for entry in entries {
        let Record::Storage(note) = &entry.record else { continue };
        if lines.len() == MAX_LINES {
            more += 1;
            continue;
        }
        let line = store.redactor.text(&wording::storage(note));
        lines.push(format!("+{} {line}", (entry.at - t0).round() as i64));
    }
    (lines, more)
}
