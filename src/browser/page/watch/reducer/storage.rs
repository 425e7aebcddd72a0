//! Web Storage writes and reads: each `localStorage`/`sessionStorage` key the page set, removed or
//! cleared (`DOMStorage` events: the page's own writes whatever the syntax, with the line of the
//! call when the service paused on it) and each `getItem` read (key, found or `null`, the line;
//! see `pauses`), filed in the timeline with a value's outline, never the value, masked.
//! Bounded: [`PER_SECOND`] a second are kept one by one, the rest counted in one entry a second
//! (`… 480 more storage calls`).

use super::super::exchanged::{StorageNote, StorageWhat};
use super::super::records::Record;
use super::super::shape;
use super::super::store::Store;
use crate::browser::page::watch::cdp_events::StorageEvent;

/// Calls kept one by one per second.
const PER_SECOND: u32 = 32;
/// Characters of a key kept.
const KEY_CHARS: usize = 120;

#[derive(Debug, Default)]
pub struct Storage {
    /// Calls kept in the current second, and when it began (ms since the Unix epoch).
    kept: (u32, f64),
    /// The entry counting the calls past the budget this second.
    counting: Option<u64>,
}

impl Storage {
    pub fn apply(&mut self, store: &mut Store, event: StorageEvent, at: f64) {
        if at - self.kept.1 >= 1000.0 {
            self.kept = (0, at);
            self.counting = None;
        }
        let (local, what, by) = match event {
            StorageEvent::Set { local, key, value, by } => {
                (local, StorageWhat::Set { key: key_of(store, &key), value: value_of(&value) }, by)
            }
            StorageEvent::Removed { local, key, by } => (local, StorageWhat::Removed { key: key_of(store, &key) }, by),
            StorageEvent::Cleared { local, by } => (local, StorageWhat::Cleared, by),
            StorageEvent::Read { local, key, found, by, similar } => {
                let key = key.map(|key| key_of(store, &key));
                let similar = similar.map(|(key, at)| (key_of(store, &key), at));
                (local, StorageWhat::Read { key, found, similar }, Some(by))
            }
            StorageEvent::Unfollowed { budget } => {
                store.timeline.push(
                    at,
                    Record::Storage(StorageNote { local: true, what: StorageWhat::Unfollowed(budget), by: None }),
                );
                return;
            }
        };
        if self.kept.0 < PER_SECOND {
            self.kept.0 += 1;
            store.timeline.push(at, Record::Storage(StorageNote { local, what, by }));
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

/// A key as kept: bounded, masked.
fn key_of(store: &Store, key: &str) -> String {
    store.redactor.text(&key.chars().take(KEY_CHARS).collect::<String>())
}

/// A value as kept: a JSON object's or list's outline, else its kind and length.
fn value_of(value: &str) -> String {
    shape::outline(value).unwrap_or_else(|| format!("string ({} chars)", value.chars().count()))
}
