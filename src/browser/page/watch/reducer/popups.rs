//! Popups a page opened (`window.open`, a `target=_blank` link). A popup is announced twice, in
//! either order: by its target (its tab, often with no URL yet) and by the opener's
//! `Page.windowOpen` (its URL). It is noted once both are in; its target goes to the session at
//! once (the pump hands it over), to be adopted as a tab before the next call.

use std::collections::VecDeque;

use super::super::cdp_events::PageEvent;
use super::super::clock::Now;
use super::super::notes::Signal;
use super::super::records::{self, Record};
use super::super::store::Store;
use super::outbox::Outbox;
use crate::browser::page::adoption::tab_id;

/// Popup announcements kept waiting for their other half.
const POPUP_HALVES: usize = 8;

#[derive(Debug, Default)]
pub struct Popups {
    /// Popups announced without a URL, waiting for their `Page.windowOpen` (tab ids) …
    unnamed: VecDeque<String>,
    /// … and windows opened whose popup was not announced yet (URLs).
    window_opens: VecDeque<String>,
}

impl Popups {
    pub fn apply(&mut self, store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
        match event {
            PageEvent::PopupOpened { target_id, url } => {
                let tab = tab_id(target_id.as_str());
                out.popups.push(target_id);
                if !(url.is_empty() || url == "about:blank") {
                    popup(store, tab, url, now, out);
                } else if let Some(url) = self.window_opens.pop_front() {
                    popup(store, tab, url, now, out);
                } else {
                    remember(&mut self.unnamed, tab);
                }
            }
            PageEvent::WindowOpened { url } => match self.unnamed.pop_front() {
                Some(tab) => popup(store, tab, url, now, out),
                None => remember(&mut self.window_opens, url),
            },
            _ => {}
        }
    }
}

fn popup(store: &mut Store, tab: String, url: String, now: Now, out: &mut Outbox) {
    out.live.push(Signal::Popup { tab: tab.clone(), url: url.clone() });
    store.timeline.push(now.wall, Record::Popup { tab, url: records::url(url) });
}

fn remember(queue: &mut VecDeque<String>, item: String) {
    if queue.len() == POPUP_HALVES {
        queue.pop_front();
    }
    queue.push_back(item);
}
