//! Web Storage writes: each `localStorage`/`sessionStorage` key the page set, removed or cleared
//! (`DOMStorage` events: the page's own writes whatever the syntax, with no stack — the writing
//! line is not known), filed in the timeline with the value's outline, never the value, masked.
//! Bounded: [`PER_SECOND`] writes a second are kept one by one, the rest counted in one entry a
//! second (`… 480 more storage writes`).

use super::super::exchanged::{StorageNote, StorageWhat};
use super::super::records::Record;
use super::super::shape;
use super::super::store::Store;
use crate::browser::page::watch::cdp_events::StorageEvent;

/// Writes kept one by one per second.
const PER_SECOND: u32 = 32;
/// Characters of a key kept.
const KEY_CHARS: usize = 120;

#[derive(Debug, Default)]
pub struct Storage {
    /// Writes kept in the current second, and when it began (ms since the Unix epoch).
    kept: (u32, f64),
    /// The entry counting the writes past the budget this second.
    counting: Option<u64>,
}

impl Storage {
    pub fn apply(&mut self, store: &mut Store, event: StorageEvent, at: f64) {
        if at - self.kept.1 >= 1000.0 {
            self.kept = (0, at);
            self.counting = None;
        }
        let (local, what) = match event {
            StorageEvent::Set { local, key, value } => {
                (local, StorageWhat::Set { key: key_of(store, &key), value: value_of(&value) })
            }
            StorageEvent::Removed { local, key } => (local, StorageWhat::Removed { key: key_of(store, &key) }),
            StorageEvent::Cleared { local } => (local, StorageWhat::Cleared),
        };
        if self.kept.0 < PER_SECOND {
            self.kept.0 += 1;
            store.timeline.push(at, Record::Storage(StorageNote { local, what }));
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
            let seq = store.timeline.push(at, Record::Storage(StorageNote { local, what: StorageWhat::More(1) }));
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
