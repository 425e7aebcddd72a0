//! The timeline: one bounded, ordered record of everything a page did — navigations and
//! milestones, requests from start to end, console calls and errors, dialogs, downloads, popups,
//! the caller's actions and DOM changes — which every view reads (`logs.pull`, `network.pull`,
//! `network.har`, `page.timeline`, an action's effects, the signal counts).
//!
//! One cap per page, in entries ([`MAX_ENTRIES`]) and bytes ([`MAX_BYTES`]); the oldest entries fall
//! off first and are counted (`dropped`), and each draining view learns how many it never saw. The
//! pulls are cursors, not drains of a copy: `logs.pull` moves its own cursor, `network.pull` marks
//! the requests it returned, and neither hides anything from the other views.
//!
//! Times are ms since the Unix epoch here; views give them relative to the document they belong
//! to (the time frame DevTools shows), or to an action's start.

use std::collections::{HashMap, VecDeque};

use super::dom::DomChange;
use super::records::{DomRecord, Entry, Record};
use crate::browser::chromium::kinds::Level;

/// Entries one page keeps.
pub const MAX_ENTRIES: usize = 5000;
/// Bytes one page's timeline keeps (bodies and script sources have caps of their own).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Changes of one element closer than this to the first of them become one entry.
const DOM_MERGE_MS: f64 = 1000.0;
/// Document starts remembered (the time frames of older entries).
const DOCUMENTS: usize = 64;

#[derive(Debug)]
pub struct Timeline {
    entries: VecDeque<Entry>,
    /// The seq the next entry gets (the first is 1).
    next_seq: u64,
    bytes: usize,
    /// Entries fallen off since the page opened.
    dropped: u64,
    /// When each main-frame navigation started (ms since the Unix epoch), oldest first.
    documents: VecDeque<f64>,
    /// When the page was opened: the time frame before any navigation.
    opened: f64,
    /// Documents started since the page opened (a DOM change's cause ids are its document's).
    generation: u64,
    /// The last entry `logs.pull` returned.
    logs_cursor: u64,
    /// Console entries and page errors that fell off before `logs.pull` returned them.
    logs_lost: u64,
    /// Requests that fell off before `network.pull` returned them.
    network_lost: u64,
    /// The latest DOM entry per element, for merging.
    last_dom: HashMap<String, u64>,
    /// The newest entry when an action (or a look at what code caused) began: a DOM change after
    /// it never merges into an entry at or before it, so what the action caused is among the
    /// entries after its mark, however soon after an earlier change of the element it came.
    merge_floor: u64,
    /// The latest action's seq (0 before any).
    last_action: u64,
}

impl Timeline {
    pub fn new(opened: f64) -> Self {
        Self {
            entries: VecDeque::new(),
            next_seq: 1,
            bytes: 0,
            dropped: 0,
            documents: VecDeque::new(),
            opened,
            generation: 0,
            logs_cursor: 0,
            logs_lost: 0,
            network_lost: 0,
            last_dom: HashMap::new(),
            merge_floor: 0,
            last_action: 0,
        }
    }

    /// Marks where an action begins (see [`Timeline::since`]): DOM changes filed from now on start
    /// entries of their own. Returns the seq of the newest entry.
    pub fn mark(&mut self) -> u64 {
        self.merge_floor = self.last_seq();
        self.merge_floor
    }

    /// Appends a record of something that happened at `at`; returns its seq.
    pub fn push(&mut self, at: f64, record: Record) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if matches!(record, Record::Action(_)) {
            self.last_action = seq;
        }
        self.bytes += record.bytes();
        self.entries.push_back(Entry { seq, at, record });
        self.evict();
        seq
    }

    /// Files a DOM change: merged into the element's latest entry while changes keep coming.
    pub fn push_dom(&mut self, change: DomChange) {
        if let Some(&seq) = self.last_dom.get(&change.element)
            && seq > self.merge_floor
            && let Some(Entry { record: Record::Dom(dom), .. }) = self.get(seq)
            && change.at - dom.change.at < DOM_MERGE_MS
            && change.at >= dom.change.at
        {
            self.update(seq, |record| {
                if let Record::Dom(dom) = record {
                    dom.merge(&change);
                }
            });
            return;
        }
        if self.last_dom.len() > 1024 {
            let first = self.first_seq();
            self.last_dom.retain(|_, seq| *seq >= first);
        }
        let element = change.element.clone();
        let seq = self.push(change.at, Record::Dom(DomRecord::new(change, self.generation)));
        self.last_dom.insert(element, seq);
    }

    /// The seq of the latest action of the caller (0 before any).
    pub fn last_action(&self) -> u64 {
        self.last_action
    }

    /// Changes entry `seq` in place (it stays where it is); false when it fell off.
    pub fn update(&mut self, seq: u64, change: impl FnOnce(&mut Record)) -> bool {
        let Some(index) = self.index(seq) else { return false };
        let entry = &mut self.entries[index];
        let before = entry.record.bytes();
        change(&mut entry.record);
        let after = entry.record.bytes();
        self.bytes = (self.bytes + after).saturating_sub(before);
        self.evict();
        true
    }

    pub fn get(&self, seq: u64) -> Option<&Entry> {
        self.index(seq).map(|i| &self.entries[i])
    }

    fn index(&self, seq: u64) -> Option<usize> {
        let first = self.entries.front()?.seq;
        let index = usize::try_from(seq.checked_sub(first)?).ok()?;
        (index < self.entries.len()).then_some(index)
    }

    fn evict(&mut self) {
        while self.entries.len() > MAX_ENTRIES || (self.bytes > MAX_BYTES && self.entries.len() > 1) {
            let Some(gone) = self.entries.pop_front() else { break };
            self.bytes = self.bytes.saturating_sub(gone.record.bytes());
            self.dropped += 1;
            crate::metrics::EVENTS_DROPPED.with_label_values(&["timeline"]).inc();
            match &gone.record {
                Record::Console(_)
                | Record::PageError(_)
                | Record::Dialog(_)
                | Record::Download(_)
                | Record::Note(_)
                | Record::Popup { .. }
                    if gone.seq > self.logs_cursor =>
                {
                    self.logs_lost += 1
                }
                Record::Request(r) if !r.pulled && !r.is_noise() => self.network_lost += 1,
                _ => {}
            }
        }
    }

    /// The seq of the newest entry (0 when there is none): later entries have larger ones.
    pub fn last_seq(&self) -> u64 {
        self.next_seq - 1
    }

    /// The seq of the oldest entry still kept.
    pub fn first_seq(&self) -> u64 {
        self.entries.front().map_or(self.next_seq, |e| e.seq)
    }

    /// Entries after `seq`, oldest first.
    pub fn since(&self, seq: u64) -> impl DoubleEndedIterator<Item = &Entry> {
        let start = match self.index(seq.saturating_add(1)) {
            Some(i) => i,
            None if seq < self.first_seq() => 0,
            None => self.entries.len(),
        };
        self.entries.range(start..)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> {
        self.entries.iter()
    }

    /// Entries fallen off since the page opened.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A main-frame navigation started at `at`: later times count from it.
    pub fn document_started(&mut self, at: f64) {
        self.generation += 1;
        if self.documents.back().is_some_and(|last| *last >= at) {
            return;
        }
        if self.documents.len() == DOCUMENTS {
            self.documents.pop_front();
        }
        self.documents.push_back(at);
    }

    /// When the document current at `at` started to load (the page's opening before any).
    pub fn origin_of(&self, at: f64) -> f64 {
        self.documents.iter().rev().find(|start| **start <= at).copied().unwrap_or(self.opened)
    }

    /// How many documents have started since the page opened: the current document's number.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// When the current document started to load.
    pub fn current_origin(&self) -> f64 {
        self.documents.back().copied().unwrap_or(self.opened)
    }

    pub fn logs_cursor(&self) -> u64 {
        self.logs_cursor
    }

    /// `logs.pull` returned everything up to `seq`; returns how many it never saw (fell off).
    pub fn logs_pulled(&mut self, seq: u64) -> u64 {
        self.logs_cursor = self.logs_cursor.max(seq);
        std::mem::take(&mut self.logs_lost)
    }

    /// Marks the requests `network.pull` returned; returns how many it never saw (fell off).
    pub fn network_pulled(&mut self, seqs: &[u64]) -> u64 {
        for seq in seqs {
            if let Some(i) = self.index(*seq)
                && let Record::Request(r) = &mut self.entries[i].record
            {
                r.pulled = true;
            }
        }
        std::mem::take(&mut self.network_lost)
    }

    /// Error entries waiting for the pulls: console errors and page errors after `logs.pull`'s
    /// cursor, failed requests `network.pull` has not returned.
    pub fn counts(&self) -> (u64, u64, u64) {
        let (mut console, mut errors, mut requests) = (0, 0, 0);
        for entry in &self.entries {
            match &entry.record {
                Record::Console(c) if entry.seq > self.logs_cursor && c.level() == Level::Error => console += 1,
                Record::PageError(_) if entry.seq > self.logs_cursor => errors += 1,
                Record::Request(r) if !r.pulled && r.is_answered() && r.is_error() => requests += 1,
                _ => {}
            }
        }
        (console, errors, requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::chromium::kinds::ConsoleMethod;
    use crate::browser::page::watch::records::ConsoleRecord;

    fn console(text: &str) -> Record {
        Record::Console(ConsoleRecord {
            method: ConsoleMethod::Error,
            text: text.into(),
            text_length: None,
            location: None,
            trace: Default::default(),
            source: None,
            source_pending: false,
        })
    }

    #[test]
    fn the_oldest_entries_fall_off_past_the_entry_cap_and_the_logs_cursor_learns_it() {
        let mut t = Timeline::new(0.0);
        for i in 0..MAX_ENTRIES + 5 {
            t.push(i as f64, console("x"));
        }
        assert_eq!(t.dropped(), 5);
        assert_eq!(t.first_seq(), 6);
        assert_eq!(t.since(0).count(), MAX_ENTRIES);
        assert_eq!(t.since(t.last_seq() - 2).count(), 2);
        assert_eq!(t.logs_pulled(t.last_seq()), 5, "five console errors were lost before any pull");
        assert_eq!(t.counts(), (0, 0, 0));
    }

    #[test]
    fn the_byte_cap_holds_whatever_the_entries_weigh() {
        let mut t = Timeline::new(0.0);
        let big = "x".repeat(64 * 1024);
        for i in 0..200 {
            t.push(i as f64, console(&big));
        }
        assert!(t.bytes() <= MAX_BYTES, "{}", t.bytes());
        assert!(t.dropped() > 0);
    }

    #[test]
    fn times_count_from_the_document_they_belong_to() {
        let mut t = Timeline::new(100.0);
        assert_eq!(t.origin_of(150.0), 100.0);
        t.document_started(1000.0);
        t.document_started(5000.0);
        assert_eq!(t.origin_of(1200.0), 1000.0);
        assert_eq!(t.origin_of(6000.0), 5000.0);
        assert_eq!(t.current_origin(), 5000.0);
    }

    #[test]
    fn changes_of_one_element_within_a_second_are_one_entry() {
        let change = |at: f64| DomChange::replaced_children("#grid", at, 10);
        let mut t = Timeline::new(0.0);
        for i in 0..10 {
            t.push_dom(change(1000.0 + i as f64 * 100.0));
        }
        t.push_dom(change(2500.0));
        let doms: Vec<&DomRecord> =
            t.iter().filter_map(|e| if let Record::Dom(d) = &e.record { Some(d) } else { None }).collect();
        assert_eq!(doms.len(), 2);
        assert_eq!((doms[0].count, doms[0].times.len()), (10, 10));
        assert_eq!((doms[0].change.at, doms[0].last_at()), (1000.0, 1900.0), "dated by the first, the latest kept");
    }

    #[test]
    fn a_change_after_a_mark_starts_an_entry_of_its_own_however_soon_it_came() {
        let change = |at: f64| DomChange::replaced_children("#create", at, 1);
        let mut t = Timeline::new(0.0);
        t.push_dom(change(1000.0));
        let mark = t.mark();
        t.push_dom(change(1100.0));
        t.push_dom(change(1200.0));
        let after: Vec<&DomRecord> =
            t.since(mark).filter_map(|e| if let Record::Dom(d) = &e.record { Some(d) } else { None }).collect();
        assert_eq!(after.len(), 1, "the action's changes are after its mark, merged with each other");
        assert_eq!((after[0].change.at, after[0].count), (1100.0, 2));
    }
}
