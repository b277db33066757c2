//! Diagnostics in the `file:line:col: severity: message` form compilers use, with the source
//! line and a caret under the column.

use crate::kernel::Loc;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: Option<Loc>,
    pub message: String,
    /// Secondary locations: the other access of a race, a trace step, a hint.
    pub notes: Vec<(Option<Loc>, String)>,
}

impl Diagnostic {
    pub fn error(loc: Option<Loc>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    pub fn warning(loc: Option<Loc>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    pub fn with_note(mut self, loc: Option<Loc>, note: impl Into<String>) -> Self {
        self.notes.push((loc, note.into()));
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic against `source` (the whole file) under the name `file`.
    pub fn render(&self, file: &str, source: &str) -> String {
        let lines: Vec<&str> = source.lines().collect();
        self.render_lines(file, &lines)
    }

    /// As `render`, with the file already split into lines: a report of many diagnostics
    /// splits the file once instead of scanning it per diagnostic.
    pub fn render_lines(&self, file: &str, lines: &[&str]) -> String {
        let mut out = String::new();
        render_line(
            &mut out,
            file,
            lines,
            self.loc,
            self.severity.as_str(),
            &self.message,
        );
        for (loc, note) in &self.notes {
            render_line(&mut out, file, lines, *loc, "note", note);
        }
        out
    }
}

fn render_line(
    out: &mut String,
    file: &str,
    lines: &[&str],
    loc: Option<Loc>,
    sev: &str,
    msg: &str,
) {
    use std::fmt::Write;
    match loc {
        Some(l) => {
            let _ = writeln!(out, "{file}:{}:{}: {sev}: {msg}", l.line, l.col);
            if let Some(text) = lines.get(l.line.saturating_sub(1) as usize) {
                let _ = writeln!(out, "  {text}");
                let pad: String = text
                    .chars()
                    .take(l.col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(out, "  {pad}^");
            }
        }
        None => {
            let _ = writeln!(out, "{file}: {sev}: {msg}");
        }
    }
}
