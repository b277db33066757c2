//! The verifier's diagnostics on the first kernel of a source text, as strings: the message,
//! then its notes (so a test can look for either).

use syncopt_targets::Target;

pub fn problems_on(src: &str, t: Target) -> Vec<String> {
    let file = syncopt_ir::parse(src).expect("parses");
    let k = &file.chunks[0].kernels[0];
    syncopt_verify::verify(k, t)
        .diagnostics
        .iter()
        .map(|d| {
            let notes: Vec<&str> = d.notes.iter().map(|n| n.1.as_str()).collect();
            format!("{} [{}]", d.message, notes.join("; "))
        })
        .collect()
}
