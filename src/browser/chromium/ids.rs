//! CDP's ids, each a type of its own: a request id cannot be passed where a loader id is wanted,
//! nor a frame id where a target id is. Parsed from CDP JSON and written back as the same string;
//! the service's own ids (its sessions, tab ids, refs) are not these.
//!
//! Where two ids are the same string by Chromium's design, the link is one named function, never
//! a comparison of strings that happen to match: a main-frame document's request id is the loader
//! id of the document it becomes ([`LoaderId::document_request`], [`RequestId::document_loader`]),
//! and a page's target id is its main frame's id ([`TargetId::main_frame`]).

use std::borrow::{Borrow, Cow};
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Declares an id: a string from CDP, compared, hashed and looked up (`Borrow<str>`) as that
/// string, written to the wire and in JSON schemas as a plain string.
macro_rules! cdp_id {
    ($($(#[$doc:meta])* $name:ident;)+) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Whether Chromium gave none (an event that left it out).
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.0 == *other
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                "String".into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                String::json_schema(generator)
            }
        }
    )+};
}

cdp_id! {
    /// `Network.RequestId`: one request, the same across its redirect hops.
    RequestId;
    /// `Network.LoaderId`: one document load of a frame.
    LoaderId;
    /// `Page.FrameId`: a frame (a page's main frame has its target's id).
    FrameId;
    /// `Target.TargetID`: a page, a worker, a popup.
    TargetId;
    /// `Target.SessionID`: the CDP session attached to a target (not a session of this service).
    SessionId;
    /// `Browser.BrowserContextID`: an isolated browser context (one per session of the service).
    BrowserContextId;
    /// `Runtime.ScriptId`: a script the page compiled.
    ScriptId;
    /// `Fetch.RequestId`: a request held by interception (not the `Network` domain's id).
    FetchRequestId;
}

impl LoaderId {
    /// The request that loads this document in a main frame: Chromium gives a document request
    /// the id of the loader it becomes.
    pub fn document_request(&self) -> RequestId {
        RequestId(self.0.clone())
    }
}

impl RequestId {
    /// The loader a main-frame document request becomes once it commits (see
    /// [`LoaderId::document_request`]).
    pub fn document_loader(&self) -> LoaderId {
        LoaderId(self.0.clone())
    }
}

impl TargetId {
    /// The main frame of a page target: Chromium gives it the target's id.
    pub fn main_frame(&self) -> FrameId {
        FrameId(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn an_id_reads_and_writes_as_the_string_chromium_gave() {
        let id: RequestId = serde_json::from_value(serde_json::json!("1234.5")).unwrap();
        assert_eq!(id, "1234.5");
        assert_eq!(serde_json::to_value(&id).unwrap(), serde_json::json!("1234.5"));
        let mut by_id = HashMap::new();
        by_id.insert(id.clone(), 1);
        assert_eq!(by_id.get("1234.5"), Some(&1), "looked up by its string");
    }

    #[test]
    fn a_document_requests_loader_and_a_pages_main_frame_are_named_links() {
        let loader = LoaderId::from("D1");
        assert_eq!(loader.document_request(), RequestId::from("D1"));
        assert_eq!(loader.document_request().document_loader(), loader);
        assert_eq!(TargetId::from("T").main_frame(), FrameId::from("T"));
    }
}
