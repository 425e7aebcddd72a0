//! The `text-browser` binary: flags, configuration, logging, then the application until a signal.

use std::process::ExitCode;

use text_browser::config::{self, Config};
use text_browser::startup::{self, Application};
use text_browser::{rpc, telemetry};

fn main() -> ExitCode {
    if let Some(arg) = std::env::args().nth(1) {
        return answer(&arg);
    }
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("text-browser: configuration error: {err}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(config.log_format);
    if config.api_key_generated {
        eprintln!(
            "WARNING: API_KEY is not set; generated a key for this run only. Send it as the x-api-key header:\n  {}",
            config.api_key.expose()
        );
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("text-browser: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let app = match Application::build(config).await {
            Ok(app) => app,
            Err(err) => {
                tracing::error!(error = %err, "start-up failed");
                eprintln!("text-browser: start-up failed: {err}");
                return ExitCode::FAILURE;
            }
        };
        match app.run_until_stopped(startup::shutdown_signal()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                tracing::error!(error = %err, "server error");
                ExitCode::FAILURE
            }
        }
    })
}

/// What a flag asks for (help, version, the derived documents), printed without starting.
fn answer(arg: &str) -> ExitCode {
    match arg {
        "-h" | "--help" => {
            print!("{}", config::help_text());
            ExitCode::SUCCESS
        }
        "-V" | "--version" => {
            println!("text-browser {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        "--openrpc" => {
            print!("{}", rpc::openrpc::file_text(&rpc::openrpc::document(&rpc::all_methods())));
            ExitCode::SUCCESS
        }
        "--chromium-flags" => {
            // What to start a pool browser with (BROWSER_WS_ENDPOINT): the flags we launch with.
            for flag in text_browser::browser::Chromium::recommended_args(true) {
                println!("{flag}");
            }
            ExitCode::SUCCESS
        }
        "--mcp-tools" => {
            let methods = rpc::all_methods();
            let toolbox = text_browser::mcp::Toolbox::new(&methods, &rpc::openrpc::document(&methods));
            println!("{}", serde_json::json!({ "tools": toolbox.tools }));
            ExitCode::SUCCESS
        }
        "--agent-instructions" => match rpc::instructions::markdown(&rpc::all_methods()) {
            Ok(block) => {
                print!("{block}");
                ExitCode::SUCCESS
            }
            Err(why) => {
                eprintln!("text-browser: {why}");
                ExitCode::FAILURE
            }
        },
        "--readme-methods" => {
            print!("{}", rpc::reference::markdown(&rpc::all_methods()));
            ExitCode::SUCCESS
        }
        other => {
            eprintln!(
                "text-browser: unknown argument {other:?}; configuration is by environment variables (see --help)"
            );
            ExitCode::from(2)
        }
    }
}
