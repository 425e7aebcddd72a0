//! The REPL: a line editor (rustyline) with history kept across runs, tab completion of the step
//! forms, method names and the refs of the last snapshot, `.help`; each line is one call, its
//! result printed as text. Live errors print above the prompt as they happen.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, ExternalPrinter, Helper};
use serde_json::{Map, Value};
use tokio::runtime::Runtime;
use url::Url;

use crate::connection::{Connection, for_session};
use crate::paint::Paint;
use crate::{live, show, steps};

/// What completion offers: the step verbs, the service's methods, the refs of the last snapshot.
#[derive(Default)]
struct Completions {
    words: Vec<String>,
    refs: Arc<Mutex<Vec<String>>>,
}

impl Completer for Completions {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &before[start..];
        let found: Vec<String> = if start == 0 {
            self.words.iter().filter(|w| w.starts_with(word)).cloned().collect()
        } else {
            let refs = self.refs.lock().unwrap_or_else(|p| p.into_inner());
            refs.iter().filter(|r| r.starts_with(word)).cloned().collect()
        };
        Ok((start, found))
    }
}

impl Hinter for Completions {
    type Hint = String;
}

impl Highlighter for Completions {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, _: bool) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Validator for Completions {}
impl Helper for Completions {}

/// `.help`: the dot commands and the step forms.
pub fn help() -> String {
    let mut out =
        String::from("Each line is one call on the session; T is a ref from the last snapshot (e12) or a selector.\n");
    out.push_str(&steps::forms_table());
    out.push_str("  .session                                         this session's id\n");
    out.push_str("  .json                                            results as the service's JSON (again: as text)\n");
    out.push_str("  .help | .quit                                    this help | close the session and leave\n");
    out.push_str(
        "Tab completes verbs, method names and refs; ↑ recalls earlier lines (kept in ~/.text-browser-history).\n",
    );
    out
}

/// How the REPL behaves, from the command line.
pub struct Settings {
    /// The session is the CLI's own: closed at the end, after which the live errors still on their
    /// way are printed (the feed ends once the session is closed, after its last event).
    pub ours: bool,
    /// For relative URLs until a page says where it is.
    pub base: Option<Url>,
    pub paint: Paint,
    /// Results as the service's JSON rather than as text (`.json` switches).
    pub json: bool,
    /// Print the page's errors as they happen.
    pub live: bool,
}

/// Reads lines until `.quit` or end of input.
pub fn run(runtime: &Runtime, connection: &Connection, session: &str, settings: Settings) {
    let Settings { ours, mut base, paint, mut json, live } = settings;
    let words = completion_words(runtime, connection);
    let refs = Arc::new(Mutex::new(Vec::new()));
    let Ok(mut editor) = Editor::<Completions, FileHistory>::new() else {
        eprintln!("cannot open the terminal for the REPL");
        return;
    };
    editor.set_helper(Some(Completions { words, refs: refs.clone() }));
    let history = std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".text-browser-history"));
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }

    let follower = if live { follow_errors(runtime, connection, session, paint, &mut editor) } else { None };

    loop {
        let line = match editor.readline("tb> ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(_) => break,
        };
        let command = line.trim();
        if command.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(command);
        match command {
            ".quit" | ".exit" => break,
            ".help" => {
                print!("{}", help());
                continue;
            }
            ".json" => {
                json = !json;
                println!("{}", paint.dim(if json { "results as JSON" } else { "results as text" }));
                continue;
            }
            ".session" => {
                println!("{session}");
                continue;
            }
            _ => {}
        }
        let call = match steps::parse_line(command, base.as_ref()) {
            Ok(Some(call)) => call,
            Ok(None) => continue,
            Err(why) => {
                println!("{}", paint.red(&why));
                continue;
            }
        };
        let params = if call.method == "rpc.discover" { call.params } else { for_session(session, call.params) };
        match runtime.block_on(connection.call(&call.method, params)) {
            Ok(value) => {
                if call.method == "page.snapshot" {
                    *refs.lock().unwrap_or_else(|p| p.into_inner()) = show::refs(&value);
                }
                if let Some(url) = show::page_url(&value).and_then(|u| Url::parse(u).ok()) {
                    base = Some(url);
                }
                if json {
                    println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
                } else {
                    print!("{}", show::result(&value, paint));
                }
            }
            Err(err) => println!("{}", show::error(&err, paint)),
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    drop(editor);
    runtime.block_on(live::finish(connection, session, ours, follower));
}

/// What the prompt completes: the steps, the service's methods and the REPL's own commands.
fn completion_words(runtime: &Runtime, connection: &Connection) -> Vec<String> {
    let mut words: Vec<String> = steps::VERBS.iter().map(|v| (*v).to_owned()).collect();
    words.extend(runtime.block_on(connection.method_names()));
    words.extend([".help", ".session", ".json", ".quit"].map(str::to_owned));
    words.sort();
    words.dedup();
    words
}

/// Prints the page's errors above the prompt as they happen (plainly when there is no terminal to
/// share); the task that does it, when the subscription was made.
fn follow_errors(
    runtime: &Runtime,
    connection: &Connection,
    session: &str,
    paint: Paint,
    editor: &mut Editor<Completions, FileHistory>,
) -> Option<tokio::task::JoinHandle<()>> {
    let events = runtime.block_on(connection.subscribe(for_session(session, only_errors()))).ok()?;
    Some(match editor.create_external_printer() {
        Ok(mut printer) => runtime.spawn(live::follow(events, paint, Default::default(), move |line| {
            let _ = printer.print(format!("{line}\n"));
        })),
        Err(_) => runtime.spawn(live::follow(events, paint, Default::default(), |line| println!("{line}"))),
    })
}

/// `events.subscribe` params for errors only.
pub fn only_errors() -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("onlyErrors".into(), Value::Bool(true));
    params
}
