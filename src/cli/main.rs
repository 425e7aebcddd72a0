//! `text-browser-cli`: the service for people at a terminal. Connects to `/rpc` over WebSocket,
//! opens a session (or joins one), prints the session's console errors, page errors and failed
//! requests in colour as they happen, and either runs a script of steps (one `session.run` per 50
//! steps) or reads commands at a REPL. The step language lives in `steps`, the REPL in `repl`.

mod connection;
mod live;
mod paint;
mod repl;
mod show;
mod steps;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use url::Url;

use connection::{Connection, for_session};
use paint::Paint;

/// `session.run` takes at most this many steps; longer scripts go in several runs.
const RUN_STEPS: usize = 50;

const USAGE: &str = "\
text-browser-cli — drive a text-browser session from a terminal

usage: text-browser-cli [options] [SCRIPT]

  SCRIPT          a file of steps, one per line (goto /projects, click e12, fill #name Alpha …)
                  or JSON ([{\"method\", \"params\"}]); `-` reads standard input. Without it: a REPL.
options:
  --url URL       the service (default $TEXT_BROWSER_URL, else http://127.0.0.1:3337)
  --key KEY       its API key (default $API_KEY)
  --session ID    use this open session (left open) instead of a new one (closed at the end)
  --base URL      resolve relative URLs (goto /projects) against this
  --keep          leave the session this run opens open (to come back with --session)
  --no-live       do not print the session's errors as they happen
  --fail-on-errors  a script also exits 1 when the page logged an error or a request failed
  --json          print results as the service's JSON (at the REPL, .json switches)
  -h, --help      this text

A script exits 0 when every step passed, 1 when one failed, 2 when it could not run.

Steps (in scripts and at the REPL; T is a ref from the last snapshot, e12, or a selector):
";

struct Options {
    url: String,
    key: Option<String>,
    session: Option<String>,
    base: Option<Url>,
    live: bool,
    keep: bool,
    fail_on_errors: bool,
    json: bool,
    script: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        url: std::env::var("TEXT_BROWSER_URL").unwrap_or_else(|_| "http://127.0.0.1:3337".into()),
        key: std::env::var("API_KEY").ok().filter(|k| !k.is_empty()),
        session: None,
        base: None,
        live: true,
        keep: false,
        fail_on_errors: false,
        json: false,
        script: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--url" => o.url = value("--url")?,
            "--key" => o.key = Some(value("--key")?),
            "--session" => o.session = Some(value("--session")?),
            "--base" => {
                let base = value("--base")?;
                o.base = Some(Url::parse(&base).map_err(|e| format!("--base {base}: {e}"))?);
            }
            "--no-live" => o.live = false,
            "--keep" => o.keep = true,
            "--fail-on-errors" => o.fail_on_errors = true,
            "--json" => o.json = true,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            script if o.script.is_none() => o.script = Some(script.to_owned()),
            extra => return Err(format!("one script at a time ({extra:?} is a second)")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(why) if why.is_empty() => {
            print!("{USAGE}{}", steps::forms_table());
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("{why}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    let paint = Paint::detect();
    let connection = match runtime.block_on(Connection::open(&options.url, options.key.as_deref())) {
        Ok(connection) => connection,
        Err(why) => {
            eprintln!("{}", paint.red(&why));
            return ExitCode::from(2);
        }
    };
    let (session, ours) = match &options.session {
        Some(id) => match runtime.block_on(connection.call("tabs.list", for_session(id, Map::new()))) {
            Ok(_) => (id.clone(), false),
            Err(err) => {
                eprintln!("{}", show::error(&err, paint));
                return ExitCode::from(2);
            }
        },
        None => match runtime.block_on(connection.call("session.create", Map::new())) {
            Ok(created) => (created["session_id"].as_str().unwrap_or_default().to_owned(), true),
            Err(err) => {
                eprintln!("{}", show::error(&err, paint));
                return ExitCode::from(2);
            }
        },
    };
    let note = match (ours, options.keep) {
        (false, _) => " (joined)".to_owned(),
        (true, true) => format!(" (left open: come back with --session {session})"),
        (true, false) => String::new(),
    };
    eprintln!("{}", paint.dim(&format!("session {session}{note}")));
    // The session this run opened is closed at its end, unless --keep.
    let ours = ours && !options.keep;

    let code = match &options.script {
        Some(path) => runtime.block_on(script(&connection, &session, path, &options, ours, paint)),
        None => {
            println!("{}", paint.dim("type .help for the commands, .quit to leave"));
            let settings =
                repl::Settings { ours, base: options.base.clone(), paint, json: options.json, live: options.live };
            repl::run(&runtime, &connection, &session, settings);
            ExitCode::SUCCESS
        }
    };
    runtime.shutdown_timeout(Duration::from_millis(200));
    code
}

/// Runs a script file as `session.run` calls; prints each step and the live errors.
async fn script(
    connection: &Connection,
    session: &str,
    path: &str,
    options: &Options,
    ours: bool,
    paint: Paint,
) -> ExitCode {
    let calls = match read_steps(path, options) {
        Ok(calls) => calls,
        Err(why) => {
            eprintln!("{}", paint.red(&why));
            return ExitCode::from(2);
        }
    };
    // The page's errors: printed as they happen, and counted for --fail-on-errors.
    let errors = Arc::new(AtomicUsize::new(0));
    let follower = if options.live || options.fail_on_errors {
        follow_errors(connection, session, options.live, paint, errors.clone()).await
    } else {
        None
    };
    let mut code = ExitCode::SUCCESS;
    let live_note = if options.live { " (the page's errors print as they happen)" } else { "" };
    println!("{}", paint.dim(&format!("running {} steps{live_note}…", calls.len())));
    for chunk in calls.chunks(RUN_STEPS) {
        let steps: Vec<Value> = chunk.iter().map(steps::Call::as_step).collect();
        let mut params = Map::new();
        params.insert("steps".into(), json!(steps));
        match connection.call("session.run", for_session(session, params)).await {
            Ok(ran) => {
                if options.json {
                    println!("{}", serde_json::to_string_pretty(&ran).unwrap_or_default());
                } else {
                    print!("{}", show::run(&ran, paint));
                }
                if ran["results"].as_array().is_some_and(|r| r.iter().any(|step| step["ok"] != true)) {
                    code = ExitCode::from(1);
                    break;
                }
            }
            Err(err) => {
                println!("{}", show::error(&err, paint));
                code = ExitCode::from(1);
                break;
            }
        }
    }
    live::finish(connection, session, ours, follower).await;
    let seen = errors.load(Ordering::Relaxed);
    if options.fail_on_errors && seen > 0 && code == ExitCode::SUCCESS {
        println!("{}", paint.red(&format!("✖ the page had {seen} errors (--fail-on-errors)")));
        code = ExitCode::from(1);
    }
    code
}

/// The script's steps as `session.run` calls, or why there are none (for stderr).
fn read_steps(path: &str, options: &Options) -> Result<Vec<steps::Call>, String> {
    let text = if path == "-" { std::io::read_to_string(std::io::stdin()) } else { std::fs::read_to_string(path) };
    let text = text.map_err(|e| format!("cannot read {path}: {e}"))?;
    match steps::parse_script(&text, options.base.as_ref()) {
        Ok(calls) if calls.is_empty() => Err(format!("{path} has no steps")),
        Ok(calls) => Ok(calls),
        Err(why) => Err(format!("{path}: {why}")),
    }
}

/// Follows the page's errors, counting them into `errors` and printing them when `print`; the
/// task that does it, when the subscription was made.
async fn follow_errors(
    connection: &Connection,
    session: &str,
    print: bool,
    paint: Paint,
    errors: Arc<AtomicUsize>,
) -> Option<tokio::task::JoinHandle<()>> {
    match connection.subscribe(for_session(session, repl::only_errors())).await {
        Ok(events) => {
            let follow = live::follow(events, paint, errors, move |line| {
                if print {
                    println!("{line}");
                }
            });
            Some(tokio::spawn(follow))
        }
        Err(err) => {
            eprintln!("{}", show::error(&err, paint));
            None
        }
    }
}
