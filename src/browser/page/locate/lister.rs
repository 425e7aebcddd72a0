//! The page's own listener lookup and where the functions it lists are.
//!
//! `js/reach_ask.js` makes, once per document, a function in the page's own world (the only one
//! its listeners show in) that lists the listeners an input at a point (or on the focused element)
//! will reach, numbering each function it lists, and hands those functions back by number. Asking
//! it costs a `Runtime.callFunctionOn` (≈ 0.7 ms). Placing a function (`[[FunctionLocation]]`)
//! takes three round trips, so the places are kept per document ([`Lister`]): a page's second click
//! on the same control pays nothing. Which listeners an action reached, and what that says, is
//! `act::listeners`'.

use std::collections::HashMap;

use futures_util::future::join_all;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::Locate;
use super::scripts::{ReachAsk, Script};
use crate::browser::chromium::ids::LoaderId;
use crate::browser::chromium::protocol::debugger;
use crate::browser::chromium::protocol::runtime::{
    CallArgument, CallFunctionOn, Evaluate, GetProperties, ReleaseObjectGroup, SetAsyncCallStackDepth,
};
use crate::browser::error::BrowserError;
use crate::browser::page::core::lock;
use crate::browser::page::watch::cdp_events::CodeLocation;
use crate::browser::page::watch::dom::{ASYNC_DEPTH, ReachNote};

/// The object group the ask function lives in (for the document's life).
const ASK_GROUP: &str = "text-browser-reach";
/// The object group of the functions being placed, released at once.
const NAMING_GROUP: &str = "text-browser-reach-names";
/// Functions placed per lookup, at most.
pub const MAX_NAMED: usize = 12;
/// Function places kept per document, at most (a page that makes fresh closures on every render
/// is not remembered forever).
const MAX_KEPT: usize = 512;

/// Where a function is: (script id, 1-based line, 1-based column).
pub type Place = (String, u32, u32);

/// The ask function of one document, and the places of the functions it numbered.
#[derive(Debug, Clone, Default)]
pub struct Lister {
    /// The document.
    loader: LoaderId,
    /// The ask function's object id (`js/reach_ask.js`).
    ask: String,
    /// Function number → its place, None when it has none (a native function).
    named: HashMap<u32, Option<Place>>,
}

/// The page's listener lookup at work (see the module doc): `locate.listing()`.
#[derive(Clone, Copy)]
pub struct Listing<'a> {
    locate: Locate<'a>,
}

impl<'a> Locate<'a> {
    /// The page's own listener lookup, and where the functions it lists are.
    pub(in crate::browser::page) fn listing(self) -> Listing<'a> {
        Listing { locate: self }
    }
}

impl Listing<'_> {
    /// The listeners an input at viewport point `point` (or on the focused element, without one)
    /// will reach, asked for before an input the page gets untrusted. None when the page could not
    /// be asked (a document going away, a document without the watch).
    pub(in crate::browser::page) async fn look_ahead(
        &self,
        point: Option<(f64, f64)>,
        deadline: Instant,
    ) -> Option<ReachNote> {
        let (x, y) = match point {
            Some((x, y)) => (json!(x), json!(y)),
            None => (Value::Null, Value::Null),
        };
        let arguments = [CallArgument::Value { value: x }, CallArgument::Value { value: y }];
        self.listed("function (x, y) { return this({ look: { x, y } }); }", &arguments, deadline).await
    }

    /// The listeners the events of the element `node` (an object of the page's own world) reach,
    /// as an input there would list them (every type; React's and Vue's handlers in place of
    /// their own listeners). None when the page could not be asked.
    pub(in crate::browser::page) async fn listed_at(&self, node: &str, deadline: Instant) -> Option<ReachNote> {
        let arguments = [CallArgument::Object { object_id: node.to_owned() }];
        self.listed("function (node) { return this({ at: node }); }", &arguments, deadline).await
    }

    /// A list the ask function answers when `declaration` calls it with `arguments`.
    async fn listed(&self, declaration: &str, arguments: &[CallArgument], deadline: Instant) -> Option<ReachNote> {
        for retry in [false, true] {
            let ask = self.ask_function(retry, deadline).await.ok()?;
            let look = CallFunctionOn {
                function_declaration: declaration,
                object_id: Some(&ask),
                arguments: arguments.to_vec(),
                return_by_value: true,
                ..CallFunctionOn::default()
            };
            match self.locate.core.send(look, deadline).await {
                Ok(answer) if answer.exception_details.is_none() => return ReachNote::parse(answer.result.value?),
                // The document changed since the function was made: make it again, once.
                Err(BrowserError::Protocol { .. }) if !retry => continue,
                _ => return None,
            }
        }
        None
    }

    /// The places of the functions numbered `fids` in the document `loader`: those placed before
    /// in the document from memory, the rest (of the first [`MAX_NAMED`]) asked for; none asked
    /// for once the document is gone.
    pub(in crate::browser::page) async fn places(
        &self,
        fids: &[u32],
        loader: &LoaderId,
        deadline: Instant,
    ) -> Result<HashMap<u32, Option<Place>>, BrowserError> {
        let lister = &self.locate.locator.lister;
        let mut named =
            lock(lister).as_ref().filter(|l| l.loader == *loader).map(|l| l.named.clone()).unwrap_or_default();
        let mut wanted: Vec<u32> = Vec::new();
        for fid in fids.iter().take(MAX_NAMED) {
            if *fid != 0 && !named.contains_key(fid) && !wanted.contains(fid) {
                wanted.push(*fid);
            }
        }
        if !wanted.is_empty() && self.locate.core.loader_id() == *loader {
            let located = self.place(&wanted, deadline).await?;
            if let Some(kept) = lock(lister).as_mut().filter(|l| l.loader == *loader) {
                if kept.named.len() + located.len() > MAX_KEPT {
                    kept.named.clear();
                }
                kept.named.extend(located.iter().cloned());
            }
            named.extend(located);
        }
        Ok(named)
    }

    /// Where the functions numbered `fids` in the document `loader` are, as served (see
    /// [`Listing::places`]), their scripts named by URL: what a location is read from.
    pub(in crate::browser::page) async fn locations(
        &self,
        fids: &[u32],
        loader: &LoaderId,
        deadline: Instant,
    ) -> HashMap<u32, CodeLocation> {
        let places = self.places(fids, loader, deadline).await.unwrap_or_default();
        self.know_scripts(places.values().flatten().map(|(script, _, _)| script.as_str()), deadline).await;
        let store = self.locate.core.watch().store();
        places
            .into_iter()
            .filter_map(|(fid, place)| {
                let (script, line, column) = place?;
                let url = store.script_url(&script)?.to_owned();
                Some((fid, CodeLocation { url, line, column, function: String::new() }))
            })
            .collect()
    }

    /// Asks the page where the functions numbered `fids` are.
    async fn place(&self, fids: &[u32], deadline: Instant) -> Result<Vec<(u32, Option<Place>)>, BrowserError> {
        let ask = self.ask_function(false, deadline).await?;
        let take = CallFunctionOn {
            function_declaration: "function (fids) { return this({ take: fids }); }",
            object_id: Some(&ask),
            arguments: vec![CallArgument::Value { value: json!(fids) }],
            object_group: Some(NAMING_GROUP),
            ..CallFunctionOn::default()
        };
        let taken = self.locate.core.send(take, deadline).await?;
        let located = async {
            let array = taken.result.object_id.unwrap_or_default();
            let functions = self.locate.array_objects(&array, deadline).await?;
            let asked = functions.iter().map(|(_, function)| {
                self.locate.core.send(GetProperties { object_id: function, own_properties: true }, deadline)
            });
            let answers = join_all(asked).await;
            let mut out: Vec<(u32, Option<Place>)> = fids.iter().map(|fid| (*fid, None)).collect();
            for ((index, _), answer) in functions.iter().zip(answers) {
                let Ok(answer) = answer else { continue };
                let location =
                    answer.function_location().map(|l| (l.script_id.into(), l.line_number + 1, l.column_number + 1));
                if let Some(slot) = out.get_mut(*index) {
                    slot.1 = location;
                }
            }
            Ok::<_, BrowserError>(out)
        }
        .await;
        self.locate.core.send_detached(ReleaseObjectGroup { object_group: NAMING_GROUP });
        located
    }

    /// The ask function of the current document, made on first use (`again`: make it anew).
    async fn ask_function(&self, again: bool, deadline: Instant) -> Result<String, BrowserError> {
        let loader = self.locate.core.loader_id();
        let lister = &self.locate.locator.lister;
        if !again && let Some(kept) = lock(lister).as_ref().filter(|l| l.loader == loader && !l.ask.is_empty()) {
            return Ok(kept.ask.clone());
        }
        let make = Evaluate {
            expression: ReachAsk::SOURCE,
            object_group: Some(ASK_GROUP),
            silent: true,
            ..Evaluate::default()
        };
        let made = self.locate.core.send(make, deadline).await?;
        let ask = made
            .result
            .object_id
            .filter(|_| made.exception_details.is_none())
            .ok_or_else(|| BrowserError::HelperScript("reach_ask.js made no function".into()))?;
        let mut kept = lock(lister);
        match kept.as_mut().filter(|l| l.loader == loader) {
            Some(kept) => kept.ask = ask.clone(),
            None => *kept = Some(Lister { loader, ask: ask.clone(), named: HashMap::new() }),
        }
        Ok(ask)
    }

    /// Makes sure the URLs of the scripts `ids` are known (a listener's place names its script by
    /// id only). While the Debugger domain is off (on during a load, it costs the page's time) and
    /// one is not known, it is turned on for a moment, which replays every script's
    /// `scriptParsed`, with pauses skipped meanwhile. While on (the page's storage calls are
    /// followed, `watch::pauses`) every `scriptParsed` has come: one not yet applied is waited for.
    pub(in crate::browser::page) async fn know_scripts<'i>(
        &self,
        ids: impl IntoIterator<Item = &'i str>,
        deadline: Instant,
    ) {
        let core = self.locate.core;
        let unknown = {
            let store = core.watch().store();
            ids.into_iter().any(|id| !id.is_empty() && store.script_url(id).is_none())
        };
        if !unknown {
            return;
        }
        let on = core.debugger.lock().await;
        if on.debugger_on() || core.send(debugger::Enable {}, deadline).await.is_err() {
            return core.settle_events(deadline).await;
        }
        let _ = core.send(debugger::SetSkipAllPauses { skip: true }, deadline).await;
        core.settle_events(deadline).await;
        let _ = core.send(debugger::Disable {}, deadline).await;
        // Turning the Debugger off turns the async stack traces off too: back on.
        let _ = core.send(SetAsyncCallStackDepth { max_depth: ASYNC_DEPTH }, deadline).await;
    }
}
