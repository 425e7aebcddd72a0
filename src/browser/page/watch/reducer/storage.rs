//! Web Storage writes and reads: each `localStorage`/`sessionStorage` key the page set, removed or
//! cleared (`DOMStorage` events: the page's own writes whatever the syntax, with the line of the
//! call when the service paused on it) and each `getItem` read (key, found or `null`, the line;
//! see `pauses`), filed in the timeline with a value's outline, never the value, masked.
//! Bounded: [`PER_SECOND`] a second are kept one by one, the rest counted in one entry a second
//! (`… 480 more storage calls`). A write's line comes apart from its event (a
//! [`StorageEvent::Calling`] sent while the page was paused on the call): the two are paired here,
//! whichever comes first, within [`PAIR_MS`].

use std::collections::VecDeque;

use super::super::exchanged::{StorageNote, StorageWhat};
use super::super::records::Record;
use super::super::shape;
use super::super::store::Store;
use crate::browser::page::watch::cdp_events::{CodeLocation, StorageEvent};

/// Calls kept one by one per second.
const PER_SECOND: u32 = 32;
/// Characters of a key kept.
const KEY_CHARS: usize = 120;
/// How far apart a write call and its event may come to be paired (both come within a round trip).
const PAIR_MS: f64 = 2_000.0;
/// Unpaired write calls, and unpaired writes, kept for pairing.
const UNPAIRED: usize = 16;

/// Whose key: `localStorage` (else `sessionStorage`), the key (`None`: `clear`).
type Target = (bool, Option<String>);

#[derive(Debug, Default)]
pub struct Storage {
    /// Calls kept in the current second, and when it began (ms since the Unix epoch).
    kept: (u32, f64),
    /// The entry counting the calls past the budget this second.
    counting: Option<u64>,
    /// Write calls whose write has not come yet: target, line, when.
    calls: VecDeque<(Target, CodeLocation, f64)>,
    /// Writes filed without a line whose call may still come: target, timeline entry, when.
    writes: VecDeque<(Target, u64, f64)>,
}

impl Storage {
    pub fn apply(&mut self, store: &mut Store, event: StorageEvent, at: f64) {
        if at - self.kept.1 >= 1000.0 {
            self.kept = (0, at);
            self.counting = None;
        }
        store.storage_used = true;
        self.calls.retain(|(.., t)| at - t < PAIR_MS);
        self.writes.retain(|(.., t)| at - t < PAIR_MS);
        let target = match &event {
            StorageEvent::Set { local, key, .. } | StorageEvent::Removed { local, key, .. } => {
                Some((*local, Some(key.clone())))
            }
            StorageEvent::Cleared { local, .. } => Some((*local, None)),
            _ => None,
        };
        // A call paused on is timed by the call, not by when it was filed after its pause.
        let (local, what, by, when) = match event {
            StorageEvent::Calling { local, key, by, at: called } => {
                return self.calling(store, (local, key), by, called);
            }
            StorageEvent::Set { local, key, value, by } => {
                (local, StorageWhat::Set { key: key_of(store, &key), value: value_of(&value) }, by, None)
            }
            StorageEvent::Removed { local, key, by } => {
                (local, StorageWhat::Removed { key: key_of(store, &key) }, by, None)
            }
            StorageEvent::Cleared { local, by } => (local, StorageWhat::Cleared, by, None),
            StorageEvent::Read { local, key, found, by, similar, at: called } => {
                let key = key.map(|key| key_of(store, &key));
                let similar = similar.map(|(key, at)| (key_of(store, &key), at));
                (local, StorageWhat::Read { key, found, similar }, Some(by), Some(called))
            }
            StorageEvent::Unfollowed { budget } => {
                store.timeline.push(
                    at,
                    Record::Storage(StorageNote { local: true, what: StorageWhat::Unfollowed(budget), by: None }),
                );
                return;
            }
        };
        let (by, when) = match (by, &target) {
            (None, Some(target)) => match self.call_of(target) {
                Some((by, called)) => (Some(by), Some(called)),
                None => (None, when),
            },
            (by, _) => (by, when),
        };
        let at = when.unwrap_or(at);
        if self.kept.0 < PER_SECOND {
            self.kept.0 += 1;
            let lined = by.is_some();
            let seq = store.timeline.push(at, Record::Storage(StorageNote { local, what, by }));
            if let (false, Some(target)) = (lined, target) {
                if self.writes.len() == UNPAIRED {
                    self.writes.pop_front();
                }
                self.writes.push_back((target, seq, at));
            }
            return;
        }
        let counted = self.counting.is_some_and(|seq| {
            store.timeline.update(seq, |record| {
                if let Record::Storage(StorageNote { what: StorageWhat::More(n), .. }) = record {
                    *n += 1;
                }
            })
        });
        if !counted {
            let more = StorageNote { local, what: StorageWhat::More(1), by: None };
            let seq = store.timeline.push(at, Record::Storage(more));
            self.counting = Some(seq);
        }
    }
}

impl Storage {
    /// A write call paused on: its line goes to its write if that came first, else waits for it.
    fn calling(&mut self, store: &mut Store, target: Target, by: CodeLocation, at: f64) {
        if let Some(i) = self.writes.iter().position(|(t, ..)| *t == target)
            && let Some((_, seq, _)) = self.writes.remove(i)
        {
            store.timeline.update(seq, |record| {
                if let Record::Storage(note) = record {
                    note.by = Some(by);
                }
            });
            return;
        }
        if self.calls.len() == UNPAIRED {
            self.calls.pop_front();
        }
        self.calls.push_back((target, by, at));
    }

    /// The line and time of the call that made a write to `target`, if it came first.
    fn call_of(&mut self, target: &Target) -> Option<(CodeLocation, f64)> {
        let i = self.calls.iter().position(|(t, ..)| t == target)?;
        self.calls.remove(i).map(|(_, by, called)| (by, called))
    }
}

/// A key as kept: bounded, masked.
fn key_of(store: &Store, key: &str) -> String {
    store.redactor.text(&key.chars().take(KEY_CHARS).collect::<String>())
}

/// A value as kept: a JSON object's or list's outline, else its kind and length.
fn value_of(value: &str) -> String {
    shape::outline(value).unwrap_or_else(|| format!("string ({} chars)", value.chars().count()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> CodeLocation {
        CodeLocation { url: "http://a.test/settings.js".into(), line: 5, column: 3, function: "save".into() }
    }

    fn set(key: &str) -> StorageEvent {
        StorageEvent::Set { local: true, key: key.into(), value: "{\"size\":\"large\"}".into(), by: None }
    }

    fn calling(key: &str, at: f64) -> StorageEvent {
        StorageEvent::Calling { local: true, key: Some(key.into()), by: line(), at }
    }

    /// The writes filed: key, line, time.
    fn filed(store: &Store) -> Vec<(String, Option<u32>, f64)> {
        store
            .timeline
            .iter()
            .filter_map(|entry| match &entry.record {
                Record::Storage(StorageNote { what: StorageWhat::Set { key, .. }, by, .. }) => {
                    Some((key.clone(), by.as_ref().map(|by| by.line), entry.at))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_writes_line_joins_its_write_whichever_comes_first() {
        let (mut storage, mut store) = (Storage::default(), Store::new(0.0));
        assert!(!store.storage_used);
        // The call read while paused, then the browser's event of the write.
        storage.apply(&mut store, calling("prefs", 9.0), 10.0);
        storage.apply(&mut store, set("prefs"), 12.0);
        // The event first (its channel was ahead), the call's line after it.
        storage.apply(&mut store, set("theme"), 20.0);
        storage.apply(&mut store, calling("theme", 19.0), 21.0);
        // Timed by the call when it came first (the DOM changes after it are not shown before it).
        assert_eq!(filed(&store), [("prefs".into(), Some(5), 9.0), ("theme".into(), Some(5), 20.0)]);
        assert!(store.storage_used, "the page used storage: followed from each document's start on");
    }

    #[test]
    fn a_write_and_a_call_of_another_key_or_too_far_apart_stay_unpaired() {
        let (mut storage, mut store) = (Storage::default(), Store::new(0.0));
        storage.apply(&mut store, calling("prefs", 10.0), 10.0);
        storage.apply(&mut store, set("other"), 11.0);
        storage.apply(&mut store, set("late"), 100.0);
        storage.apply(&mut store, calling("late", 100.0 + PAIR_MS + 1.0), 100.0 + PAIR_MS + 1.0);
        assert_eq!(filed(&store), [("other".into(), None, 11.0), ("late".into(), None, 100.0)]);
    }

    #[test]
    fn a_read_is_timed_by_its_call_not_by_when_it_was_filed() {
        let (mut storage, mut store) = (Storage::default(), Store::new(0.0));
        let read = StorageEvent::Read {
            local: true,
            key: Some("prefs".into()),
            found: crate::browser::page::watch::exchanged::Found::Null,
            by: line(),
            similar: None,
            at: 40.0,
        };
        storage.apply(&mut store, read, 47.0);
        let times: Vec<f64> = store.timeline.iter().map(|entry| entry.at).collect();
        assert_eq!(times, [40.0]);
    }
}
