//! Places in a script ([`CodeLocation`]: what errors, initiators and listeners point at) and stack
//! traces as the service keeps them: the frames of a CDP `StackTrace`, segment by segment
//! through its async parents (`await`, `Promise.then`, `setTimeout`, a MutationObserver's
//! `childList` …), bounded. Async stack traces are on for every page (see `dom::install`), so an
//! error thrown in a response's callback, a request started after an `await`, and a DOM change all
//! carry the chain of what led to them; `causes` reads those chains.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// A place in a script: 1-based line and column, and the function, when known.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct CodeLocation {
    pub url: String,
    /// 1-based.
    pub line: u32,
    /// 1-based.
    pub column: u32,
    /// The function running there (absent at a script's top level).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub function: String,
}

impl CodeLocation {
    /// From a CDP call frame (0-based `lineNumber` / `columnNumber`).
    pub(super) fn of_frame(frame: &Value) -> Option<Self> {
        let url = frame.get("url")?.as_str().filter(|u| !u.is_empty())?.to_owned();
        Some(Self {
            url,
            line: frame.get("lineNumber").and_then(Value::as_u64).unwrap_or(0) as u32 + 1,
            column: frame.get("columnNumber").and_then(Value::as_u64).unwrap_or(0) as u32 + 1,
            function: frame.get("functionName").and_then(Value::as_str).unwrap_or_default().to_owned(),
        })
    }

    /// The same function of the same script (for code outside any function: the same line).
    pub fn same_place(&self, other: &CodeLocation) -> bool {
        self.url == other.url
            && self.function == other.function
            && (!self.function.is_empty() || self.line == other.line)
    }

    /// The first frame with a URL of a CDP stack trace, following async parents.
    pub(super) fn of_stack(stack: &Value) -> Option<Self> {
        let mut current = Some(stack);
        while let Some(trace) = current {
            let frames = trace.get("callFrames").and_then(Value::as_array);
            if let Some(found) = frames.into_iter().flatten().find_map(Self::of_frame) {
                return Some(found);
            }
            current = trace.get("parent");
        }
        None
    }
}

/// Segments kept: the synchronous part and this many async parents, less one.
pub(super) const MAX_SEGMENTS: usize = 8;
/// Frames kept per segment.
pub(super) const MAX_FRAMES: usize = 8;

/// One stretch of a stack: the synchronous frames, or an async parent's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segment {
    /// How it was scheduled (`await`, `Promise.then`, `setTimeout` …); none for the synchronous part.
    pub boundary: Option<String>,
    /// Scheduled as a promise's continuation or an XHR's callback (where a response is read):
    /// read once from the boundary's description as the trace enters.
    pub after_promise: bool,
    /// Its frames with a script URL, innermost first.
    pub frames: Vec<CodeLocation>,
}

/// Whether an async parent's description (CDP's `StackTrace.description`) names a promise's
/// continuation or an XHR's callback.
fn continues(description: &str) -> bool {
    description == "await"
        || description.starts_with("Promise.")
        || description.starts_with("async")
        || description.contains("XMLHttpRequest")
}

/// A stack trace, innermost segment first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stack {
    pub segments: Vec<Segment>,
}

impl Stack {
    /// Reads a CDP `Runtime.StackTrace` (following `parent`); frames without a URL (our own
    /// scripts, `eval`) are left out.
    pub fn parse(trace: &Value) -> Self {
        let mut segments = Vec::new();
        let mut current = Some(trace);
        let mut first = true;
        while let Some(trace) = current {
            if segments.len() == MAX_SEGMENTS {
                break;
            }
            let frames: Vec<CodeLocation> = trace
                .get("callFrames")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(CodeLocation::of_frame)
                .take(MAX_FRAMES)
                .collect();
            let boundary: Option<String> = (!first).then(|| {
                trace.get("description").and_then(Value::as_str).unwrap_or("async").chars().take(40).collect()
            });
            let after_promise = boundary.as_deref().is_some_and(continues);
            first = false;
            segments.push(Segment { boundary, after_promise, frames });
            current = trace.get("parent");
        }
        Self { segments }
    }

    /// Every frame, innermost first.
    pub fn frames(&self) -> impl Iterator<Item = &CodeLocation> {
        self.segments.iter().flat_map(|s| s.frames.iter())
    }

    /// The innermost frame with a URL: where the thing happened.
    pub fn top(&self) -> Option<&CodeLocation> {
        self.frames().next()
    }

    /// The async parents (segments after the synchronous one).
    pub fn parents(&self) -> &[Segment] {
        self.segments.get(1..).unwrap_or_default()
    }

    /// Whether it runs in a promise's continuation or an XHR's callback: where a response is read.
    pub fn after_promise(&self) -> bool {
        self.parents().iter().any(|s| s.after_promise)
    }

    pub fn is_empty(&self) -> bool {
        self.segments.iter().all(|s| s.frames.is_empty())
    }

    /// Where code in a continuation picked up: the function the continuation resumed (the
    /// outermost synchronous frame) and the places that scheduled it (each async parent's innermost
    /// frame). Framework frames deeper in a parent are not among them.
    pub fn resumed(&self) -> impl Iterator<Item = &CodeLocation> {
        let first = self.segments.first().and_then(|s| s.frames.last());
        first.into_iter().chain(self.parents().iter().filter_map(|s| s.frames.first()))
    }

    /// A rough size in bytes, for the byte caps.
    pub fn bytes(&self) -> usize {
        self.frames().map(|f| 16 + f.url.len() + f.function.len()).sum::<usize>() + 16 * self.segments.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stack_keeps_its_async_parents_and_drops_frames_without_a_url() {
        let stack = Stack::parse(&json!({
            "callFrames": [{"functionName":"render","url":"http://a/app.js","lineNumber":9,"columnNumber":2},
                           {"functionName":"","url":"","lineNumber":0,"columnNumber":0}],
            "parent": {"description":"await","callFrames":[{"functionName":"load","url":"http://a/app.js","lineNumber":3,"columnNumber":0}]}
        }));
        assert_eq!(stack.segments.len(), 2);
        assert_eq!(stack.top().map(|f| (f.function.as_str(), f.line)), Some(("render", 10)));
        assert_eq!(stack.parents()[0].boundary.as_deref(), Some("await"));
        assert!(stack.after_promise());
        assert_eq!(stack.frames().count(), 2);
    }

    #[test]
    fn a_synchronous_stack_is_not_after_a_promise() {
        let stack = Stack::parse(&json!({"callFrames":[{"functionName":"onInput","url":"http://a/","lineNumber":1}]}));
        assert!(!stack.after_promise());
        assert!(Stack::parse(&json!({})).is_empty());
    }
}
