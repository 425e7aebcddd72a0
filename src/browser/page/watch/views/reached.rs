//! What an action reached, as its effects say it: the listeners its events ran through
//! (`click on button#save → saveProfile (/form/:36)`; behind React's or Vue's own listeners, the
//! component's handler: `click on button → onClick = submit in <ClaimForm>
//! (src/components/ClaimForm.tsx:16)`, React's delegation on its root in one line), or
//! `"no listener"`; and what the browser
//! did by default with the user's click, submission or Enter key (`submit on #login: submits
//! form#login (POST /login)`), or why it did not (`type="button"`, a listener that prevented it, an
//! inline `onsubmit="return false"`).
//!
//! Pure: the listeners come from the page (listed as the input began, see `page::reach`),
//! the browser's handling from the DOM watcher's notes in the timeline.

use schemars::JsonSchema;
use serde::Serialize;

use super::super::dom::{EventNote, Framework, NoteKind};

/// Listener lines listed before "… N more".
const MAX_LINES: usize = 8;
/// Characters of an inline handler's code shown.
const INLINE_CHARS: usize = 80;

/// One listener an action's events reached.
#[derive(Debug, Clone, PartialEq)]
pub struct ReachedListener {
    /// The event type.
    pub event: String,
    /// The element (or `document`, `window`) it is on.
    pub on: String,
    pub capture: bool,
    /// Its function's name (empty for an anonymous one): its original name where a source map
    /// tells it.
    pub function: String,
    /// Where its function is, when known: `src/components/ClaimForm.tsx:16`, or as served
    /// `/form/:36`.
    pub spot: Option<String>,
    /// For an inline attribute handler (`onsubmit="return false"`): its code.
    pub inline: Option<String>,
    /// Its code calls preventDefault (or, inline, returns false).
    pub prevents: bool,
    /// Behind React's or Vue's own listeners: the framework that calls it, React's prop it was given
    /// as (`onClick`), the component that rendered its element.
    pub framework: Option<Framework>,
    pub prop: Option<String>,
    pub component: Option<String>,
    /// React's event delegation on its root: how many of its listeners this one stands for.
    pub delegation: u32,
}

impl ReachedListener {
    /// `saveProfile (/form/:36)`, `an inline onsubmit="return false"`.
    fn handler(&self) -> String {
        match (&self.spot, &self.inline, self.delegation) {
            (Some(spot), None, 0) => format!("{} ({spot})", self.who()),
            _ => self.who(),
        }
    }

    /// The handler without its place: `onClick = submit in <ClaimForm>`, `saveProfile`.
    pub fn who(&self) -> String {
        if let Some(code) = &self.inline {
            let code: String = code.chars().take(INLINE_CHARS).collect();
            return format!("inline on{}={}", self.event, serde_json::Value::from(code));
        }
        if self.delegation > 0 {
            return match self.delegation {
                1 => "React's root listener, which calls the components' handlers".to_owned(),
                n => format!("React's root listeners ({n}), which call the components' handlers"),
            };
        }
        // `onClick = submit`, an anonymous one by its prop alone: `v-model`, `onClick`.
        let name = match (&self.prop, self.function.as_str()) {
            (Some(prop), "") => prop.clone(),
            (Some(prop), function) => format!("{prop} = {function}"),
            (None, "") => "a listener".to_owned(),
            (None, function) => function.to_owned(),
        };
        let component = self.component.as_ref().map(|c| format!(" in <{c}>")).unwrap_or_default();
        format!("{name}{component}")
    }

    /// `click on button#save → saveProfile (/form/:36)`.
    fn line(&self) -> String {
        let phase = if self.capture { " (capture)" } else { "" };
        format!("{} on {}{phase} → {}", self.event, self.on, self.handler())
    }
}

/// `effects.reached`: `"no listener"`, or the listeners one line each, nearest first (`click on
/// button#save → saveProfile (/form/:36)`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Reached {
    Nothing(NoListener),
    Listeners(Vec<String>),
}

// No listener of the action's events on the element, its ancestors, the document or the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum NoListener {
    #[serde(rename = "no listener")]
    NoListener,
}

impl Reached {
    pub fn is_nothing(&self) -> bool {
        matches!(self, Self::Nothing(_))
    }
}

/// The listeners as `effects.reached` shows them.
pub fn reached(listeners: &[ReachedListener]) -> Reached {
    if listeners.is_empty() {
        return Reached::Nothing(NoListener::NoListener);
    }
    // Each listener once, with how many times it ran: two listeners of one place (the same setup
    // run twice) both run, and `×2` says so.
    let mut counted: Vec<(String, usize)> = Vec::new();
    for line in listeners.iter().map(ReachedListener::line) {
        match counted.iter_mut().find(|(seen, _)| *seen == line) {
            Some((_, n)) => *n += 1,
            None => counted.push((line, 1)),
        }
    }
    let mut lines: Vec<String> =
        counted.into_iter().map(|(line, n)| if n > 1 { format!("{line} ×{n}") } else { line }).collect();
    if lines.len() > MAX_LINES {
        let more = lines.len() - MAX_LINES;
        lines.truncate(MAX_LINES);
        lines.push(format!("… {more} more"));
    }
    Reached::Listeners(lines)
}

/// How many times each listener that ran more than once ran (listed twice: two listeners of one
/// place, the same setup run twice).
pub fn repeats(listeners: &[ReachedListener]) -> Vec<usize> {
    let lines: Vec<String> = listeners.iter().map(ReachedListener::line).collect();
    let mut counts: Vec<usize> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if lines[..i].contains(line) {
            continue;
        }
        let n = lines[i..].iter().filter(|l| *l == line).count();
        if n > 1 {
            counts.push(n);
        }
    }
    counts
}

/// What the browser did by default with the user's input events (`notes`, oldest first), and who
/// prevented it: one clause per event, or none when there is nothing to say.
pub fn by_default(notes: &[&EventNote], listeners: &[ReachedListener]) -> Option<String> {
    let mut clauses = Vec::new();
    for note in notes.iter().take(3) {
        let kind = match note.kind {
            NoteKind::Click => "click",
            NoteKind::Submit => "submit",
            NoteKind::Keydown => "Enter",
            NoteKind::Other => continue,
        };
        let mut clause = match (&note.default, note.prevented) {
            (Some(default), true) => {
                format!(
                    "{kind} on {}: its default ({default}) was prevented by {}",
                    note.on,
                    preventer(note, listeners)
                )
            }
            (None, true) => {
                format!("{kind} on {}: its default was prevented by {}", note.on, preventer(note, listeners))
            }
            (Some(default), false) => format!("{kind} on {}: {default}", note.on),
            (None, false) if !note.bubbled => format!("{kind} on {}", note.on),
            (None, false) => continue,
        };
        if !note.bubbled {
            clause.push_str(" (a listener stopped its propagation before the window)");
        }
        clauses.push(clause);
    }
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

/// Who called preventDefault: the one listener of the event's type whose code does, else the
/// candidates.
fn preventer(note: &EventNote, listeners: &[ReachedListener]) -> String {
    let event = match note.kind {
        NoteKind::Keydown => "keydown",
        NoteKind::Click => "click",
        NoteKind::Submit => "submit",
        NoteKind::Other => "",
    };
    let of_type: Vec<&ReachedListener> = listeners.iter().filter(|l| l.event == event).collect();
    let preventing: Vec<&ReachedListener> = of_type.iter().copied().filter(|l| l.prevents).collect();
    match (preventing.as_slice(), of_type.as_slice()) {
        ([one], _) | ([], [one]) => format!("{} on {}", one.handler(), one.on),
        ([], []) => "a listener".to_owned(),
        (some, _) if !some.is_empty() => {
            format!(
                "one of {}",
                some.iter().map(|l| format!("{} on {}", l.handler(), l.on)).collect::<Vec<_>>().join(", ")
            )
        }
        (_, all) => {
            format!(
                "one of {}",
                all.iter().map(|l| format!("{} on {}", l.handler(), l.on)).collect::<Vec<_>>().join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listener(event: &str, on: &str, function: &str, line: u32, prevents: bool) -> ReachedListener {
        ReachedListener {
            event: event.into(),
            on: on.into(),
            capture: false,
            function: function.into(),
            spot: Some(format!("/login/:{line}")),
            inline: None,
            prevents,
            framework: None,
            prop: None,
            component: None,
            delegation: 0,
        }
    }

    fn note(kind: NoteKind, on: &str, default: Option<&str>, prevented: bool) -> EventNote {
        EventNote { at: 0.0, kind, on: on.into(), default: default.map(str::to_owned), prevented, bubbled: true }
    }

    #[test]
    fn listeners_read_one_line_each_nearest_first() {
        let reached = reached(&[listener("click", "button#save", "saveProfile", 36, false)]);
        assert_eq!(reached, Reached::Listeners(vec!["click on button#save → saveProfile (/login/:36)".into()]));
        assert_eq!(serde_json::to_value(super::reached(&[])).unwrap(), "no listener");
    }

    #[test]
    fn an_anonymous_handler_a_framework_calls_is_named_by_its_prop() {
        let model = ReachedListener {
            framework: Some(Framework::Vue),
            prop: Some("v-model".into()),
            component: Some("RoomPicker".into()),
            spot: Some("src/components/RoomPicker.vue:13".into()),
            ..listener("change", "input", "", 0, false)
        };
        let named = ReachedListener { function: "submit".into(), prop: Some("onClick".into()), ..model.clone() };
        assert_eq!(
            reached(&[model, named]),
            Reached::Listeners(vec![
                "change on input → v-model in <RoomPicker> (src/components/RoomPicker.vue:13)".into(),
                "change on input → onClick = submit in <RoomPicker> (src/components/RoomPicker.vue:13)".into()
            ])
        );
    }

    #[test]
    fn a_listener_that_ran_twice_says_so() {
        let twice = [
            listener("click", "button#place", "", 24, false),
            listener("click", "button#place", "", 24, false),
            listener("click", "document", "track", 3, false),
        ];
        assert_eq!(
            reached(&twice),
            Reached::Listeners(vec![
                "click on button#place → a listener (/login/:24) ×2".into(),
                "click on document → track (/login/:3)".into()
            ])
        );
    }

    #[test]
    fn a_prevented_default_names_the_listener_that_prevented_it() {
        let listeners = [
            listener("submit", "form#login", "track", 10, false),
            listener("submit", "form#login", "onSubmit", 40, true),
        ];
        let submit = note(NoteKind::Submit, "#login", Some("submits #login (POST /session)"), true);
        assert_eq!(
            by_default(&[&submit], &listeners).as_deref(),
            Some(
                "submit on #login: its default (submits #login (POST /session)) was prevented by onSubmit (/login/:40) on form#login"
            )
        );
        let inline = ReachedListener {
            inline: Some("return false".into()),
            spot: None,
            ..listener("submit", "form#login", "onsubmit", 0, true)
        };
        assert_eq!(
            by_default(&[&submit], &[inline]).as_deref(),
            Some(
                "submit on #login: its default (submits #login (POST /session)) was prevented by inline onsubmit=\"return false\" on form#login"
            )
        );
    }

    #[test]
    fn a_default_that_does_nothing_says_why() {
        let click =
            note(NoteKind::Click, "#save", Some("no default action (a type=\"button\" button submits no form)"), false);
        assert_eq!(
            by_default(&[&click], &[]).as_deref(),
            Some("click on #save: no default action (a type=\"button\" button submits no form)")
        );
        let plain = note(NoteKind::Click, "div.card", None, false);
        assert_eq!(by_default(&[&plain], &[]), None);
    }
}
