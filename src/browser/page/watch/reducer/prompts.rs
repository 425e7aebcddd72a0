//! What the page waits on an answer for: a dialog (`alert`, `confirm`, `prompt`, `beforeunload`)
//! and a file chooser, answered as armed (the arms are this sub-reducer's, set through the pump),
//! an HTTP authentication challenge (answered by chromiumoxide; filed as it answered it), and a
//! request held by interception, answered by the page's routes (`network.route`, in the store).
//! Each answer is a command; each dialog, chooser and challenge is noted.

use super::super::arms::{Arm, ChooserHook, DialogHook};
use super::super::cdp_events::PageEvent;
use super::super::clock::Now;
use super::super::commands::{Command, PausedAnswer};
use super::super::notes::{ChooserNote, DialogNote, Signal};
use super::super::records::Record;
use super::super::store::Store;
use super::outbox::{Outbox, note};
use crate::browser::chromium::kinds::DialogKind;
use crate::browser::page::route_table::Decision;

#[derive(Debug, Default)]
pub struct Prompts {
    dialog: DialogHook,
    chooser: ChooserHook,
}

impl Prompts {
    /// Arms how the next dialog or file chooser is answered (the last arm wins).
    pub fn arm(&mut self, arm: Arm) {
        match arm {
            Arm::Dialog(arm) => self.dialog.arm(arm),
            Arm::Chooser(arm) => self.chooser.arm(arm),
        }
    }

    pub fn apply(&mut self, store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
        match event {
            PageEvent::RequestPaused { request_id, url } if !store.routes.is_empty() => {
                let answer = match store.routes.decide(&url) {
                    Decision::Continue => PausedAnswer::Continue { request_id },
                    Decision::Abort => PausedAnswer::Abort { request_id },
                    Decision::Fulfill { status, headers, body } => {
                        PausedAnswer::Fulfill { request_id, status, headers, body: body.to_vec() }
                    }
                };
                out.commands.push(Command::AnswerPaused(answer));
            }
            PageEvent::RequestPaused { request_id, url } => out.paused = Some((request_id, url)),
            PageEvent::FileChooserOpened { backend_node_id } => {
                let arm = self.chooser.take(now.instant);
                let chosen = match (&arm, backend_node_id) {
                    (Some(arm), Some(_)) => ChooserNote::Armed { names: arm.names.clone() },
                    (Some(_), None) => ChooserNote::NotForFileInput,
                    (None, _) => ChooserNote::Unarmed,
                };
                noted(store, DialogNote::Chooser(chosen), now, out);
                if let (Some(arm), Some(node)) = (arm, backend_node_id) {
                    out.commands.push(Command::ChooseFiles { paths: arm.paths, backend_node_id: node });
                }
            }
            PageEvent::AuthRequired { request_id, url, scheme, realm, .. } => {
                let answer = store.routes.auth_answer(request_id.as_str());
                noted(store, DialogNote::Auth { scheme, url, realm, answer }, now, out);
            }
            PageEvent::DialogOpening { kind, message, default_prompt } => {
                let answer = self.dialog.answer(&kind, now.instant);
                let prompt_text = (answer.accept && kind == DialogKind::Prompt)
                    .then(|| answer.prompt_text.clone().unwrap_or(default_prompt));
                let accept = answer.accept;
                noted(store, DialogNote::Dialog { kind, message, answer }, now, out);
                out.commands.push(Command::AnswerDialog { accept, prompt_text });
            }
            _ => {}
        }
    }
}

fn noted(store: &mut Store, dialog: DialogNote, now: Now, out: &mut Outbox) {
    note(store, Record::Dialog(dialog.clone()), Signal::Dialog(dialog), now, out);
}
