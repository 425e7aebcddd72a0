//! Colour for the terminal: ANSI styles when the output is a terminal and `NO_COLOR` is unset
//! (<https://no-color.org>), plain text otherwise (pipes, files, CI logs).

use std::io::IsTerminal;

#[derive(Debug, Clone, Copy)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// Colour on when stdout is a terminal and NO_COLOR is not set.
    pub fn detect() -> Self {
        Self { on: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) }
    }

    /// No colour at all.
    #[cfg(test)]
    pub fn plain() -> Self {
        Self { on: false }
    }

    pub fn red(self, text: &str) -> String {
        self.style("1;31", text)
    }

    pub fn yellow(self, text: &str) -> String {
        self.style("33", text)
    }

    pub fn green(self, text: &str) -> String {
        self.style("32", text)
    }

    pub fn dim(self, text: &str) -> String {
        self.style("2", text)
    }

    fn style(self, code: &str, text: &str) -> String {
        if self.on { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }
}
