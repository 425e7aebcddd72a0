//! Web Storage in an answer: each write and `getItem` read as a line with its time and the script
//! line that made it, read through the source maps (`+3 localStorage readerPrefs = {size: string,
//! theme: string} by /reader/settings.js:5`, `+40 localStorage reader-prefs → null (never written)
//! by loadPrefs (/reader/prefs.js:6)`), and a fact for a read of a key nothing in the session
//! wrote when it wrote a similar one. Effects, the load report and `page.timeline` show them; the
//! words are `wording::storage`'s.

use super::super::exchanged::{Found, StorageNote, StorageWhat};
use super::super::records::{Entry, Record};
use super::super::store::Store;
use super::places::Places;
use super::wording;

/// Storage lines an action's effects or a load report lists before "… N more".
pub const MAX_LINES: usize = 12;

/// One storage entry as a line, masked.
pub fn line(store: &Store, note: &StorageNote, places: &Places) -> String {
    let by = note.by.as_ref().map(|at| places.place(at));
    store.redactor.text(&wording::storage(note, by.as_deref()))
}

/// The storage entries among `entries` as lines timed from `t0` (ms since the Unix epoch), the
/// first [`MAX_LINES`], how many more there were, and the facts they imply.
pub fn lines<'a>(
    store: &Store,
    entries: impl Iterator<Item = &'a Entry>,
    t0: f64,
    places: &Places,
) -> (Vec<String>, u64, Vec<String>) {
    let (mut lines, mut more, mut facts) = (Vec::new(), 0, Vec::new());
    for entry in entries {
        let Record::Storage(note) = &entry.record else { continue };
        // Once each: a render run twice (React's StrictMode) reads twice.
        if let Some(fact) = misread(store, note, places).filter(|f| facts.len() < MAX_LINES && !facts.contains(f)) {
            facts.push(fact);
        }
        if lines.len() == MAX_LINES {
            more += 1;
            continue;
        }
        lines.push(format!("+{} {}", (entry.at - t0).round() as i64, line(store, note, places)));
    }
    (lines, more, facts)
}

/// The fact of a read of a key nothing in the session wrote, when it wrote a similar one.
fn misread(store: &Store, note: &StorageNote, places: &Places) -> Option<String> {
    let StorageWhat::Read { key: Some(key), found: Found::NeverWritten, similar: Some((similar, at)) } = &note.what
    else {
        return None;
    };
    let by = note.by.as_ref().map_or_else(|| "a script".to_owned(), |at| places.place(at));
    let written_by = at.as_ref().map(|at| places.place(at));
    Some(store.redactor.text(&wording::storage_misread(note.local, key, &by, similar, written_by.as_deref())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::stacks::CodeLocation;

    fn at(url: &str, line: u32, function: &str) -> CodeLocation {
        CodeLocation { url: url.into(), line, column: 3, function: function.into() }
    }

    #[test]
    fn a_read_of_a_key_never_written_after_a_similar_write_is_a_fact() {
        let mut store = Store::new(1000.0);
        let wrote = at("http://h/reader/settings.js", 5, "");
        let set = StorageWhat::Set { key: "readerPrefs".into(), value: "{size: string}".into() };
        store.timeline.push(1010.0, Record::Storage(StorageNote { local: true, what: set, by: Some(wrote.clone()) }));
        let read = StorageWhat::Read {
            key: Some("reader-prefs".into()),
            found: Found::NeverWritten,
            similar: Some(("readerPrefs".into(), Some(wrote))),
        };
        let by = Some(at("http://h/reader/prefs.js", 6, "loadPrefs"));
        store.timeline.push(1040.0, Record::Storage(StorageNote { local: true, what: read, by }));
        let (lines, more, facts) = lines(&store, store.timeline.iter(), 1000.0, &Places::default());
        assert_eq!(
            lines,
            [
                "+10 localStorage readerPrefs = {size: string} by /reader/settings.js:5",
                "+40 localStorage reader-prefs → null (never written) by loadPrefs (/reader/prefs.js:6)"
            ]
        );
        assert_eq!(more, 0);
        assert_eq!(
            facts,
            ["loadPrefs (/reader/prefs.js:6) read localStorage reader-prefs, which nothing in this session wrote \
              (null); it wrote the similar key readerPrefs (by /reader/settings.js:5)"]
        );
    }
}
