//! text-browser-cli against the fixtures: a script of short steps runs as `session.run` and
//! prints a line per step and the page's errors as they happen; a failing step exits 1 with its
//! kind and remediation; the REPL transcript in the README is what the REPL prints.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::helpers::{API_KEY, fixtures, shared};

/// The CLI pointed at the shared service, without colour, its history kept out of $HOME.
fn cli(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_text-browser-cli"));
    command
        .args(["--url", &shared().rpc_url(), "--key", API_KEY])
        .args(args)
        .env("NO_COLOR", "1")
        .env("HOME", env!("CARGO_TARGET_TMPDIR"));
    command
}

fn run_with_input(mut command: Command, input: &str) -> Output {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the CLI starts");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_example_script_runs_its_steps_and_prints_the_pages_errors_as_they_happen() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/client-examples/cli/new-project.tb");
    let output = cli(&["--base", fixtures(), script]).output().expect("the CLI runs");
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", text(&output.stderr));
    let steps: Vec<&str> =
        stdout.lines().filter(|l| l.starts_with('✓')).map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(steps, ["page.goto", "assert.text", "page.click", "page.fill", "assert.text", "page.text"], "{stdout}");
    assert!(
        stdout.contains("✓ page.text ") && stdout.contains("\n    New project: Alpha\n"),
        "the text step shows what it read: {stdout}"
    );
    let failed_request = format!("✖ network   GET {}/api/fail → 500", fixtures());
    assert!(stdout.contains(&failed_request), "the page's failed request, live: {stdout}");
    assert!(stdout.contains("✖ console   failed to load /api/fail: HTTP 500  (/projects/:29:26)"), "{stdout}");
    assert!(stdout.contains("live events ended: the session is closed"), "its own session is closed: {stdout}");
    assert!(text(&output.stderr).starts_with("session "), "it names its session");
}

#[test]
fn a_failing_step_exits_1_with_its_kind_and_remediation_and_bad_input_exits_2() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let script = format!("{dir}/declined.json");
    let steps = serde_json::json!([
        { "method": "page.goto", "params": { "url": format!("{}/invoices/view.html?id=17", fixtures()) } },
        { "method": "assert.text", "params": { "selector": "#status", "text": "Declined", "timeout": 1500 } },
        { "method": "page.text" }
    ]);
    std::fs::write(&script, steps.to_string()).unwrap();
    let output = cli(&["--no-live", &script]).output().unwrap();
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("✖ assert.text: ") && stdout.contains("[assertion_failed]"), "{stdout}");
    assert!(stdout.contains("\n  → "), "the remediation: {stdout}");
    assert!(stdout.contains("1 step skipped"), "{stdout}");
    assert!(!stdout.contains("✖ pageerror"), "--no-live prints no live events: {stdout}");

    let bad = run_with_input(cli(&["-"]), "goto http://127.0.0.1:1/\nfill #name\n");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("-: line 2: fill needs a target and a value: fill #name Alpha"),
        "{}",
        text(&bad.stderr)
    );

    let gone = cli(&["--session", "0123456789abcdef", &script]).output().unwrap();
    assert_eq!(gone.status.code(), Some(2));
    assert!(text(&gone.stderr).contains("[session_not_found]"), "{}", text(&gone.stderr));

    let mut wrong_key = Command::new(env!("CARGO_BIN_EXE_text-browser-cli"));
    wrong_key.args(["--url", &shared().rpc_url(), "--key", "wrong", &script]);
    let refused = wrong_key.output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("is the key right?"), "{}", text(&refused.stderr));
}

#[tokio::test]
async fn a_step_shows_what_it_sent_and_read_and_fail_on_errors_fails_a_run_the_page_broke() {
    let script = format!("{}/checkout.tb", env!("CARGO_TARGET_TMPDIR"));
    let steps = "goto /order/\nfill #quantity 2\nclick \"role=button[name=\\\"Place order\\\"]\"\ntext #order-status\n";
    std::fs::write(&script, steps).unwrap();
    let output = cli(&["--base", fixtures(), "--fail-on-errors", "--keep", &script]).output().unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "every step passed, but the page broke: {stdout}");
    assert!(stdout.contains(r#"↳ POST /api/orders {"product":"sku-42","quantity":2} → 422"#), "what it sent: {stdout}");
    assert!(stdout.contains("    > 24 |   showConfirmation(data.order.id);"), "the failing line: {stdout}");
    assert!(stdout.contains("✓ page.text ") && stdout.contains("\n    Placing your order…\n"), "{stdout}");
    assert!(stdout.contains("errors (--fail-on-errors)"), "{stdout}");
    // --keep left the session open, and says how to come back to it.
    let kept = stderr.split("--session ").nth(1).expect("the session it kept").trim().trim_end_matches(')').to_owned();
    let svc = shared();
    let tabs = svc.ok("tabs.list", serde_json::json!({ "session_id": kept })).await;
    assert!(tabs["tabs"][0]["url"].as_str().unwrap().ends_with("/order/"), "{tabs}");
    svc.ok("session.close", serde_json::json!({ "session_id": kept })).await;
}

/// The README's REPL transcript: (lines typed after `tb> `, every other line after the command).
fn readme_transcript() -> (Vec<String>, Vec<String>) {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("<!-- repl: begin -->").expect("the README marks its REPL transcript");
    let end = readme.find("<!-- repl: end -->").expect("the transcript's end marker");
    let block = readme[start..end].split("```text\n").nth(1).expect("a text block").split("```").next().unwrap();
    let (mut typed, mut printed) = (Vec::new(), Vec::new());
    // The command line and the session id (on stderr, and new each time) are not compared.
    for line in block.lines().skip(2) {
        let line = line.replace("http://127.0.0.1:3338", fixtures());
        match line.strip_prefix("tb> ") {
            Some(input) => typed.push(input.to_owned()),
            None => printed.push(line),
        }
    }
    (typed, printed)
}

#[test]
fn the_repl_prints_what_the_readme_transcript_shows() {
    let (typed, printed) = readme_transcript();
    assert!(typed.len() >= 4 && printed.len() >= 8, "a transcript worth the name");
    let output = run_with_input(cli(&[]), &(typed.join("\n") + "\n"));
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", text(&output.stderr));
    let got: Vec<&str> = stdout.lines().collect();
    // Live events come from another task, so they are only required somewhere; every other line
    // must come in the transcript's order.
    let is_live = |l: &str| l.starts_with("✖ ") || l.starts_with("· ");
    let (live, answers): (Vec<&String>, Vec<&String>) = printed.iter().partition(|l| is_live(l));
    for line in &live {
        assert!(got.contains(&line.as_str()), "the live event {line:?} was printed:\n{stdout}");
    }
    // Times differ from run to run: "88 ms" and "+16" read as "N ms" and "+N" on both sides.
    let ms = regex::Regex::new(r"\d+ ms|\+\d+").unwrap();
    let timeless = |l: &str| ms.replace_all(l, "N").into_owned();
    let answered: Vec<String> = got.iter().copied().filter(|l| !is_live(l)).map(timeless).collect();
    let expected: Vec<String> = answers.iter().map(|l| timeless(l)).collect();
    assert_eq!(answered, expected, "the REPL printed:\n{stdout}");
}

#[test]
fn at_the_repl_an_error_the_page_logs_while_the_prompt_waits_is_printed_above_it() {
    // A pseudo-terminal typed into key by key (tests/cli/live_above_prompt.py, Python's stdlib).
    let output = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/live_above_prompt.py"))
        .args([env!("CARGO_BIN_EXE_text-browser-cli"), &shared().rpc_url(), API_KEY, fixtures()])
        .env("TMPDIR", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .expect("python3 runs");
    if !output.status.success() {
        // What the service logged about the session, to tell a slow machine from a bug.
        let said = text(&output.stderr);
        let session = said.split("session ").nth(1).and_then(|s| s.get(..32)).unwrap_or("?").to_owned();
        let logged: Vec<String> = shared().logs().lines().filter(|l| l.contains(&session)).map(str::to_owned).collect();
        panic!("{}{said}\nthe service's lines about {session}:\n{}", text(&output.stdout), logged.join("\n"));
    }
}
