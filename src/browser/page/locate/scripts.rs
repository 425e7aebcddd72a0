//! Our page scripts (`src/js`), declared once: each script's type names its file (embedded with
//! `include_str!`) and the answer it gives, so a call is typed end to end
//! (`Locate::call(Probe, …)` answers a [`Probed`]). Values always travel as call arguments, never
//! pasted into the source.
//!
//! Most run in the helper world through `Locate::call` and answer `{ok}` or `{error}`; a few run on
//! an object (the first match, a resolved node, the value `page.evaluate` settles) and are called
//! where that object is. Those that hand back an object by reference answer [`ByReference`]. The
//! helper library (`lib.js`, with `watch_name.js`) and the DOM watcher's scripts are loaded, not
//! called, and are not here.

use serde::de::{DeserializeOwned, IgnoredAny};

use super::answers::{
    AxeViolation, ByReference, Content, EarlyRequests, FieldKind, Inspection, Looked, Observed, PointAt, Probed,
    ScanSummary, SettleAnswer, Stored, UniqueSelector,
};

/// One of our scripts: its source and what it answers.
pub trait Script: Copy {
    /// Its file in `src/js`, for messages.
    const FILE: &'static str;
    const SOURCE: &'static str;
    /// What its `ok` (or, for a script called on an object, its value) holds.
    type Answer: DeserializeOwned;
}

/// `Name = "file.js" => Answer;`: a script, its file and its answer type.
macro_rules! scripts {
    ($($(#[doc = $doc:literal])* $name:ident = $file:literal => $answer:ty;)*) => {
        $(
            $(#[doc = $doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $name;

            impl Script for $name {
                const FILE: &'static str = $file;
                const SOURCE: &'static str = include_str!(concat!("../../../js/", $file));
                type Answer = $answer;
            }
        )*

        /// Every script of the table: (file, source).
        #[cfg(test)]
        const ALL: &[(&str, &str)] = &[$(($file, $name::SOURCE)),*];
    };
}

scripts! {
    /// Whether an element is ready for an action (attached, visible, enabled, stable, hit).
    Probe = "probe.js" => Probed;
    /// What is at a viewport point.
    Point = "point.js" => PointAt;
    /// A fill's last step: the `change` a user leaving the field fires.
    FinishFill = "finish_fill.js" => IgnoredAny;
    /// The focused element's value when it is a password field (else null).
    FocusedPassword = "focused_password.js" => Option<String>;
    /// What kind of field an element is (how `page.fillForm` sets it).
    FieldKindOf = "field_kind.js" => FieldKind;
    /// Chooses a select's options; the values chosen.
    SelectOptions = "select_options.js" => Vec<String>;
    /// Whether a checkbox or radio is checked.
    IsChecked = "is_checked.js" => bool;
    /// How many elements match, how many are visible, and the first ones' texts and values.
    Observe = "observe.js" => Observed;
    /// An element's visible text.
    Text = "text.js" => String;
    /// An element's visible text as Markdown.
    Markdown = "markdown.js" => String;
    /// The document's HTML, cut, and its length.
    ContentOf = "content.js" => Content;
    /// Starts a navigation of the top frame.
    Navigate = "navigate.js" => IgnoredAny;
    /// A selector for the one element of a role query.
    UniqueSelectorOf = "unique_selector.js" => UniqueSelector;
    /// Everything `page.inspect` says of an element, as the page knows it.
    Inspect = "inspect.js" => Inspection;
    /// The DOM watcher's report and, for an action, the touched control's busy sign.
    NextTask = "next_task.js" => Looked;
    /// The DOM watcher's report, the busy sign, the document's URL and title.
    FlushDom = "flush_dom.js" => Looked;
    /// A popup's requests before it was adopted.
    EarlyRequestsOf = "early_requests.js" => EarlyRequests;
    /// Reads and writes the origin's web storage.
    WebStorageOf = "web_storage.js" => Stored;
    /// Writes the origin's localStorage (a session's storage state); how many items.
    SetLocalStorage = "set_local_storage.js" => u64;
    /// Runs axe-core, loaded into the helper world.
    AxeRun = "axe_run.js" => Vec<AxeViolation>;
    /// page.snapshot's look at the DOM: runs and pointer elements (the elements kept by reference).
    SnapshotScan = "snapshot_scan.js" => ScanSummary;
    /// Called on a promise or value: its JSON once settled, or why there is none.
    Settle = "settle.js" => SettleAnswer;
    /// The first element a target spec matches, by reference.
    FirstMatch = "first_match.js" => ByReference;
    /// Called on a resolved element: whether it is still in a live document.
    IsAlive = "is_alive.js" => bool;
    /// Called on an element: how the helper library names it and its ancestors.
    DescribeChain = "describe_chain.js" => Vec<String>;
    /// Called on an element in the page's world: it and its ancestors, the document and the
    /// window, by reference.
    Ancestors = "ancestors.js" => ByReference;
    /// Makes the page's listener lookup function (see `lister`), by reference.
    ReachAsk = "reach_ask.js" => ByReference;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scripts that are loaded rather than called: the helper library, the DOM watcher's, the
    /// page world's listener watch with its framework probes, and the storage breakpoints' arming.
    const LOADED: &[&str] =
        &["lib.js", "watch_name.js", "dom_watch.js", "reach_watch.js", "framework.js", "storage_arm.js"];

    #[test]
    fn every_script_in_src_js_is_in_the_table_once_or_loaded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/js");
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let declared = ALL.iter().filter(|(f, _)| *f == file).count();
            assert!(declared == 1 || LOADED.contains(&file.as_str()), "{file} is declared {declared} times");
        }
        assert!(ALL.iter().all(|(_, source)| !source.trim().is_empty()));
    }
}
