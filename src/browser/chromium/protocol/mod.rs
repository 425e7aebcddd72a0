//! The CDP commands the service sends, declared as our own small structs by domain: each struct
//! is a command's params, names its method and the answer the service reads (`cdp::Command`).
//! Answers keep only the fields some caller reads, each with a default, so what Chromium adds or
//! renames elsewhere never fails a call; closed vocabularies (a remote object's type, an input
//! event's type) are enums.
//!
//! - `runtime`: running functions and scripts in a context, the objects they leave, releasing them
//! - `dom`: nodes (resolving, describing, their boxes, file inputs), their listeners
//!   (`DOMDebugger`) and a whole-document snapshot (`DOMSnapshot`)
//! - `accessibility`: the accessibility tree, whole, partial or queried
//! - `page`: the page's frames, worlds, history, layout, screenshots and PDFs, init scripts
//! - `input`: mouse, keyboard, text and drag input
//! - `network`: cookies, request interception (`Fetch`), a resource loaded through the page's network
//!   stack (a source map); `io`: reading the stream such a load opens
//! - `emulation`: the viewport and media the page is laid out for, its runtime counters
//!   (`Performance`)
//! - `debugger`: script URLs and sources, async stacks, pauses read on their frame and resumed
//! - `target`: the page's own target (auto-attach, the barrier round trip), and the browser's
//!   targets and contexts (a session's context, its tabs)
//! - `browser`: a context's downloads and permissions
//! - `storage`: a context's cookies, a page's Web Storage events and items
//!
//! Knows nothing above Chromium: the page layer composes these.

pub mod accessibility;
pub mod browser;
pub mod debugger;
pub mod dom;
pub mod emulation;
pub mod input;
pub mod io;
pub mod network;
pub mod page;
pub mod runtime;
pub mod storage;
pub mod target;

use serde::{Deserialize, Deserializer};

/// The answer of a command whose answer the service does not read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Done;

impl<'de> Deserialize<'de> for Done {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(Done)
    }
}

/// For `skip_serializing_if`: a flag left out when false (the protocol's default).
fn is_false(flag: &bool) -> bool {
    !*flag
}

/// Declares that a params struct is the command `$method` answered by `$answer`.
macro_rules! command {
    ($params:ident $(<$lt:lifetime>)?, $method:literal, $answer:ty) => {
        impl $(<$lt>)? $crate::browser::chromium::cdp::Command for $params $(<$lt>)? {
            const METHOD: &'static str = $method;
            type Answer = $answer;
        }
    };
}
use command;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unread_answer_is_done_whatever_it_holds() {
        for answer in [serde_json::json!({}), serde_json::json!({ "debuggerId": "x" }), serde_json::Value::Null] {
            assert_eq!(serde_json::from_value::<Done>(answer).unwrap(), Done);
        }
    }
}
