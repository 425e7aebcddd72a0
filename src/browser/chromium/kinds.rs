//! The closed vocabularies CDP speaks in strings — resource types, lifecycle milestones, download
//! states, dialog kinds, console methods — parsed once into enums where an event enters the
//! service. Each keeps an `Other(String)` catch-all so a value Chromium adds tomorrow is carried,
//! never lost or mistaken for another; everything downstream matches on the enum.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Declares an enum of CDP names with an `Other(String)` catch-all, parsed from and written as
/// the CDP string.
macro_rules! cdp_names {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A name this service does not know (kept as Chromium wrote it).
            Other(String),
        }

        impl $name {
            pub fn parse(text: &str) -> Self {
                match text {
                    $($text $(| $alias)* => Self::$variant,)+
                    other => Self::Other(other.to_owned()),
                }
            }

            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)+
                    Self::Other(other) => other,
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = Cow::<str>::deserialize(d)?;
                Ok(Self::parse(&text))
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "examples": [$($text),+] })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

cdp_names! {
    /// What a target is, as Chromium's Target domain names it.
    TargetKind {
        Page = "page",
        BackgroundPage = "background_page",
        ServiceWorker = "service_worker",
        SharedWorker = "shared_worker",
        Worker = "worker",
        Iframe = "iframe",
        Browser = "browser",
    }
}

impl Default for TargetKind {
    fn default() -> Self {
        Self::Other(String::new())
    }
}

cdp_names! {
    /// What a request loads, as Chromium's Network domain names it.
    ResourceType {
        Document = "Document",
        Stylesheet = "Stylesheet",
        Image = "Image",
        Media = "Media",
        Font = "Font",
        Script = "Script",
        TextTrack = "TextTrack",
        Xhr = "XHR",
        Fetch = "Fetch",
        Prefetch = "Prefetch",
        EventSource = "EventSource",
        WebSocket = "WebSocket",
        Manifest = "Manifest",
        Ping = "Ping",
        Preflight = "Preflight",
        CspViolationReport = "CSPViolationReport",
        SignedExchange = "SignedExchange",
        /// Chromium's own "Other" (the favicon, a worker's import …).
        Unclassified = "Other",
    }
}

impl ResourceType {
    /// Fetch/XHR and documents: the requests whose bodies are the app's data.
    pub fn is_data(&self) -> bool {
        matches!(self, Self::Fetch | Self::Xhr | Self::Document)
    }

    /// Requests that stay open by design (event streams, sockets): reported, never waited for.
    pub fn is_long_lived(&self) -> bool {
        matches!(self, Self::EventSource | Self::WebSocket)
    }

    /// The same type, named case-insensitively (`fetch`, `xhr`) as callers write it.
    pub fn parse_loose(text: &str) -> Self {
        const KNOWN: [&str; 18] = [
            "Document",
            "Stylesheet",
            "Image",
            "Media",
            "Font",
            "Script",
            "TextTrack",
            "XHR",
            "Fetch",
            "Prefetch",
            "EventSource",
            "WebSocket",
            "Manifest",
            "Ping",
            "Preflight",
            "CSPViolationReport",
            "SignedExchange",
            "Other",
        ];
        KNOWN.iter().find(|k| k.eq_ignore_ascii_case(text)).map_or_else(|| Self::parse(text), |k| Self::parse(k))
    }
}

cdp_names! {
    /// A page lifecycle milestone (`Page.lifecycleEvent`'s name).
    Milestone {
        Init = "init",
        DomContentLoaded = "DOMContentLoaded",
        Load = "load",
        NetworkAlmostIdle = "networkAlmostIdle",
        NetworkIdle = "networkIdle",
        FirstPaint = "firstPaint",
        FirstContentfulPaint = "firstContentfulPaint",
        FirstMeaningfulPaint = "firstMeaningfulPaint",
    }
}

cdp_names! {
    /// Where a download stands (`Browser.downloadProgress`'s state).
    DownloadState {
        InProgress = "inProgress",
        Completed = "completed",
        Canceled = "canceled",
    }
}

cdp_names! {
    /// The kind of a JavaScript dialog.
    DialogKind {
        Alert = "alert",
        Confirm = "confirm",
        Prompt = "prompt",
        BeforeUnload = "beforeunload",
    }
}

cdp_names! {
    /// The console method a page called (`console.error` → `error`).
    ConsoleMethod {
        Log = "log",
        Debug = "debug",
        Info = "info",
        Error = "error",
        Warning = "warning" | "warn",
        Dir = "dir",
        DirXml = "dirxml",
        Table = "table",
        Trace = "trace",
        Clear = "clear",
        StartGroup = "startGroup",
        StartGroupCollapsed = "startGroupCollapsed",
        EndGroup = "endGroup",
        Assert = "assert",
        Profile = "profile",
        ProfileEnd = "profileEnd",
        Count = "count",
        TimeEnd = "timeEnd",
    }
}

impl ConsoleMethod {
    pub fn level(&self) -> Level {
        match self {
            Self::Error | Self::Assert => Level::Error,
            Self::Warning => Level::Warning,
            Self::Debug | Self::Trace => Level::Debug,
            _ => Level::Info,
        }
    }
}

cdp_names! {
    /// Where the page asked a navigation to happen (`Page.frameRequestedNavigation`).
    Disposition {
        CurrentTab = "currentTab",
        NewTab = "newTab",
        NewWindow = "newWindow",
        Download = "download",
    }
}

/// Console severity, from `console.debug` up to `console.error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warning,
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_parse_to_their_variant_and_unknown_ones_are_kept() {
        assert_eq!(ResourceType::parse("XHR"), ResourceType::Xhr);
        assert_eq!(ResourceType::parse("Other"), ResourceType::Unclassified);
        assert_eq!(ResourceType::parse("Beacon2030"), ResourceType::Other("Beacon2030".into()));
        assert_eq!(ResourceType::parse("Beacon2030").as_str(), "Beacon2030");
        assert_eq!(ResourceType::parse_loose("fetch"), ResourceType::Fetch);
        assert_eq!(ConsoleMethod::parse("warn"), ConsoleMethod::Warning);
        assert_eq!(serde_json::to_value(ConsoleMethod::parse("warn")).unwrap(), "warning");
        assert_eq!(DownloadState::parse("canceled"), DownloadState::Canceled);
        assert_eq!(Milestone::parse("DOMContentLoaded"), Milestone::DomContentLoaded);
    }

    #[test]
    fn levels_are_ordered_from_debug_to_error() {
        assert!(ConsoleMethod::Error.level() > ConsoleMethod::Warning.level());
        assert!(ConsoleMethod::Warning.level() > ConsoleMethod::Log.level());
        assert!(ConsoleMethod::Log.level() > ConsoleMethod::Debug.level());
        assert_eq!(ConsoleMethod::Assert.level(), Level::Error);
    }
}
