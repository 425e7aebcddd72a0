//! Messages between windows: each message the page's window got from a frame, a window or itself,
//! as the page's own world noted it at its dispatch (`js/reach_watch.js`, passed on by the DOM
//! watcher), filed in the timeline masked and bounded — its origin, the frame it came from, its
//! outline and naming values, the listeners it was dispatched to. No state: the page world's
//! budget (20 noted a second, the rest counted) bounds how many come.

use super::super::exchanged::{MessageNote, MessageSeen, Shape};
use super::super::records::{self, Record};
use super::super::shape;
use super::super::store::Store;

/// Characters of an origin or a frame's description kept.
const PLACE_CHARS: usize = 240;
/// Characters of an outline kept (the page world writes at most 160).
const OUTLINE_CHARS: usize = 200;
/// Listeners kept per message (the page world lists at most 8).
const LISTENERS: usize = 8;

/// Files one message the window got.
pub fn apply(store: &mut Store, seen: MessageSeen) {
    let cut = |text: &str, limit: usize| store.redactor.text(&text.chars().take(limit).collect::<String>());
    let tags = shape::tags_of(&seen.tags).into_iter().map(|(key, value)| (key, store.redactor.text(&value))).collect();
    let listeners = seen.listeners.iter().take(LISTENERS).map(|l| (l.name.chars().take(80).collect(), l.fid)).collect();
    let note = MessageNote {
        origin: records::url(cut(&seen.origin, PLACE_CHARS)),
        from: cut(&seen.from, PLACE_CHARS),
        shape: Shape::Json { outline: cut(&seen.outline, OUTLINE_CHARS), tags },
        listeners,
        ports: seen.ports,
        unread: seen.unread,
        document: store.timeline.generation(),
    };
    store.timeline.push(seen.at, Record::Message(note));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_kept_as_its_outline_and_names_with_what_could_carry_data_left_out() {
        let seen: MessageSeen = serde_json::from_str(
            r#"{"t":5,"origin":"http://h:1","from":"iframe#scheduler (/support/scheduler/)",
                "outline":"{type: string, height: number}","tags":[["type","scheduler:ready"],["code","Gull-Wing#Harbor-77"],["height",300]],
                "listeners":[{"on":"window","type":"message","name":"onSchedulerMessage","fid":3}],"ports":0,"unread":2}"#,
        )
        .unwrap();
        let mut store = Store::new(0.0);
        apply(&mut store, seen);
        let Some(Record::Message(note)) = store.timeline.iter().last().map(|e| e.record.clone()) else { panic!() };
        let Shape::Json { tags, outline } = &note.shape else { panic!() };
        assert_eq!(
            tags,
            &vec![("type".to_owned(), "\"scheduler:ready\"".to_owned())],
            "free text and other keys are no tags"
        );
        assert_eq!(outline, "{type: string, height: number}");
        assert_eq!(note.listeners, vec![("onSchedulerMessage".to_owned(), 3)]);
        assert_eq!((note.from.as_str(), note.unread), ("iframe#scheduler (/support/scheduler/)", 2));
    }
}
