//! The service's own mirror of a page's Web Storage, so a read's `found` or `null` is known
//! without ever calling the page's storage: per origin and area, the keys present (read once with
//! `DOMStorage.getDOMStorageItems`, then kept current by the `DOMStorage` events) and the keys this
//! session wrote, with where. Also the places of the write calls paused on, waiting for the
//! event their write causes (the pause comes first, its event after the page resumed).

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use super::super::exchanged::Found;
use super::super::stacks::CodeLocation;

/// Keys mirrored per area; past it a read of an unknown key is not judged.
const MAX_KEYS: usize = 2_000;
/// Written keys remembered per area (for the similar-key fact).
const MAX_WRITTEN: usize = 200;
/// Write calls waiting for their event; how long one waits.
const MAX_PENDING: usize = 16;
const PENDING_FOR: Duration = Duration::from_secs(5);

/// One storage area: an origin's `localStorage` or `sessionStorage`.
pub type AreaId = (String, bool);

#[derive(Debug, Default)]
struct Area {
    /// Read from the browser once (`None`: not yet; `Some(false)`: it could not be read).
    seeded: Option<bool>,
    present: HashSet<String>,
    /// Keys this session wrote, first write first, with the line of the last write.
    written: Vec<(String, Option<CodeLocation>)>,
    /// More keys than mirrored: absence says nothing.
    overflowed: bool,
}

/// A write the page made, as the mirror applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write<'a> {
    Set(&'a str),
    Removed(&'a str),
    Cleared,
}

#[derive(Debug, Default)]
pub struct Mirror {
    areas: HashMap<AreaId, Area>,
    /// Write calls paused on: (area's `local`, the key when known, `None` for `clear`), where, when.
    pending: Vec<(bool, Option<String>, CodeLocation, Instant)>,
}

impl Mirror {
    /// Whether `area` is still to be read from the browser.
    pub fn needs_seed(&self, area: &AreaId) -> bool {
        self.areas.get(area).is_none_or(|a| a.seeded.is_none())
    }

    /// The keys the browser holds for `area` (`None`: it could not say).
    pub fn seed(&mut self, area: AreaId, keys: Option<Vec<String>>) {
        let entry = self.areas.entry(area).or_default();
        entry.seeded = Some(keys.is_some());
        for key in keys.into_iter().flatten() {
            insert(entry, key);
        }
    }

    /// A write call paused on at `by` (`key`: `None` for `clear`), before its event.
    pub fn calling(&mut self, local: bool, key: Option<String>, by: CodeLocation) {
        let now = Instant::now();
        self.pending.retain(|(.., at)| now.duration_since(*at) < PENDING_FOR);
        if self.pending.len() == MAX_PENDING {
            self.pending.remove(0);
        }
        self.pending.push((local, key, by, now));
    }

    /// Whether a write call paused on still waits for its event.
    pub fn waiting(&self) -> bool {
        self.pending.iter().any(|(.., at)| at.elapsed() < PENDING_FOR)
    }

    /// Applies a write's event; returns the line of the call that made it, when it was paused on.
    pub fn wrote(&mut self, area: AreaId, write: Write) -> Option<CodeLocation> {
        let local = area.1;
        let wanted = match write {
            Write::Set(key) | Write::Removed(key) => Some(key),
            Write::Cleared => None,
        };
        let by = self
            .pending
            .iter()
            .position(|(l, key, ..)| *l == local && key.as_deref() == wanted)
            .map(|i| self.pending.remove(i).2);
        let entry = self.areas.entry(area).or_default();
        match write {
            Write::Set(key) => {
                insert(entry, key.to_owned());
                match entry.written.iter().position(|(k, _)| k == key) {
                    Some(i) => entry.written[i].1 = by.clone(),
                    None if entry.written.len() < MAX_WRITTEN => entry.written.push((key.to_owned(), by.clone())),
                    None => {}
                }
            }
            Write::Removed(key) => {
                entry.present.remove(key);
            }
            Write::Cleared => {
                entry.present.clear();
                entry.overflowed = false;
            }
        }
        by
    }

    /// What `getItem(key)` finds in `area`, and when nothing in the session wrote it, a similar
    /// key the session did write (and where).
    pub fn read(&self, area: &AreaId, key: &str) -> (Found, Option<(String, Option<CodeLocation>)>) {
        let Some(entry) = self.areas.get(area) else { return (Found::Unknown, None) };
        if entry.present.contains(key) {
            return (Found::Value, None);
        }
        if entry.written.iter().any(|(k, _)| k == key) {
            return (Found::Null, None);
        }
        if entry.overflowed || entry.seeded != Some(true) {
            return (Found::Unknown, None);
        }
        let similar = entry.written.iter().find(|(k, _)| similar(k, key)).cloned();
        (Found::NeverWritten, similar)
    }
}

fn insert(area: &mut Area, key: String) {
    if area.present.len() < MAX_KEYS {
        area.present.insert(key);
    } else if !area.present.contains(&key) {
        area.overflowed = true;
    }
}

/// Two different keys an app could mean the same by: equal but for case and punctuation
/// (`reader-prefs`, `readerPrefs`), one the other with a suffix (`prefs`, `prefs:v2`), or two edits
/// apart (`prefs:v1`, `prefs:v2`).
pub fn similar(a: &str, b: &str) -> bool {
    let plain = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<Vec<_>>();
    let (x, y) = (plain(a), plain(b));
    if a == b || x.len().min(y.len()) < 4 {
        return false;
    }
    x == y || x.starts_with(&y) || y.starts_with(&x) || (x.len().min(y.len()) >= 5 && distance(&x, &y) <= 2)
}

/// Edit distance (insertions, deletions, substitutions).
fn distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32) -> CodeLocation {
        CodeLocation { url: "http://h/reader/settings.js".into(), line, column: 3, function: String::new() }
    }

    #[test]
    fn a_read_of_a_key_never_written_names_the_similar_key_the_session_wrote() {
        let mut mirror = Mirror::default();
        let area: AreaId = ("http://h".into(), true);
        mirror.seed(area.clone(), Some(vec!["theme".into()]));
        mirror.calling(true, Some("readerPrefs".into()), at(5));
        assert_eq!(mirror.wrote(area.clone(), Write::Set("readerPrefs")), Some(at(5)), "the paused call's line");
        assert_eq!(mirror.read(&area, "readerPrefs"), (Found::Value, None));
        assert_eq!(mirror.read(&area, "theme"), (Found::Value, None), "in storage before the session wrote");
        assert_eq!(
            mirror.read(&area, "reader-prefs"),
            (Found::NeverWritten, Some(("readerPrefs".into(), Some(at(5)))))
        );
        assert_eq!(mirror.read(&area, "cart"), (Found::NeverWritten, None));
        assert_eq!(mirror.wrote(area.clone(), Write::Removed("readerPrefs")), None, "no call paused on");
        assert_eq!(mirror.read(&area, "readerPrefs"), (Found::Null, None));
        assert_eq!(mirror.read(&("http://h".into(), false), "readerPrefs").0, Found::Unknown, "never read");
        let unread: AreaId = ("http://other".into(), true);
        mirror.seed(unread.clone(), None);
        assert_eq!(mirror.read(&unread, "x").0, Found::Unknown, "the browser could not say");
    }

    #[test]
    fn keys_are_similar_when_an_app_could_mean_one_by_the_other() {
        assert!(similar("reader-prefs", "readerPrefs"));
        assert!(similar("prefs:v1", "prefs:v2"));
        assert!(similar("settings", "settings:v2"));
        assert!(!similar("theme", "token"));
        assert!(!similar("a", "ab"), "too short to say");
        assert!(!similar("cart", "cart"), "the same key");
    }
}
