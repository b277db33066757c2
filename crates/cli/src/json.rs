//! The `verify --json` report, written by hand: one small fixed schema needs no serde.

use syncopt_ir::Diagnostic;

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn loc(l: Option<syncopt_ir::Loc>) -> String {
    match l {
        Some(l) => format!("{{\"line\":{},\"col\":{}}}", l.line, l.col),
        None => "null".into(),
    }
}

/// `{"file":..., "kernels":N, "ok":bool, "problems":[{kernel, severity, loc, message, notes}]}`
pub fn report(file: &str, kernels: usize, diags: &[(String, Diagnostic)]) -> String {
    let ok = !diags.iter().any(|(_, d)| d.is_error());
    let mut s = format!(
        "{{\"file\":{},\"kernels\":{kernels},\"ok\":{ok},\"problems\":[",
        esc(file)
    );
    for (i, (k, d)) in diags.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "{{\"kernel\":{},\"severity\":{},\"loc\":{},\"message\":{},\"notes\":[",
            esc(k),
            esc(d.severity.as_str()),
            loc(d.loc),
            esc(&d.message)
        ));
        for (j, (l, n)) in d.notes.iter().enumerate() {
            if j > 0 {
                s.push(',');
            }
            s.push_str(&format!("{{\"loc\":{},\"message\":{}}}", loc(*l), esc(n)));
        }
        s.push_str("]}");
    }
    s.push_str("]}\n");
    s
}
