//! The list of a session's tabs and which one is active: the state `tabs` works on, kept apart
//! so the session can hold it without depending on `tabs`.

use crate::browser::page::Page;

pub(super) struct Tabs {
    pub(super) list: Vec<Page>,
    pub(super) active: usize,
}

impl Tabs {
    pub(super) fn new(first: Page) -> Self {
        Self { list: vec![first], active: 0 }
    }
}
